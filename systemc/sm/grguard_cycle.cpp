// GR-Guard's per-cycle work: the writeback stage with the patching unit in
// it (see grguard.h for the timing), and its stats.
#include <algorithm>

#include "common/error.h"
#include "sm/core.h"
#include "sm/grguard.h"

namespace relgpu::sm {

using blocks::mask;

namespace {
uint32_t field(uint64_t v, unsigned g, unsigned w) { return uint32_t((v >> (g * w)) & mask(w)); }
uint16_t all_slots(const Inst* in) { return uint16_t((1u << in->nwrite) - 1); }
}  // namespace

// Picks this cycle's writes as Core::writeback does (oldest ready result
// first, all of its remaining registers' group ports free), and the write
// ports of kind-2 patch parts (they take any free target port).
void GrGuard::present_writes(blocks::PatchingUnitIn& pin) {
  Core& c = c_;
  const unsigned span = span_;
  for (Inst* in : c.wb_) {
    if (in->ready > c.now_) continue;
    GrInst& s = in->gr;
    const uint16_t left = uint16_t(all_slots(in) & ~s.wr_done);
    if (!left) {
      for (unsigned k = 0; k < s.nx;) {
        unsigned g = s.xg[k];
        if (c.group_write_[g]) {
          ++k;
          continue;
        }
        c.group_write_[g] = 1;
        for (unsigned b = 0; b < span; ++b) ++c.st_.rf_writes[g * span + b], ++c.act_.rf_writes[g * span + b];
        st_.patch_wr_entries += span;  // the arbitrator grants the whole group
        s.xg[k] = s.xg[--s.nx];
      }
      continue;
    }
    bool ok = true;
    for (uint16_t m = left; m; m &= m - 1) {
      unsigned g = in->write_group[__builtin_ctz(m)];
      if (c.group_write_[g]) {
        ok = false;
        for (unsigned b = 0; b < span; ++b) ++c.st_.rf_write_conflicts[g * span + b];
        break;
      }
    }
    if (!ok) continue;
    for (uint16_t m = left; m; m &= m - 1) {
      unsigned j = unsigned(__builtin_ctz(m)), g = in->write_group[j];
      // Two registers of one instruction in one group: one write port, so
      // the second goes next cycle (our choice; without GR-Guard both go).
      if (pin.wr_valid_i >> g & 1) continue;
      c.group_write_[g] = 1;
      uint32_t row = urow(c.regs_.row_of(in->ws, in->pbase + in->op->wr_phys[j]));
      wr_[g] = Port{in, uint8_t(j), row, false, in->f.exec != full_mask(in)};
      pin.wr_valid_i |= uint64_t(1) << g;
      pin.wr_row_i |= uint64_t(row) << (g * row_w_);
      if (wr_[g].div) pin.wr_div_i |= uint64_t(1) << g;
    }
  }
}

// One access through the unit: its mix class, kind and moved entries.
void GrGuard::count_access(bool write, unsigned k, uint32_t m, uint32_t wrg) {
  ++(write ? st_.wr : st_.rd)[mix(k, m, wrg)];
  ++(write ? st_.wr_kind : st_.rd_kind)[k];
  uint64_t& moved = k == 3 ? (write ? st_.spilled_wr : st_.spilled_rd) : (write ? st_.moved_wr : st_.moved_rd);
  moved += unsigned(__builtin_popcount(m));
}

void GrGuard::apply_reads(const blocks::PatchingUnitIn& pin, const blocks::PatchingUnitOut& out) {
  const unsigned GB = span_;
  for (unsigned g = 0; g < groups_; ++g) {
    Port& p = rd_[g];
    if (!p.in) continue;
    Inst* in = p.in;
    const uint32_t w = g * p_.rows + p.row;
    const unsigned k = field(out.rd_kind_o, g, 2);
    const uint32_t m = field(out.rd_mask_o, g, GB), tgt = field(out.rd_tgt_o, g, tgt_w_);
    count_access(false, k, m, w);
    if (k == 1) {
      in->gr.hold = std::max(in->gr.hold, c_.now_ + 1);
      claim_rd_ |= uint64_t(1) << g;
      count_patch(false, g, m);
    } else if (k == 2) {
      unsigned n = in->nread;
      if (n < sizeof in->read_group && n < 32) {
        in->read_group[n] = uint8_t(tgt / p_.rows);
        in->reads_left |= 1u << n;
        in->gr.patch_reads |= 1u << n;
        ++in->nread;
      } else {  // no read slot left (never at PTX operand counts): a same-group delay instead
        in->gr.hold = std::max(in->gr.hold, c_.now_ + 1);
        count_patch(false, tgt / p_.rows, m);
      }
    } else if (k == 3) {
      spillq_.push_back({in, false});
      ++in->gr.spill_reads;
    }
    // Mirror of the block's release on death (same inputs, same rule).
    bool same_write = (pin.wr_valid_i >> g & 1) && field(pin.wr_row_i, g, row_w_) == p.row;
    if (p.dead && !p.div && !same_write) patched_[w] = 0;
    p = Port{};
  }
}

void GrGuard::apply_writes(const blocks::PatchingUnitOut& out) {
  Core& c = c_;
  const unsigned GB = span_;
  bool stalled = false;
  for (unsigned g = 0; g < groups_; ++g) {
    Port& p = wr_[g];
    if (!p.in) continue;
    Inst* in = p.in;
    GrInst& s = in->gr;
    if (out.wr_retry_o >> g & 1) {
      ++st_.retries;
      stalled = true;
      if (++s.retry > stall_limit_)
        throw InputError("GR-Guard on SM " + std::to_string(c.id_) + ": a register write found no patch (no dead " +
                         "WRG good in its faulty entries, L1D spill way full) for " + std::to_string(s.retry) +
                         " cycles: this chip cannot run at rf.vdd=" + std::to_string(vdd_) +
                         " (rf.cell_failure_rate=" + std::to_string(rate_) + ") with GR-Guard; raise rf.vdd or " +
                         "lower rf.cell_failure_rate (grguard.stall_limit=" + std::to_string(stall_limit_) + ")");
      p = Port{};
      continue;
    }
    s.retry = 0;
    s.wr_done |= uint16_t(1u << p.slot);
    const uint32_t w = g * p_.rows + p.row;
    const unsigned k = field(out.wr_kind_o, g, 2);
    const uint32_t m = field(out.wr_mask_o, g, GB), tgt = field(out.wr_tgt_o, g, tgt_w_);
    count_access(true, k, m, w);
    for (unsigned b = 0; b < span_; ++b) ++c.st_.rf_writes[g * span_ + b], ++c.act_.rf_writes[g * span_ + b];
    // A divergent write to a patched WRG keeps its patch; any other
    // redirected write got a new one from the selection.
    if (k && p.div && patched_[w]) ++st_.kept;
    else if (k) ++st_.selections;
    patched_[w] = k != 0;
    place_[w] = Place{uint8_t(k), m, tgt};
    if (k == 1) {
      s.wr_hold = std::max(s.wr_hold, c.now_ + 1);
      claim_wr_ |= uint64_t(1) << g;
      count_patch(true, g, m);
    } else if (k == 2) {
      s.xg[s.nx++] = uint8_t(tgt / p_.rows);
    } else if (k == 3) {
      spillq_.push_back({in, true});
      ++s.spill_writes;
    }
    p = Port{};
  }
  if (stalled) ++st_.stall_cycles;
}

// One spill access per cycle on a free L1 port. A spill write also waits
// until the reserved way is out of cache use (spill_active_o).
void GrGuard::serve_spill() {
  if (spillq_.empty() || !l1_port_free()) return;
  Spill s = spillq_.front();
  if (s.write && !c_.l1_.last_way_reserved()) return;
  spillq_.pop_front();
  ++st_.l1_spill;
  const uint64_t done = c_.now_ + c_.l1_hit_;
  if (s.write) {
    --s.in->gr.spill_writes;
    s.in->gr.wr_hold = std::max(s.in->gr.wr_hold, done);
  } else {
    --s.in->gr.spill_reads;
    s.in->gr.hold = std::max(s.in->gr.hold, done);
  }
}

void GrGuard::writeback() {
  Core& c = c_;
  const uint64_t now = c.now_;
  std::fill(c.group_write_.begin(), c.group_write_.end(), 0);
  for (uint64_t m = claim_wr_; m; m &= m - 1) c.group_write_[unsigned(__builtin_ctzll(m))] = 1;
  claim_wr_ = 0;
  std::sort(c.wb_.begin(), c.wb_.end(), [](const Inst* a, const Inst* b) {
    return a->ready != b->ready ? a->ready < b->ready : a->seq < b->seq;
  });
  blocks::PatchingUnitIn pin{};
  present_writes(pin);
  for (unsigned g = 0; g < groups_; ++g) {
    const Port& p = rd_[g];
    if (!p.in) continue;
    pin.rd_valid_i |= uint64_t(1) << g;
    pin.rd_row_i |= uint64_t(p.row) << (g * row_w_);
    if (p.dead) pin.rd_dead_i |= uint64_t(1) << g;
    if (p.div) pin.rd_div_i |= uint64_t(1) << g;
  }
  st_.lookups += unsigned(__builtin_popcountll(pin.rd_valid_i)) + unsigned(__builtin_popcountll(pin.wr_valid_i));
  const blocks::PatchingUnitOut out = pu_->cycle(pin);
  if (spill_on_) st_.spill_way_cycles += now - last_now_;
  last_now_ = now;
  spill_on_ = out.spill_active_o;
  if (out.spill_active_o != c.l1_.last_way_reserved()) c.l1_.reserve_last_way(out.spill_active_o);
  apply_reads(pin, out);
  apply_writes(out);
  serve_spill();

  size_t keep = 0;
  for (size_t i = 0; i < c.wb_.size(); ++i) {
    Inst* in = c.wb_[i];
    const GrInst& s = in->gr;
    bool done = in->ready <= now && s.wr_done == all_slots(in) && !s.nx && !s.spill_writes && s.wr_hold <= now;
    if (!done) {
      c.wb_[keep++] = in;
      continue;
    }
    c.complete(in);
  }
  c.wb_.resize(keep);
}

// Energy: the unit's lookup comes before the bank access (+0.0027 ns,
// §6.3.3), so a moved entry is accessed only where it lives: a patched
// access costs the entries of a normal one, some of them in the patch WRG
// (or in the L1D). The SM's per-bank counts are the arbitrator's grants.
void GrGuard::add_activity(power::RfActivity& a) const {
  uint64_t reads = 0, writes = 0;
  for (unsigned i = 0; i < 4; ++i) reads += st_.rd[i], writes += st_.wr[i];
  a.read_entries += reads * span_ - st_.moved_rd - st_.spilled_rd;
  a.write_entries += writes * span_ - st_.moved_wr - st_.spilled_wr;
  a.patch_read_entries += st_.moved_rd;
  a.patch_write_entries += st_.moved_wr;
  a.pu_lookups += st_.lookups;
  a.pu_updates += st_.selections;
  a.l1d_spill_accesses += st_.l1_spill;
}

config::json GrGuard::stats() const {
  static const char* const kMix[] = {"normal", "normal_patch", "patch_occupied", "spill"};
  static const char* const kKind[] = {"normal", "same_group", "cross_group", "spill"};
  config::json j = config::json::object();
  for (unsigned i = 0; i < 4; ++i) {
    j["accesses"][kMix[i]] = st_.rd[i] + st_.wr[i];
    j["reads"][kMix[i]] = st_.rd[i];
    j["writes"][kMix[i]] = st_.wr[i];
    j["read_kinds"][kKind[i]] = st_.rd_kind[i];
    j["write_kinds"][kKind[i]] = st_.wr_kind[i];
  }
  j["patch_selections"] = st_.selections;
  j["kept_patches"] = st_.kept;
  j["selection_failures"] = st_.retries;
  j["write_stall_cycles"] = st_.stall_cycles;
  j["spill_way_active_cycles"] = st_.spill_way_cycles;
  j["l1d_spill_accesses"] = st_.l1_spill;
  j["patch_read_entries"] = st_.patch_rd_entries;
  j["patch_write_entries"] = st_.patch_wr_entries;
  j["moved_entries"] = st_.moved_rd + st_.moved_wr;
  j["spilled_entries"] = st_.spilled_rd + st_.spilled_wr;
  return j;
}

}  // namespace relgpu::sm
