#include "blocks/patching_unit/patching_unit.h"

#include "common/error.h"

namespace relgpu::blocks {

std::string PatchingUnitParams::describe() const {
  // The ablations only when set: the RTL, which has no such parameters, then differs.
  return "banks=" + std::to_string(banks) + " rows=" + std::to_string(rows) +
         " group_banks=" + std::to_string(group_banks) + " l1_lines=" + std::to_string(l1_lines) +
         (occupied_entries ? " occupied_entries=1" : "") + (per_group_select ? " per_group_select=1" : "");
}

PatchingUnitParams PatchingUnitParams::from(const config::Config& cfg) {
  using namespace patching_unit_keys;
  PatchingUnitParams p;
  p.banks = get_u(cfg, kBanks);
  p.rows = get_u(cfg, kRows);
  p.group_banks = get_u(cfg, kGroupBanks);
  p.l1_lines = get_u(cfg, kL1Lines);
  p.check();
  return p;
}

void PatchingUnitParams::check() const {
  using namespace patching_unit_keys;
  if (!pow2(banks) || !pow2(rows) || !pow2(group_banks) || !pow2(l1_lines))
    throw InputError(kBanks.name + ", " + kRows.name + ", " + kGroupBanks.name + " and " + kL1Lines.name +
                     " must be powers of 2");
  if (group_banks > banks / 2)
    throw InputError(kGroupBanks.name + " must leave at least 2 bank groups (" + kBanks.name + " / 2)");
  // Per-port fields are packed into 64-bit ports.
  const unsigned g = groups();
  if (g * tgt_w() > 64 || g * group_banks > 64 || g * row_w() > 64)
    throw InputError("blocks.patching_unit: " + std::to_string(g) + " bank groups do not fit the 64-bit ports");
}

PatchingUnitModel::PatchingUnitModel(const PatchingUnitParams& p) : p_(p) {
  p_.check();
  faulty_.assign(p_.num_wrg(), 0);  // RAM: not touched by reset()
  index_.assign(p_.num_wrg(), Index{});
  owner_.assign(p_.num_wrg(), 0);
  reset();
}

void PatchingUnitModel::reset() {
  dead_.assign(p_.num_wrg(), 1);
  patch_.assign(p_.num_wrg(), 0);
  ivalid_.assign(p_.num_wrg(), 0);
  spill_.assign(p_.l1_lines, 0);
}

unsigned PatchingUnitModel::spill_count() const {
  unsigned n = 0;
  for (auto s : spill_) n += s;
  return n;
}

// As the RTL: from the Faulty map (which the fm port may rewrite), or all
// entries for a write to an occupied WRG; or what that write moved.
uint32_t PatchingUnitModel::moved(const Index& e, uint32_t w) const {
  if (!e.whole) return faulty_[w];
  return p_.occupied_entries ? e.mask : uint32_t(mask(p_.group_banks));
}

void PatchingUnitModel::release(const Index& e) {
  if (e.spill) {
    later(spill_[e.tgt], 0);
  } else {
    if (ivalid_[e.tgt]) ++st_.release_patch_indexed;
    later(patch_[e.tgt], 0);
  }
}

PatchingUnitOut PatchingUnitModel::cycle(const PatchingUnitIn& in) {
  const unsigned G = p_.groups(), RW = p_.row_w(), GB = p_.group_banks, TW = p_.tgt_w();
  const uint32_t all = uint32_t(mask(GB));
  const bool active = !in.kernel_start_i;
  PatchingUnitOut out;
  pend_.clear();

  auto bit = [](uint64_t v, unsigned g) { return bool((v >> g) & 1); };
  auto kind_of = [&](const Index& e, unsigned g) -> unsigned {
    if (e.spill) return kSpill;
    return e.tgt / p_.rows == g ? kSame : kCross;
  };

  // Write-port classification and this cycle's selections.
  uint64_t wkeep = 0, wsel = 0;
  int sel_port = -1;
  for (unsigned g = 0; g < G; ++g) {
    const uint32_t w = g * p_.rows + field(in.wr_row_i, g, RW);
    const bool wv = bit(in.wr_valid_i, g);
    const bool keep = active && wv && ivalid_[w] && bit(in.wr_div_i, g);
    const bool sel = active && wv && !keep && (patch_[w] || faulty_[w]);
    wkeep |= uint64_t(keep) << g;
    wsel |= uint64_t(sel) << g;
    if (sel && sel_port < 0) sel_port = int(g);
  }
  // Per selecting port: the patch WRG (or spill line) and the entries moved.
  // The lowest port searches its group first, then the next groups
  // cyclically, lowest row first, then the spill lines; with
  // per_group_select the other ports search their own group only.
  struct Sel { bool ok = false, spill = false, whole = false; uint32_t tgt = 0, need = 0; };
  Sel sel[64];
  bool any_taken = false;
  for (unsigned sg = 0; sg < G; ++sg) {
    if (!bit(wsel, sg) || (int(sg) != sel_port && !p_.per_group_select)) continue;
    const bool first = int(sg) == sel_port;
    const uint32_t sw = sg * p_.rows + field(in.wr_row_i, sg, RW);
    Sel& z = sel[sg];
    z.whole = patch_[sw];
    z.need = !z.whole ? faulty_[sw] : p_.occupied_entries ? faulty_[sw] | index_[owner_[sw]].mask : all;
    for (unsigned i = 0; i < (first ? G : 1) && !z.ok; ++i) {
      const unsigned grp = (sg + i) % G;
      const bool grp_written = bit(in.wr_valid_i, grp);
      const uint32_t wrow = field(in.wr_row_i, grp, RW);
      for (uint32_t r = 0; r < p_.rows; ++r) {
        const uint32_t k = grp * p_.rows + r;
        if (!dead_[k] || patch_[k] || (grp_written && wrow == r) || (faulty_[k] & z.need)) continue;
        bool dup = false;  // a WRG the lowest port picked in another group this cycle
        for (unsigned o = 0; o < sg && !dup; ++o) dup = sel[o].ok && !sel[o].spill && sel[o].tgt == k;
        if (dup) continue;
        z.ok = true;
        z.tgt = k;
        break;
      }
    }
    for (uint32_t l = 0; first && !z.ok && l < p_.l1_lines; ++l)
      if (!spill_[l]) z.ok = z.spill = true, z.tgt = l;
  }

  // Read ports: redirect, then death.
  for (unsigned g = 0; g < G; ++g) {
    const uint32_t row = field(in.rd_row_i, g, RW), w = g * p_.rows + row;
    const Index& e = index_[w];
    if (active && bit(in.rd_valid_i, g) && ivalid_[w]) {
      const unsigned k = kind_of(e, g);
      out.rd_kind_o |= uint64_t(k) << (2 * g);
      out.rd_mask_o |= uint64_t(moved(e, w)) << (GB * g);
      out.rd_tgt_o |= uint64_t(e.tgt) << (TW * g);
      ++st_.rd[k];
      if (e.whole && !patch_[w]) ++st_.redirect_after_release;
    } else if (active && bit(in.rd_valid_i, g)) {
      ++st_.rd[kNormal];
    }
    const bool death = active && bit(in.rd_valid_i, g) && bit(in.rd_dead_i, g) && !bit(in.rd_div_i, g);
    const bool same_write = bit(in.wr_valid_i, g) && field(in.wr_row_i, g, RW) == row;
    if (death && same_write) ++st_.death_suppressed;
    if (death && !same_write) {
      later(dead_[w], 1);
      if (ivalid_[w]) {
        later(ivalid_[w], 0);
        ++st_.release_death;
        if (patch_[w]) ++st_.release_owner_occupied;
        release(e);
      }
    }
  }

  // Write ports.
  for (unsigned g = 0; g < G; ++g) {
    const uint32_t w = g * p_.rows + field(in.wr_row_i, g, RW);
    const Index& e = index_[w];
    if (bit(wkeep, g)) {
      const unsigned k = kind_of(e, g);
      out.wr_kind_o |= uint64_t(k) << (2 * g);
      out.wr_mask_o |= uint64_t(moved(e, w)) << (GB * g);
      out.wr_tgt_o |= uint64_t(e.tgt) << (TW * g);
      later(dead_[w], 0);
      ++st_.wr_keep;
      ++st_.wr[k];
    } else if (active && bit(in.wr_valid_i, g) && !bit(wsel, g)) {
      later(dead_[w], 0);
      ++st_.wr[kNormal];
      if (ivalid_[w]) {
        later(ivalid_[w], 0);
        ++st_.release_rewrite;
        release(e);
      }
    } else if (bit(wsel, g)) {
      const Sel& z = sel[g];
      if (!z.ok) {
        out.wr_retry_o |= uint64_t(1) << g;
        // Behind a lowest port that found nothing, one selection would have failed too.
        if (int(g) == sel_port || (!p_.per_group_select && !sel[sel_port].ok)) ++st_.retry_spill_full;
        else ++st_.retry_serial;
        continue;
      }
      any_taken = true;
      later(dead_[w], 0);
      if (ivalid_[w]) {
        ++st_.release_rewrite;
        release(e);
      }
      later(ivalid_[w], 1);
      const unsigned k = z.spill ? kSpill : (z.tgt / p_.rows == g ? kSame : kCross);
      out.wr_kind_o |= uint64_t(k) << (2 * g);
      out.wr_mask_o |= uint64_t(z.need) << (GB * g);
      out.wr_tgt_o |= uint64_t(z.tgt) << (TW * g);
      ++st_.wr[k];
      if (z.whole) ++st_.whole_selections;
    }
  }
  // The new patches last: they were free before this edge, so no release
  // above touched them.
  for (unsigned g = 0; g < G; ++g)
    if (bit(wsel, g) && sel[g].ok) later(sel[g].spill ? spill_[sel[g].tgt] : patch_[sel[g].tgt], 1);
  out.spill_active_o = spill_count() != 0;

  // Clock edge.
  if (in.fm_we_i) faulty_[in.fm_wrg_i & mask(p_.wrg_w())] = uint32_t(in.fm_data_i & all);
  if (!active) {
    ++st_.kernel_starts;
    reset();
    return out;
  }
  for (auto& [bitp, v] : pend_) *bitp = v;
  for (unsigned g = 0; any_taken && g < G; ++g) {
    const Sel& z = sel[g];
    if (!bit(wsel, g) || !z.ok) continue;
    const uint32_t w = g * p_.rows + field(in.wr_row_i, g, RW);
    index_[w] = Index{z.spill, z.whole, z.tgt, z.need};
    if (!z.spill) owner_[z.tgt] = w;
  }
  return out;
}

}  // namespace relgpu::blocks
