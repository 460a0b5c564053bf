// The LoSCache predictor CTA (loscache.predictor_cta): "random" draws one of
// the CTAs placed on the SM at launch from loscache.seed, the SM and the
// launch number; "first" takes the first placed.
#include <gtest/gtest.h>

#include <set>

#include "sm/loscache_unit.h"

using namespace relgpu;

namespace {

// The predictor slot of SM `sm` for the launch-th launch when slots 0..n-1
// are placed before its first cycle.
unsigned predictor(const std::string& mode, int64_t seed, unsigned sm, unsigned launch, unsigned n) {
  config::Config cfg;
  cfg.set("loscache.predictor_cta=" + mode);
  cfg.set("loscache.seed=" + std::to_string(seed));
  sm::LoscacheUnit u(sm, cfg);
  for (unsigned l = 0; l < launch; ++l) u.begin_launch();
  for (unsigned s = 0; s < n; ++s) u.cta_added(s);
  sm::LoscacheUnit::Query q;
  u.cycle(static_cast<const sm::LoscacheUnit::Op*>(nullptr), true, q);
  unsigned found = ~0u;
  for (unsigned s = 0; s < n; ++s)
    if (u.is_predictor(s)) {
      EXPECT_EQ(found, ~0u) << "one predictor per SM";
      found = s;
    }
  return found;
}

TEST(LoscachePredictor, FirstTakesTheFirstPlaced) {
  for (unsigned sm = 0; sm < 4; ++sm) EXPECT_EQ(predictor("first", 1, sm, 1, 6), 0u);
}

TEST(LoscachePredictor, RandomDrawsAmongThePlacedAndRepeats) {
  std::set<unsigned> seen;
  for (unsigned sm = 0; sm < 15; ++sm) {
    unsigned p = predictor("random", 7, sm, 1, 6);
    ASSERT_LT(p, 6u);
    EXPECT_EQ(p, predictor("random", 7, sm, 1, 6)) << "same seed, SM and launch: same CTA";
    seen.insert(p);
  }
  EXPECT_GE(seen.size(), 3u) << "15 SMs, 6 CTAs each: the draw must vary";
  std::set<unsigned> by_launch, by_seed;
  for (unsigned l = 1; l <= 8; ++l) by_launch.insert(predictor("random", 7, 0, l, 6));
  for (int64_t s = 1; s <= 8; ++s) by_seed.insert(predictor("random", s, 0, 1, 6));
  EXPECT_GE(by_launch.size(), 2u);
  EXPECT_GE(by_seed.size(), 2u);
}

TEST(LoscachePredictor, OneCtaIsAlwaysItsOwnPredictor) { EXPECT_EQ(predictor("random", 3, 5, 1, 1), 0u); }

}  // namespace
