// RISE: recycling SP idle time for soft-error detection (Tan dissertation
// Ch3, PACT'12; spec 000 §1). One per SM. It decides which SP instructions
// run twice; the SM (core_rise.cpp) runs the copy on the same operands,
// compares it with the original's result at writeback and, on a mismatch,
// runs a third copy and writes the majority.
//   Full-RISE: a redundant copy of the whole warp instruction issues in the
//     next cycle on the same SP unit (it takes its scheduler's issue slot and
//     the unit's next initiation interval; its operand reads count as RF
//     reads). Which instructions:
//     RP-FRISE (§3.1.1.1, Eq. 3.1): a memory response carries the time its
//       request waited in the DRAM controller's queue (T_P); with the SM's
//       sampled access latency T_acc it sets the block's counter to
//       RC x warps, RC = 0 if T_P <= T_thr, T_acc * T_P >> 7 if T_acc < 128,
//       else T_P; while the counter is above 0 each issue of the block's
//       warps runs a copy and decrements it. A counter above 0 ignores new RCs.
//     IS-FRISE (§3.1.1.2): at launch q = blocks / SMs, r = the remainder;
//       r SMs (drawn by rise.seed and the launch) are predicted to run q + 1
//       blocks, the others run every instruction of their q-th block twice.
//     rise.duplicate_all: every instruction twice (the paper's full
//       redundancy, 58% slower).
//   Partial-RISE (§3.1.2): no extra issue. A warp with at most 16 live
//     threads runs a copy of its lanes in its idle lanes; a diverged warp i
//     runs, in its idle lanes, the lanes of a ready warp j of its scheduler
//     whose next instruction is at the same PC (no lane conflict: only j's
//     lanes where i is idle), and j's instruction, if it issues within
//     rise.pair_window cycles, compares those lanes. Warps in Full-RISE mode
//     are not paired.
// SP AVF (ACE analysis): every executed lane of an instruction that computes
// lane results on the SP units (ALU, moves, conversions, cross-lane ops) is
// ACE for the unit's initiation interval; a lane whose result a copy checks
// is not. Control instructions carry no lane result (their predicate was an
// SP result before) and are not counted. The chip's SP lane-cycles are every
// SM's lanes over the launch.
// Choices (the paper is silent): T_thr, T_acc's sampling period and the
// recovery penalty are keys; T_P counts DRAM cycles from the request's
// arrival in the queue to its column command; the RC counter is per CTA
// slot and a response is routed to the CTA of the warp that sent it; the
// compare happens at the original's writeback (which waits for the copy if
// the copy ends later); the output buffer's capacity and the thread-to-lane
// shuffle are not modelled; pairing is decided when the diverged warp
// dispatches (the paper: at its writeback).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"

namespace relgpu::sm {

inline const config::Key<bool> kRiseEnable{
    "rise.enable", false, "",
    "RISE (Tan Ch3): SP instructions run twice in idle issue slots and idle lanes and are compared at "
    "writeback; also counts the SP AVF (with every mechanism below off it only counts)"};
inline const config::Key<bool> kRiseRp{"rise.request_pending", true, "",
                                       "RP-FRISE: a block whose memory request waited in the DRAM queue runs "
                                       "its warps' next RC x warps instructions twice (Eq. 3.1)"};
inline const config::Key<bool> kRiseIs{"rise.idle_sm", true, "",
                                       "IS-FRISE: SMs predicted to run one block fewer run every instruction of "
                                       "their last predicted block twice"};
inline const config::Key<bool> kRisePartial{"rise.partial", true, "",
                                            "Partial-RISE: copies in idle lanes (warps of <= 16 threads, and "
                                            "diverged warps paired with a ready warp at the same PC)"};
inline const config::Key<bool> kRiseAll{"rise.duplicate_all", false, "",
                                        "every SP instruction runs twice (full redundancy, the paper's 58% "
                                        "slower bound); the other mechanisms are then moot"};
inline const config::Key<int64_t> kRiseRefLatency{
    "rise.ref_latency", 128, "cycles", "T_ref_lat of Eq. 3.1 (the paper's best, 2^7)", 1, 1 << 20};
inline const config::Key<int64_t> kRisePendThreshold{
    "rise.pend_threshold", 16, "DRAM cycles",
    "T_thr_pend of Eq. 3.1: a wait at or below it gives RC = 0 (the paper gives no value; ours)", 0, 1023};
inline const config::Key<int64_t> kRiseSamplePeriod{
    "rise.sample_period", 1000, "cycles",
    "T_acc_lat is the round-trip latency of the first DRAM-served response after each period boundary "
    "(the paper samples periodically and gives no period; ours)", 1, 1 << 30};
inline const config::Key<int64_t> kRiseRecovery{
    "rise.recovery_cycles", 20, "cycles",
    "a detected mismatch re-fetches the warp's PC: its issue waits this long (the paper gives no figure; ours)",
    0, 100000};
inline const config::Key<int64_t> kRisePairWindow{
    "rise.pair_window", 2, "cycles",
    "Partial-RISE: a paired warp's instruction compares its copied lanes if it issues within this many cycles "
    "(the paper: the following cycle)", 1, 1000};
inline const config::Key<std::string> kRisePairScope{
    "rise.pair_scope", "scheduler", "",
    "Partial-RISE: where a diverged warp looks for a partner: the ready warps of its own scheduler (the "
    "paper's comparators sit in the warp scheduler) or of the whole SM (ablation)",
    std::vector<std::string>{"scheduler", "sm"}};
inline const config::Key<int64_t> kRiseSeed{"rise.seed", 1, "",
                                            "IS-FRISE: seed of the draw of the r SMs predicted to run q + 1 blocks",
                                            0, 1e18};

// Chip-wide ratios from the summed counters (gpu/stats.cpp): sp_avf,
// sp_utilization, protected_fraction.
void derive_rise(config::json& r);

class Rise {
 public:
  enum class Why : uint8_t { none, all, idle_sm, pending, intra, pair };
  Rise(unsigned sm, const config::Config& cfg);

  bool partial() const { return partial_; }
  void begin_launch(uint64_t blocks, unsigned num_sms, uint64_t launch);
  void cta_added(unsigned slot, unsigned warps);
  // A memory response for CTA slot `slot`: waited `pending` DRAM cycles in
  // the controller (0: served by a cache), `latency` SM cycles round trip.
  void response(unsigned slot, uint32_t pending, uint64_t latency, uint64_t now);
  // A duplicable SP instruction of CTA slot `slot` issues: why a full copy
  // follows it (none: no copy).
  Why full_copy(unsigned slot);
  // The block is in Full-RISE mode (its warps are not paired).
  bool full_mode(unsigned slot) const {
    return all_ || (slot < blocks_.size() && (blocks_[slot].fixed || blocks_[slot].counter));
  }

  // ---- counters the SM adds to ----
  struct Stats {
    uint64_t sp_insn = 0, sp_lane_cycles = 0, ace_lane_cycles = 0, protected_lane_cycles = 0;
    uint64_t busy_unit_cycles = 0, partly_idle_unit_cycles = 0;  // unit-cycles with all / some lanes idle
    uint64_t copies[6] = {};        // by Why: instructions with a copy
    uint64_t copy_lane_cycles = 0;  // lane-cycles the copies took
    // pairings: set up, checked by the partner's instruction, and not (it issued too late, another
    // instruction first, or under Full-RISE)
    uint64_t pairs_set = 0, pairs_used = 0, pairs_expired = 0;
    // diverged instructions that looked for a partner, and those that found a ready warp at the same PC
    // (before the lane-conflict test; §3.1.2: over 50%, 16% without a conflict)
    uint64_t pair_searches = 0, pair_same_pc = 0;
    uint64_t pair_same_pc_any = 0;  // ... a warp at the same PC, ready or not
    uint64_t rc_set = 0, rc_sum = 0, is_blocks = 0;
    uint64_t compared = 0, mismatches = 0, recovered_lanes = 0, recovery_cycles = 0;
  } st;
  config::json stats(unsigned sp_units) const;

 private:
  struct Block { uint64_t counter = 0; unsigned warps = 0; bool fixed = false; };
  bool rp_, is_, partial_, all_;
  unsigned sm_;
  uint64_t ref_, thr_, period_, seed_;
  std::vector<Block> blocks_;
  uint64_t q_ = 0, received_ = 0;
  bool is_sm_ = false;
  uint64_t t_acc_ = 0, next_sample_ = 0;
};

}  // namespace relgpu::sm
