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
// Data: each WRG's entries live where the last accepted write put them
// (wr_mask entries at entry i of the target WRG, or in the L1D spill line,
// the reserved way's line of that set), and SmRegs stores the value there,
// in those cells with their faults (this class is its Placement: a mirror
// of the unit's Index map). Reads go the way the unit sends them: the
// operand collector copies the home entries when the arbitrator grants the
// read, and the moved entries when the patch is read (kind 1 at the lookup,
// kind 2 when the re-read is granted, spill when the L1D access is served);
// dispatch executes on that copy (SmRegs::Latch). So whatever overwrites a
// patch or spill line before it is read (a wrong death, a reused dead
// register, a cache fill into a released way) shows in the results.
// Deferred deaths (our choice; the paper does not say when a dead read's
// patch is released, and the unit releases it at the lookup): the SM
// presents a dead-bit read without its dead bit, and sends its death as a
// death notification once the instruction dispatches, when the read is of
// a kind-2 or spill patch (fetched after the lookup, by when the patch WRG
// may be selected and written again, or the way given back to the cache),
// or an older instruction of the warp has still to read that register
// (collectors read out of program order; dispatch is in order).
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
#include "sm/regfile.h"
#include "sm/rf_path.h"

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

inline const config::Key<int64_t> kGrGuardSpillWays{
    "grguard.spill_ways", 1, "ways",
    "GR-Guard: L1D ways reserved for spilled patches while any is in use, one line per set each (the paper: "
    "one way, §6.3.4; more is an ablation of the spill capacity). l1d.sets x this must be a power of 2", 1, 64};
inline const config::Key<int64_t> kGrGuardSpillLines{
    "grguard.spill_lines", 0, "lines",
    "GR-Guard: spill lines the patching unit may use (power of 2); 0 = the reserved L1D ways' lines (l1d.sets x "
    "grguard.spill_ways, the paper's 32). Lines beyond those are an ideal store beside the L1D (L1D hit latency "
    "on the L1 port, no cache capacity taken): an ablation that measures how many lines the paper's point needs "
    "when patches run out instead of stopping the run. C++ model only, --rtl refuses it", 0, 1024};
inline const config::Key<bool> kGrGuardExitDeaths{
    "grguard.exit_deaths", true, "",
    "GR-Guard: when a warp exits, mark its written WRGs dead through the unit's read ports (our addition; "
    "false = the paper's compiler dead bits only, so a finished warp's registers stay live until rewritten)"};

inline const config::Key<std::string> kGrGuardPatchOrder{
    "grguard.patch_order", "unused_first", "",
    "GR-Guard: which dead WRG of a bank group the unit's priority encoder picks first: paper = the lowest "
    "RF row (WRG id order, Tan §6.3.3), unused_first = the highest row, i.e. rows no warp uses before the "
    "rows of dead warp registers (our wiring: the unit's rows are the RF's reversed). Default not the "
    "paper's: measured at 1%, paper order takes 27-36% patch-occupied accesses (paper: 13%), +10-16% time "
    "and stops more runs (issue 13)",
    std::vector<std::string>{"paper", "unused_first"}};
inline const config::Key<std::string> kGrGuardOccupiedMove{
    "grguard.occupied_move", "whole", "",
    "GR-Guard: what a write to a WRG that serves as a patch moves: whole = all its entries (the RTL; the "
    "Patch map has one bit per WRG), entries = its faulty entries and those holding the other WRG's, as the "
    "paper words it (§6.3.3; C++ model only, --rtl refuses it; with unused_first the two measure the same)",
    std::vector<std::string>{"whole", "entries"}};

inline const config::Key<std::string> kGrGuardDeadBits{
    "grguard.dead_bits", "two", "",
    "GR-Guard: which source operands carry the compiler's dead bit: two = the first two (the paper, §6.3.1), "
    "all = every source register (an ablation of dead-bit coverage: registers last read as a third operand, "
    "e.g. an FMA's addend or a store's value, are declared dead too). Divergent reads never mark (the paper)",
    std::vector<std::string>{"two", "all"}};

inline const config::Key<std::string> kGrGuardSelections{
    "grguard.selections", "one", "",
    "GR-Guard: patch selections per cycle when several writes need one: one = a single selection tree over "
    "all 1,024 WRGs (the RTL; the paper's one priority encoder, §6.3.4), per_group = also one in each other "
    "write port's own bank group (the maps are banked per group; the spec leaves this open). C++ model only, "
    "--rtl refuses it: an ablation of the write throughput",
    std::vector<std::string>{"one", "per_group"}};

inline const config::Key<std::string> kGrGuardPatchCost{
    "grguard.patch_cost", "full", "",
    "GR-Guard: what a same-group patch access (kind 1) costs: full = a cycle later on the group's port, which "
    "it takes that cycle (the paper's +1 cycle, §6.3.3); latency = a cycle later, the port left free (as if "
    "the banks had a second port); none = neither. An ablation that splits GR-Guard's time cost; the data "
    "moves as in full",
    std::vector<std::string>{"full", "latency", "none"}};

inline const config::Key<int64_t> kGrGuardDebugFalseDead{
    "grguard.debug_false_dead", 0, "reads",
    "Debug mutant for tests: every Nth non-divergent operand read without a compiler dead bit is presented to "
    "the patching unit as dead, a wrong death that frees a live register for patches and drops its own patch; "
    "results then go wrong (0 = off)", 0, 1e15};

// GR-Guard state of one in-flight instruction (a member of sm::Inst).
struct GrInst {
  uint32_t patch_reads = 0;   // read slots that re-read a patch WRG (kind 2), not presented to the unit
  uint64_t hold = 0;          // operands complete at this cycle at the earliest (kind 1, spill)
  uint8_t spill_reads = 0;    // L1D spill reads not yet served
  uint8_t spill_writes = 0;   // L1D spill writes not yet served
  uint32_t deaths = 0;        // read slots whose death is sent at dispatch (deferred)
  uint16_t wr_done = 0;       // write slots the unit accepted
  uint8_t nx = 0, xg[12] = {};// kind-2 patch writes waiting for a write port: their target groups
  uint64_t wr_hold = 0;       // patched entries written by then (kind 1, spill)
  bool stuck = false;         // a write slot was retried and none accepted since
  uint32_t stuck_wrg = 0;     // the WRG of the lowest slot retried last
  uint64_t stuck_since = 0;   // cycle of the first retry of this streak
  uint64_t retried = ~uint64_t(0);  // cycle of the last retry
};

// Bit i: read slot i (StaticOp::rd_phys[i]) carries a compiler dead bit,
// i.e. it belongs to one of the first `operands` source operands (the
// paper: 2) and is not read again before it is rewritten (ptx
// InstrInfo::dead_mask).
uint32_t dead_reads(const ptx::Function& fn, const ptx::Instr& in, const std::vector<uint16_t>& rd_phys,
                    unsigned operands);

class Core;
struct Inst;

class GrGuard final : public Placement, public RfPathHook {
 public:
  // Builds the unit from the RF geometry and loads its Faulty map.
  GrGuard(Core& core, const config::Config& cfg);
  ~GrGuard();

  // RfPathHook (sm/rf_path.h): the SM's operand-read, dispatch and writeback stages call these.
  void begin_launch() override;                                // kernel_start_i; per-launch stats reset
  void claim_read_ports(std::vector<uint8_t>& used) override;  // kind-1 patch reads take their port
  void granted(Inst* in, unsigned slot) override;
  bool holds(const Inst* in) const override;
  void warp_exited(unsigned ws) override;
  void writeback() override;                                   // the writeback stage, with the unit in it
  void dispatching(const Inst* in) override;                   // operands from the collector's copy; deferred deaths
  void operands_read(const Inst* in) override;                 // the copy served them: the latch closes
  void add_activity(power::RfActivity& a) const;
  config::json stats() const;

  // Placement (sm/regfile.h): where the SM stores and reads each WRG.
  Moved moved(unsigned group, unsigned row) const override;
  uint32_t held(unsigned group, unsigned row) const override;

 private:
  enum Mix : unsigned { kNormal, kNormalPatch, kPatchOccupied, kSpill };
  enum Doom : uint8_t { kLive, kExitDeath, kDeferredDeath };
  // A port of this cycle: instruction, its read/write slot, the unit's row
  // (urow), compiler dead bit, divergence.
  struct Port { Inst* in = nullptr; uint8_t slot = 0; uint32_t row = 0; bool dead = false, div = false; };
  struct Place { uint8_t kind = 0; uint32_t mask = 0, tgt = 0; };
  // An L1D spill access; a read copies `mask` entries of `line` into read slot `slot`'s copy.
  struct Spill { Inst* in; bool write; uint8_t slot; uint32_t mask, line; };
  // A kind-2 re-read (appended read slot): the read slot it serves and the patch entries.
  struct XRead { uint8_t slot = 0; uint32_t mask = 0, tgt = 0; };
  struct Stats {
    uint64_t rd[4] = {}, wr[4] = {};           // by Mix
    uint64_t rd_kind[4] = {}, wr_kind[4] = {}; // by block kind (0 normal, 1 same, 2 cross, 3 spill)
    uint64_t entries[4] = {};                  // entry accesses by Mix: a moved entry takes its access's class
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
    uint64_t deferred_deaths = 0;  // dead-bit reads whose death was sent at dispatch (see above)
    uint64_t held = 0;  // cycles a stuck write waited for its turn (present_writes)
    uint64_t max_spill_lines = 0;  // most spill lines in use at once (one per spilled WRG)
  };

  unsigned mix(unsigned kind, uint32_t mask, uint32_t wrg) const;
  // RF row <-> the unit's row (an involution). The unit's priority encoder
  // picks the lowest row first. With grguard.patch_order=unused_first it
  // numbers rows from the top of the RF, and warps take row slots from row
  // 0 up, so the first candidates are rows no warp uses (our wiring
  // choice); with paper, rows of dead registers come first, which live
  // warps are about to write, and each such write must move the WRG
  // ("patch-occupied") to another patch.
  uint32_t urow(uint32_t row) const { return reverse_rows_ ? p_.rows - 1 - row : row; }
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
  void set_place(uint32_t wrg, Place pl);  // place_ and held_ together
  void queue_death(uint32_t wrg);          // a deferred death, sent by present_deaths
  bool defer_death(const Port& p) const;
  unsigned operand_slots(const Inst* in) const;  // read slots that are operands (not kind-2 re-reads)
  size_t slot_index(const Inst* in, unsigned slot) const;  // its collector's read slot
  // The operand collector's copy of read slot `slot` (32 words), and the
  // kind-2 re-read of appended slot `slot`.
  uint32_t* copy_of(const Inst* in, unsigned slot);
  uint32_t* spill_data(uint32_t line) const;  // spill line `line`'s 32 words: the L1D's, or the ideal store's
  XRead& xread(const Inst* in, unsigned slot);
  const uint32_t* patch_words(uint32_t tgt) const;  // the 32 words of WRG tgt (the unit's id)
  void copy_entries(uint32_t* dst, const uint32_t* src, uint32_t mask) const;  // entries in mask

  Core& c_;
  blocks::PatchingUnitParams p_;
  std::unique_ptr<blocks::Instance<blocks::PatchingUnitBlock>> pu_;
  unsigned span_, groups_, tgt_w_, row_w_;
  uint64_t stall_limit_;
  bool exit_deaths_, reverse_rows_;
  double vdd_, rate_;
  std::vector<Port> rd_, wr_;       // per bank group: this cycle's read / write port
  uint64_t claim_rd_ = 0, claim_wr_ = 0;  // ports the kind-1 patch accesses use next
  std::deque<Spill> spillq_;        // L1D spill accesses, oldest first
  std::vector<uint32_t> faulty_;    // the Faulty map as loaded, per WRG
  std::vector<Place> place_;        // per WRG: where its entries are (valid Index)
  std::vector<uint32_t> held_;      // per WRG: its entries that hold another WRG's (the Patch bit)
  unsigned spill_lines_ = 0;        // WRGs placed in the L1D now (each one line)
  unsigned l1_spill_lines_ = 0;     // spill lines in the L1D's reserved ways; the rest are in extra_lines_
  mutable std::vector<uint32_t> extra_lines_;  // grguard.spill_lines beyond the L1D's: 32 words each
  unsigned oc_base_[3] = {};        // first collector of each pool in copies_
  std::vector<uint32_t> copies_;    // per collector and read slot: the operand's 32 words
  std::vector<XRead> xreads_;       // per collector and read slot
  Latch latch_;
  uint64_t false_dead_ = 0, false_dead_seen_ = 0;  // grguard.debug_false_dead
  bool dead_all_ = false;                          // grguard.dead_bits=all
  bool patch_port_ = true, patch_latency_ = true;  // grguard.patch_cost
  std::vector<uint8_t> patched_;    // per WRG: has a patch (from outputs and inputs)
  // Per WRG, from what the SM presented: written since it last died (the
  // unit's Dead bit is 0), and a death notification is queued for it
  // (kExitDeath, kDeferredDeath).
  std::vector<uint8_t> live_, doomed_;
  std::vector<std::deque<uint32_t>> deathq_;  // per bank group: unit rows to notify, oldest first
  bool spill_on_ = false;
  uint64_t last_now_ = 0;
  uint64_t turn_ = 0;  // rotation among stuck writes (present_writes)
  Stats st_;
};

}  // namespace relgpu::sm
