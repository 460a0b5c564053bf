// RF delay under process variation (reliability/rf_delay.h): the cell's
// alpha-power law, the aggregation into registers, sub-banks and arrays
// (checked against the raw Vth / Leff draws), the schemes' clocks, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "reliability/rf_delay.h"

namespace relgpu::reliability {
namespace {

RfGeometry small_geometry() {
  RfGeometry g;
  g.sms = 2, g.banks = 4, g.rows = 16, g.entry_bits = 256;
  return g;
}

TEST(ReliabilityRfDelay, AlphaPowerCell) {
  EXPECT_DOUBLE_EQ(RfDelay::cell_delay(0, 0), 1.0);  // no variation
  EXPECT_DOUBLE_EQ(RfDelay::cell_delay(0, 0.06), 1.06);  // delay ~ Leff
  // Vdd 1 V: overdrive 0.65 V; +65 mV of Vth: (0.65 / 0.585)^1.3 = 1.1468.
  EXPECT_NEAR(RfDelay::cell_delay(0.065, 0, 1.0), 1.1468, 1e-4);
  EXPECT_LT(RfDelay::cell_delay(-0.05, -0.03), 1.0);
  // A lower supply leaves less overdrive: the same dVth costs more.
  EXPECT_GT(RfDelay::cell_delay(0.05, 0, 0.8), RfDelay::cell_delay(0.05, 0, 1.0));
}

TEST(ReliabilityRfDelay, NoVariationIsOne) {
  RfDelay d(7, SigmaSplit{0, 0}, small_geometry());
  for (unsigned s = 0; s < d.sms(); ++s) {
    for (double x : d.sm(s).sb) EXPECT_DOUBLE_EQ(x, 1.0);
    EXPECT_DOUBLE_EQ(d.sm(s).f_base, 1.0);
    EXPECT_DOUBLE_EQ(d.sm(s).f_vlsb, 1.0);
  }
  EXPECT_DOUBLE_EQ(d.chip_f(Scheme::kVlRf), 1.0);
}

// Sub-bank 2b / 2b+1 is the low / high half of bank b's bits, its delay the
// slowest cell in it; the baseline clock is the slowest cell of the SM.
TEST(ReliabilityRfDelay, AggregatesTheCells) {
  const RfGeometry g = small_geometry();
  const SigmaSplit split = parse_sigma_ratio("1:1");
  RfDelay d(11, split, g);
  Variation v(11, split, g);
  std::vector<float> vth(g.cells_per_sm()), leff(g.cells_per_sm());
  for (unsigned s = 0; s < g.sms; ++s) {
    v.read_vth_leff(s, vth.data(), leff.data());
    std::vector<double> sb(2 * g.banks, 0.0);
    for (uint64_t c = 0; c < g.cells_per_sm(); ++c) {
      uint64_t entry = c / g.entry_bits;
      unsigned bank = unsigned(entry / g.rows), half = unsigned(c % g.entry_bits) / (g.entry_bits / 2);
      sb[2 * bank + half] = std::max(sb[2 * bank + half], RfDelay::cell_delay(vth[c], leff[c]));
    }
    const SbDelays& x = d.sm(s);
    ASSERT_EQ(x.sb.size(), sb.size());
    for (unsigned i = 0; i < sb.size(); ++i) EXPECT_DOUBLE_EQ(x.sb[i], sb[i]) << "SM " << s << " sb " << i;
    double dmax = *std::max_element(sb.begin(), sb.end());
    EXPECT_DOUBLE_EQ(x.f_base, 1 / dmax);
    EXPECT_DOUBLE_EQ(x.reg_max, dmax);
    EXPECT_LT(x.reg_min, x.reg_max);
    for (unsigned i = 0; i < sb.size(); ++i)
      EXPECT_DOUBLE_EQ(*std::max_element(x.half.begin() + i * g.rows, x.half.begin() + (i + 1) * g.rows), sb[i]);
  }
}

// VL-SB: round(0.7 x 8) = 6 fast sub-banks, the slow ones the slowest, the
// clock the 6th fastest but at least half the slowest cell; every scheme is
// between the baseline and twice it.
TEST(ReliabilityRfDelay, VariableLatencyClocks) {
  RfDelay d(3, parse_sigma_ratio("4:1"), small_geometry());
  for (unsigned s = 0; s < d.sms(); ++s) {
    const SbDelays& x = d.sm(s);
    unsigned slow = unsigned(std::count(x.slow.begin(), x.slow.end(), true));
    EXPECT_EQ(slow, 2u);
    double fast_max = 0, slow_min = 9;
    for (unsigned i = 0; i < x.sb.size(); ++i) {
      if (x.slow[i]) slow_min = std::min(slow_min, x.sb[i]);
      else fast_max = std::max(fast_max, x.sb[i]);
    }
    EXPECT_LE(fast_max, slow_min);
    EXPECT_DOUBLE_EQ(x.f_vlsb, 1 / std::max(fast_max, x.reg_max / 2));
    for (Scheme sc : {Scheme::kVlRf, Scheme::kVlRv, Scheme::kVlSb}) {
      EXPECT_GE(x.f(sc), x.f_base);
      EXPECT_LE(x.f(sc), 2 * x.f_base);
    }
    EXPECT_GT(x.f_vlrf, x.f_vlsb);  // 32-bit registers: a far finer split than sub-banks
  }
}

// A bank is slow under identity pairing when either half is: two slow
// halves of one bank make one slow bank, two in different banks two.
TEST(ReliabilityRfDelay, SlowBanksCountsBanksWithASlowHalf) {
  SbDelays x;
  x.slow = {true, true, false, false, false, true, false, false};
  EXPECT_EQ(x.slow_banks(), 2u);
  x.slow = {true, false, true, false, false, true, false, false};
  EXPECT_EQ(x.slow_banks(), 3u);
  x.slow.assign(8, false);
  EXPECT_EQ(x.slow_banks(), 0u);
  // On a chip: 2 slow sbs of 8 fall in 1 or 2 of the 4 banks.
  RfDelay d(3, parse_sigma_ratio("1:1"), small_geometry());
  for (unsigned s = 0; s < d.sms(); ++s) {
    EXPECT_GE(d.sm(s).slow_banks(), 1u);
    EXPECT_LE(d.sm(s).slow_banks(), 2u);
  }
}

TEST(ReliabilityRfDelay, SameSeedSameChipOtherSeedOtherChip) {
  RfDelay a(5, parse_sigma_ratio("1:1"), small_geometry()), b(5, parse_sigma_ratio("1:1"), small_geometry()),
      c(6, parse_sigma_ratio("1:1"), small_geometry());
  EXPECT_EQ(a.sm(1).sb, b.sm(1).sb);
  EXPECT_NE(a.sm(1).sb, c.sm(1).sb);
  EXPECT_NE(a.sm(0).sb, a.sm(1).sb);
}

TEST(ReliabilityRfDelay, Errors) {
  RfGeometry g = small_geometry();
  g.entry_bits = 96;
  try {
    RfDelay(1, parse_sigma_ratio("1:1"), g);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rf.entry_bits"), std::string::npos) << e.what();
  }
  try {
    parse_scheme("vl_bank", "pv.sm_clock");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pv.sm_clock"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_scheme("vl_sb", "k"), Scheme::kVlSb);
}

}  // namespace
}  // namespace relgpu::reliability
