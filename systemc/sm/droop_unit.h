// The local droop predictor in the SM's issue path (Leng thesis §4.5, spec
// 004 §5.1): one droop_predictor block per SM (blocks/droop_predictor,
// through blocks::make so --rtl swaps in the RTL and --rtl-check runs both),
// clocked once per SM cycle with the cycle's CANDIDATE events:
//  - n_int/fp/sfu/ldst: the warp instructions the schedulers picked to issue
//    this cycle (Core::select_issue), by class;
//  - n_rf_rd: the operand-collector reads the bank arbiter would grant this
//    cycle, n_rf_wr: the writebacks done this cycle, both in 1024-bit warp
//    registers (one thesis bank access; rf.entry_bits / 1024 banks each).
// Its outputs act in the same cycle (the block is Mealy):
//  - throttle_dispatch_o: issue at most smoothing.local.dispatch_width of the
//    candidates (scheduler order; default 1, "drop by 1": see the keys); the
//    others stay ready and retry next cycle;
//  - throttle_rf_o: no operand-collector bank read this cycle.
// The block records the candidate power, not the reduced set (its header).
//
// Start-up: before the first launch's first cycle the SM writes the block's
// ten CSRs (one per block clock, zero counts): the six weights, T2..T4 and the
// throttle mask, from smoothing.local.*. Weights "auto" are the chip power
// model's per-event energies at Vnom (power/chip_keys.h: power.int_nj ..
// power.ldst_nj; power/rf_energy.h: power.rf.read_nj / write_nj per 1024-bit
// access) in units of LSB = Pmax_SM / 1024, where Pmax_SM is the estimate's
// full scale: every count at its port maximum (2^cnt_width - 1 instructions of
// each class, 2^rf_cnt_width - 1 reads and writes). Rounded to nearest; a
// weight beyond blocks.droop_predictor.weight_width bits is an input error.
// The thresholds' defaults are trained (scripts/train_droop.py), see the keys.
//
// Cycles whose counts are all zero are not clocked: their outputs are zero
// whatever the state (0 > hist + T never holds), and their only effect, a 0
// pushed into the history, is replayed (at most hist_depth - 1 zeros) before
// the next non-zero cycle. So the block behaves as if clocked every SM cycle.
// Every statistic comes from the block's outputs and this unit's inputs.
#pragma once
#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include "blocks/instance.h"
#include "common/config.h"
#include "sm/activity.h"
#include "sm/issue_gate.h"

namespace relgpu::sm {

inline const config::Key<bool> kLocalEnable{
    "smoothing.local.enable", false, "",
    "local droop predictor in every SM (sm/droop_unit.h): its throttle outputs defer issue and RF reads "
    "(excludes bot.enable and grguard.enable, which own the RF arbitration)"};
inline const config::Key<std::string> kLocalWeights{
    "smoothing.local.weights", "auto", "power LSB",
    "the six CSR weights W_int,W_fp,W_sfu,W_ldst,W_rf_rd,W_rf_wr written at start-up: 'auto' = the power "
    "model's per-event energies in LSB = Pmax_SM/1024 (sm/droop_unit.h), or six integers"};
// T2..T4: trained by scripts/train_droop.py (docs/results/droop_training.md):
// every workload at its default size, the size every campaign runs, on
// configs/gtx480.json with the PDN: 14,967 large (> 8%) and 6.5 M small (2-8%)
// local first-order droops; the point of the Pareto front nearest the thesis's
// FN 7% / FP 9% is FN 14.6%, FP 28.4%. (At small size there are 61 large
// droops, 56 of them in bfs: docs/results/droop_training_small_size.json.)
// Retrain when the weights, the power model or the PDN change (the ctest
// correlation_gpuwattch checks them against the training).
inline const config::Key<int64_t> kLocalThr2{
    "smoothing.local.thr2", 83, "power LSB",
    "T2: predict a droop when the candidate power exceeds last cycle's by more than this (trained: "
    "scripts/train_droop.py, docs/results/droop_training.md)", 0, 4095};
inline const config::Key<int64_t> kLocalThr3{
    "smoothing.local.thr3", 83, "power LSB",
    "T3: the same against 2 cycles back (trained with T2)", 0, 4095};
inline const config::Key<int64_t> kLocalThr4{
    "smoothing.local.thr4", 83, "power LSB",
    "T4: the same against 3 cycles back (trained with T2)", 0, 4095};
// Actuator defaults (the thesis gives no throttle amount): issue one warp
// instruction instead of none, RF reads untouched. Measured in
// docs/results/smoothing.md (default size, trained thresholds): throttling
// issue to 0 with the RF reads steps the SM's current down and up within two
// cycles and raises the worst droop (geomean +6.4%); width 1 on dispatch
// lowers it 6.4% at +0.26% cycles; width 1 with the RF reads off, 7.6% at
// +1.45%.
inline const config::Key<std::string> kLocalThrottle{
    "smoothing.local.throttle", "dispatch", "",
    "which actuators the block's mask CSR enables: dispatch (defer issue, the default), rf (defer operand reads) "
    "or both (docs/results/smoothing.md measures each)",
    std::vector<std::string>{"both", "dispatch", "rf"}};
inline const config::Key<int64_t> kLocalWidth{
    "smoothing.local.dispatch_width", 1, "warp instructions",
    "issue width while throttle_dispatch_o is set (1, the default: 'drop by 1' on a 2-scheduler SM; 0: none, "
    "'to 0', which raises droops: docs/results/smoothing.md); the first candidates in scheduler order go", 0, 7};

inline const config::Key<std::string> kLocalTrace{
    "smoothing.local.trace", "", "file prefix",
    "training trace: SM N writes PREFIX.smN.csv, a row 'cycle,power' per cycle with events (the block's power_o, "
    "LSB as the weights; unlisted cycles have 0): the input of scripts/train_droop.py; empty = none"};
inline const config::Key<bool> kLocalDebugIgnore{
    "smoothing.local.debug_ignore_throttle", false, "",
    "mutant for the tests: the SM ignores the block's throttle outputs (the predictor still runs)"};

class DroopUnit final : public IssueGate {
 public:
  DroopUnit(unsigned sm_id, const config::Config& cfg);

  // The first call writes the CSRs (ten block cycles, before any SM cycle).
  void begin_launch() override;
  // One SM cycle: candidate issues by class, RF reads and writes in 1024-bit
  // accesses (saturated to the port widths). throttle_dispatch_o limits the
  // width to smoothing.local.dispatch_width, throttle_rf_o stops the reads.
  Limit cycle(uint64_t now, const Demand& d) override;
  // The latest clocked cycle: its SM cycle and outputs (tests, debugging).
  struct Last {
    uint64_t cycle = 0;
    bool dispatch = false, rf = false;
    uint32_t power = 0;
  };
  const Last& last() const { return last_out_; }
  // Issues left out by a dispatch throttle (counted by the SM).
  void deferred(unsigned n) override { st_.deferred_issues += n; }

  // The CSR values written at start-up: weights (INT FP SFU LDST RD WR), T2..T4, mask.
  const std::array<uint32_t, 10>& csrs() const { return csr_; }
  // Pmax_SM in nJ per cycle (the estimate's full scale) behind 'auto' weights.
  static double pmax_nj(const config::Config& cfg);
  const char* stats_key() const override { return "droop"; }
  config::json stats() const override;

 private:
  blocks::DroopPredictorOut clock(const blocks::DroopPredictorIn& in);

  unsigned sm_, width_;
  blocks::DroopPredictorParams p_;
  std::unique_ptr<blocks::Instance<blocks::DroopPredictorBlock>> blk_;
  std::array<uint32_t, 10> csr_{};
  bool programmed_ = false, ignore_ = false;
  Last last_out_;
  uint64_t now_ = 0, last_ = 0;
  unsigned owed_ = 0;  // zero-count cycles not clocked yet (at most hist_depth - 1 matter)
  std::unique_ptr<std::ofstream> trace_;  // smoothing.local.trace
  struct Stats {
    uint64_t block_cycles = 0, predictions = 0, throttled_dispatch = 0, throttled_rf = 0, deferred_issues = 0;
    uint64_t power_sum = 0;  // power_o summed over clocked cycles
  } st_;
};

}  // namespace relgpu::sm
