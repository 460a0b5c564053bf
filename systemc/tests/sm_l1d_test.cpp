// The L1D's MSHRs on their own: which miss a load may merge into, after
// stores (stale), an acquire (all stale), a release, and at the merge limit.
#include <gtest/gtest.h>

#include "sm/l1d.h"

namespace relgpu::sm {
namespace {

constexpr uint64_t kA = 0x1000, kB = 0x2080;

TEST(SmL1d, LoadMergesOnlyIntoALiveMissToItsLine) {
  L1D l1(2, 2, 3, 2);
  const int a = l1.allocate(kA);
  ASSERT_GE(a, 0);
  EXPECT_EQ(l1.mergeable(kA), a);
  EXPECT_EQ(l1.mergeable(kB), -1);

  l1.store_seen(kA);  // the fill would hold the value from before the store
  EXPECT_EQ(l1.mergeable(kA), -1);
  EXPECT_EQ(l1.mshrs_busy(), 1u) << "a stale miss still waits for its fill";

  const int a2 = l1.allocate(kA);
  ASSERT_GE(a2, 0);
  EXPECT_NE(a2, a);
  EXPECT_EQ(l1.mergeable(kA), a2);
  const int b = l1.allocate(kB);
  EXPECT_EQ(l1.mergeable(kB), b);

  l1.all_stale();  // a gpu-scope acquire
  EXPECT_EQ(l1.mergeable(kA), -1);
  EXPECT_EQ(l1.mergeable(kB), -1);
  EXPECT_EQ(l1.allocate(kB + 128), -1) << "three MSHRs, all busy";

  l1.release(b);
  EXPECT_EQ(l1.mshrs_busy(), 2u);
  EXPECT_EQ(l1.allocate(kB), b) << "the released MSHR is free again";
  EXPECT_EQ(l1.mergeable(kB), b);
}

TEST(SmL1d, MergeLimitPerMiss) {
  L1D l1(2, 2, 2, 2);
  const int a = l1.allocate(kA);
  l1.mshr(a).waiters.push_back(nullptr);
  EXPECT_EQ(l1.mergeable(kA), a);
  l1.mshr(a).waiters.push_back(nullptr);
  EXPECT_EQ(l1.mergeable(kA), -1) << "merge limit 2 reached";
  l1.release(a);
  EXPECT_EQ(l1.mergeable(kA), -1) << "a released MSHR takes no loads";
}

}  // namespace
}  // namespace relgpu::sm
