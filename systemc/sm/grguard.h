// GR-Guard in the SM (Tan dissertation Ch6; spec 000 §4 and §7a): the
// patching unit between the operand-collector arbitrator and the RF banks
// re-routes the faulty entries of an undervolted register file into dead
// registers (or one reserved L1D way), so that no value is lost.
//
// The unit is the hardware block blocks::PatchingUnitBlock (C++ model or its
// RTL, blocks/instance.h); every statistic here comes from its outputs and
// from what the SM presents to it. Per SM cycle, in Core::writeback:
//   write ports  the results writeback grants this cycle (one per bank group);
//   read ports   the operand reads the arbitrator granted in the previous
//                cycle (the stage order runs writeback before operand read,
//                and a write's placement must be known before its data is
//                stored, so reads reach the unit one stage later; the normal
//                path is unchanged: a read granted at t still dispatches at
//                t+1).
// Effects of the outputs (kind 0 normal costs nothing):
//   read  1 same group: the operand arrives a cycle later and the group's
//           read port is busy that cycle;
//         2 cross group: the read is re-granted on the patch WRG's group by
//           the arbitrator (it may lose to bank conflicts);
//         3 spill: an L1D access (l1d.hit_latency) on a free L1 port cycle.
//   write retry: the write stays in writeback and retries next cycle;
//         1: the patched entries are written a cycle later on the group's
//           port; 2: they need the target group's write port; 3: an L1D
//           write. The result is released (scoreboard) when all parts are in.
// Warp exit: the registers of a warp that exited with nothing in flight are
// dead. The SM tells the unit through its read ports (a death notification:
// rd_valid, rd_dead, not divergent) for each WRG of the warp it has written
// since that WRG last died, one per bank group per cycle in cycles the port
// carries no operand read (grguard.cpp, warp_exited).
// Placement: each WRG's entries live where the last accepted write put them
// (wr_mask entries at entry i of the target WRG, or in the L1D), which
// SmRegs uses to apply the cell faults of the place a value is stored in.
//
// Choices where the paper is silent are commented at the code.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "blocks/instance.h"
#include "common/config.h"
#include "power/rf_energy.h"

namespace relgpu::ptx {
struct Function;
struct Instr;
}  // namespace relgpu::ptx

namespace relgpu::sm {

inline const config::Key<bool> kGrGuardEnable{
    "grguard.enable", false, "",
    "GR-Guard: a patching unit per SM re-routes faulty RF entries (2+ bad cells) into dead registers or a "
    "reserved L1D way (Tan dissertation Ch6)"};
inline const config::Key<int64_t> kGrGuardStallLimit{
    "grguard.stall_limit", 200000, "cycles",
    "GR-Guard: a register write that finds no patch (no dead good WRG, spill way full) for this many "
    "consecutive cycles stops the run: the chip cannot run at that rf.vdd", 1, 1e15};

inline const config::Key<bool> kGrGuardExitDeaths{
    "grguard.exit_deaths", true, "",
    "GR-Guard: when a warp exits, mark its written WRGs dead through the unit's read ports (our addition; "
    "false = the paper's compiler dead bits only, so a finished warp's registers stay live until rewritten)"};

// GR-Guard state of one in-flight instruction (a member of sm::Inst).
struct GrInst {
  uint32_t patch_reads = 0;   // read slots that re-read a patch WRG (kind 2), not presented to the unit
  uint64_t hold = 0;          // operands complete at this cycle at the earliest (kind 1, spill)
  uint8_t spill_reads = 0;    // L1D spill reads not yet served
  uint8_t spill_writes = 0;   // L1D spill writes not yet served
  uint16_t wr_done = 0;       // write slots the unit accepted
  uint8_t nx = 0, xg[12] = {};// kind-2 patch writes waiting for a write port: their target groups
  uint64_t wr_hold = 0;       // patched entries written by then (kind 1, spill)
  bool stuck = false;         // a write slot was retried and none accepted since
  uint32_t stuck_wrg = 0;     // the WRG of the lowest slot retried last
  uint64_t stuck_since = 0;   // cycle of the first retry of this streak
  uint64_t retried = ~uint64_t(0);  // cycle of the last retry
};

// Bit i: read slot i (StaticOp::rd_phys[i]) carries a compiler dead bit,
// i.e. it belongs to one of the first two source operands and is not read
// again before it is rewritten (ptx InstrInfo::dead_mask bits 0 and 1).
uint32_t dead_reads(const ptx::Function& fn, const ptx::Instr& in, const std::vector<uint16_t>& rd_phys);

class Core;
struct Inst;

class GrGuard {
 public:
  // Builds the unit from the RF geometry and loads its Faulty map.
  GrGuard(Core& core, const config::Config& cfg);
  ~GrGuard();

  void begin_launch();                                // kernel_start_i; per-launch stats reset
  void claim_read_ports(std::vector<uint8_t>& used);  // operand_read: kind-1 patch reads take their port
  void granted(Inst* in, unsigned slot);              // operand_read: a read won its group port
  bool holds(const Inst* in) const;                   // dispatch: operands not all in yet
  void warp_exited(unsigned ws);                      // complete: exited, nothing in flight
  void writeback();                                   // replaces Core::writeback's body
  void add_activity(power::RfActivity& a) const;
  config::json stats() const;

 private:
  enum Mix : unsigned { kNormal, kNormalPatch, kPatchOccupied, kSpill };
  // A port of this cycle: instruction, its read/write slot, the unit's row
  // (urow), compiler dead bit, divergence.
  struct Port { Inst* in = nullptr; uint8_t slot = 0; uint32_t row = 0; bool dead = false, div = false; };
  struct Place { uint8_t kind = 0; uint32_t mask = 0, tgt = 0; };
  struct Spill { Inst* in; bool write; };
  struct Stats {
    uint64_t rd[4] = {}, wr[4] = {};           // by Mix
    uint64_t rd_kind[4] = {}, wr_kind[4] = {}; // by block kind (0 normal, 1 same, 2 cross, 3 spill)
    uint64_t selections = 0, kept = 0, retries = 0, stall_cycles = 0, spill_way_cycles = 0;
    uint64_t l1_spill = 0, lookups = 0;
    // Bank-entry counts added to the SM's per-bank rf reads/writes by patch
    // accesses (kind 1: the moved entries; kind 2: the granted group).
    uint64_t patch_rd_entries = 0, patch_wr_entries = 0;
    // Entries redirected into patch WRGs (kinds 1, 2) and into the L1D (3).
    uint64_t moved_rd = 0, moved_wr = 0, spilled_rd = 0, spilled_wr = 0;
    // Death notifications of exited warps' WRGs sent to the unit, and those
    // dropped because a new warp wrote the WRG first.
    uint64_t exit_deaths = 0, exit_deaths_dropped = 0;
    uint64_t held = 0;  // cycles a stuck write waited for its turn (present_writes)
  };

  unsigned mix(unsigned kind, uint32_t mask, uint32_t wrg) const;
  // RF row <-> the unit's row (an involution). The unit numbers rows from
  // the top of the RF: its priority encoder picks the lowest row first, and
  // warps take row slots from row 0 up, so the first candidates are rows no
  // warp uses (our wiring choice). Otherwise patches land in registers that
  // live warps are about to write, and each such write must move the whole
  // WRG ("patch-occupied") to another patch, which needs an all-good WRG.
  uint32_t urow(uint32_t row) const { return p_.rows - 1 - row; }
  uint32_t full_mask(const Inst* in) const;
  bool l1_port_free() const;
  void load_faulty_map();
  void present_writes(blocks::PatchingUnitIn& pin);
  void stop(const Inst* in) const;
  void apply_reads(const blocks::PatchingUnitIn& pin, const blocks::PatchingUnitOut& out);
  void apply_writes(const blocks::PatchingUnitOut& out);
  void present_deaths(blocks::PatchingUnitIn& pin);
  std::string census(uint32_t wrg) const;
  void serve_spill();
  void count_patch(bool write, unsigned grp, uint32_t mask);
  void count_access(bool write, unsigned kind, uint32_t mask, uint32_t wrg);

  Core& c_;
  blocks::PatchingUnitParams p_;
  std::unique_ptr<blocks::Instance<blocks::PatchingUnitBlock>> pu_;
  unsigned span_, groups_, tgt_w_, row_w_;
  uint64_t stall_limit_;
  bool exit_deaths_;
  double vdd_, rate_;
  std::vector<Port> rd_, wr_;       // per bank group: this cycle's read / write port
  uint64_t claim_rd_ = 0, claim_wr_ = 0;  // ports the kind-1 patch accesses use next
  std::deque<Spill> spillq_;        // L1D spill accesses, oldest first
  std::vector<uint32_t> faulty_;    // the Faulty map as loaded, per WRG
  std::vector<Place> place_;        // per WRG: where its entries are
  std::vector<uint8_t> patched_;    // per WRG: has a patch (from outputs and inputs)
  // Per WRG, from what the SM presented: written since it last died (the
  // unit's Dead bit is 0), and a death notification is queued for it.
  std::vector<uint8_t> live_, doomed_;
  std::vector<std::deque<uint32_t>> deathq_;  // per bank group: unit rows to notify, oldest first
  bool spill_on_ = false;
  uint64_t last_now_ = 0;
  uint64_t turn_ = 0;  // rotation among stuck writes (present_writes)
  Stats st_;
};

}  // namespace relgpu::sm
