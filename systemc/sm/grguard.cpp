#include "sm/grguard.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "ptx/analysis.h"
#include "reliability/keys.h"
#include "reliability/rf_faults.h"
#include "sm/core.h"

namespace relgpu::sm {

using blocks::mask;

namespace {
constexpr unsigned kSlots = sizeof(Inst::read_group);  // read slots per instruction
constexpr size_t kWords = 32;  // 32-bit words of a WRG (one per lane), and of a 128-byte spill line
}  // namespace

uint32_t dead_reads(const ptx::Function& fn, const ptx::Instr& in, const std::vector<uint16_t>& rd_phys,
                    unsigned operands) {
  std::vector<int32_t> uses;
  ptx::instr_uses(in, uses);
  uint32_t bits = 0;
  for (size_t k = 0; k < operands && k < uses.size() && k < 32; ++k) {
    int32_t v = uses[k];
    if (!(in.info.dead_mask >> k & 1) || v < 0 || size_t(v) >= fn.phys_reg.size() || fn.phys_reg[size_t(v)] < 0 ||
        fn.regs[size_t(v)].type == ptx::Type::pred)
      continue;
    unsigned width = ptx::type_bits(fn.regs[size_t(v)].type) > 32 ? 2 : 1;  // as SmRegs
    for (unsigned w = 0; w < width; ++w) {
      auto it = std::find(rd_phys.begin(), rd_phys.end(), uint16_t(fn.phys_reg[size_t(v)] + int(w)));
      if (it != rd_phys.end() && it - rd_phys.begin() < 32) bits |= 1u << (it - rd_phys.begin());
    }
  }
  return bits;
}

GrGuard::GrGuard(Core& core, const config::Config& cfg) : c_(core) {
  RegisterFile& rf = c_.regfile();
  p_.banks = rf.banks();
  p_.rows = rf.entries();
  p_.group_banks = rf.span();
  const unsigned spill_ways = unsigned(cfg.get(kGrGuardSpillWays));
  if (spill_ways > c_.l1d().ways())
    throw InputError("grguard.spill_ways=" + std::to_string(spill_ways) + " is more than the L1D's " +
                     std::to_string(c_.l1d().ways()) + " ways (l1d.ways)");
  c_.l1d().set_spill_ways(spill_ways);
  l1_spill_lines_ = c_.l1d().sets() * spill_ways;  // one line per set and reserved way
  const unsigned lines = unsigned(cfg.get(kGrGuardSpillLines));
  if (lines && lines < l1_spill_lines_)
    throw InputError("grguard.spill_lines=" + std::to_string(lines) + " is fewer than the " +
                     std::to_string(l1_spill_lines_) + " lines of the reserved L1D ways (l1d.sets x grguard.spill_ways)");
  p_.l1_lines = lines ? lines : l1_spill_lines_;
  extra_lines_.assign(size_t(p_.l1_lines - l1_spill_lines_) * kWords, 0);
  p_.occupied_entries = cfg.get(kGrGuardOccupiedMove) == "entries";
  p_.per_group_select = cfg.get(kGrGuardSelections) == "per_group";
  reverse_rows_ = cfg.get(kGrGuardPatchOrder) == "unused_first";
  try {
    p_.check();
  } catch (const InputError& e) {
    throw InputError("grguard.enable: rf.num_banks=" + std::to_string(p_.banks) + ", rf.entries_per_bank=" +
                     std::to_string(p_.rows) + ", rf.entry_bits=" + std::to_string(rf.entry_bits()) +
                     " and l1d.sets=" + std::to_string(c_.l1d().sets()) + " x grguard.spill_ways=" +
                     std::to_string(spill_ways) + " (grguard.spill_lines=" + std::to_string(p_.l1_lines) +
                     ") do not fit the patching unit: " + e.what());
  }
  span_ = rf.span();
  groups_ = rf.groups();
  tgt_w_ = p_.tgt_w();
  row_w_ = p_.row_w();
  stall_limit_ = uint64_t(cfg.get(kGrGuardStallLimit));
  exit_deaths_ = cfg.get(kGrGuardExitDeaths);
  vdd_ = c_.rf_faults()->vdd();
  rate_ = cfg.get(reliability::kRfCellFailureRate);
  rd_.assign(groups_, Port{});
  wr_.assign(groups_, Port{});
  place_.assign(p_.num_wrg(), Place{});
  held_.assign(p_.num_wrg(), 0);
  for (unsigned k = 1; k < 3; ++k) oc_base_[k] = oc_base_[k - 1] + unsigned(c_.collectors(k - 1).size());
  const size_t slots = size_t(oc_base_[2] + c_.collectors(2).size()) * kSlots;
  copies_.assign(slots * kWords, 0);
  xreads_.assign(slots, XRead{});
  false_dead_ = uint64_t(cfg.get(kGrGuardDebugFalseDead));
  dead_all_ = cfg.get(kGrGuardDeadBits) == "all";
  patch_port_ = cfg.get(kGrGuardPatchCost) == "full";
  patch_latency_ = cfg.get(kGrGuardPatchCost) != "none";
  patched_.assign(p_.num_wrg(), 0);
  live_.assign(p_.num_wrg(), 0);
  doomed_.assign(p_.num_wrg(), 0);
  deathq_.assign(groups_, {});
  pu_ = blocks::make<blocks::PatchingUnitBlock>(p_, blocks::Site{c_.id(), &cfg});
  load_faulty_map();
  c_.regs().set_placement(this);
}

GrGuard::~GrGuard() { c_.regs().set_placement(nullptr); }

// The post-fabrication test result at the chosen Vdd goes into the Faulty map
// through the fm_* port, one WRG per cycle, when the SM is built (before the
// first kernel; these cycles are not part of any launch's run time).
void GrGuard::load_faulty_map() {
  const reliability::RfFaults* f = c_.rf_faults();
  faulty_.assign(p_.num_wrg(), 0);
  blocks::PatchingUnitIn in{};
  in.fm_we_i = true;
  for (uint32_t w = 0; w < p_.num_wrg(); ++w) {
    unsigned g = w / p_.rows, row = urow(w % p_.rows);
    for (unsigned i = 0; i < span_; ++i)
      if (f->faulty(g * span_ + i, row)) faulty_[w] |= 1u << i;
    in.fm_wrg_i = w;
    in.fm_data_i = faulty_[w];
    pu_->cycle(in);
  }
}

void GrGuard::begin_launch() {
  blocks::PatchingUnitIn in{};
  in.kernel_start_i = true;
  pu_->cycle(in);
  std::fill(place_.begin(), place_.end(), Place{});
  std::fill(held_.begin(), held_.end(), 0);
  spill_lines_ = 0;
  false_dead_seen_ = 0;
  std::fill(patched_.begin(), patched_.end(), 0);
  std::fill(live_.begin(), live_.end(), 0);  // kernel_start_i sets every Dead bit
  std::fill(doomed_.begin(), doomed_.end(), 0);
  for (auto& q : deathq_) q.clear();
  std::fill(rd_.begin(), rd_.end(), Port{});
  std::fill(wr_.begin(), wr_.end(), Port{});
  spillq_.clear();
  claim_rd_ = claim_wr_ = 0;
  turn_ = 0;
  spill_on_ = false;
  c_.l1d().reserve_last_way(false);
  st_ = Stats{};
}

// The paper's access mix: normal; normal-patch = a faulty WRG served by its
// patch (only its faulty entries move); patch-occupied = the WRG is itself
// a patch, so all of it moved ("whole"); spill.
unsigned GrGuard::mix(unsigned kind, uint32_t m, uint32_t wrg) const {
  if (kind == 0) return kNormal;
  if (kind == 3) return kSpill;
  return m == faulty_[wrg] ? kNormalPatch : kPatchOccupied;
}

void GrGuard::claim_read_ports(std::vector<uint8_t>& used) {
  for (uint64_t m = claim_rd_; m; m &= m - 1) used[unsigned(__builtin_ctzll(m))] = 1;
  claim_rd_ = 0;
}

// The banks are read now: the collector copies the operand's home entries
// (the unit's lookup, a stage later, may replace some by the patch's).
void GrGuard::granted(Inst* in, unsigned slot) {
  if (in->gr.patch_reads >> slot & 1) {
    // A kind-2 re-read: the arbitrator granted the patch WRG's whole group.
    st_.patch_rd_entries += span_;
    const XRead& x = xread(in, slot);
    copy_entries(copy_of(in, x.slot), patch_words(x.tgt), x.mask);
    return;
  }
  const unsigned g = in->read_group[slot], row = c_.regs().row_of(in->ws, in->pbase + in->op->rd_phys[slot]);
  std::memcpy(copy_of(in, slot), c_.regfile().wreg(g, row), 32 * sizeof(uint32_t));
  Port& p = rd_[g];
  p.in = in;
  p.slot = uint8_t(slot);
  p.row = urow(row);
  p.div = in->f.active != c_.live_lanes(in->ws);
  p.dead = (dead_all_ ? in->op->rd_dead_all : in->op->rd_dead) >> slot & 1;
  if (false_dead_ && !p.dead && !p.div && ++false_dead_seen_ % false_dead_ == 0) p.dead = true;  // debug mutant
}

size_t GrGuard::slot_index(const Inst* in, unsigned slot) const {
  return (size_t(oc_base_[Core::pool_of(*in->op)]) + unsigned(in->oc)) * kSlots + slot;
}
uint32_t* GrGuard::copy_of(const Inst* in, unsigned slot) { return copies_.data() + slot_index(in, slot) * kWords; }
GrGuard::XRead& GrGuard::xread(const Inst* in, unsigned slot) { return xreads_[slot_index(in, slot)]; }

const uint32_t* GrGuard::patch_words(uint32_t tgt) const {
  return c_.regfile().wreg(tgt / p_.rows, urow(tgt % p_.rows));
}

void GrGuard::copy_entries(uint32_t* dst, const uint32_t* src, uint32_t m) const {
  const unsigned wpe = 32 / span_;
  for (; m; m &= m - 1) {
    const unsigned e = unsigned(__builtin_ctz(m));
    std::memcpy(dst + e * wpe, src + e * wpe, wpe * sizeof(uint32_t));
  }
}

unsigned GrGuard::operand_slots(const Inst* in) const {
  return in->nread - unsigned(__builtin_popcount(in->gr.patch_reads));
}

// Dispatch executes on the collector's copies of the instruction's read
// slots; all older instructions of the warp have dispatched, so its
// deferred deaths can go.
void GrGuard::dispatching(const Inst* in) {
  latch_.ws = in->ws;
  latch_.pbase = in->pbase;
  latch_.phys = in->op->rd_phys.data();
  latch_.n = operand_slots(in);
  latch_.words = copy_of(in, 0);
  c_.regs().set_latch(&latch_);
  for (uint32_t m = in->gr.deaths; m; m &= m - 1) {
    const unsigned slot = unsigned(__builtin_ctz(m));
    const unsigned row = c_.regs().row_of(in->ws, in->pbase + in->op->rd_phys[slot]);
    queue_death(in->read_group[slot] * p_.rows + urow(row));
  }
}

void GrGuard::operands_read(const Inst* /*in*/) { c_.regs().set_latch(nullptr); }

// A dead-bit read whose release at the lookup could lose data: its patch is
// fetched after the lookup (kind 2, spill), or an older instruction of the
// warp has a read of the register (or of its patch) still to come.
bool GrGuard::defer_death(const Port& p) const {
  const uint8_t kind = place_[size_t(p.in->read_group[p.slot]) * p_.rows + p.row].kind;
  if (kind == 2 || kind == 3) return true;
  const Inst* in = p.in;
  const unsigned reg = in->pbase + in->op->rd_phys[p.slot];
  // Read slot i of j still to come: not granted, its kind-2 re-read not
  // granted, or a spill read of j pending (any slot: rare).
  auto pending = [this](const Inst* j, unsigned i) {
    if (j->reads_left >> i & 1 || j->gr.spill_reads) return true;
    for (uint32_t m = j->reads_left & j->gr.patch_reads; m; m &= m - 1)
      if (xreads_[slot_index(j, unsigned(__builtin_ctz(m)))].slot == i) return true;
    return false;
  };
  for (unsigned k = 0; k < 3; ++k)
    for (const Inst* j : c_.collectors(k)) {
      if (!j || j->ws != in->ws || j->seq >= in->seq) continue;
      for (unsigned i = 0; i < operand_slots(j); ++i)
        if (j->pbase + j->op->rd_phys[i] == reg && pending(j, i)) return true;
    }
  return false;
}

Moved GrGuard::moved(unsigned g, unsigned row) const {
  const Place& pl = place_[size_t(g) * p_.rows + urow(row)];
  if (!pl.kind) return Moved{};
  if (pl.kind == 3) return Moved{pl.mask, -1, -1, spill_data(pl.tgt)};
  return Moved{pl.mask, int32_t(pl.tgt / p_.rows), int32_t(urow(pl.tgt % p_.rows)), nullptr};
}

uint32_t* GrGuard::spill_data(uint32_t line) const {
  if (line < l1_spill_lines_) return c_.l1d().spill_line(line);
  return extra_lines_.data() + size_t(line - l1_spill_lines_) * kWords;
}

uint32_t GrGuard::held(unsigned g, unsigned row) const { return held_[size_t(g) * p_.rows + urow(row)]; }

void GrGuard::queue_death(uint32_t w) {
  if (doomed_[w]) return;
  doomed_[w] = kDeferredDeath;
  deathq_[w / p_.rows].push_back(w % p_.rows);
}

// The unit's Patch bit is set for one WRG at a time: the target's entries
// that hold the patched WRG's are its mask.
void GrGuard::set_place(uint32_t w, Place pl) {
  const Place& old = place_[w];
  if (old.kind == 1 || old.kind == 2) held_[old.tgt] = 0;
  if (pl.kind == 1 || pl.kind == 2) held_[pl.tgt] = pl.mask;
  spill_lines_ += (pl.kind == 3) - (old.kind == 3);
  st_.max_spill_lines = std::max<uint64_t>(st_.max_spill_lines, spill_lines_);
  place_[w] = pl;
}

bool GrGuard::holds(const Inst* in) const { return in->gr.spill_reads || in->gr.hold > c_.now(); }

// Death at warp exit (the paper is silent; its only death is a read with the
// compiler dead bit, and a register whose last read is a third operand, or
// that is never read, stays live until rewritten). A warp that exited with
// nothing in flight never touches its registers again, so every WRG of its
// row range (all bank groups) is dead. The SM sends one death notification
// per WRG it wrote since that WRG last died, through the unit's read ports
// (rd_valid=1, rd_dead=1, rd_div=0: the unit's own death rule, no RTL
// change). They are map updates, not bank reads: no RF read is counted.
// Ordering with re-bound rows (our choice): a queued death stays valid while
// the new warp bound to those rows has not written the WRG (a death before
// the first write is right: the WRG holds nothing yet); the first write the
// SM presents for it drops the queued death (present_writes), because a
// death after that write would release the patch of live data. The write
// itself releases the stale patch or selects anew (a divergent first write
// keeps the stale patch, which is still reserved, so nothing is lost).
// Deaths still queued when the kernel ends are dropped: kernel_start_i kills
// every WRG anyway, and they never keep the SM busy.
void GrGuard::warp_exited(unsigned ws) {
  if (!exit_deaths_) return;
  const unsigned base = c_.regs().row_base(ws);
  for (unsigned g = 0; g < groups_; ++g)
    for (unsigned r = base; r < base + c_.rows_per_warp() && r < p_.rows; ++r) {
      const uint32_t row = urow(r), w = g * p_.rows + row;
      if (!live_[w] || doomed_[w]) continue;
      doomed_[w] = kExitDeath;
      deathq_[g].push_back(row);
    }
}

// The L1 port belongs to the LD/ST unit first (our choice): a spill access
// waits for a cycle in which the unit's front instruction has no line to
// look up.
bool GrGuard::l1_port_free() const {
  const Inst* f = c_.ldst_head();
  return !f || (f->ldst_started && f->next_line >= f->nlines);
}

void GrGuard::count_patch(bool write, unsigned grp, uint32_t m) {
  for (; m; m &= m - 1) {
    c_.count_rf_access(write, grp * span_ + unsigned(__builtin_ctz(m)));
    ++(write ? st_.patch_wr_entries : st_.patch_rd_entries);
  }
}

}  // namespace relgpu::sm
