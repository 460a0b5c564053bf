// Lockstep: rtl/droop_predictor vs blocks::DroopPredictorModel, paper size.
#include <gtest/gtest.h>

#include "Vdroop_predictor.h"
#include "blocks/droop_predictor/droop_predictor.h"
#include "lockstep.h"

namespace relgpu::blocks {
RELGPU_TB_GLUE(DroopGlue, "droop_predictor", Vdroop_predictor, DroopPredictor, RELGPU_DROOP_PREDICTOR_IN,
               RELGPU_DROOP_PREDICTOR_OUT);
}

using namespace relgpu;
using namespace relgpu::blocks;
using LS = tb::Lockstep<DroopGlue>;

namespace {

DroopPredictorParams params() { return DroopPredictorParams::from(tb::block_config()); }

DroopPredictorIn csr(uint32_t addr, uint32_t data) {
  DroopPredictorIn in;
  in.csr_we_i = true;
  in.csr_addr_i = addr;
  in.csr_wdata_i = data;
  return in;
}
DroopPredictorIn rf_reads(uint32_t n) {
  DroopPredictorIn in;
  in.n_rf_rd_i = n;
  return in;
}

// Weights 0 except W_rf_rd = 1, so P = n_rf_rd_i; T2..T4 given.
void program_unit_power(LS& ls, uint32_t t2, uint32_t t3, uint32_t t4) {
  for (uint32_t a = 0; a < 6; ++a) ASSERT_TRUE(ls.step(csr(a, a == 4 ? 1 : 0))) << ls.report();
  ASSERT_TRUE(ls.step(csr(6, t2)));
  ASSERT_TRUE(ls.step(csr(7, t3)));
  ASSERT_TRUE(ls.step(csr(8, t4)));
}

}  // namespace

// P - hist == T must not trigger (strictly greater); one more must.
TEST(DroopPredictorLockstep, ThresholdEquality) {
  auto p = params();
  const uint32_t big = uint32_t(mask(p.power_width));
  for (unsigned k = 2; k <= p.hist_depth; ++k) {
    LS ls(p, "directed_equal_t" + std::to_string(k));
    const uint32_t t = 5;
    program_unit_power(ls, k == 2 ? t : big, k == 3 ? t : big, k == 4 ? t : big);
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(ls.step(rf_reads(0)));  // history all 0
    // Rise to t over k cycles: the increment over the window is exactly t.
    for (unsigned i = 0; i + 1 < k; ++i) ASSERT_TRUE(ls.step(rf_reads(0)));
    ASSERT_TRUE(ls.step(rf_reads(t))) << ls.report();
    EXPECT_FALSE(ls.model_out().droop_o) << "k=" << k;
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(ls.step(rf_reads(0)));
    ASSERT_TRUE(ls.step(rf_reads(t + 1))) << ls.report();
    EXPECT_TRUE(ls.model_out().droop_o) << "k=" << k;
    EXPECT_TRUE(ls.model_out().throttle_dispatch_o && ls.model_out().throttle_rf_o);
  }
}

// All weights and counts at their maximum: P saturates, never wraps.
TEST(DroopPredictorLockstep, Saturation) {
  auto p = params();
  LS ls(p, "directed_saturation");
  for (uint32_t a = 0; a < 6; ++a) ASSERT_TRUE(ls.step(csr(a, uint32_t(mask(p.weight_width)))));
  DroopPredictorIn in;
  in.n_int_i = in.n_fp_i = in.n_sfu_i = in.n_ldst_i = uint32_t(mask(p.cnt_width));
  in.n_rf_rd_i = in.n_rf_wr_i = uint32_t(mask(p.rf_cnt_width));
  ASSERT_TRUE(ls.step(in)) << ls.report();
  EXPECT_EQ(ls.model_out().power_o, mask(p.power_width));
  EXPECT_GT(ls.model().last_raw_power(), mask(p.power_width));
  EXPECT_TRUE(ls.model_out().droop_o);  // from an all-zero history
  for (unsigned i = 1; i < p.hist_depth; ++i) ASSERT_TRUE(ls.step(in));
  EXPECT_FALSE(ls.model_out().droop_o);  // flat at the maximum over the window: no increment
}

// The mask gates each throttle separately; droop_o is unmasked.
TEST(DroopPredictorLockstep, MaskAndReset) {
  auto p = params();
  LS ls(p, "directed_mask");
  program_unit_power(ls, 2, 2, 2);
  for (uint32_t m = 0; m < 4; ++m) {
    ASSERT_TRUE(ls.step(csr(9, m)));
    ASSERT_TRUE(ls.step(rf_reads(0)));
    ASSERT_TRUE(ls.step(rf_reads(10))) << ls.report();
    EXPECT_TRUE(ls.model_out().droop_o);
    EXPECT_EQ(ls.model_out().throttle_dispatch_o, bool(m & 1));
    EXPECT_EQ(ls.model_out().throttle_rf_o, bool(m & 2));
  }
  ls.reset();  // back to the reset weights, thresholds and mask
  DroopPredictorIn in;
  in.n_sfu_i = 3;
  ASSERT_TRUE(ls.step(in)) << ls.report();
  EXPECT_EQ(ls.model_out().power_o, std::min<uint64_t>(3 * (p.w_reset[2] & mask(p.weight_width)), mask(p.power_width)));
}

// Seeded constrained-random run: bursts of activity between idle stretches,
// occasional CSR writes, and thresholds pulled near the increments.
TEST(DroopPredictorLockstep, Random) {
  auto p = params();
  const uint64_t seed = tb::seed_from_env(4004);
  const uint64_t cycles = 100000;
  std::printf("droop_predictor random: seed=%llu cycles=%llu\n", (unsigned long long)seed, (unsigned long long)cycles);
  LS ls(p, "random", seed);
  tb::Rng rng(seed);
  tb::Coverage cov({"droop", "no_droop", "fire_t2_only", "fire_t3_only", "fire_t4_only", "equal_t2", "equal_t3",
                    "equal_t4", "power_saturated", "negative_increment", "csr_weight", "csr_threshold", "csr_mask",
                    "csr_ignored", "masked_dispatch_only", "masked_rf_only", "masked_off"});
  const uint32_t cmax = uint32_t(mask(p.cnt_width)), rmax = uint32_t(mask(p.rf_cnt_width));
  bool busy = false;
  for (uint64_t c = 0; c < cycles; ++c) {
    if (rng.chance(0.15)) busy = !busy;
    DroopPredictorIn in;
    uint32_t scale = busy ? rmax : rmax / 4;
    in.n_int_i = uint32_t(rng.range(0, busy ? cmax : 1));
    in.n_fp_i = uint32_t(rng.range(0, busy ? cmax : 1));
    in.n_sfu_i = uint32_t(rng.range(0, busy ? cmax : 0));
    in.n_ldst_i = uint32_t(rng.range(0, busy ? cmax : 1));
    in.n_rf_rd_i = uint32_t(rng.range(0, scale));
    in.n_rf_wr_i = uint32_t(rng.range(0, scale));
    if (rng.chance(0.01)) {
      in.csr_we_i = true;
      in.csr_addr_i = uint32_t(rng.range(0, 15));
      // Thresholds mostly small enough to fire; weights mostly moderate.
      in.csr_wdata_i = uint32_t(rng.chance(0.1) ? rng.bits(p.power_width) : rng.range(0, 300) & mask(p.power_width));
    } else if (rng.chance(0.002)) {
      in.csr_we_i = true;
      in.csr_addr_i = 9;
      in.csr_wdata_i = uint32_t(rng.bits(2));
    }
    // Coverage from the state before this cycle's edge.
    const auto& m = ls.model();
    const uint32_t h[3] = {m.hist(0), m.hist(1), m.hist(2)};
    const uint32_t t[3] = {m.threshold(2), m.threshold(3), m.threshold(4)};
    const uint32_t msk = m.throttle_mask();
    ASSERT_TRUE(ls.step(in)) << ls.report();
    const auto& o = ls.model_out();
    bool fire[3];
    for (unsigned k = 2; k <= 4; ++k) {
      bool used = k <= p.hist_depth;
      fire[k - 2] = used && uint64_t(o.power_o) > uint64_t(h[k - 2]) + t[k - 2];
      cov.hit("equal_t" + std::to_string(k), used && uint64_t(o.power_o) == uint64_t(h[k - 2]) + t[k - 2]);
    }
    cov.hit("droop", o.droop_o);
    cov.hit("no_droop", !o.droop_o);
    cov.hit("fire_t2_only", fire[0] && !fire[1] && !fire[2]);
    cov.hit("fire_t3_only", !fire[0] && fire[1] && !fire[2]);
    cov.hit("fire_t4_only", !fire[0] && !fire[1] && fire[2]);
    cov.hit("power_saturated", m.last_raw_power() > mask(p.power_width));
    cov.hit("negative_increment", o.power_o < h[0]);
    cov.hit("csr_weight", in.csr_we_i && in.csr_addr_i < 6);
    cov.hit("csr_threshold", in.csr_we_i && in.csr_addr_i >= 6 && in.csr_addr_i < 9);
    cov.hit("csr_mask", in.csr_we_i && in.csr_addr_i == 9);
    cov.hit("csr_ignored", in.csr_we_i && in.csr_addr_i > 9);
    cov.hit("masked_dispatch_only", o.droop_o && msk == 1);
    cov.hit("masked_rf_only", o.droop_o && msk == 2);
    cov.hit("masked_off", o.droop_o && msk == 0);
  }
  std::printf("%s", cov.table("droop_predictor random").c_str());
  EXPECT_TRUE(cov.missing().empty()) << "coverage points never hit";
}
