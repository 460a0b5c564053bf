#include "blocks/bank_org_table/bank_org_table.h"

#include <algorithm>

#include "common/error.h"

namespace relgpu::blocks {

namespace {
uint64_t field(uint64_t v, unsigned i, unsigned w) { return (v >> (i * w)) & mask(w); }
uint32_t wide_field(const Wide& v, unsigned lo, unsigned w) {
  if (lo % 32 == 0 && w == 32) return lo / 32 < v.size() ? v[lo / 32] : 0;  // a whole word (lk_act_i)
  uint32_t x = 0;
  for (unsigned b = 0; b < w; ++b) x |= uint32_t(wide_bit(v, lo + b)) << b;
  return x;
}
}  // namespace

std::string BankOrgTableParams::describe() const {
  return "num_vbs=" + std::to_string(num_vbs) + " num_slots=" + std::to_string(num_slots) +
         " code_width=" + std::to_string(code_width) + " num_lookups=" + std::to_string(num_lookups) +
         " num_fwas=" + std::to_string(num_fwas);
}

BankOrgTableParams BankOrgTableParams::from(const config::Config& cfg) {
  using namespace bank_org_table_keys;
  BankOrgTableParams p;
  p.num_vbs = get_u(cfg, kNumVbs);
  p.num_slots = get_u(cfg, kNumSlots);
  p.code_width = get_u(cfg, kCodeWidth);
  p.num_lookups = get_u(cfg, kNumLookups);
  p.num_fwas = get_u(cfg, kNumFwas);
  p.check();
  return p;
}

void BankOrgTableParams::check() const {
  using namespace bank_org_table_keys;
  if (!pow2(num_vbs) || !pow2(num_slots))
    throw InputError(kNumVbs.name + " and " + kNumSlots.name + " must be powers of 2");
  // Per-port fields are packed into 64-bit ports.
  if (num_lookups * std::max(sb_w(), slot_w()) > 64 || num_fwas * slot_w() > 64)
    throw InputError("blocks.bank_org_table: too many lookup/FWAS ports for 64-bit ports");
}

BankOrgTableModel::BankOrgTableModel(const BankOrgTableParams& p) : p_(p) {
  p_.check();
  code_.assign(p_.num_sbs(), 0);  // sensor snapshot: not reset, as in the RTL
  reset();
}

void BankOrgTableModel::reset() {
  bot_.assign(p_.num_vbs, Entry{});
  for (unsigned v = 0; v < p_.num_vbs; ++v) bot_[v] = Entry{2 * v, 2 * v + 1, false, false};
  rt_.resize(size_t(p_.num_slots) * p_.num_vbs);
  for (unsigned s = 0; s < p_.num_slots; ++s)
    for (unsigned b = 0; b < p_.num_vbs; ++b) rt_[s * p_.num_vbs + b] = b;
  stall_ = 0;
  st_ = kIdle;
  k_ = nf_ = nhyb_ = 0;
  prev_sb_ = 0;
  prev_slow_ = false;
  taken_.assign(p_.num_sbs(), 0);
}

unsigned BankOrgTableModel::num_fast() const {
  unsigned n = 0;
  for (auto& e : bot_) n += e.fast();
  return n;
}

// Bank (w + r) % N takes the next unused vb of its category, in vb order.
std::vector<uint32_t> BankOrgTableModel::fill_row(unsigned warp) const {
  const unsigned n = p_.num_vbs, nf = num_fast();
  std::vector<uint32_t> fl, sl, row(n);
  for (unsigned v = 0; v < n; ++v) (bot_[v].fast() ? fl : sl).push_back(v);
  unsigned jf = 0, js = 0;
  for (unsigned r = 0; r < n; ++r) {
    const unsigned b = (warp + r) % n;
    row[b] = b < nf ? fl[jf++] : sl[js++];
  }
  return row;
}

BankOrgTableOut BankOrgTableModel::cycle(const BankOrgTableIn& in) {
  const unsigned N = p_.num_vbs, VW = p_.vb_w(), SW = p_.sb_w(), LW = p_.slot_w(), CW = p_.code_width;
  BankOrgTableOut out;
  out.reorg_busy_o = st_ != kIdle;
  out.nfast_o = num_fast();
  out.stall_o = stall_;

  uint64_t stall_d = 0;
  for (unsigned i = 0; i < p_.num_lookups; ++i) {
    const unsigned slot = unsigned(field(in.lk_slot_i, i, LW)), bank = unsigned(field(in.lk_bank_i, i, VW));
    const unsigned v = rt_[slot * N + bank];
    const Entry& e = bot_[v];
    const uint32_t act = wide_field(in.lk_act_i, 32 * i, 32);
    const bool busy = ((in.lk_valid_i >> i) & 1) && ((e.spda && (act & 0xFFFFu)) || (e.spdb && (act >> 16)));
    out.lk_vb_o |= uint64_t(v) << (i * VW);
    out.lk_sba_o |= uint64_t(e.sba) << (i * SW);
    out.lk_sbb_o |= uint64_t(e.sbb) << (i * SW);
    out.lk_spd_o |= (uint32_t(e.spda) | uint32_t(e.spdb) << 1) << (2 * i);
    out.lk_busy_o |= uint32_t(busy) << i;
    if (busy) stall_d |= uint64_t(1) << v;
    st_count_.lookups += (in.lk_valid_i >> i) & 1;
    st_count_.busy += busy;
  }
  for (unsigned i = 0; i < p_.num_fwas; ++i) {
    const unsigned slot = unsigned(field(in.fw_slot_i, i, LW)), bank = unsigned(field(in.fw_bank_i, i, VW));
    const bool f = bot_[rt_[slot * N + bank]].fast();
    out.fw_fast_o |= uint32_t(f) << i;
  }

  // Clock edge. The RT fill reads the BOT before this edge's writes.
  if (in.disp_i) {
    const auto row = fill_row(in.disp_warp_i & uint32_t(mask(VW)));
    const unsigned slot = in.disp_slot_i & uint32_t(mask(LW));
    std::copy(row.begin(), row.end(), rt_.begin() + slot * N);
    ++st_count_.dispatches;
  }
  stall_ = stall_d;
  switch (st_) {
    case kIdle:
      if (in.we_i) {
        const uint32_t d = in.wdata_i;
        bot_[in.widx_i & mask(VW)] = Entry{uint32_t(d & mask(SW)), uint32_t((d >> SW) & mask(SW)),
                                          bool((d >> (2 * SW)) & 1), bool((d >> (2 * SW + 1)) & 1)};
        ++st_count_.rom_writes;
      }
      if (in.reorg_i) {
        st_ = kSort;
        k_ = 0;
        nf_ = 0;
        taken_.assign(p_.num_sbs(), 0);
        for (unsigned s = 0; s < p_.num_sbs(); ++s) code_[s] = wide_field(in.sensors_i, s * CW, CW);
        thr_ = in.slow_thr_i & uint32_t(mask(CW));
        nslow_ = in.nslow_min_i & uint32_t(mask(SW + 1));
        nhyb_ = in.nhyb_i & uint32_t(mask(VW + 1));
        ++st_count_.reorgs;
      }
      break;
    case kSort: {
      // Fastest untaken sb; a strict compare keeps the lower id on ties.
      unsigned pick = 0;
      bool have = false;
      for (unsigned s = 0; s < p_.num_sbs(); ++s)
        if (!taken_[s] && (!have || code_[s] < code_[pick])) have = true, pick = s;
      const bool slow = code_[pick] > thr_ || k_ + nslow_ >= p_.num_sbs();  // by code, or by rank
      taken_[pick] = 1;
      nf_ += !slow;
      if (k_ % 2 == 0) prev_sb_ = pick, prev_slow_ = slow;
      else bot_[k_ / 2] = Entry{prev_sb_, pick, prev_slow_, slow};
      if (++k_ == p_.num_sbs()) st_ = kSwap;
      break;
    }
    case kSwap: {
      const unsigned f = nf_ / 2, c = f + nf_ % 2, s = N - c, h = nhyb_ / 2;
      const unsigned n = std::min(h, std::min(f, s));
      const auto old = bot_;
      for (unsigned v = f - n; v < f; ++v) {
        const unsigned u = nf_ - 1 - v;  // C + (F-1-v)
        const Entry& ev = old[v];
        const Entry& eu = old[u];
        bot_[v] = Entry{ev.sba, eu.sba, ev.spda, eu.spda};
        bot_[u] = Entry{ev.sbb, eu.sbb, ev.spdb, eu.spdb};
      }
      last_swaps_ = n;
      st_count_.swaps += n;
      st_ = kIdle;
      break;
    }
  }
  return out;
}

}  // namespace relgpu::blocks
