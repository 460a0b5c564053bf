// The bank organization table in the SM's register-file path (sm/bot_unit.h):
// the BOT decides which physical sub-banks hold a register (a flipped cell
// shows in exactly the registers mapped onto its sub-bank), slow sub-banks
// cost cycles, RF-BRO halves the slow banks of Fig. 4, and partially active
// warps skip a slow upper half.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "sm_test_rig.h"

using namespace relgpu;

namespace {

// The paper's RF: 16 banks x 64 entries x 1,024 bits, 8 CTAs per SM.
void paper_rf(sm::test::TRig& r, std::initializer_list<std::string> extra) {
  for (const char* s : {"rf.num_banks=16", "rf.entries_per_bank=64", "rf.entry_bits=1024", "sm.max_ctas=8",
                        "bot.enable=true"})
    r.cfg.set(s);
  for (const std::string& s : extra) r.cfg.set(s);
}

// One warp holds 16 values (lane + (k+1)<<16) in %r2..%r17 across a loop of
// `iters`, then stores them: out[lane * 16 + k].
std::string hold_kernel(int iters) {
  std::string s = std::string(sm::test::kHead) +
                  ".visible .entry k(.param .u64 out) {\n"
                  "  .reg .b32 %r<40>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p;\n"
                  "  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n";
  for (int k = 0; k < 16; ++k)
    s += "  add.u32 %r" + std::to_string(k + 2) + ", %r0, " + std::to_string((k + 1) << 16) + ";\n";
  s += "  mov.u32 %r30, 0;\nLOOP:\n  add.u32 %r30, %r30, 1;\n  setp.lt.u32 %p, %r30, " + std::to_string(iters) +
       ";\n  @%p bra LOOP;\n  mul.wide.u32 %rd2, %r0, 64;\n  add.u64 %rd3, %rd1, %rd2;\n";
  for (int k = 0; k < 16; ++k)
    s += "  st.global.u32 [%rd3+" + std::to_string(4 * k) + "], %r" + std::to_string(k + 2) + ";\n";
  return s + "  ret;\n}\n";
}

// Runs hold_kernel with the given keys; once the values are held, flips bit
// 0 of word 5 of sub-bank 2g+1 (the upper half of physical bank g) at row r,
// where (g, r) is Eq. (3)'s place of the first held register %r(K+2) in a
// bank g >= 1. Returns K and the (lane, k) outputs that came out wrong.
struct Flip {
  unsigned k = 99;
  std::vector<std::pair<unsigned, unsigned>> wrong;
};
Flip flip_upper_half(std::initializer_list<std::string> keys) {
  sm::test::TRig r;
  paper_rf(r, keys);
  r.load(hold_kernel(200));
  uint64_t out = r.upload(std::vector<uint32_t>(32 * 16, 0));
  const ptx::Function* fn = r.mod->find("k");
  Flip f;
  r.before_cycle = [&](uint64_t now) {
    if (f.k != 99 || now < 400) return;
    for (unsigned k = 0; k < 16 && f.k == 99; ++k) {
      unsigned slot = 0, p = 0, width = 0;
      while (fn->regs[slot].name != "%r" + std::to_string(k + 2)) ++slot;
      if (!r.sm->regs().phys(0, slot, p, width) || r.sm->regs().group_of(0, p) == 0) continue;
      f.k = k;
      r.sm->regfile().entry(r.sm->regs().group_of(0, p), r.sm->regs().row_of(0, p))[16 + 5] ^= 1;
    }
  };
  r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
  std::vector<uint32_t> v = r.download<uint32_t>(out, 32 * 16);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned k = 0; k < 16; ++k)
      if (v[lane * 16 + k] != lane + ((k + 1) << 16)) f.wrong.push_back({lane, k});
  return f;
}

}  // namespace

// Identity BOT: sub-bank 2g+1 holds lanes 16-31 of bank g. RF-BRO with
// sub-bank 1 slow sorts the sub-banks 0, 2, 3, ..., 31, 1, so vb g (g >= 1)
// = {2g+1, 2g+2}: the same sub-bank now holds lanes 0-15 of bank g. The
// flipped cell shows in that register only, in lane 21 or lane 5: the data
// really lives where the BOT says.
TEST(BotData, AFlippedSubBankCellIsSeenOnlyByTheRegisterMappedOntoIt) {
  Flip id = flip_upper_half({"bot.pairing=identity", "bot.slow_sbs=1"});
  Flip bro = flip_upper_half({"bot.pairing=rf_bro", "bot.slow_sbs=1"});
  ASSERT_NE(id.k, 99u) << "no held register in a bank >= 1";
  ASSERT_EQ(id.wrong.size(), 1u);
  ASSERT_EQ(bro.wrong.size(), 1u);
  EXPECT_EQ(id.wrong[0], std::make_pair(21u, id.k));
  EXPECT_EQ(bro.wrong[0], std::make_pair(5u, bro.k));
  EXPECT_EQ(id.k, bro.k);
}

// A flip in a sub-bank half that no live register uses changes nothing.
TEST(BotData, AFlipOutsideTheMappedHalvesChangesNothing) {
  // Row 63 is never bound (one warp uses the first rows): flip its cells only.
  sm::test::TRig r;
  paper_rf(r, {"bot.pairing=rf_bro", "bot.slow_sbs=1"});
  r.load(hold_kernel(200));
  std::vector<uint32_t> zeros(32 * 16, 0);
  uint64_t out = r.upload(zeros);
  r.before_cycle = [&](uint64_t now) {
    if (now == 400)
      for (unsigned sb = 0; sb < 32; ++sb) r.sm->regfile().entry(sb / 2, 63)[(sb % 2) * 16] ^= 1;
  };
  r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
  std::vector<uint32_t> v = r.download<uint32_t>(out, 32 * 16);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned k = 0; k < 16; ++k) ASSERT_EQ(v[lane * 16 + k], lane + ((k + 1) << 16));
}

namespace {
// A compute loop over many registers, `threads` per CTA, 8 CTAs.
struct Timed {
  uint64_t cycles = 0, slow = 0, lookups = 0, fills = 0, fast_issues = 0, vl_rf_slow = 0, reorgs = 0, fast_sbs = 0;
  std::vector<uint64_t> sb_access;  // per sub-bank
  bool right = true;
};
Timed run_chain(std::initializer_list<std::string> keys, unsigned threads) {
  sm::test::TRig r;
  paper_rf(r, keys);
  std::string s = std::string(sm::test::kHead) +
                  ".visible .entry k(.param .u64 out) {\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<4>;\n"
                  "  .reg .pred %p;\n  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n"
                  "  mov.u32 %r1, %ctaid.x;\n  mad.lo.u32 %r0, %r1, " + std::to_string(threads) + ", %r0;\n";
  for (int k = 2; k < 18; ++k) s += "  add.u32 %r" + std::to_string(k) + ", %r0, " + std::to_string(k) + ";\n";
  s += "  mov.u32 %r30, 0;\nLOOP:\n";
  for (int k = 2; k < 18; ++k)
    s += "  xor.b32 %r" + std::to_string(k) + ", %r" + std::to_string(k) + ", %r" + std::to_string(k == 17 ? 2 : k + 1) + ";\n";
  s += "  add.u32 %r30, %r30, 1;\n  setp.lt.u32 %p, %r30, 20;\n  @%p bra LOOP;\n"
       "  mul.wide.u32 %rd2, %r0, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\n  ret;\n}\n";
  r.load(s);
  const unsigned n = 8 * threads;
  uint64_t out = r.upload(std::vector<uint32_t>(n, 0));
  Timed t;
  t.cycles = r.run_timing("k", {8, 1, 1}, {threads, 1, 1}, {out});
  // CPU reference of the same loop.
  std::vector<uint32_t> got = r.download<uint32_t>(out, n);
  for (unsigned i = 0; i < n; ++i) {
    uint32_t v[18];
    for (int k = 2; k < 18; ++k) v[k] = i + unsigned(k);
    for (int it = 0; it < 20; ++it)
      for (int k = 2; k < 18; ++k) v[k] ^= v[k == 17 ? 2 : k + 1];
    t.right = t.right && got[i] == v[2];
  }
  config::json b = r.stats()["bot"];
  t.slow = b["slow_accesses"].get<uint64_t>();
  t.lookups = b["lookups"].get<uint64_t>();
  t.fills = b["rt_fills"].get<uint64_t>();
  t.fast_issues = b["fwas_fast_issues"].get<uint64_t>();
  t.sb_access = b["sb_accesses"].get<std::vector<uint64_t>>();
  t.vl_rf_slow = b.value("vl_rf_slow_accesses", uint64_t(0));
  t.reorgs = b.value("reorgs", uint64_t(0));
  t.fast_sbs = b.value("max_fast_sbs", uint64_t(0));
  return t;
}
const char* kTenSlow = "bot.slow_sbs=1,3,5,7,9,11,13,15,17,19";  // one slow half in banks 0-9
}  // namespace

// Slow sub-banks cost cycles; results stay right.
TEST(BotTiming, SlowSubBanksTakeASecondCycle) {
  Timed none = run_chain({"bot.pairing=identity"}, 64);
  Timed ten = run_chain({"bot.pairing=identity", kTenSlow}, 64);
  EXPECT_TRUE(none.right);
  EXPECT_TRUE(ten.right);
  EXPECT_EQ(none.slow, 0u);
  EXPECT_GT(ten.slow, 0u);
  EXPECT_GT(ten.cycles, none.cycles);
  // The list may have spaces: each id after one counts too.
  Timed spaced = run_chain({"bot.pairing=identity", "bot.slow_sbs=1, 3, 5, 7, 9 ,11,13,15,17,19"}, 64);
  EXPECT_EQ(spaced.slow, ten.slow);
  EXPECT_EQ(spaced.cycles, ten.cycles);
}

// Fig. 4: ten slow sub-banks, one in each of banks 0-9, make 10 of 16 vbs
// slow (62.5%) under plain VL-SB; RF-BRO pairs them into 5 (31.25%). With
// every bank used evenly, slow accesses halve and the run is faster.
TEST(BotTiming, RfBroHalvesTheSlowBanks) {
  Timed vlsb = run_chain({"bot.pairing=identity", kTenSlow}, 64);
  Timed bro = run_chain({"bot.pairing=rf_bro", kTenSlow}, 64);
  EXPECT_TRUE(bro.right);
  EXPECT_EQ(vlsb.lookups, bro.lookups);
  const double share_vlsb = double(vlsb.slow) / double(vlsb.lookups);
  const double share_bro = double(bro.slow) / double(bro.lookups);
  EXPECT_NEAR(share_vlsb, 10.0 / 16, 0.08);
  EXPECT_NEAR(share_bro, 5.0 / 16, 0.08);
  EXPECT_LT(bro.cycles, vlsb.cycles);
}

// Warps of 16 threads touch only lanes 0-15: with every slow sub-bank in an
// upper half, no access is slow (the natural hybrid bank of §3.3.4).
TEST(BotTiming, HalfWarpsSkipSlowUpperHalves) {
  Timed half = run_chain({"bot.pairing=identity", kTenSlow}, 16);
  Timed full = run_chain({"bot.pairing=identity", kTenSlow}, 32);
  EXPECT_TRUE(half.right);
  EXPECT_EQ(half.slow, 0u);
  EXPECT_GT(full.slow, 0u);
}

// Renaming: every CTA dispatch fills its renaming-table row (through the
// block, before its warps' first access); the output stays right.
TEST(BotTiming, RenamingFillsARowPerCta) {
  Timed ren = run_chain({"bot.pairing=rf_bro", kTenSlow, "bot.renaming=true"}, 64);
  Timed plain = run_chain({"bot.pairing=rf_bro", kTenSlow}, 64);
  EXPECT_TRUE(ren.right);
  EXPECT_EQ(ren.fills, 8u);
  EXPECT_EQ(plain.fills, 0u);
  EXPECT_EQ(ren.lookups, plain.lookups);
  // The CTAs' banks land on other sub-banks than without renaming.
  EXPECT_NE(ren.sb_access, plain.sb_access);
}

// FWAS changes the issue order: with 8 CTAs of warps whose instructions hit
// fast and slow vbs, fast ones go first and the run takes other cycles.
TEST(BotTiming, FwasChangesTheIssueOrder) {
  Timed fwas = run_chain({"bot.pairing=rf_bro", kTenSlow, "bot.fwas=true"}, 64);
  Timed lrr = run_chain({"bot.pairing=rf_bro", kTenSlow}, 64);
  EXPECT_TRUE(fwas.right);
  EXPECT_GT(fwas.fast_issues, 0u);
  EXPECT_EQ(lrr.fast_issues, 0u);
  EXPECT_NE(fwas.cycles, lrr.cycles);
}

// Bad configurations are input errors naming the key.
TEST(BotConfig, Errors) {
  auto err = [](std::initializer_list<std::string> keys) -> std::string {
    sm::test::TRig r;
    paper_rf(r, keys);
    r.load(hold_kernel(1));
    try {
      r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {r.upload(std::vector<uint32_t>(512, 0))});
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(err({"bot.slow_sbs=1,x"}).find("bot.slow_sbs"), std::string::npos);
  EXPECT_NE(err({"bot.slow_sbs=32"}).find("bot.slow_sbs"), std::string::npos);
  EXPECT_NE(err({"rf.entry_bits=128", "rf.num_banks=32", "rf.entries_per_bank=256"}).find("rf.entry_bits"),
            std::string::npos);
  EXPECT_NE(err({"grguard.enable=true"}).find("grguard.enable"), std::string::npos);
  EXPECT_NE(err({"blocks.bank_org_table.num_vbs=8"}).find("num_vbs"), std::string::npos);
  EXPECT_NE(err({"bot.vl_rf=true", "bot.pairing=rf_bro"}).find("bot.vl_rf"), std::string::npos);
  EXPECT_NE(err({"bot.vl_rf=true", "bot.slow_sbs=3"}).find("bot.vl_rf"), std::string::npos);
  EXPECT_NE(err({"bot.reorg=true", "bot.slow_sbs=3"}).find("bot.reorg"), std::string::npos);
  EXPECT_NE(err({"bot.fba_rm=11"}).find("bot.fba_rm"), std::string::npos);  // identity pairing
  EXPECT_NE(err({"bot.fba_rm=16", "bot.pairing=rf_bro"}).find("bot.fba_rm"), std::string::npos);
  EXPECT_NE(err({"bot.fba_rm=11", "bot.pairing=rf_bro", "bot.renaming=true"}).find("bot.fba_rm"),
            std::string::npos);
  EXPECT_NE(err({"bot.hybrid=true", "bot.slow_sbs=3"}).find("bot.hybrid"), std::string::npos);
  EXPECT_NE(err({"bot.hybrid=true", "bot.slow_sbs=pv", "bot.renaming=true"}).find("bot.hybrid"), std::string::npos);
}

// FBA-RM (spec 002 §3): RF-BRO puts the five slow vbs last (11-15); with
// bot.fba_rm=11 every register of the chain kernel fits the warp's rows in
// vbs 0-10, so no access is slow, the slow sub-banks are never touched,
// and the results stay right. Within a warp slot the mapping is one to one.
TEST(BotTiming, FbaRmMapsRegistersOntoTheFastVbs) {
  Timed bro = run_chain({"bot.pairing=rf_bro", kTenSlow}, 64);
  Timed fba = run_chain({"bot.pairing=rf_bro", kTenSlow, "bot.fba_rm=11"}, 64);
  EXPECT_TRUE(fba.right);
  EXPECT_GT(bro.slow, 0u);
  EXPECT_EQ(fba.slow, 0u);
  EXPECT_EQ(fba.lookups, bro.lookups);
  ASSERT_EQ(fba.sb_access.size(), 32u);
  uint64_t slow_sbs = 0;  // kTenSlow's sub-banks, paired into vbs 11-15
  for (unsigned sb = 1; sb < 20; sb += 2) slow_sbs += fba.sb_access[sb];
  EXPECT_EQ(slow_sbs, 0u);

  sm::test::TRig r;
  paper_rf(r, {"bot.pairing=rf_bro", kTenSlow, "bot.fba_rm=11"});
  r.load(hold_kernel(1));
  r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {r.upload(std::vector<uint32_t>(512, 0))});
  const sm::SmRegs& regs = r.sm->regs();
  const unsigned rows = regs.capacity(0) / 16, base = regs.row_base(0);
  std::set<std::pair<unsigned, unsigned>> seen;
  for (unsigned p = 0; p < 16 * rows; ++p) {
    const unsigned g = regs.group_of(0, p), row = regs.row_of(0, p);
    EXPECT_EQ(g < 11, p < 11 * rows) << p;
    EXPECT_GE(row, base);
    EXPECT_LT(row, base + rows);
    EXPECT_TRUE(seen.insert({g, row}).second) << "register " << p << " shares (" << g << ", " << row << ")";
  }
}

// FWAS: with RF-BRO's slow vbs some instructions are fast and some slow;
// the schedulers issue the fast ones first and the results stay right.
TEST(BotTiming, FwasIssuesFastInstructionsFirst) {
  sm::test::TRig r;
  paper_rf(r, {"bot.pairing=rf_bro", kTenSlow, "bot.fwas=true"});
  r.load(hold_kernel(50));
  uint64_t out = r.upload(std::vector<uint32_t>(32 * 16, 0));
  r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
  std::vector<uint32_t> v = r.download<uint32_t>(out, 32 * 16);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned k = 0; k < 16; ++k) ASSERT_EQ(v[lane * 16 + k], lane + ((k + 1) << 16));
  const uint64_t fast = r.stats()["bot"]["fwas_fast_issues"].get<uint64_t>();
  EXPECT_GT(fast, 0u);
  EXPECT_LT(fast, r.stat("warp_insn")) << "some instructions touch the 5 slow vbs";
}

// bot.slow_sbs=pv: each SM's slowest 30% of sub-banks (10 of 32) from its
// chip's RF delay. RF-BRO pairs them into 5 slow vbs on every chip, so a run
// that uses every bank evenly sees about 5/16 slow accesses; plain VL-SB's
// share depends on where the chip's slow sub-banks fall (at least 5/16).
TEST(BotTiming, ProcessVariationPicksTheSlowSubBanks) {
  for (const char* chip : {"pv.chip_seed=1", "pv.chip_seed=2"}) {
    Timed bro = run_chain({"bot.pairing=rf_bro", "bot.slow_sbs=pv", chip}, 64);
    Timed vlsb = run_chain({"bot.pairing=identity", "bot.slow_sbs=pv", chip}, 64);
    EXPECT_TRUE(bro.right && vlsb.right);
    EXPECT_NEAR(double(bro.slow) / double(bro.lookups), 5.0 / 16, 0.08) << chip;
    EXPECT_GE(double(vlsb.slow) / double(vlsb.lookups), 5.0 / 16 - 0.08) << chip;
    EXPECT_GE(vlsb.cycles, bro.cycles) << chip;
  }
}

// 70% VL-RF: a 2-cycle register in nearly every 1,024-bit entry (a row of
// 32 registers nearly always holds one of the slowest 30%), so most
// accesses are slow (the paper's argument for sub-banks) and cost more
// cycles than RF-BRO's 5 slow vbs; results stay right.
TEST(BotTiming, VlRfSlowRegistersTakeASecondCycle) {
  Timed none = run_chain({"pv.chip_seed=1"}, 64);
  Timed rf = run_chain({"bot.vl_rf=true", "pv.chip_seed=1"}, 64);
  Timed bro = run_chain({"bot.pairing=rf_bro", "bot.slow_sbs=pv", "pv.chip_seed=1"}, 64);
  EXPECT_TRUE(none.right && rf.right && bro.right);
  EXPECT_EQ(none.vl_rf_slow, 0u);
  EXPECT_EQ(rf.slow, 0u);  // no slow sub-bank: the block itself says fast
  EXPECT_GT(double(rf.vl_rf_slow) / double(rf.lookups), 0.6);
  EXPECT_GT(rf.cycles, bro.cycles);
  EXPECT_GT(bro.cycles, none.cycles);
}

// Kernel-level re-organisation (NBTI-opt): at launch the block's sorter
// rewrites an identity BOT from the sub-bank sensor codes, fastest pair
// first, so the slow sub-banks end up paired as RF-BRO pairs them: about
// 5/16 slow accesses instead of plain VL-SB's share; results stay right.
TEST(BotTiming, ReorganisationAtLaunchPairsTheSlowSubBanks) {
  Timed vlsb = run_chain({"bot.pairing=identity", "bot.slow_sbs=pv", "pv.chip_seed=2"}, 64);
  Timed reorg = run_chain({"bot.pairing=identity", "bot.slow_sbs=pv", "bot.reorg=true", "pv.chip_seed=2"}, 64);
  Timed ren = run_chain({"bot.pairing=identity", "bot.slow_sbs=pv", "bot.reorg=true", "bot.renaming=true",
                         "pv.chip_seed=2"}, 64);
  EXPECT_TRUE(vlsb.right && reorg.right && ren.right);
  EXPECT_EQ(vlsb.reorgs, 0u);
  EXPECT_EQ(reorg.reorgs, 1u);
  EXPECT_EQ(vlsb.fast_sbs, 0u);  // no sorter, no count
  EXPECT_EQ(reorg.fast_sbs, 22u);  // bot.fast_rule=rank: the paper's 22 / 10
  EXPECT_NEAR(double(reorg.slow) / double(reorg.lookups), 5.0 / 16, 0.08);
  EXPECT_GT(double(vlsb.slow) / double(vlsb.lookups), double(reorg.slow) / double(reorg.lookups) + 0.05);
  EXPECT_EQ(ren.fills, 8u);  // one RT row per CTA, after the sorter is done
  EXPECT_NEAR(double(ren.slow) / double(ren.lookups), 5.0 / 16, 0.08);
}

// The sorter's fast class: by rank exactly 22 of 32 sub-banks; by threshold
// every code at or under the 22nd-fastest, so ties there add fast ones
// (this SM has some at pv.sigma_ratio=1:4) and fewer accesses are slow.
TEST(BotTiming, RankKeepsTwentyTwoFastSubBanksWhereCodesTie) {
  const auto chain = [](const char* rule) {
    return run_chain({"bot.pairing=identity", "bot.slow_sbs=pv", "bot.reorg=true", "pv.chip_seed=6",
                      "pv.sigma_ratio=1:4", rule}, 64);
  };
  Timed rank = chain("bot.fast_rule=rank"), thr = chain("bot.fast_rule=threshold");
  EXPECT_TRUE(rank.right && thr.right);
  EXPECT_EQ(rank.fast_sbs, 22u);
  EXPECT_GT(thr.fast_sbs, 22u);
  EXPECT_LT(double(thr.slow) / double(thr.lookups), double(rank.slow) / double(rank.lookups));
}

namespace {
// Hybrid banks: 8 CTAs of one warp; lanes 16-31 leave at a branch on %tid,
// lanes 0-15 run the xor loop of run_chain in the registers the taint
// analysis puts in the hybrid namespace, then store.
struct Branch {
  Timed t;
  config::json hybrid;
  std::vector<std::pair<unsigned, bool>> layout;  // warp slot 0: (bank, hybrid) per physical register
  std::set<std::pair<unsigned, unsigned>> places;
  std::vector<unsigned> hyb_vbs;
};
Branch run_branch(std::initializer_list<std::string> keys, bool upper = false) {
  sm::test::TRig r;
  paper_rf(r, keys);
  std::string s = std::string(sm::test::kHead) +
                  ".visible .entry k(.param .u64 out) {\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<4>;\n"
                  "  .reg .pred %p;\n  .reg .pred %q;\n  .reg .b64 %rd<8>;\n  ld.param.u64 %rd1, [out];\n"
                  "  mov.u32 %r31, %tid.x;\n  mov.u32 %r1, %ctaid.x;\n  mad.lo.u32 %r0, %r1, 32, %r31;\n"
                  "  mul.wide.u32 %rd6, %r0, 4;\n  add.u64 %rd7, %rd1, %rd6;\n"  // live across the branch, unused in it: pure
                  "  setp." + std::string(upper ? "lt" : "ge") + ".u32 %q, %r31, 16;\n  @%q bra DONE;\n";
  for (int k = 2; k < 18; ++k) s += "  add.u32 %r" + std::to_string(k) + ", %r0, " + std::to_string(k) + ";\n";
  s += "  mov.u32 %r30, 0;\nLOOP:\n";
  for (int k = 2; k < 18; ++k)
    s += "  xor.b32 %r" + std::to_string(k) + ", %r" + std::to_string(k) + ", %r" + std::to_string(k == 17 ? 2 : k + 1) + ";\n";
  s += "  add.u32 %r30, %r30, 1;\n  setp.lt.u32 %p, %r30, 20;\n  @%p bra LOOP;\n"
       "  mul.wide.u32 %rd2, %r0, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\nDONE:\n"
       "  st.global.u32 [%rd7+1024], %r31;\n  ret;\n}\n";
  r.load(s);
  uint64_t out = r.upload(std::vector<uint32_t>(512, 0));
  Branch b;
  r.before_cycle = [&](uint64_t now) {  // warp slot 0's layout, once it is bound
    if (now != 50) return;
    const sm::SmRegs& regs = r.sm->regs();
    for (unsigned p = 0; p < regs.capacity(0); ++p) {
      b.layout.push_back({regs.group_of(0, p), regs.hybrid(0, p)});
      b.places.insert({regs.group_of(0, p), regs.row_of(0, p)});
    }
  };
  b.t.cycles = r.run_timing("k", {8, 1, 1}, {32, 1, 1}, {out});
  std::vector<uint32_t> got = r.download<uint32_t>(out, 512);
  for (unsigned i = 0; i < 256; ++i) b.t.right = b.t.right && got[256 + i] == i % 32;
  for (unsigned i = 0; i < 256; ++i) {
    uint32_t v[18] = {};
    for (int k = 2; k < 18; ++k) v[k] = i + unsigned(k);
    for (int it = 0; it < 20; ++it)
      for (int k = 2; k < 18; ++k) v[k] ^= v[k == 17 ? 2 : k + 1];
    b.t.right = b.t.right && got[i] == ((i % 32 >= 16) == upper ? v[2] : 0u);
  }
  config::json j = r.stats()["bot"];
  b.t.slow = j["slow_accesses"].get<uint64_t>();
  b.t.lookups = j["lookups"].get<uint64_t>();
  b.hybrid = j.value("hybrid", config::json());
  return b;
}
const char* kPv[] = {"bot.pairing=rf_bro", "bot.slow_sbs=pv", "pv.chip_seed=1"};
}  // namespace

// Hybrid banks (spec 002 §5): the registers used under the %tid branch go
// to the hybrid vbs (fast sub-bank on lanes 0-15), so the half warp that
// runs the loop reads and writes them in one cycle; with RF-BRO alone some
// sit in slow vbs. Within the warp slot every register has its own place;
// the hybrid ones fill the hybrid vbs' rows first, then spill into pure
// vbs (all fast here: the swaps took every slow sub-bank).
TEST(BotTiming, HybridBanksServeHalfWarpsFromFastHalves) {
  Branch bro = run_branch({kPv[0], kPv[1], kPv[2]});
  Branch hyb = run_branch({kPv[0], kPv[1], kPv[2], "bot.hybrid=true"});
  EXPECT_TRUE(bro.t.right && hyb.t.right);
  ASSERT_TRUE(hyb.hybrid.is_object());
  EXPECT_TRUE(bro.hybrid.is_null());
  const unsigned nv = hyb.hybrid["max_vbs"].get<unsigned>();
  EXPECT_GE(nv, 2u);
  EXPECT_GT(hyb.hybrid["regs"].get<unsigned>(), 0u);
  EXPECT_LT(hyb.hybrid["regs"].get<unsigned>(), hyb.hybrid["of_regs"].get<unsigned>());
  EXPECT_GT(hyb.hybrid["lookups"].get<uint64_t>(), hyb.t.lookups / 2);
  EXPECT_EQ(hyb.hybrid["slow"].get<uint64_t>(), hyb.t.slow);  // the pure vbs are all fast
  EXPECT_LT(hyb.t.slow * 4, bro.t.slow) << "only the full-warp accesses before the branch stay slow";
  EXPECT_LT(hyb.t.cycles, bro.t.cycles);
  EXPECT_EQ(hyb.hybrid["slow_compactable"].get<uint64_t>(), 0u);
  EXPECT_EQ(hyb.hybrid["max_lane_branches"].get<unsigned>(), 1u);
  EXPECT_EQ(hyb.hybrid["planned_warps"].get<uint64_t>(), 8u);
  EXPECT_EQ(hyb.hybrid["permuted_warps"].get<uint64_t>(), 0u) << "lanes 0-15 are compact already";
  // Lanes 16-31 in the branch instead: lane compaction gives every warp the
  // permutation that puts them in slots 0-15, so they stay on the fast
  // halves. Without it threads keep their lanes and touch the slow halves,
  // and the stat counts them.
  Branch up = run_branch({kPv[0], kPv[1], kPv[2], "bot.hybrid=true"}, true);
  Branch keep = run_branch({kPv[0], kPv[1], kPv[2], "bot.hybrid=true", "bot.compaction=false"}, true);
  EXPECT_TRUE(up.t.right && keep.t.right);
  EXPECT_EQ(up.hybrid["permuted_warps"].get<uint64_t>(), 8u);
  EXPECT_FALSE(keep.hybrid.contains("permuted_warps"));
  EXPECT_EQ(up.t.slow, hyb.t.slow);
  EXPECT_EQ(up.hybrid["slow_compactable"].get<uint64_t>(), 0u);
  EXPECT_GT(keep.t.slow, hyb.t.slow * 4);
  EXPECT_GT(keep.hybrid["slow_compactable"].get<uint64_t>(), keep.t.slow / 2);
  EXPECT_GT(keep.t.cycles, up.t.cycles);
  ASSERT_FALSE(hyb.layout.empty());
  EXPECT_EQ(hyb.places.size(), hyb.layout.size()) << "two registers share a place";
  const unsigned rows = unsigned(hyb.layout.size()) / 16;
  std::vector<unsigned> per_bank(16, 0);
  unsigned nh = 0;
  for (auto [bank, h] : hyb.layout) nh += h, per_bank[bank] += h;
  EXPECT_GT(nh, 0u);
  EXPECT_LT(nh, hyb.layout.size());
  const unsigned full = unsigned(std::count(per_bank.begin(), per_bank.end(), rows));
  EXPECT_GE(full, std::min(nv, nh / rows)) << "hybrid registers left a hybrid vb's row unused";
}

// Blocks of at most 16 threads: N_hyb is 16, so the swaps pair every slow
// sub-bank with a fast one and no access of a half warp is slow; RF-BRO
// alone keeps five vbs of two slow sub-banks.
namespace {
// Lane compaction with data: one warp; lanes 16-31 run the body of a %tid
// branch and hold lane + 0x10000 in %r2 across a loop, then store it. While
// it is held, bit 0 of slot `slot` of %r2's warp register (sub-bank sbA
// for slots 0-15, sbB for 16-31, as the BOT maps %r2's bank) is flipped.
// Returns the lanes whose output came out wrong.
std::vector<unsigned> flip_compacted(bool compaction, unsigned slot) {
  sm::test::TRig r;
  paper_rf(r, {kPv[0], kPv[1], kPv[2], "bot.hybrid=true", compaction ? "bot.compaction=true" : "bot.compaction=false"});
  r.load(std::string(sm::test::kHead) +
         ".visible .entry k(.param .u64 out) {\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<3>;\n"
         "  ld.param.u64 %rd1, [out];\n  mov.u32 %r31, %tid.x;\n  setp.lt.u32 %p1, %r31, 16;\n  @%p1 bra DONE;\n"
         "  add.u32 %r2, %r31, 65536;\n  mov.u32 %r30, 0;\nLOOP:\n  add.u32 %r30, %r30, 1;\n"
         "  setp.lt.u32 %p2, %r30, 200;\n  @%p2 bra LOOP;\n  mul.wide.u32 %rd2, %r31, 4;\n"
         "  add.u64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\nDONE:\n  ret;\n}\n");
  uint64_t out = r.upload(std::vector<uint32_t>(32, 0));
  const ptx::Function* fn = r.mod->find("k");
  bool flipped = false;
  r.before_cycle = [&](uint64_t now) {
    if (flipped || now < 400) return;
    sm::SmRegs& regs = r.sm->regs();
    unsigned rs = 0, p = 0, width = 0;
    while (fn->regs[rs].name != "%r2") ++rs;
    ASSERT_TRUE(regs.phys(0, rs, p, width));
    unsigned a, b;
    regs.bank_map()->halves(0, regs.group_of(0, p), a, b);
    const unsigned sb = slot < 16 ? a : b;
    r.sm->regfile().wreg(sb / 2, regs.row_of(0, p))[(sb % 2) * 16 + slot % 16] ^= 1;
    flipped = true;
  };
  r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
  EXPECT_TRUE(flipped);
  std::vector<uint32_t> got = r.download<uint32_t>(out, 32);
  std::vector<unsigned> wrong;
  for (unsigned l = 0; l < 32; ++l)
    if (got[l] != (l < 16 ? 0u : l + 65536)) wrong.push_back(l);
  return wrong;
}
}  // namespace

// Lane compaction moves the data: with it, lane 16's value of %r2 lives in
// slot 0 (the fast sub-bank) and slot 16 holds lane 0, which left at the
// branch; without it, lane 16 is in slot 16. A flipped cell shows in the
// thread whose slot it is.
TEST(BotData, LaneCompactionMovesEachThreadsRegistersToItsSlot) {
  EXPECT_EQ(flip_compacted(true, 0), std::vector<unsigned>{16});
  EXPECT_EQ(flip_compacted(true, 16), std::vector<unsigned>{});
  EXPECT_EQ(flip_compacted(false, 0), std::vector<unsigned>{});
  EXPECT_EQ(flip_compacted(false, 16), std::vector<unsigned>{16});
  EXPECT_EQ(flip_compacted(true, 5), std::vector<unsigned>{21});
}

// bot.hybrid_regs: a branch on loaded data taints the registers of its
// body (the default namespace), but it is not arithmetic on the ids and no
// launch can evaluate it, so with `programmatic` or `launch` no register is
// hybrid. Results stay right either way.
TEST(BotTiming, HybridNamespaceFromLaunchBranchesOnly) {
  auto run = [](const char* regs_key) {
    sm::test::TRig r;
    paper_rf(r, {kPv[0], kPv[1], kPv[2], "bot.hybrid=true", regs_key});
    r.load(std::string(sm::test::kHead) +
           ".visible .entry k(.param .u64 out) {\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p1;\n"
           "  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd2, %r0, 4;\n"
           "  add.u64 %rd3, %rd1, %rd2;\n  ld.global.u32 %r1, [%rd3];\n  setp.eq.u32 %p1, %r1, 0;\n"
           "  @%p1 bra DONE;\n  add.u32 %r2, %r1, 5;\n  st.global.u32 [%rd3], %r2;\nDONE:\n  ret;\n}\n");
    std::vector<uint32_t> in(32);
    for (unsigned i = 0; i < 32; ++i) in[i] = i % 2;
    uint64_t out = r.upload(in);
    r.run_timing("k", {1, 1, 1}, {32, 1, 1}, {out});
    std::vector<uint32_t> got = r.download<uint32_t>(out, 32);
    for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(got[i], i % 2 ? 6u : 0u) << regs_key << " " << i;
    return r.stats()["bot"]["hybrid"]["regs"].get<uint64_t>();
  };
  EXPECT_GT(run("bot.hybrid_regs=tainted"), 0u);
  EXPECT_EQ(run("bot.hybrid_regs=programmatic"), 0u);
  EXPECT_EQ(run("bot.hybrid_regs=launch"), 0u);
}

TEST(BotTiming, HybridBanksPairEverySlowSubBankForHalfWarps) {
  Timed bro = run_chain({kPv[0], kPv[1], kPv[2]}, 16);
  Timed hyb = run_chain({kPv[0], kPv[1], kPv[2], "bot.hybrid=true"}, 16);
  EXPECT_TRUE(bro.right && hyb.right);
  EXPECT_GT(bro.slow, 0u);
  EXPECT_EQ(hyb.slow, 0u);
  EXPECT_LT(hyb.cycles, bro.cycles);
}
