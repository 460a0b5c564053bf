// Calibration of the PV / Vmin model against the GR-Guard chapter (§6.1.2,
// Fig. 6.2, 6.3, 6.11): at 1% cell failure, per sigma_rand:sigma_sys ratio,
// the mean Vdd drop below the chip's worst cell and the fraction of faulty
// (2+ bad cells) 128-bit entries, over chips of the full GTX480 RF
// (15 SMs x 32 banks x 256 x 128 bits), default floorplan (rf_block).
//
// The cases use 6 chips per ratio (seeds 1000-1005) to stay at a few seconds
// each; docs/results/pv_calibration.md has the 100-chip table (seeds
// 1000-1099) and the reasons for each difference from the paper. Regenerate
// it with (one line)
//   build/bin/reliability_calibration_test --gtest_also_run_disabled_tests
//   --gtest_filter='*DISABLED_Table*'
// One constant is fitted (Variation::kWriteMargin, to the 4:1 drop); every
// other band below checks a prediction. Where the model meets the paper the
// band is the paper's; where it does not, the band is the model's own
// 100-chip value with a margin for the 6-chip sample, and the comment gives
// the paper's number.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "reliability/chip.h"

namespace relgpu::reliability {
namespace {

struct Stats {
  double vdd = 0, entries = 0, rate = 0;   // means over the chips
  double entries_min = 1, entries_max = 0;  // range over the chips
  unsigned max_bad_bits = 0;                // most bad cells in one entry, any chip
  double drop_mv() const { return 1000 * (1 - vdd); }
};

Stats at_one_percent(const std::string& ratio, unsigned chips, Floorplan fp = Floorplan::kRfBlock) {
  RfGeometry g;  // GTX480 defaults
  OperatingPoint op;
  op.by_rate = true;
  op.rate = 0.01;
  Stats m;
  for (unsigned c = 0; c < chips; ++c) {
    Chip chip(1000 + c, ratio, g, op, fp);
    m.vdd += chip.vdd() / chips;
    m.entries += chip.faulty_entry_rate() / chips;
    m.rate += chip.cell_failure_rate() / chips;
    m.entries_min = std::min(m.entries_min, chip.faulty_entry_rate());
    m.entries_max = std::max(m.entries_max, chip.faulty_entry_rate());
    for (unsigned s = 0; s < g.sms; ++s) {
      std::vector<uint64_t> h = chip.rf_faults(s).histogram();
      for (unsigned k = 0; k < h.size(); ++k)
        if (h[k]) m.max_bad_bits = std::max(m.max_bad_bits, k);
    }
  }
  std::printf("%s sigma %s, %u chips: 1%% point %.4f V (drop %.1f mV), faulty entries %.1f%% [%.1f, %.1f], "
              "max bad bits %u, cell failure %.4f%%\n",
              floorplan_name(fp), ratio.c_str(), chips, m.vdd, m.drop_mv(),
              100 * m.entries, 100 * m.entries_min, 100 * m.entries_max, m.max_bad_bits, 100 * m.rate);
  return m;
}

constexpr unsigned kChips = 6;

TEST(ReliabilityCalibration, Sigma4to1) {
  Stats m = at_one_percent("4:1", kChips);
  EXPECT_NEAR(m.rate, 0.01, 1e-4);
  // Paper: 188 mV, the fitted point: 188.6 mV over 100 chips, 196.9 on these 6.
  EXPECT_NEAR(m.drop_mv(), 188.0, 15.0);
  EXPECT_GE(m.entries, 0.31);             // paper: 31-39%; model 36.2%
  EXPECT_LE(m.entries, 0.39);
}

TEST(ReliabilityCalibration, Sigma1to1) {
  Stats m = at_one_percent("1:1", kChips);
  EXPECT_NEAR(m.rate, 0.01, 1e-4);
  // Paper: ~0.86 V (Fig. 6.11). Model: 0.844 V over 100 chips, 0.841 V on
  // these 6 (the linear Vmin model puts the 1:1 drop ~15 mV above the paper's;
  // see the doc).
  EXPECT_NEAR(m.vdd, 0.86, 0.02);
  // Paper 31-39%; model 31.1% over 100 chips (single chips 18-35%), 29.4% on
  // these 6: the band is the model's.
  EXPECT_GE(m.entries, 0.28);
  EXPECT_LE(m.entries, 0.39);
  EXPECT_LE(m.max_bad_bits, 60u);  // paper: up to 28 bad bits (at 1:4)
}

TEST(ReliabilityCalibration, Sigma1to4) {
  Stats m = at_one_percent("1:4", kChips);
  EXPECT_NEAR(m.rate, 0.01, 1e-4);
  // Paper 62 mV; model 78.1 mV over 100 chips, 83.5 mV on these 6. The systematic field still
  // varies across the RF block (phi = 5 block widths), so at 1:4 the chip's
  // worst cell sits where the field is high and the 1% point where it is
  // typical: the drop has a systematic share the paper's has less of.
  EXPECT_NEAR(m.drop_mv(), 78.0, 12.0);
  // Paper 31-39%; model 14.2% over 100 chips (single chips 6-23%): the same
  // systematic spread crowds the failing cells into the block's high-field
  // corner, many bad cells per entry there and few entries elsewhere.
  EXPECT_GE(m.entries, 0.07);
  EXPECT_LE(m.entries, 0.25);
  EXPECT_GT(m.max_bad_bits, 28u);  // paper: up to 28; the model's clusters are denser (118)
}

// The ordering the paper draws from Fig. 6.2: more random variation, larger
// drop at the same failure rate, and less clustered faults.
TEST(ReliabilityCalibration, RandomVariationWidensTheDrop) {
  Stats a = at_one_percent("1:4", 2), b = at_one_percent("1:1", 2), c = at_one_percent("4:1", 2);
  EXPECT_GT(a.vdd, b.vdd);
  EXPECT_GT(b.vdd, c.vdd);
  EXPECT_LT(a.entries, b.entries);
  EXPECT_LT(b.entries, c.entries);
  EXPECT_GT(a.max_bad_bits, b.max_bad_bits);
  EXPECT_GT(b.max_bad_bits, c.max_bad_bits);
}

// pv.floorplan changes the chips: with the RFs a tile apart (sm_tiles) the
// systematic part differs between SMs, so at 1:4 the failing cells crowd
// into fewer entries (100 chips: 6.9% against 14.2%; the drop, 83.7 against
// 78.1 mV, differs too little to check on 3 chips).
TEST(ReliabilityCalibration, SpreadFloorplanClustersFaults) {
  Stats block = at_one_percent("1:4", 3, Floorplan::kRfBlock);
  Stats tiles = at_one_percent("1:4", 3, Floorplan::kSmTiles);
  EXPECT_LT(tiles.entries, 0.8 * block.entries);
}

// The SMs' faulty-entry shares at 1% (min, max over the SMs of one chip).
std::pair<double, double> sm_spread(const Chip& chip, unsigned sms) {
  double lo = 1, hi = 0;
  for (unsigned s = 0; s < sms; ++s) {
    std::vector<uint64_t> h = chip.rf_faults(s).histogram();
    uint64_t all = 0, faulty = 0;
    for (unsigned k = 0; k < h.size(); ++k) all += h[k], faulty += k >= 2 ? h[k] : 0;
    double f = double(faulty) / double(all);
    lo = std::min(lo, f), hi = std::max(hi, f);
  }
  return {lo, hi};
}

// rf_point (one systematic offset per chip) gives every SM the paper's
// 31-39% faulty entries at 1:4 and 1:1, where rf_block's field, still
// varying across the block, crowds the failing cells into some SMs
// (docs/results/grguard_ablation.md: the runs that stop are on such SMs).
TEST(ReliabilityCalibration, PointFloorplanSpreadsFaultsEvenly) {
  RfGeometry g;
  OperatingPoint op;
  op.by_rate = true;
  op.rate = 0.01;
  for (const char* ratio : {"1:4", "1:1"}) {
    Chip point(1001, ratio, g, op, Floorplan::kRfPoint), block(1001, ratio, g, op, Floorplan::kRfBlock);
    auto [plo, phi] = sm_spread(point, g.sms);
    auto [blo, bhi] = sm_spread(block, g.sms);
    std::printf("%s: rf_point SMs %.1f-%.1f%%, rf_block %.1f-%.1f%%\n", ratio, 100 * plo, 100 * phi, 100 * blo, 100 * bhi);
    EXPECT_GE(plo, 0.31) << ratio;
    EXPECT_LE(phi, 0.39) << ratio;
    EXPECT_GT(bhi - blo, 3 * (phi - plo)) << ratio;
  }
}

// The 100-chip table of docs/results/pv_calibration.md (about 6 minutes on
// one core); run with --gtest_also_run_disabled_tests.
TEST(ReliabilityCalibration, DISABLED_Table) {
  const char* paper[3][2] = {{"62 mV", "31-39%"}, {"~140 mV (0.86 V)", "31-39%"}, {"188 mV", "31-39%"}};
  const char* ratios[3] = {"1:4", "1:1", "4:1"};
  std::string rows;
  for (Floorplan fp : {Floorplan::kRfBlock, Floorplan::kSmTiles, Floorplan::kRfPoint})
    for (int r = 0; r < 3; ++r) {
      Stats m = at_one_percent(ratios[r], 100, fp);
      char line[256];
      std::snprintf(line, sizeof line, "| %s | %s | %.3f V | %.1f mV | %s | %.1f %% [%.1f, %.1f] | %s | %u |\n",
                    floorplan_name(fp), ratios[r], m.vdd, m.drop_mv(),
                    paper[r][0], 100 * m.entries, 100 * m.entries_min, 100 * m.entries_max, paper[r][1],
                    m.max_bad_bits);
      rows += line;
    }
  std::printf("| floorplan | sigma_rand:sigma_sys | Vdd at 1%% | drop | paper drop | faulty entries, mean "
              "[range] | paper | max bad bits per entry |\n|---|---|---|---|---|---|---|---|\n%s",
              rows.c_str());
}

}  // namespace
}  // namespace relgpu::reliability
