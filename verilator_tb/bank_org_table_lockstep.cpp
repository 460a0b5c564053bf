// Lockstep: rtl/bank_org_table vs blocks::BankOrgTableModel, paper size.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "Vbank_org_table.h"
#include "blocks/bank_org_table/bank_org_table.h"
#include "lockstep.h"

namespace relgpu::blocks {
RELGPU_TB_GLUE(BotGlue, "bank_org_table", Vbank_org_table, BankOrgTable, RELGPU_BANK_ORG_TABLE_IN,
               RELGPU_BANK_ORG_TABLE_OUT);
}

using namespace relgpu;
using namespace relgpu::blocks;
using LS = tb::Lockstep<BotGlue>;
using Entry = BankOrgTableModel::Entry;

namespace {

BankOrgTableParams params() { return BankOrgTableParams::from(tb::block_config()); }

void put(uint64_t& v, unsigned i, unsigned w, uint64_t x) { v |= (x & mask(w)) << (i * w); }
uint64_t get(uint64_t v, unsigned i, unsigned w) { return (v >> (i * w)) & mask(w); }
void put_wide(Wide& v, unsigned lo, unsigned w, uint64_t x) {
  for (unsigned b = 0; b < w; ++b) set_wide_bit(v, lo + b, (x >> b) & 1);
}

BankOrgTableIn reorg_in(const BankOrgTableParams& p, const std::vector<uint32_t>& codes, uint32_t thr,
                        uint32_t nhyb, uint32_t nslow = 0) {
  BankOrgTableIn in;
  in.reorg_i = true;
  for (unsigned s = 0; s < p.num_sbs(); ++s) put_wide(in.sensors_i, s * p.code_width, p.code_width, codes[s]);
  in.slow_thr_i = thr;
  in.nhyb_i = nhyb;
  in.nslow_min_i = nslow;
  return in;
}

// Runs a re-organization and checks its latency: busy for NumSbs+1 cycles.
void reorg(LS& ls, const BankOrgTableParams& p, const std::vector<uint32_t>& codes, uint32_t thr, uint32_t nhyb,
           uint32_t nslow = 0) {
  ASSERT_TRUE(ls.step(reorg_in(p, codes, thr, nhyb, nslow))) << ls.report();
  unsigned busy = 0;
  for (;;) {
    ASSERT_TRUE(ls.step(BankOrgTableIn{})) << ls.report();
    if (!ls.model_out().reorg_busy_o) break;
    ASSERT_LT(++busy, 1000u);
  }
  EXPECT_EQ(busy + 1, p.reorg_latency());
}

// The sb order the sorter must produce: ascending code, ties to lower id.
std::vector<unsigned> order(const std::vector<uint32_t>& codes) {
  std::vector<unsigned> o(codes.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](unsigned a, unsigned b) { return codes[a] < codes[b]; });
  return o;
}

// One lookup on port 0, returns the model's result (the lockstep checks the RTL).
struct Look {
  unsigned vb, sba, sbb, spd;
  bool busy;
};
Look lookup(LS& ls, const BankOrgTableParams& p, unsigned slot, unsigned bank, uint32_t act) {
  BankOrgTableIn in;
  in.lk_valid_i = 1;
  put(in.lk_slot_i, 0, p.slot_w(), slot);
  put(in.lk_bank_i, 0, p.vb_w(), bank);
  put_wide(in.lk_act_i, 0, 32, act);
  EXPECT_TRUE(ls.step(in)) << ls.report();
  const auto& o = ls.model_out();
  return {unsigned(get(o.lk_vb_o, 0, p.vb_w())), unsigned(get(o.lk_sba_o, 0, p.sb_w())),
          unsigned(get(o.lk_sbb_o, 0, p.sb_w())), unsigned(get(o.lk_spd_o, 0, 2)), bool(o.lk_busy_o & 1)};
}

void dispatch(LS& ls, const BankOrgTableParams& p, unsigned slot, unsigned warp) {
  BankOrgTableIn in;
  in.disp_i = true;
  in.disp_slot_i = slot;
  in.disp_warp_i = warp;
  ASSERT_TRUE(ls.step(in)) << ls.report();
}

}  // namespace

// Every sensor above the threshold: all vbs slow, no swap possible, every
// active access busy, and FWAS sees no fast bank.
TEST(BankOrgTableLockstep, AllSubBanksSlow) {
  auto p = params();
  LS ls(p, "directed_all_slow");
  std::vector<uint32_t> codes(p.num_sbs());
  for (unsigned s = 0; s < p.num_sbs(); ++s) codes[s] = uint32_t(mask(p.code_width)) - (s % 3);
  reorg(ls, p, codes, 0, p.num_vbs);
  EXPECT_EQ(ls.model_out().nfast_o, 0u);
  EXPECT_EQ(ls.model().last_swaps(), 0u);
  auto o = order(codes);
  for (unsigned v = 0; v < p.num_vbs; ++v)
    EXPECT_TRUE((ls.model().bot(v) == Entry{o[2 * v], o[2 * v + 1], true, true})) << "vb " << v;
  dispatch(ls, p, 1, 3);
  for (unsigned r = 0; r < p.num_vbs; ++r) EXPECT_EQ(ls.model().rt(1, (3 + r) % p.num_vbs), r);
  auto l = lookup(ls, p, 1, 3, 0x00010000);
  EXPECT_EQ(l.vb, 0u);
  EXPECT_EQ(l.spd, 3u);
  EXPECT_TRUE(l.busy);
  auto idle = lookup(ls, p, 1, 3, 0);  // no active lane: no busy
  EXPECT_FALSE(idle.busy);
  EXPECT_EQ(ls.model_out().stall_o, 1u);  // from the busy access before
}

// Equal codes: the sorter keeps sb id order (the mutant reverses it).
TEST(BankOrgTableLockstep, EqualSensorCodes) {
  auto p = params();
  LS ls(p, "directed_equal");
  std::vector<uint32_t> codes(p.num_sbs(), 5);
  reorg(ls, p, codes, 5, 0);  // code == threshold is fast
  for (unsigned v = 0; v < p.num_vbs; ++v)
    EXPECT_TRUE((ls.model().bot(v) == Entry{2 * v, 2 * v + 1, false, false})) << "vb " << v;
  EXPECT_EQ(ls.model_out().nfast_o, p.num_vbs);
  // Two tie groups: ids interleave by group, then by id.
  for (unsigned s = 0; s < p.num_sbs(); ++s) codes[s] = s % 2 ? 2 : 9;
  reorg(ls, p, codes, 4, 0);
  EXPECT_TRUE((ls.model().bot(0) == Entry{1, 3, false, false}));
  EXPECT_TRUE((ls.model().bot(p.num_vbs - 1) == Entry{p.num_sbs() - 4, p.num_sbs() - 2, true, true}));
  // By rank: every code ties at the threshold, yet the last 10 picks
  // (sbs 22-31) are slow, the paper's 22 / 10 split.
  std::fill(codes.begin(), codes.end(), 5);
  const unsigned nslow = (p.num_sbs() * 10 + 16) / 32;
  reorg(ls, p, codes, 5, 0, nslow);
  for (unsigned v = 0; v < p.num_vbs; ++v)
    EXPECT_TRUE((ls.model().bot(v) == Entry{2 * v, 2 * v + 1, 2 * v + nslow >= p.num_sbs(),
                                            2 * v + 1 + nslow >= p.num_sbs()})) << "vb " << v;
  EXPECT_EQ(ls.model_out().nfast_o, (p.num_sbs() - nslow + 1) / 2);
}

// 22 fast / 10 slow sbs: the paper's 11 fast + 5 slow vbs; then hybrid swaps
// pair the slowest fast vbs with the fastest slow ones, fast sb in slot A.
TEST(BankOrgTableLockstep, HybridSwaps) {
  auto p = params();
  LS ls(p, "directed_hybrid");
  const unsigned N = p.num_vbs, S = p.num_sbs();
  std::vector<uint32_t> codes(S);
  for (unsigned s = 0; s < S; ++s) codes[s] = (s * 7 + 3) % S * uint32_t(mask(p.code_width)) / S;  // a permutation
  auto o = order(codes);
  const unsigned nf = (S * 22 + 16) / 32;  // 22 of 32
  const uint32_t thr = codes[o[nf - 1]];
  for (unsigned nhyb : {0u, 4u, 5u, N}) {
    reorg(ls, p, codes, thr, nhyb);
    const unsigned f = nf / 2, c = (nf + 1) / 2, n = std::min({nhyb / 2, f, N - c});
    EXPECT_EQ(ls.model().last_swaps(), n) << "nhyb " << nhyb;
    for (unsigned v = 0; v < N; ++v) {
      Entry want{o[2 * v], o[2 * v + 1], 2 * v >= nf, 2 * v + 1 >= nf};
      if (v + n >= f && v < f) {
        const unsigned u = nf - 1 - v;
        want = Entry{o[2 * v], o[2 * u], false, true};
      } else if (v >= c && v < c + n) {
        const unsigned w = nf - 1 - v;
        want = Entry{o[2 * w + 1], o[2 * v + 1], false, true};
      }
      EXPECT_TRUE(ls.model().bot(v) == want) << "nhyb " << nhyb << " vb " << v;
    }
    EXPECT_EQ(ls.model_out().nfast_o, c + n);
  }
  // With nhyb = N at paper size every slow vb was paired: all 16 fast.
  if (N == 16) {
    EXPECT_EQ(ls.model_out().nfast_o, 16u);
  }
  // Hybrid vb: lanes 0-15 only is 1-cycle, any upper lane is busy.
  dispatch(ls, p, 2, 5);
  int hb = -1;
  for (unsigned b = 0; b < N && hb < 0; ++b) {
    const auto& e = ls.model().bot(ls.model().rt(2, b));
    if (!e.spda && e.spdb) hb = int(b);
  }
  ASSERT_GE(hb, 0);
  EXPECT_FALSE(lookup(ls, p, 2, unsigned(hb), 0x0000FFFF).busy);
  EXPECT_TRUE(lookup(ls, p, 2, unsigned(hb), 0x80000001).busy);
  EXPECT_EQ(ls.model_out().stall_o, 0u);  // the low-half access did not stall
  ASSERT_TRUE(ls.step(BankOrgTableIn{}));
  EXPECT_EQ(ls.model_out().stall_o, uint64_t(1) << ls.model().rt(2, unsigned(hb)));
}

// ROM copy through the write port; writes while busy are ignored; the
// paper's renaming example: the last warp's R0 bank gets its category's
// fastest vb (bank 15 -> vb11, bank 0 -> vb0 for warp 15).
TEST(BankOrgTableLockstep, RomWritesAndRenaming) {
  auto p = params();
  LS ls(p, "directed_rom");
  const unsigned N = p.num_vbs, SW = p.sb_w();
  const unsigned nfv = (N * 11 + 8) / 16;  // 11 fast vbs of 16
  for (unsigned v = 0; v < N; ++v) {
    BankOrgTableIn in;
    in.we_i = true;
    in.widx_i = v;
    in.wdata_i = BankOrgTableModel::pack(Entry{2 * v + 1, 2 * v, v >= nfv, v >= nfv}, SW);
    ASSERT_TRUE(ls.step(in)) << ls.report();
  }
  ASSERT_TRUE(ls.step(BankOrgTableIn{}));  // outputs show the state before the edge
  EXPECT_EQ(ls.model_out().nfast_o, nfv);
  dispatch(ls, p, 3, N - 1);
  EXPECT_EQ(ls.model().rt(3, N - 1), nfv);  // slow bank N-1 -> first slow vb
  EXPECT_EQ(ls.model().rt(3, 0), 0u);       // fast bank 0 -> vb0
  auto l = lookup(ls, p, 3, 0, 0xFFFFFFFF);
  EXPECT_EQ(l.sba, 1u);
  EXPECT_EQ(l.sbb, 0u);
  EXPECT_FALSE(l.busy);
  // FWAS port 1 on a slow bank, port 0 on a fast one.
  BankOrgTableIn fw;
  put(fw.fw_slot_i, 0, p.slot_w(), 3);
  put(fw.fw_bank_i, 0, p.vb_w(), 0);
  put(fw.fw_slot_i, 1, p.slot_w(), 3);
  put(fw.fw_bank_i, 1, p.vb_w(), N - 1);
  ASSERT_TRUE(ls.step(fw)) << ls.report();
  EXPECT_EQ(ls.model_out().fw_fast_o & 3u, 1u);
  // A write during a re-organization is dropped.
  std::vector<uint32_t> codes(p.num_sbs(), 1);
  ASSERT_TRUE(ls.step(reorg_in(p, codes, 1, 0)));
  BankOrgTableIn w;
  w.we_i = true;
  w.widx_i = 0;
  w.wdata_i = BankOrgTableModel::pack(Entry{7, 7, true, true}, SW);
  ASSERT_TRUE(ls.step(w));
  for (unsigned i = 0; i < p.reorg_latency(); ++i) ASSERT_TRUE(ls.step(BankOrgTableIn{})) << ls.report();
  EXPECT_TRUE((ls.model().bot(0) == Entry{0, 1, false, false}));
  ls.reset();  // reset: identity pairing, identity renaming
  EXPECT_TRUE((ls.model().bot(1) == Entry{2, 3, false, false}));
  EXPECT_EQ(lookup(ls, p, 1, 2, 1).vb, 2u);
}

// Seeded constrained-random run: ROM copies, kernel launches with sensor
// codes in a narrow band (so ties and all-fast/all-slow cases occur),
// block dispatches and random lookups and FWAS queries every cycle.
TEST(BankOrgTableLockstep, Random) {
  auto p = params();
  const uint64_t seed = tb::seed_from_env(4204);
  const uint64_t cycles = 100000;
  std::printf("bank_org_table random: seed=%llu cycles=%llu\n", (unsigned long long)seed, (unsigned long long)cycles);
  LS ls(p, "random", seed);
  tb::Rng rng(seed);
  tb::Coverage cov({"rom_write", "rom_write_dropped", "reorg", "reorg_tie", "reorg_rank_cuts_ties", "reorg_all_slow",
                    "reorg_all_fast",
                    "reorg_odd_fast", "swap_none", "swap_some", "swap_max", "dispatch", "lookup_busy",
                    "lookup_hybrid_low", "lookup_hybrid_high", "lookup_idle_lanes", "stall", "fwas_fast",
                    "fwas_slow", "lookup_while_busy"});
  const unsigned N = p.num_vbs, S = p.num_sbs(), L = p.num_lookups;
  const uint32_t cmax = uint32_t(mask(p.code_width));
  uint64_t next_reorg = 0;
  for (uint64_t c = 0; c < cycles; ++c) {
    BankOrgTableIn in;
    const bool busy = ls.model().busy();
    if (c >= next_reorg && !busy && rng.chance(0.5)) {
      std::vector<uint32_t> codes(S);
      const uint32_t lo = uint32_t(rng.range(0, cmax)), span = uint32_t(rng.range(0, std::min<uint32_t>(cmax, 40)));
      for (auto& x : codes) x = std::min<uint32_t>(cmax, lo + uint32_t(rng.range(0, span)));
      uint32_t thr = uint32_t(rng.range(0, cmax));
      if (rng.chance(0.5)) thr = codes[order(codes)[std::min<unsigned>(S - 1, unsigned(rng.range(S / 2, S - 1)))]];
      const uint32_t nhyb = uint32_t(rng.chance(0.1) ? rng.bits(p.vb_w() + 1) : rng.range(0, N));
      const uint32_t nslow = uint32_t(rng.chance(0.5) ? 0 : rng.chance(0.1) ? rng.bits(p.sb_w() + 1) : rng.range(0, S));
      in = reorg_in(p, codes, thr, nhyb, nslow);
      std::vector<uint32_t> sorted = codes;
      std::sort(sorted.begin(), sorted.end());
      cov.hit("reorg_tie", std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end());
      unsigned nf = 0;
      for (auto x : codes) nf += x <= thr;
      cov.hit("reorg_rank_cuts_ties", nslow && nf > S - std::min<uint32_t>(S, nslow));
      nf = std::min<unsigned>(nf, S - std::min<uint32_t>(S, nslow));
      cov.hit("reorg_all_slow", nf == 0);
      cov.hit("reorg_all_fast", nf == S);
      cov.hit("reorg_odd_fast", nf % 2 == 1);
      cov.hit("reorg");
      next_reorg = c + rng.range(500, 4000);
    } else if (rng.chance(0.01)) {
      in.we_i = true;
      in.widx_i = uint32_t(rng.bits(p.vb_w()));
      in.wdata_i = uint32_t(rng.bits(2 * p.sb_w() + 2));
      cov.hit(busy ? "rom_write_dropped" : "rom_write");
    }
    if (rng.chance(0.02)) {
      in.disp_i = true;
      in.disp_slot_i = uint32_t(rng.bits(p.slot_w()));
      in.disp_warp_i = uint32_t(rng.bits(p.vb_w()));
      cov.hit("dispatch");
    }
    for (unsigned i = 0; i < L; ++i) {
      if (rng.chance(0.7)) in.lk_valid_i |= 1u << i;
      put(in.lk_slot_i, i, p.slot_w(), rng.bits(p.slot_w()));
      put(in.lk_bank_i, i, p.vb_w(), rng.bits(p.vb_w()));
      static const uint32_t acts[] = {0xFFFFFFFFu, 0x0000FFFFu, 0xFFFF0000u, 0u, 1u, 0x80000000u};
      put_wide(in.lk_act_i, 32 * i, 32, rng.chance(0.3) ? uint32_t(rng.bits(32)) : acts[rng.range(0, 5)]);
    }
    for (unsigned i = 0; i < p.num_fwas; ++i) {
      put(in.fw_slot_i, i, p.slot_w(), rng.bits(p.slot_w()));
      put(in.fw_bank_i, i, p.vb_w(), rng.bits(p.vb_w()));
    }
    const uint64_t swaps_before = ls.model().stats().swaps;
    ASSERT_TRUE(ls.step(in)) << ls.report();
    const auto& o = ls.model_out();
    if (!ls.model().busy() && busy) {  // a re-organization just finished
      const unsigned n = unsigned(ls.model().stats().swaps - swaps_before);
      cov.hit("swap_none", n == 0);
      cov.hit("swap_some", n > 0);
      cov.hit("swap_max", n > 0 && (n == N / 2 || ls.model().num_fast() == N));
    }
    for (unsigned i = 0; i < L; ++i) {
      if (!((in.lk_valid_i >> i) & 1)) continue;
      const unsigned spd = unsigned(get(o.lk_spd_o, i, 2));
      uint32_t act = 0;
      for (unsigned b = 0; b < 32; ++b) act |= uint32_t(wide_bit(in.lk_act_i, 32 * i + b)) << b;
      cov.hit("lookup_busy", (o.lk_busy_o >> i) & 1);
      cov.hit("lookup_hybrid_low", spd == 2 && act && !(act >> 16));
      cov.hit("lookup_hybrid_high", spd == 2 && (act >> 16));
      cov.hit("lookup_idle_lanes", spd == 3 && !act);
      cov.hit("lookup_while_busy", busy);
    }
    cov.hit("stall", o.stall_o != 0);
    cov.hit("fwas_fast", o.fw_fast_o != 0);
    cov.hit("fwas_slow", o.fw_fast_o != uint32_t(mask(p.num_fwas)));
  }
  std::printf("%s", cov.table("bank_org_table random").c_str());
  EXPECT_TRUE(cov.missing().empty()) << "coverage points never hit";
}
