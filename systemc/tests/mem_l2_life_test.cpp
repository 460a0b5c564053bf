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
