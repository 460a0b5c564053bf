// The bank organization table in the SM's register-file path (Tan et al.,
// TPDS 2016; spec 002 §2-§6 and §12). Holds the SM's bank_org_table block
// (blocks/bank_org_table, through blocks::make so --rtl swaps in the RTL)
// and clocks it once per SM cycle. Every RF access of the SM is translated
// by it: Eq. (3)'s bank b of CTA slot s -> RT[s][b] = vb -> BOT[vb] =
// {sbA, sbB, spdA, spdB}; lanes 0-15 live in sub-bank sbA, lanes 16-31 in
// sbB (SmRegs reads and writes them there, sm/regfile.h), and an access to
// a slow sub-bank takes two cycles (the block's busy / stall_o).
//
// How the ports are used (the arbitration; the paper translates before the
// arbiter but does not say how many translations a cycle):
//  - the SM arbitrates on vbs: one read and one write per vb per cycle, none
//    on a vb that a slow access holds for its second cycle (stall_o);
//  - each granted access is one valid lookup (lk_valid_i = 1, lk_act_i = the
//    lanes it touches), which gives its busy; at most
//    blocks.bank_org_table.num_lookups accesses are granted per cycle, writes
//    first (oldest first), then reads (collector order). Accesses left
//    without a port wait a cycle (counted as port_waits);
//  - the SM learns a CTA slot's translation from probe lookups
//    (lk_valid_i = 0: no busy, no stall) in spare ports after a BOT write or
//    an RT fill; until then that slot's accesses wait (counted as
//    translation_waits). A granted lookup that returns something else than
//    the probe did is an internal error: the SM's view cannot go stale.
// Writers: at the first launch the power-on ROM copy (bot.pairing), one
// entry a cycle; with bot.reorg at every launch the block's sorter from the
// sensor codes (reorg_i; no fill or probe until reorg_latency() cycles have
// passed); with bot.renaming each CTA dispatch fills its RT row
// (disp_warp_i = its last warp slot), after the writes.
// bot.vl_rf (the VL-RF comparison) adds a hold of its own: an access that
// touches a slow 32-bit register holds its bank a second cycle.
// Every statistic comes from the block's outputs and this unit's inputs.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "blocks/instance.h"
#include "common/config.h"
#include "reliability/rf_delay.h"
#include "sm/lane_compaction.h"
#include "sm/regfile.h"

namespace relgpu::sm {

inline const config::Key<bool> kBotEnable{
    "bot.enable", false, "",
    "every RF access of every SM goes through the bank_org_table block (VL-SB / RF-BRO / renaming; needs "
    "rf.entry_bits=1024 and rf.num_banks = blocks.bank_org_table.num_vbs; excludes grguard.enable)"};
inline const config::Key<std::string> kBotPairing{
    "bot.pairing", "identity", "",
    "BOT written at power-on: identity = vb v holds sub-banks {2v, 2v+1} (VL-SB alone); rf_bro = sub-banks "
    "sorted fastest first and paired in order, so fast vbs come first (RF-BRO, spec 002 §2)",
    std::vector<std::string>{"identity", "rf_bro"}};
inline const config::Key<std::string> kBotSlowSbs{
    "bot.slow_sbs", "", "sub-bank ids or 'pv'",
    "sub-banks that take 2 cycles (VL-SB's slow class): 'pv' = per SM, the slowest 30% of its sub-banks under "
    "this chip's process variation (reliability/rf_delay.h; RF-BRO then sorts by those delays); or sub-bank ids, "
    "comma separated, 0 .. 2 x rf.num_banks - 1, the same on every SM; empty = none"};
inline const config::Key<bool> kBotFwas{
    "bot.fwas", false, "",
    "FWAS (spec 002 §4): each scheduler issues ready fast instructions first (every register they read or "
    "write in a fast or hybrid vb), round-robin among them, then the others by sm.scheduler"};
inline const config::Key<bool> kBotVlRf{
    "bot.vl_rf", false, "",
    "70% VL-RF, the paper's comparison point (spec 002 §1): each SM's slowest 30% of 32-bit registers under "
    "this chip's process variation take 2 cycles; an access that touches one holds its bank a second cycle "
    "(the identity BOT with no slow sub-bank routes it)"};
inline const config::Key<bool> kBotReorg{
    "bot.reorg", false, "",
    "NBTI-opt kernel-level re-organisation (spec 002 §6b): at every kernel launch, the SM drained, the block's "
    "sorter rewrites the BOT fastest pair first from the 32 sub-bank sensor codes (this SM's sub-bank delays, "
    "blocks.bank_org_table.code_width-bit codes); which are slow: bot.fast_rule. Needs bot.slow_sbs=pv"};
inline const config::Key<std::string> kBotFastRule{
    "bot.fast_rule", "rank", "",
    "with bot.reorg or bot.hybrid, which sub-banks the block's sorter counts fast: rank = the fastest 70% (22 of "
    "32) in sensor-code order, ties to the lower id (the paper's VL-SB: a fixed 22 / 10 split); threshold = every "
    "sub-bank whose code is at most the 22nd fastest's, so codes that tie there add fast sub-banks (22-31 per SM "
    "on chips 1-10 at sigma 1:4)",
    std::vector<std::string>{"rank", "threshold"}};
inline const config::Key<bool> kBotRenaming{
    "bot.renaming", false, "",
    "NBTI-opt block-level bank renaming: each CTA dispatch fills its renaming-table row (spec 002 §6a)"};

inline const config::Key<int64_t> kBotFbaRm{
    "bot.fba_rm", 0, "fast vbs",
    "FBA-RM (spec 002 §3; evaluated and rejected by the paper): map each warp's registers onto the first N vbs "
    "(RF-BRO's fast ones, (warp + reg) % N) while its rows there hold them, the large register ids onto the "
    "others; 11 = the paper's 22 fast sub-banks paired; 0 = off (Eq. 3 over every vb). Needs "
    "bot.pairing=rf_bro, excludes bot.renaming", 0, 255};

inline const config::Key<bool> kBotHybrid{
    "bot.hybrid", false, "",
    "hybrid banks (spec 002 §5): at each kernel launch N_hyb = floor(vbs x hybrid / all registers per thread) "
    "(hybrid: a physical register holding one used under a thread-dependent branch, ptx taint analysis); the "
    "block's launch-time sorter pairs the sub-banks from their sensor codes and swaps floor(N_hyb / 2) fast and "
    "slow pairs into hybrid vbs (fast sub-bank on lanes 0-15); hybrid registers go over the hybrid vbs and the "
    "others over the rest (Eq. 3 over each); blocks of at most 16 threads get N_hyb = 16 and Eq. 3 over every vb. "
    "An access is slow only if it touches a slow half of the slots it uses (bot.compaction). Needs bot.slow_sbs=pv; "
    "excludes bot.renaming and bot.fba_rm"};
inline const config::Key<std::string> kBotHybridRegs{
    "bot.hybrid_regs", "tainted", "",
    "with bot.hybrid, the hybrid namespace: tainted = every register used under a thread-dependent branch (the "
    "ptx taint analysis: conditions from %tid/%ctaid, directly or through data loaded from such addresses); "
    "programmatic = the same without data loaded from memory (only arithmetic on the ids, loop variables "
    "included: the paper's 'programmatic-value dependent' branches, e.g. block ID, thread ID); launch = only "
    "registers used under branches a launch can evaluate (those bot.compaction serves)",
    std::vector<std::string>{"tainted", "programmatic", "launch"}};
inline const config::Key<bool> kBotCompaction{
    "bot.compaction", true, "",
    "with bot.hybrid, lane compaction (spec 002 §5, sm/lane_compaction.h): at each CTA's launch every warp gets a "
    "thread-to-slot permutation, fixed for its life, that puts the threads of a thread-dependent branch path "
    "with at most 16 threads in slots 0-15 (the hybrid vbs' fast halves); only branches whose condition the "
    "launch can evaluate from the thread and CTA ids, immediates and kernel parameters. false: threads keep "
    "their lanes"};

class BotUnit final : public BankMap {
 public:
  // One SM's unit: `banks` RF banks (= vbs), `max_warps` warp slots; `pv`:
  // this SM's RF delays, needed by bot.slow_sbs=pv and bot.vl_rf.
  BotUnit(unsigned sm_id, const config::Config& cfg, unsigned banks, unsigned max_warps,
          const reliability::SbDelays* pv = nullptr);
  // This chip's RF delays are needed (bot.slow_sbs=pv or bot.vl_rf).
  static bool needs_pv(const config::Config& cfg);

  // Per-launch stats restart; the first launch queues the power-on ROM copy.
  void begin_launch();
  // CTA `ctaid` went to CTA slot `slot`, warp slots `warps` (the last is its
  // last warp), bound in `regs`; with lane compaction, lays out its lanes.
  void cta_added(unsigned slot, const std::vector<unsigned>& warps, const uint32_t ctaid[3], SmRegs& regs);

  // What the SM knows of (slot, bank), from the last probe.
  struct Tr {
    uint8_t vb = 0, sba = 0, sbb = 0;
    bool spda = false, spdb = false, known = false;
  };
  const Tr& tr(unsigned slot, unsigned bank) const { return tr_[slot * banks_ + bank]; }
  // A slow access started on vb last cycle holds it this cycle.
  bool held(unsigned vb) const { return (held_ | vl_held_) >> vb & 1; }
  // VL-RF: an access of the entry at `row` of vb (identity: physical bank
  // vb) touching lanes `act` reads a 2-cycle register; counts it and holds
  // the vb next cycle.
  bool vl_rf() const { return !reg_slow_.empty(); }
  bool vl_rf_slow(unsigned vb, unsigned row, uint32_t act);
  // FWAS: fast(v) = not both sub-banks slow (a hybrid vb counts as fast), as
  // the block's fw_fast_o defines it; from the probed translation.
  bool fast(unsigned slot, unsigned bank) const {
    const Tr& t = tr(slot, bank);
    return t.known && !(t.spda && t.spdb);
  }
  bool fwas() const { return fwas_; }
  // Hybrid banks, before begin_launch: the kernel's hybrid physical
  // registers (SmRegs::hybrid_phys) and its block size give N_hyb and the
  // vbs the block's swaps will make hybrid, and lay `regs` out over them
  // (SmRegs::set_layout). Nothing without bot.hybrid.
  void plan_launch(const func::LaunchCtx& ctx, SmRegs& regs);
  void count_fast_issue() { ++st_.fast_issues; }
  // First call of each SM cycle, before any grant.
  void start(uint64_t now);
  bool port_free() const { return grants_.size() < ports_; }
  unsigned ports_left() const { return ports_ - unsigned(grants_.size()); }
  // Grant an access of (slot, bank) touching lanes `act`; returns its index.
  unsigned grant(unsigned slot, unsigned bank, uint32_t act);
  // One block cycle at SM cycle `now` with this cycle's grants (then cleared)
  // and probes; after it, busy(i) says whether grant i was slow.
  void cycle(uint64_t now);
  bool busy(unsigned i) const { return busy_ >> i & 1; }
  void count_wait(bool port) { ++(port ? st_.port_waits : st_.translation_waits); }
  // Work for the block without other SM activity (keeps the SM clocked).
  bool wants_cycle() const {
    return !writes_.empty() || !fills_.empty() || !probes_.empty() || reorg_pending_ || reorg_left_;
  }

  // BankMap: warp ws's halves in logical bank `group`.
  void halves(unsigned ws, unsigned group, unsigned& a, unsigned& b) const override;

  config::json stats() const;

 private:
  struct Lookup { unsigned slot, bank; uint32_t act; };
  void probe_all();
  std::vector<uint32_t> rom() const;

  unsigned sm_, banks_, ports_, slots_;
  blocks::BankOrgTableParams p_;
  std::unique_ptr<blocks::Instance<blocks::BankOrgTableBlock>> bot_;
  std::vector<bool> slow_;             // per sub-bank
  std::vector<double> delay_;          // per sub-bank: RF-BRO's sort key (pv), else empty
  bool rf_bro_, renaming_, fwas_, powered_ = false;
  // Kernel-level re-organisation: sensor codes, the slow threshold, a
  // request for the next free cycle, and cycles until lookups see it.
  bool reorg_ = false, reorg_pending_ = false, hybrid_ = false;
  unsigned nf_ = 0;                    // sub-banks the sorter counts fast (bot.fast_rule)
  bool by_rank_ = true;
  unsigned nhyb_ = 0, hyb_regs_ = 0, regs_ = 0;
  uint64_t hyb_vbs_ = 0;               // this launch's hybrid vbs (plan_launch)
  bool compaction_ = false, half_ = false;  // half_: blocks of at most 16 threads
  // bot.hybrid_regs: which register list of the kernel is the hybrid namespace.
  const std::vector<int32_t> ptx::Function::*hybrid_regs_ = &ptx::Function::tainted_regs;
  LaneCompaction lanes_;
  blocks::Wide codes_;
  uint32_t thr_ = 0;
  unsigned reorg_left_ = 0;
  std::vector<Tr> tr_;                 // slot-major
  std::vector<uint8_t> ws_slot_;       // warp slot -> CTA slot
  std::deque<uint32_t> writes_;        // ROM words, entry index = position
  unsigned next_write_ = 0;
  std::deque<std::pair<unsigned, unsigned>> fills_;  // (slot, last warp slot)
  std::deque<std::pair<unsigned, unsigned>> probes_; // (slot, bank)
  std::vector<Lookup> grants_;        // this cycle's grants, then its probes
  blocks::BankOrgTableIn in_;
  uint64_t held_ = 0, busy_ = 0, last_ = UINT64_MAX - 1, now_ = 0;
  std::vector<bool> reg_slow_;         // VL-RF, index as SbDelays::reg_slow
  unsigned rows_ = 0;
  uint64_t vl_held_ = 0, vl_next_ = 0;

  struct Stats {
    uint64_t block_cycles = 0, rom_writes = 0, fills = 0, probes = 0, lookups = 0, busy = 0;
    uint64_t port_waits = 0, translation_waits = 0, fast_issues = 0, vl_rf_slow = 0, reorgs = 0;
    uint64_t hybrid_lookups = 0, hybrid_slow = 0, hybrid_compactable = 0;
    std::vector<uint64_t> sb_access;   // per sub-bank: accesses that touched it
  } st_;
};

}  // namespace relgpu::sm
