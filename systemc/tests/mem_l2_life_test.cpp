// L2 line lifetimes (mem/l2_life.h): live time from first to last access of
// each generation, re-reference classes, intra/inter-CTA chunks.
#include <gtest/gtest.h>

#include "mem/l2_life.h"

using namespace relgpu;

TEST(L2Life, GenerationsReferencesAndSharing) {
  mem::L2Life l;
  l.access(0x000, 10, 1);  // line A: 3 accesses by CTA 1, live 10..50
  l.access(0x000, 30, 1);
  l.access(0x000, 50, 1);
  l.access(0x080, 20, 2);  // line B: CTAs 2 and 3, live 20..25, then evicted
  l.access(0x080, 25, 3);
  l.evict(0x080);
  l.access(0x080, 100, 2);  // line B's second generation: once, no re-reference
  l.access(0x100, 60, 4);   // line C: once
  l.evict(0x200);           // never accessed: nothing to close
  config::json s = l.stats(1000);
  EXPECT_EQ(s["live_line_cycles"], 40u + 5u);
  EXPECT_EQ(s["generations"], 4u);
  EXPECT_EQ(s["rereference"]["zero"], 2u);
  EXPECT_EQ(s["rereference"]["once"], 1u);
  EXPECT_EQ(s["rereference"]["more"], 1u);
  EXPECT_EQ(s["chunks"], 3u);
  EXPECT_EQ(s["chunks_inter_cta"], 1u);
  EXPECT_EQ(l.live_line_cycles(), 45u);
  l.reset();
  EXPECT_EQ(l.stats(1000)["generations"], 0u);
}

// The Ideal-Gating energy (power/l2_energy.h, fed by L2Life's live time):
// the same accesses, leakage only while live plus the gated residual
// otherwise, and a wake-up per generation. Hand-computed: 1 ms of a 60 mW
// slice leaks 60,000 nJ powered.
#include "power/l2_energy.h"

TEST(L2Life, IdealGatingLeaksOnlyWhileLive) {
  config::Config cfg;
  power::L2Energy e(cfg);
  e.count(power::L2Energy::tag, 10);        // 10 x 0.01 nJ
  e.count(power::L2Energy::data_read, 4);   // 4 x 0.1 nJ
  const double dyn = 0.1 + 0.4, leak = 60.0e-3 * 1e-3 * 1e9;
  const double g = 29.0 / 1053 + (1 - 29.0 / 1053) * 0.03;
  EXPECT_NEAR(e.gated_fraction(), g, 1e-12);
  EXPECT_NEAR(e.ideal_total_nj(1e-3, 1.0, 0), dyn + leak, 1e-6) << "always live: every line powered";
  EXPECT_NEAR(e.ideal_total_nj(1e-3, 0.25, 3), dyn + 3 * 0.02 + leak * (0.25 + 0.75 * g), 1e-6);
  EXPECT_NEAR(e.ideal_total_nj(1e-3, 0.0, 0), dyn + leak * g, 1e-6) << "never live: gated throughout";
}
