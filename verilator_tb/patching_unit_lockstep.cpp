// Lockstep: rtl/patching_unit vs blocks::PatchingUnitModel, paper size.
#include <gtest/gtest.h>

#include <functional>

#include "Vpatching_unit.h"
#include "blocks/patching_unit/patching_unit.h"
#include "lockstep.h"

namespace relgpu::blocks {
RELGPU_TB_GLUE(PatchingGlue, "patching_unit", Vpatching_unit, PatchingUnit, RELGPU_PATCHING_UNIT_IN,
               RELGPU_PATCHING_UNIT_OUT);
}

using namespace relgpu;
using namespace relgpu::blocks;
using LS = tb::Lockstep<PatchingGlue>;
using PU = PatchingUnitModel;

namespace {

PatchingUnitParams params() { return PatchingUnitParams::from(tb::block_config()); }

// Builds one cycle's inputs port by port.
struct Req {
  const PatchingUnitParams& p;
  PatchingUnitIn in{};
  explicit Req(const PatchingUnitParams& pp) : p(pp) {}
  static void put(uint64_t& v, unsigned g, unsigned w, uint64_t x) { v |= (x & mask(w)) << (g * w); }
  Req& read(uint32_t wrg, bool dead = false, bool div = false) {
    const unsigned g = wrg / p.rows;
    put(in.rd_valid_i, g, 1, 1);
    put(in.rd_row_i, g, p.row_w(), wrg % p.rows);
    put(in.rd_dead_i, g, 1, dead);
    put(in.rd_div_i, g, 1, div);
    return *this;
  }
  Req& write(uint32_t wrg, bool div = false) {
    const unsigned g = wrg / p.rows;
    put(in.wr_valid_i, g, 1, 1);
    put(in.wr_row_i, g, p.row_w(), wrg % p.rows);
    put(in.wr_div_i, g, 1, div);
    return *this;
  }
};

uint32_t get(uint64_t v, unsigned g, unsigned w) { return uint32_t((v >> (g * w)) & mask(w)); }

// Faulty map load: one WRG per cycle.
void load_faults(LS& ls, const PatchingUnitParams& p, const std::function<uint32_t(uint32_t)>& f) {
  for (uint32_t w = 0; w < p.num_wrg(); ++w) {
    PatchingUnitIn in;
    in.fm_we_i = true;
    in.fm_wrg_i = w;
    in.fm_data_i = f(w) & mask(p.group_banks);
    ASSERT_TRUE(ls.step(in)) << ls.report();
  }
}

void kernel_start(LS& ls) {
  PatchingUnitIn in;
  in.kernel_start_i = true;
  ASSERT_TRUE(ls.step(in)) << ls.report();
}

// Port g's write outcome in the last cycle.
struct WrOut {
  bool retry;
  unsigned kind;
  uint32_t mask, tgt;
};
WrOut wr_out(const LS& ls, const PatchingUnitParams& p, uint32_t wrg) {
  const auto& o = ls.model_out();
  const unsigned g = wrg / p.rows;
  return {bool(get(o.wr_retry_o, g, 1)), get(o.wr_kind_o, g, 2), get(o.wr_mask_o, g, p.group_banks),
          get(o.wr_tgt_o, g, p.tgt_w())};
}
WrOut rd_out(const LS& ls, const PatchingUnitParams& p, uint32_t wrg) {
  const auto& o = ls.model_out();
  const unsigned g = wrg / p.rows;
  return {false, get(o.rd_kind_o, g, 2), get(o.rd_mask_o, g, p.group_banks), get(o.rd_tgt_o, g, p.tgt_w())};
}

#define STEP(ls, r) ASSERT_TRUE((ls).step((r).in)) << (ls).report()

}  // namespace

// Every WRG is faulty in entry 0, so nothing can patch it: spill. Then the
// spill way fills, the next write retries, and a death frees a line.
TEST(PatchingUnitLockstep, NoCandidateSpillAndSpillFull) {
  auto p = params();
  LS ls(p, "directed_spill");
  load_faults(ls, p, [](uint32_t) { return 1u; });
  kernel_start(ls);
  for (uint32_t i = 0; i < p.l1_lines; ++i) {
    const uint32_t w = (i % p.groups()) * p.rows + i / p.groups();
    STEP(ls, Req(p).write(w));
    auto o = wr_out(ls, p, w);
    EXPECT_FALSE(o.retry);
    EXPECT_EQ(o.kind, PU::kSpill);
    EXPECT_EQ(o.tgt, i);  // lowest free line
    EXPECT_EQ(o.mask, 1u);
  }
  const uint32_t last = p.rows - 1;  // group 0, never written
  STEP(ls, Req(p).write(last));
  EXPECT_TRUE(wr_out(ls, p, last).retry);
  EXPECT_TRUE(ls.model_out().spill_active_o);
  // Reads of a spilled WRG go to its line.
  STEP(ls, Req(p).read(0));
  EXPECT_EQ(rd_out(ls, p, 0).kind, PU::kSpill);
  EXPECT_EQ(rd_out(ls, p, 0).tgt, 0u);
  // WRG 0 dies: line 0 frees and the retried write takes it.
  STEP(ls, Req(p).read(0, true));
  STEP(ls, Req(p).write(last));
  EXPECT_FALSE(wr_out(ls, p, last).retry);
  EXPECT_EQ(wr_out(ls, p, last).tgt, 0u);
  EXPECT_EQ(ls.model().stats().retry_spill_full, 1u);
}

// A's patch P is written by its own owner, so P moves whole to Q. A dies:
// P's Patch bit clears but P keeps redirecting (Index valid bit). Then the
// reverse order: an occupied WRG dies and releases its own patch.
TEST(PatchingUnitLockstep, ReleaseOfOccupiedPatch) {
  auto p = params();
  LS ls(p, "directed_occupied");
  const uint32_t A = 5;
  load_faults(ls, p, [&](uint32_t w) { return w == A ? 2u : 0u; });
  kernel_start(ls);
  STEP(ls, Req(p).write(A));
  auto a = wr_out(ls, p, A);
  ASSERT_EQ(a.kind, PU::kSame);
  EXPECT_EQ(a.tgt, 0u);  // lowest dead row of the same group
  EXPECT_EQ(a.mask, 2u);
  const uint32_t P = a.tgt;
  STEP(ls, Req(p).write(P));  // the owner of P writes it: P is occupied
  auto pw = wr_out(ls, p, P);
  EXPECT_EQ(pw.mask, uint32_t(mask(p.group_banks)));
  EXPECT_EQ(pw.tgt, 1u);
  const uint32_t Q = pw.tgt;
  STEP(ls, Req(p).read(A, true));  // A dies: P released
  EXPECT_FALSE(ls.model().patch(P));
  STEP(ls, Req(p).read(P));
  EXPECT_EQ(rd_out(ls, p, P).tgt, Q);  // still redirected, whole
  EXPECT_EQ(rd_out(ls, p, P).mask, uint32_t(mask(p.group_banks)));
  EXPECT_GE(ls.model().stats().redirect_after_release, 1u);
  STEP(ls, Req(p).read(P, true));
  EXPECT_FALSE(ls.model().patch(Q));

  // Occupied owner dies: A -> P again, P written -> Q, P dies.
  STEP(ls, Req(p).write(A));
  const uint32_t P2 = wr_out(ls, p, A).tgt;
  STEP(ls, Req(p).write(P2));
  const uint32_t Q2 = wr_out(ls, p, P2).tgt;
  STEP(ls, Req(p).read(P2, true));
  EXPECT_TRUE(ls.model().patch(P2));  // still serves A
  EXPECT_FALSE(ls.model().patch(Q2));
  EXPECT_GE(ls.model().stats().release_owner_occupied, 1u);
  STEP(ls, Req(p).read(A));
  EXPECT_EQ(rd_out(ls, p, A).tgt, P2);
}

// A divergent re-write keeps the patch; a full re-write re-selects.
TEST(PatchingUnitLockstep, DivergentWrite) {
  auto p = params();
  LS ls(p, "directed_divergent");
  const uint32_t A = 3;
  load_faults(ls, p, [&](uint32_t w) { return w == A ? 0x81u : 0u; });
  kernel_start(ls);
  STEP(ls, Req(p).write(A, true));  // divergent writes are patched too
  const uint32_t P = wr_out(ls, p, A).tgt;
  EXPECT_EQ(wr_out(ls, p, A).mask, 0x81u & mask(p.group_banks));
  const auto sel = ls.model().stats().wr[PU::kSame];
  STEP(ls, Req(p).write(A, true));
  EXPECT_EQ(wr_out(ls, p, A).tgt, P);
  EXPECT_EQ(ls.model().stats().wr_keep, 1u);
  EXPECT_TRUE(ls.model().patch(P));
  STEP(ls, Req(p).write(A, false));
  const uint32_t P2 = wr_out(ls, p, A).tgt;
  EXPECT_NE(P2, P);  // P was still a patch when the selection ran
  EXPECT_FALSE(ls.model().patch(P));
  EXPECT_EQ(ls.model().stats().wr[PU::kSame], sel + 2);
  // Divergent reads with the dead bit do not kill.
  STEP(ls, Req(p).read(A, true, true));
  EXPECT_FALSE(ls.model().dead(A));
}

// Group 0 cannot patch entry 0: cross-group patch. A write and a death of
// one WRG in one cycle keep it live; the re-write re-selects. Kernel start
// ignores that cycle's requests and clears every patch.
TEST(PatchingUnitLockstep, CrossGroupRewriteAndKernelStart) {
  auto p = params();
  LS ls(p, "directed_cross");
  load_faults(ls, p, [&](uint32_t w) { return w < p.rows ? 1u : 0u; });
  kernel_start(ls);
  const uint32_t A = 7, B = p.rows + 9;
  STEP(ls, Req(p).write(A).write(B));
  auto a = wr_out(ls, p, A);
  EXPECT_EQ(a.kind, PU::kCross);
  EXPECT_EQ(a.tgt, p.rows);  // lowest row of the next group
  EXPECT_FALSE(wr_out(ls, p, B).retry);  // B needs no patch
  STEP(ls, Req(p).read(A, true).write(A));
  EXPECT_FALSE(ls.model().dead(A));
  EXPECT_EQ(ls.model().stats().death_suppressed, 1u);
  // The re-write released row 0 of group 1, but it was still a patch when
  // the selection ran.
  EXPECT_EQ(wr_out(ls, p, A).tgt, p.rows + 1);
  EXPECT_FALSE(ls.model().patch(p.rows));
  // Requests in the kernel-start cycle are ignored.
  PatchingUnitIn ks = Req(p).read(A).write(B).in;
  ks.kernel_start_i = true;
  ASSERT_TRUE(ls.step(ks)) << ls.report();
  EXPECT_EQ(ls.model_out().rd_kind_o, 0u);
  STEP(ls, Req(p).read(A));
  EXPECT_EQ(rd_out(ls, p, A).kind, PU::kNormal);
  EXPECT_TRUE(ls.model().dead(A));
  EXPECT_FALSE(ls.model().patch(p.rows + 1));
  EXPECT_FALSE(ls.model_out().spill_active_o);
}

// Two writes needing a patch in one cycle: the lower port wins.
TEST(PatchingUnitLockstep, SerializedSelection) {
  auto p = params();
  LS ls(p, "directed_serial");
  load_faults(ls, p, [](uint32_t w) { return w % 2 ? 1u : 0u; });  // odd rows faulty
  kernel_start(ls);
  const uint32_t A = 1, B = p.rows + 1;
  STEP(ls, Req(p).write(A).write(B));
  EXPECT_FALSE(wr_out(ls, p, A).retry);
  EXPECT_TRUE(wr_out(ls, p, B).retry);
  STEP(ls, Req(p).write(B));
  EXPECT_FALSE(wr_out(ls, p, B).retry);
  EXPECT_EQ(wr_out(ls, p, B).tgt, p.rows);  // row 0 of B's group
  EXPECT_EQ(ls.model().stats().retry_serial, 1u);
}

// Seeded constrained-random kernels: a fault map at a realistic density,
// then writes (new and re-writes, some divergent), reads of live WRGs, and
// deaths, with a live population that swings between light and heavy so
// the run reaches cross-group patches, spills and a full spill way.
TEST(PatchingUnitLockstep, Random) {
  auto p = params();
  const uint64_t seed = tb::seed_from_env(4104);
  const uint64_t cycles = 100000;
  std::printf("patching_unit random: seed=%llu cycles=%llu\n", (unsigned long long)seed, (unsigned long long)cycles);
  LS ls(p, "random", seed);
  tb::Rng rng(seed);
  tb::Coverage cov({"rd_normal", "rd_same", "rd_cross", "rd_spill", "wr_normal", "wr_same", "wr_cross", "wr_spill",
                    "wr_keep_divergent", "retry_serial", "retry_spill_full", "release_death", "release_rewrite",
                    "release_owner_occupied", "release_patch_indexed", "redirect_after_release",
                    "death_suppressed", "whole_selection", "kernel_start", "spill_way_active", "fault_reload"});
  const unsigned G = p.groups();
  const uint32_t N = p.num_wrg();
  uint64_t c = 0;
  auto step = [&](const PatchingUnitIn& in) {
    const auto before = ls.model().stats();
    bool ok = ls.step(in);
    const auto& s = ls.model().stats();
    const char* rk[4] = {"rd_normal", "rd_same", "rd_cross", "rd_spill"};
    const char* wk[4] = {"wr_normal", "wr_same", "wr_cross", "wr_spill"};
    for (int k = 0; k < 4; ++k) {
      cov.hit(rk[k], s.rd[k] > before.rd[k]);
      cov.hit(wk[k], s.wr[k] > before.wr[k]);
    }
    cov.hit("wr_keep_divergent", s.wr_keep > before.wr_keep);
    cov.hit("retry_serial", s.retry_serial > before.retry_serial);
    cov.hit("retry_spill_full", s.retry_spill_full > before.retry_spill_full);
    cov.hit("release_death", s.release_death > before.release_death);
    cov.hit("release_rewrite", s.release_rewrite > before.release_rewrite);
    cov.hit("release_owner_occupied", s.release_owner_occupied > before.release_owner_occupied);
    cov.hit("release_patch_indexed", s.release_patch_indexed > before.release_patch_indexed);
    cov.hit("redirect_after_release", s.redirect_after_release > before.redirect_after_release);
    cov.hit("death_suppressed", s.death_suppressed > before.death_suppressed);
    cov.hit("whole_selection", s.whole_selections > before.whole_selections);
    cov.hit("kernel_start", s.kernel_starts > before.kernel_starts);
    cov.hit("spill_way_active", ls.model_out().spill_active_o);
    ++c;
    return ok;
  };

  while (c < cycles) {
    // A new fault map every few kernels, 3% to 40% faulty entries.
    if (c == 0 || rng.chance(0.3)) {
      const double pf = 0.03 + 0.37 * rng.range(0, 100) / 100.0;
      for (uint32_t w = 0; w < N && c < cycles; ++w) {
        PatchingUnitIn in;
        in.fm_we_i = true;
        in.fm_wrg_i = w;
        for (unsigned i = 0; i < p.group_banks; ++i)
          if (rng.chance(pf)) in.fm_data_i |= uint64_t(1) << i;
        ASSERT_TRUE(step(in)) << ls.report();
      }
      cov.hit("fault_reload");
    }
    PatchingUnitIn ks;
    ks.kernel_start_i = true;
    ASSERT_TRUE(step(ks)) << ls.report();
    // One kernel: a target live fraction that drifts, so patches run out.
    const uint64_t len = rng.range(3000, 15000);
    double live_target = 0.1 + 0.35 * rng.range(0, 100) / 100.0;
    std::vector<int64_t> retry(G, -1);  // WRG a port must retry, or -1
    unsigned live = 0;
    for (uint64_t k = 0; k < len && c < cycles; ++k) {
      if (rng.chance(0.0005)) live_target = 0.1 + 0.8 * rng.range(0, 100) / 100.0;
      if (k % 16 == 0) {  // live count, refreshed now and then
        live = 0;
        for (uint32_t w = 0; w < N; ++w) live += !ls.model().dead(w);
      }
      const bool grow = live < live_target * N;
      Req r(p);
      for (unsigned g = 0; g < G; ++g) {
        auto pick = [&](bool want_live) -> int64_t {
          for (int t = 0; t < 8; ++t) {
            uint32_t w = g * p.rows + uint32_t(rng.range(0, p.rows - 1));
            if (ls.model().dead(w) != want_live) return w;
          }
          return -1;
        };
        // Write: a retry, a new register vector, or a re-write.
        if (retry[g] >= 0 && rng.chance(0.9)) {
          r.write(uint32_t(retry[g]), rng.chance(0.2));
        } else if (rng.chance(0.45)) {
          int64_t w = pick(!(grow ? rng.chance(0.8) : rng.chance(0.2)));
          if (w >= 0) r.write(uint32_t(w), rng.chance(0.2));
        }
        retry[g] = -1;
        // Read: mostly live WRGs; the dead bit ends a live range.
        if (rng.chance(0.6)) {
          int64_t w = pick(true);
          if (w < 0 || rng.chance(0.02)) w = g * p.rows + uint32_t(rng.range(0, p.rows - 1));
          const double pdead = grow ? 0.05 : 0.3;
          r.read(uint32_t(w), rng.chance(pdead), rng.chance(0.15));
        }
      }
      if (rng.chance(0.0005)) {  // stray fault-map write mid-kernel
        r.in.fm_we_i = true;
        r.in.fm_wrg_i = uint32_t(rng.range(0, N - 1));
        r.in.fm_data_i = rng.bits(p.group_banks);
      }
      ASSERT_TRUE(step(r.in)) << ls.report();
      for (unsigned g = 0; g < G; ++g)
        if (get(ls.model_out().wr_retry_o, g, 1)) retry[g] = g * p.rows + get(r.in.wr_row_i, g, p.row_w());
    }
  }
  std::printf("%s", cov.table("patching_unit random").c_str());
  const auto& s = ls.model().stats();
  std::printf("access mix: reads normal/same/cross/spill = %llu/%llu/%llu/%llu\n", (unsigned long long)s.rd[0],
              (unsigned long long)s.rd[1], (unsigned long long)s.rd[2], (unsigned long long)s.rd[3]);
  EXPECT_TRUE(cov.missing().empty()) << "coverage points never hit";
}
