// Process variation, cell Vmin and RF fault maps (reliability/): the
// systematic field's statistics, determinism, the operating point and its
// errors, SEC-DED, and the time to build a full chip.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/error.h"
#include "reliability/chip.h"
#include "reliability/keys.h"

namespace relgpu::reliability {
namespace {

RfGeometry small_geometry() {
  RfGeometry g;
  g.sms = 4, g.banks = 8, g.rows = 64, g.entry_bits = 128;
  return g;
}

OperatingPoint at_rate(double r) { return {true, 1.0, r}; }
OperatingPoint at_vdd(double v) { return {false, v, 0.0}; }

// Message of the InputError `f` throws ("" if none).
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReliabilityPv, SigmaRatioIsARatioOfSigmas) {
  SigmaSplit s = parse_sigma_ratio("1:4");
  EXPECT_NEAR(s.sys / s.rand, 4.0, 1e-12);
  EXPECT_NEAR(s.rand * s.rand + s.sys * s.sys, 1.0, 1e-12);  // total sigma fixed
  s = parse_sigma_ratio("1:1");
  EXPECT_NEAR(s.rand, std::sqrt(0.5), 1e-12);
  std::string m = error_of([] { parse_sigma_ratio("2:1"); });
  EXPECT_NE(m.find("pv.sigma_ratio"), std::string::npos) << m;
  EXPECT_NE(m.find("'1:4', '1:1', '4:1'"), std::string::npos) << m;
  m = error_of([] { Chip(1, "1-1", small_geometry(), at_rate(0.01)); });
  EXPECT_NE(m.find("pv.sigma_ratio"), std::string::npos) << m;
}

TEST(ReliabilityPv, SphericalCorrelation) {
  EXPECT_DOUBLE_EQ(spherical_rho(0, 0.5), 1.0);
  EXPECT_DOUBLE_EQ(spherical_rho(0.5, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(spherical_rho(0.9, 0.5), 0.0);
  EXPECT_NEAR(spherical_rho(0.25, 0.5), 1 - 0.75 + 0.0625, 1e-12);
}

// Over many chips, the sampled systematic field has unit variance and the
// spherical correlation between lattice points.
TEST(ReliabilityPv, FieldHasTheSphericalCovariance) {
  RfGeometry g = small_geometry();
  std::vector<double> pts = lattice_points(g);
  const unsigned k = Variation::kLattice, n = 600;
  // Point 0 of SM 0 against: a neighbour in the same RF, the far corner of
  // that RF, and point 0 of SM 1 (one tile away).
  unsigned other[] = {1, k * k - 1, k * k};
  double s0 = 0, s00 = 0, s01[3] = {0, 0, 0};
  for (unsigned c = 0; c < n; ++c) {
    Variation v(c + 1, parse_sigma_ratio("1:1"), g);
    double a = v.field(0, 0);
    s0 += a;
    s00 += a * a;
    for (int i = 0; i < 3; ++i) s01[i] += a * v.field(other[i] / (k * k), other[i] % (k * k));
  }
  EXPECT_NEAR(s0 / n, 0.0, 0.12);
  EXPECT_NEAR(s00 / n, 1.0, 0.15);
  for (int i = 0; i < 3; ++i) {
    double dx = pts[0] - pts[2 * other[i]], dy = pts[1] - pts[2 * other[i] + 1];
    double want = spherical_rho(std::sqrt(dx * dx + dy * dy), Variation::kPhi);
    EXPECT_NEAR(s01[i] / n, want, 0.12) << "point " << other[i];
  }
}

// docs/results/rf_delay_calibration.md: the chip-mean systematic field of
// the paper's 15 SMs (rf_block) over seeds 1000-4999 against the normal
// law its covariance gives (a sum of Gaussians is Gaussian): variance, tail
// counts and the Kolmogorov-Smirnov distance. Prints a table; a few seconds.
TEST(ReliabilityPv, DISABLED_ChipMeanFieldTails) {
  RfGeometry g;
  g.sms = 15;
  const std::vector<double> pts = lattice_points(g, Floorplan::kRfBlock);
  const size_t n = pts.size() / 2;
  double var = 0;  // Var(mean) = sum of all covariances / n^2
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      var += spherical_rho(std::hypot(pts[2 * i] - pts[2 * j], pts[2 * i + 1] - pts[2 * j + 1]), Variation::kPhi);
  var /= double(n) * double(n);
  const double sd = std::sqrt(var);
  std::vector<double> z;
  for (uint64_t seed = 1000; seed < 5000; ++seed) {
    Variation v(seed, parse_sigma_ratio("1:1"), g, Floorplan::kRfBlock);
    double m = 0;
    for (unsigned s = 0; s < g.sms; ++s)
      for (unsigned i = 0; i < Variation::kLattice * Variation::kLattice; ++i) m += v.field(s, i);
    z.push_back(m / double(n) / sd);
  }
  double s1 = 0, s2 = 0;
  for (double x : z) s1 += x, s2 += x * x;
  const double N = double(z.size());
  std::printf("chips %zu: variance of the chip mean %.4f (covariance gives %.4f); sample mean %.3f sd, variance "
              "%.3f of the law's\n", z.size(), s2 / N * var, var, s1 / N, s2 / N);
  std::printf("| beyond | observed | expected (normal) |\n|---|---:|---:|\n");
  for (double t : {2.0, 2.5, 3.0, 3.5})
    std::printf("| %.1f sd | %ld | %.1f |\n", t, long(std::count_if(z.begin(), z.end(), [&](double x) {
                  return std::fabs(x) > t;
                })), N * std::erfc(t / std::sqrt(2.0)));
  std::sort(z.begin(), z.end());
  double d = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    double f = 0.5 * std::erfc(-z[i] / std::sqrt(2.0));
    d = std::max({d, std::fabs(f - double(i) / N), std::fabs(f - double(i + 1) / N)});
  }
  std::printf("Kolmogorov-Smirnov D = %.4f (5%% critical value %.4f)\n", d, 1.358 / std::sqrt(N));
}

bool same_maps(const Chip& a, const Chip& b) {
  const RfGeometry& g = a.geometry();
  for (unsigned s = 0; s < g.sms; ++s)
    for (unsigned bk = 0; bk < g.banks; ++bk)
      for (unsigned r = 0; r < g.rows; ++r) {
        const RfFaults &x = a.rf_faults(s), &y = b.rf_faults(s);
        if (x.bad_count(bk, r) != y.bad_count(bk, r)) return false;
        if (!x.any(bk, r)) continue;
        for (unsigned w = 0; w < x.words(); ++w)
          if (x.bad_mask(bk, r)[w] != y.bad_mask(bk, r)[w] || x.stuck_bits(bk, r)[w] != y.stuck_bits(bk, r)[w])
            return false;
      }
  return true;
}

TEST(ReliabilityPv, SameSeedSameChipOtherSeedOtherChip) {
  Chip a(7, "1:1", small_geometry(), at_rate(0.05)), b(7, "1:1", small_geometry(), at_rate(0.05));
  Chip c(8, "1:1", small_geometry(), at_rate(0.05));
  EXPECT_GT(a.faulty_cells(), 0u);
  EXPECT_TRUE(same_maps(a, b));
  EXPECT_EQ(a.vdd(), b.vdd());
  EXPECT_FALSE(same_maps(a, c));
}

TEST(ReliabilityPv, OperatingPoint) {
  RfGeometry g = small_geometry();
  Chip nominal(3, "1:1", g, at_vdd(1.0));
  EXPECT_EQ(nominal.faulty_cells(), 0u);
  EXPECT_FALSE(nominal.faults());
  // The failure rate asked for is met (to the Vmin quantisation step).
  Chip r(3, "1:1", g, at_rate(0.01));
  EXPECT_NEAR(r.cell_failure_rate(), 0.01, 0.0005);
  EXPECT_LT(r.vdd(), 1.0);
  // The same Vdd set directly gives the same map.
  Chip v(3, "1:1", g, at_vdd(r.vdd()));
  EXPECT_EQ(v.faulty_cells(), r.faulty_cells());
  EXPECT_TRUE(same_maps(r, v));
  // Lower Vdd: a superset of bad cells, each stuck at the same value.
  Chip lo(3, "1:1", g, at_vdd(r.vdd() - 0.03));
  EXPECT_GT(lo.faulty_cells(), r.faulty_cells());
  for (unsigned s = 0; s < g.sms; ++s)
    for (unsigned bk = 0; bk < g.banks; ++bk)
      for (unsigned row = 0; row < g.rows; ++row) {
        const RfFaults &hi_f = r.rf_faults(s), &lo_f = lo.rf_faults(s);
        if (!hi_f.any(bk, row)) continue;
        for (unsigned w = 0; w < hi_f.words(); ++w) {
          uint32_t m = hi_f.bad_mask(bk, row)[w];
          ASSERT_EQ(lo_f.bad_mask(bk, row)[w] & m, m);
          ASSERT_EQ(lo_f.stuck_bits(bk, row)[w] & m, hi_f.stuck_bits(bk, row)[w]);
        }
      }
  // Both polarities occur.
  uint64_t ones = 0;
  for (unsigned s = 0; s < g.sms; ++s)
    for (unsigned bk = 0; bk < g.banks; ++bk)
      for (unsigned row = 0; row < g.rows; ++row)
        if (r.rf_faults(s).any(bk, row))
          for (unsigned w = 0; w < 4; ++w) ones += __builtin_popcount(r.rf_faults(s).stuck_bits(bk, row)[w]);
  EXPECT_GT(ones, r.faulty_cells() / 3);
  EXPECT_LT(ones, r.faulty_cells() * 2 / 3);
  // Everything fails at rate 1, nothing at 0.
  EXPECT_EQ(Chip(3, "1:1", g, at_rate(1.0)).faulty_cells(), g.cells());
  EXPECT_EQ(Chip(3, "1:1", g, at_rate(0.0)).faulty_cells(), 0u);
}

TEST(ReliabilityPv, BadOperatingPointsNameTheKey) {
  RfGeometry g = small_geometry();
  std::string m = error_of([&] { Chip(1, "1:1", g, at_vdd(0.3)); });
  EXPECT_NE(m.find("rf.vdd"), std::string::npos) << m;
  EXPECT_NE(m.find("[0.5, 1.2]"), std::string::npos) << m;
  m = error_of([&] { Chip(1, "1:1", g, at_rate(1.5)); });
  EXPECT_NE(m.find("rf.cell_failure_rate"), std::string::npos) << m;
  EXPECT_NE(m.find("[0, 1]"), std::string::npos) << m;
  m = error_of([&] { Chip(1, "1:1", g, at_rate(-0.1)); });
  EXPECT_NE(m.find("rf.cell_failure_rate"), std::string::npos) << m;
  // Through the config: the registry checks each key's range...
  config::Config c1;
  m = error_of([&] { c1.set("rf.vdd=1.5"); });
  EXPECT_NE(m.find("rf.vdd"), std::string::npos) << m;
  m = error_of([&] { c1.set("rf.cell_failure_rate=2"); });
  EXPECT_NE(m.find("rf.cell_failure_rate"), std::string::npos) << m;
  m = error_of([&] { c1.set("pv.sigma_ratio=3:1"); });
  EXPECT_NE(m.find("pv.sigma_ratio"), std::string::npos) << m;
  // ...and the chip the rule that only one of the two may be set.
  config::Config both;
  both.set("rf.vdd=0.9");
  both.set("rf.cell_failure_rate=0.01");
  m = error_of([&] { Chip(both, g); });
  EXPECT_NE(m.find("rf.vdd"), std::string::npos) << m;
  EXPECT_NE(m.find("rf.cell_failure_rate"), std::string::npos) << m;
  // Defaults: no undervolting, no faults.
  config::Config def;
  Chip d(def, g);
  EXPECT_EQ(d.vdd(), 1.0);
  EXPECT_EQ(d.faulty_cells(), 0u);
  EXPECT_TRUE(def.get(kRfSecded));
}

// pv.floorplan: rf_block packs the RFs into one block kBlockSide wide;
// sm_tiles spreads them a tile apart. The key takes only those two names,
// and the chip a config builds follows it.
TEST(ReliabilityPv, Floorplan) {
  RfGeometry g = small_geometry();  // 4 SMs: a 2 x 2 arrangement
  auto extent = [](const std::vector<double>& p) {
    double lo = 1, hi = 0;
    for (double v : p) lo = std::min(lo, v), hi = std::max(hi, v);
    return hi - lo;
  };
  std::vector<double> block = lattice_points(g, Floorplan::kRfBlock), tiles = lattice_points(g, Floorplan::kSmTiles);
  EXPECT_NEAR(extent(block), Variation::kBlockSide, 1e-12);
  // sm_tiles: tiles of half the die, RFs of a quarter tile at their centres.
  EXPECT_NEAR(extent(tiles), 0.5 + 0.5 * Variation::kRfSide, 1e-12);
  EXPECT_EQ(lattice_points(g), block);  // the default
  std::string m = error_of([] { parse_floorplan("grid"); });
  EXPECT_NE(m.find("pv.floorplan"), std::string::npos) << m;
  EXPECT_NE(m.find("'rf_block', 'sm_tiles'"), std::string::npos) << m;
  config::Config bad;
  m = error_of([&] { bad.set("pv.floorplan=grid"); });
  EXPECT_NE(m.find("pv.floorplan"), std::string::npos) << m;
  config::Config def, spread;
  EXPECT_EQ(def.get(kFloorplan), "rf_block");
  def.set("rf.cell_failure_rate=0.05");
  spread.set("rf.cell_failure_rate=0.05");
  spread.set("pv.floorplan=sm_tiles");
  Chip a(def, g), b(spread, g);  // pv.chip_seed 1, pv.sigma_ratio 1:1 by default
  EXPECT_TRUE(same_maps(a, Chip(1, "1:1", g, at_rate(0.05), Floorplan::kRfBlock)));
  EXPECT_TRUE(same_maps(b, Chip(1, "1:1", g, at_rate(0.05), Floorplan::kSmTiles)));
  EXPECT_FALSE(same_maps(a, b));
}

TEST(ReliabilityPv, SecdedCorrectsOneStuckBitNotTwo) {
  RfFaults f(2, 4, 128);
  const uint32_t want[4] = {0x0, 0xFFFFFFFFu, 0x12345678u, 0x0};
  uint32_t got[4];
  unsigned fixed = 9;
  // Stuck at the value being written: no error.
  f.add_bad_cell(0, 1, 0, false);
  EXPECT_EQ(f.store(0, 1, want, got, true, fixed), 0u);
  EXPECT_EQ(fixed, 0u);
  // One stuck bit that differs: SEC-DED stores the intended value.
  f.add_bad_cell(0, 2, 33, false);  // word 1 bit 1 is written as 1
  EXPECT_EQ(f.store(0, 2, want, got, true, fixed), 0u);
  EXPECT_EQ(fixed, 1u);
  EXPECT_EQ(std::vector<uint32_t>(got, got + 4), std::vector<uint32_t>(want, want + 4));
  EXPECT_FALSE(f.faulty(0, 2));
  // Without SEC-DED the stuck bit is what is stored.
  EXPECT_EQ(f.store(0, 2, want, got, false, fixed), 1u);
  EXPECT_EQ(fixed, 0u);
  EXPECT_EQ(got[1], 0xFFFFFFFDu);
  // Two stuck bits: not correctable, both wrong bits stay.
  f.add_bad_cell(1, 3, 0, true);
  f.add_bad_cell(1, 3, 127, true);
  EXPECT_TRUE(f.faulty(1, 3));
  EXPECT_EQ(f.store(1, 3, want, got, true, fixed), 2u);
  EXPECT_EQ(got[0], 0x1u);
  EXPECT_EQ(got[3], 0x80000000u);
  EXPECT_EQ(f.faulty_cells(), 4u);
  EXPECT_EQ(f.faulty_entries(), 1u);
  auto h = f.histogram();
  EXPECT_EQ(h[0], 8u - 3u);
  EXPECT_EQ(h[1], 2u);
  EXPECT_EQ(h[2], 1u);
}

// SEC-DED per 32-bit code word (rf.secded_bits=32, an ablation): two bad
// cells in different words are two corrected words, not a faulty entry; two
// in one word are.
TEST(ReliabilityPv, SecdedCodeWordsShorterThanTheEntry) {
  RfFaults f(1, 2, 128, 32), whole(1, 2, 128);
  const uint32_t want[4] = {0x0, 0x0, 0x0, 0x0};
  uint32_t got[4];
  unsigned fixed = 0;
  for (RfFaults* m : {&f, &whole}) {
    m->add_bad_cell(0, 0, 3, true);   // word 0
    m->add_bad_cell(0, 0, 70, true);  // word 2
    m->add_bad_cell(0, 1, 40, true);  // word 1, twice
    m->add_bad_cell(0, 1, 41, true);
  }
  EXPECT_FALSE(f.faulty(0, 0));
  EXPECT_TRUE(whole.faulty(0, 0));
  EXPECT_TRUE(f.faulty(0, 1));
  EXPECT_EQ(f.faulty_entries(), 1u);
  EXPECT_EQ(whole.faulty_entries(), 2u);
  EXPECT_EQ(f.store(0, 0, want, got, true, fixed), 0u);
  EXPECT_EQ(fixed, 2u);
  EXPECT_EQ(whole.store(0, 0, want, got, true, fixed), 2u);
  EXPECT_EQ(fixed, 0u);
  EXPECT_EQ(f.store(0, 1, want, got, true, fixed), 2u);
  EXPECT_EQ(got[1], 0x300u);
  EXPECT_THROW(RfFaults(1, 1, 128, 48), std::invalid_argument);
}

// A full GTX480 chip (15 SMs x 32 banks x 256 x 128 bits = 15.7 M cells).
TEST(ReliabilityPv, FullChipBuildTime) {
  RfGeometry g;  // defaults: the GTX480 RF
  auto t0 = std::chrono::steady_clock::now();
  Chip c(1, "1:1", g, at_rate(0.01));
  double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("full chip (%llu cells): built in %.3f s wall\n", (unsigned long long)g.cells(), cpu_s);
  EXPECT_NEAR(c.cell_failure_rate(), 0.01, 0.0002);
  EXPECT_LT(cpu_s, 10.0);  // ~0.4 s on an idle core; generous for a loaded CI machine
}

}  // namespace
}  // namespace relgpu::reliability
