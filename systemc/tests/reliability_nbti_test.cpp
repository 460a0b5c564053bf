// NBTI aging (reliability/nbti.h) and the register-file aging of the three
// bank organisations (reliability/rf_aging.h): the equations, the Pareto
// fronts against every cell, and what each organisation does to the clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "reliability/rf_aging.h"

namespace relgpu::reliability {
namespace {

constexpr double kYear = Nbti::kSecondsPerYear;

TEST(ReliabilityNbti, Equations) {
  const Nbti n{1e-5};
  EXPECT_DOUBLE_EQ(n.dvth(0.03, 0, kYear), 0.03);  // never stressed: the PV offset stays
  // Always stressed (no recovery), no PV: Eq. (1) is (Kv sqrt(t))^(1/3).
  EXPECT_NEAR(n.dvth(0, kYear, kYear), std::cbrt(1e-5 * std::sqrt(kYear)), 1e-12);
  // With PV: (Kv sqrt(t) + dV0^3)^(1/3).
  EXPECT_NEAR(n.dvth(0.05, kYear, kYear), std::cbrt(1e-5 * std::sqrt(kYear) + 0.05 * 0.05 * 0.05), 1e-12);
  // Eq. (2): a duty d keeps (1 - sqrt(eta (1 - d))) of the shift.
  const double st = std::cbrt(1e-5 * std::sqrt(0.25 * kYear));
  EXPECT_NEAR(n.dvth(0, 0.25 * kYear, kYear), st * (1 - std::sqrt(0.35 * 0.75)), 1e-12);
  // More stress, more shift; a slower cell (larger dV0) ends slower but
  // shifts less (Eq. 1's coupling); a fast cell (dV0 < 0) shifts up too.
  EXPECT_GT(n.dvth(0, 0.5 * kYear, kYear), n.dvth(0, 0.1 * kYear, kYear));
  EXPECT_GT(n.dvth(0.06, 0.3 * kYear, kYear), n.dvth(0.02, 0.3 * kYear, kYear));
  EXPECT_LT(n.dvth(0.06, 0.3 * kYear, kYear) - 0.06, n.dvth(0.02, 0.3 * kYear, kYear) - 0.02);
  EXPECT_GT(n.dvth(-0.04, 0.3 * kYear, kYear), -0.04);
}

RfGeometry geometry() {
  RfGeometry g;
  g.sms = 2, g.banks = 16, g.rows = 8, g.entry_bits = 128;
  return g;
}

// The slowest cell of a sub-bank, fresh or aged, is always on its front:
// checked against every cell.
TEST(ReliabilityNbti, FrontHoldsTheSlowestCell) {
  const RfGeometry g = geometry();
  const SigmaSplit split = parse_sigma_ratio("1:1");
  RfDelay d(5, split, g, Floorplan::kRfBlock, RfDelay::kVdd, true);
  Variation v(5, split, g);
  std::vector<float> vth(g.cells_per_sm()), leff(g.cells_per_sm());
  const Nbti n{2e-5};
  for (unsigned s = 0; s < g.sms; ++s) {
    v.read_vth_leff(s, vth.data(), leff.data());
    const SbDelays& x = d.sm(s);
    for (double ts : {0.0, 0.05 * kYear, 0.6 * kYear}) {
      std::vector<double> brute(2 * g.banks, 0.0), front(2 * g.banks, 0.0);
      for (uint64_t c = 0; c < g.cells_per_sm(); ++c) {
        const unsigned bank = unsigned(c / g.entry_bits / g.rows), half = unsigned(c % g.entry_bits) / (g.entry_bits / 2);
        double& b = brute[2 * bank + half];
        b = std::max(b, RfDelay::cell_delay(n.dvth(vth[c], ts, kYear), leff[c]));
      }
      for (unsigned sb = 0; sb < brute.size(); ++sb) {
        ASSERT_FALSE(x.front[sb].empty());
        EXPECT_LT(x.front[sb].size(), 64u);  // a front, not the sub-bank
        for (const CellPv& c : x.front[sb])
          front[sb] = std::max(front[sb], RfDelay::cell_delay(n.dvth(c.dvth, ts, kYear), c.dleff));
        EXPECT_DOUBLE_EQ(front[sb], brute[sb]) << "SM " << s << " sb " << sb << " stress " << ts;
        if (ts == 0) EXPECT_DOUBLE_EQ(front[sb], x.sb[sb]);
      }
    }
  }
}

class RfAging : public ::testing::Test {
 protected:
  RfDelay d{9, parse_sigma_ratio("1:1"), geometry(), Floorplan::kRfBlock, RfDelay::kVdd, true};
  AgingParams p;
  const SbDelays& sm() const { return d.sm(0); }
};

TEST_F(RfAging, NoStressNoGuardband) {
  const std::vector<double> idle(16, 0.0);
  for (Org o : {Org::kBaseline, Org::kPvOpt, Org::kNbtiOpt}) {
    const SmAging a = age_sm(sm(), idle, o, p);
    EXPECT_DOUBLE_EQ(a.t, a.t0) << org_name(o);
  }
  EXPECT_DOUBLE_EQ(age_sm(sm(), idle, Org::kBaseline, p).t0, *std::max_element(sm().sb.begin(), sm().sb.end()));
  // The opts start at the PV-only VL-SB clock.
  EXPECT_DOUBLE_EQ(age_sm(sm(), idle, Org::kPvOpt, p).t0, 1 / sm().f_vlsb);
}

TEST_F(RfAging, StressSlowsTheClock) {
  const std::vector<double> low(16, 0.02), high(16, 0.2);
  for (Org o : {Org::kBaseline, Org::kPvOpt, Org::kNbtiOpt}) {
    const SmAging a = age_sm(sm(), low, o, p), b = age_sm(sm(), high, o, p);
    EXPECT_GT(a.guardband(), 0) << org_name(o);
    EXPECT_GT(b.t, a.t) << org_name(o);
  }
  p.years = 1;
  EXPECT_LT(age_sm(sm(), high, Org::kBaseline, p).t, age_sm(sm(), high, Org::kBaseline, AgingParams{}).t);
}

// PV-opt's clock is set by its fast vbs (0-10): stress on the slow vbs
// alone moves it only through d_max / 2; the baseline sees every bank.
TEST_F(RfAging, PvOptClockFollowsTheFastVbs) {
  std::vector<double> slow_only(16, 0.0), fast_only(16, 0.0);
  for (unsigned v = 11; v < 16; ++v) slow_only[v] = 0.3;
  for (unsigned v = 0; v < 11; ++v) fast_only[v] = 0.3;
  const SmAging s = age_sm(sm(), slow_only, Org::kPvOpt, p), f = age_sm(sm(), fast_only, Org::kPvOpt, p);
  EXPECT_GT(f.t, s.t);
  EXPECT_GT(age_sm(sm(), slow_only, Org::kBaseline, p).t, age_sm(sm(), std::vector<double>(16, 0.0), Org::kBaseline, p).t);
}

// Uneven stress: re-organising from the sensors re-pairs the sub-banks, and
// hot vbs at the front of the fast class spare the clock's boundary.
TEST_F(RfAging, ReorganisationMovesTheStress) {
  std::vector<double> hot_boundary(16, 0.01), hot_front(16, 0.01);
  hot_boundary[10] = 0.5;  // vb 10: the slowest fast vb sets the clock
  hot_front[0] = 0.5;
  const SmAging pb = age_sm(sm(), hot_boundary, Org::kPvOpt, p), nb = age_sm(sm(), hot_boundary, Org::kNbtiOpt, p);
  EXPECT_NE(pb.t, nb.t);
  EXPECT_LT(age_sm(sm(), hot_front, Org::kNbtiOpt, p).t, nb.t);
  // One epoch: PV-opt's stress, then one re-organisation at the end, which
  // keeps the 22 fastest sub-banks: never slower than PV-opt, and here
  // faster (the hot boundary vb drops out of the fast class).
  p.epochs = 1;
  EXPECT_LT(age_sm(sm(), hot_boundary, Org::kNbtiOpt, p).t, age_sm(sm(), hot_boundary, Org::kPvOpt, p).t);
  for (double x : {0.05, 0.2})
    EXPECT_LE(age_sm(sm(), std::vector<double>(16, x), Org::kNbtiOpt, p).t,
              age_sm(sm(), std::vector<double>(16, x), Org::kPvOpt, p).t);
}

}  // namespace
}  // namespace relgpu::reliability
