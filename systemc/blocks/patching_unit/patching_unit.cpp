#include "blocks/patching_unit/patching_unit.h"

#include "common/error.h"

namespace relgpu::blocks {

std::string PatchingUnitParams::describe() const {
  // occupied_entries only when set: the RTL, which has no such parameter, then differs.
  return "banks=" + std::to_string(banks) + " rows=" + std::to_string(rows) +
         " group_banks=" + std::to_string(group_banks) + " l1_lines=" + std::to_string(l1_lines) +
         (occupied_entries ? " occupied_entries=1" : "");
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

  // Write-port classification and the one selection of this cycle.
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
  bool found = false, line_found = false;
  uint32_t pick = 0, line = 0, sel_need = 0;
  bool sel_whole = false;
  if (sel_port >= 0) {
    const unsigned sg = unsigned(sel_port);
    const uint32_t sw = sg * p_.rows + field(in.wr_row_i, sg, RW);
    sel_whole = patch_[sw];
    sel_need = !sel_whole ? faulty_[sw] : p_.occupied_entries ? faulty_[sw] | index_[owner_[sw]].mask : all;
    // Same group first, then the next groups cyclically, lowest row first.
    for (unsigned i = 0; i < G && !found; ++i) {
      const unsigned grp = (sg + i) % G;
      const bool grp_written = bit(in.wr_valid_i, grp);
      const uint32_t wrow = field(in.wr_row_i, grp, RW);
      for (uint32_t r = 0; r < p_.rows; ++r) {
        const uint32_t k = grp * p_.rows + r;
        if (!dead_[k] || patch_[k] || (grp_written && wrow == r) || (faulty_[k] & sel_need)) continue;
        found = true;
        pick = k;
        break;
      }
    }
    for (uint32_t l = 0; l < p_.l1_lines && !line_found; ++l)
      if (!spill_[l]) line_found = true, line = l;
  }
  const bool sel_ok = sel_port >= 0 && (found || line_found);
  const bool sel_spill = !found;
  const uint32_t sel_tgt = found ? pick : line;

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
  bool taken = false;
  uint32_t sel_wrg = 0;
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
      if (taken || !sel_ok) {
        out.wr_retry_o |= uint64_t(1) << g;
        if (taken) ++st_.retry_serial;
        else ++st_.retry_spill_full;
        continue;
      }
      taken = true;
      sel_wrg = w;
      later(dead_[w], 0);
      if (ivalid_[w]) {
        ++st_.release_rewrite;
        release(e);
      }
      later(ivalid_[w], 1);
      const unsigned k = sel_spill ? kSpill : (pick / p_.rows == g ? kSame : kCross);
      out.wr_kind_o |= uint64_t(k) << (2 * g);
      out.wr_mask_o |= uint64_t(sel_need) << (GB * g);
      out.wr_tgt_o |= uint64_t(sel_tgt) << (TW * g);
      ++st_.wr[k];
      if (sel_whole) ++st_.whole_selections;
    }
  }
  // The new patch last: it was free before this edge, so no release above
  // touched it.
  if (taken) later(sel_spill ? spill_[line] : patch_[pick], 1);
  out.spill_active_o = spill_count() != 0;

  // Clock edge.
  if (in.fm_we_i) faulty_[in.fm_wrg_i & mask(p_.wrg_w())] = uint32_t(in.fm_data_i & all);
  if (!active) {
    ++st_.kernel_starts;
    reset();
    return out;
  }
  for (auto& [bitp, v] : pend_) *bitp = v;
  if (taken) {
    index_[sel_wrg] = Index{sel_spill, sel_whole, sel_tgt, sel_need};
    if (!sel_spill) owner_[pick] = sel_wrg;
  }
  return out;
}

}  // namespace relgpu::blocks
