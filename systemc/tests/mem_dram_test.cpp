// DramCtrl alone, driven cycle by cycle: FR-FCFS keeps a row open while a
// queued request (arrived or not) hits it, whether that request was queued
// before the row opened or after.
#include <gtest/gtest.h>

#include "common/config.h"
#include "mem/dram.h"

namespace relgpu::mem {
namespace {

struct Served {
  uint32_t tag;
  uint64_t cycle;
};

// Steps the controller at every cycle it asks for until the queue drains.
std::vector<Served> drain(DramCtrl& d, uint64_t now = 0) {
  std::vector<Served> out;
  std::vector<DramCtrl::Done> done;
  for (int guard = 0; !d.empty() && guard < 100000; ++guard) {
    now = d.step(now, done);
    for (const auto& x : done) out.push_back({x.tag, x.cycle});
    done.clear();
  }
  EXPECT_TRUE(d.empty()) << "the controller never drained its queue";
  return out;
}

config::Config cfg() {
  config::Config c;
  c.set("dram.scheduler=frfcfs");
  return c;
}

// Bank 0, row r: local addresses row_bytes x banks apart.
uint64_t addr(const config::Config& c, uint64_t row) {
  return row * uint64_t(c.get(kDramRowBytes)) * uint64_t(c.get(kDramBanks));
}

// X opens row 0; Z needs row 1 of the same bank, so it waits for a
// precharge, legal from tRAS on; Y hits row 0 but arrives after tRAS.
void keeps_row_for_late_hit(bool y_before_activate) {
  const config::Config c = cfg();
  DramCtrl d(c);
  const uint64_t late = uint64_t(c.get(kDramRAS)) + 10;
  d.push(addr(c, 0), false, 1, 0);  // X
  d.push(addr(c, 1), false, 2, 0);  // Z
  std::vector<DramCtrl::Done> done;
  uint64_t now = 0;
  if (y_before_activate) {
    d.push(addr(c, 0) + 128, false, 3, late);  // Y, counted when X's ACT opens row 0
  } else {
    now = d.step(now, done);  // X's ACT
    ASSERT_EQ(d.stats.activates, 1u);
    d.push(addr(c, 0) + 128, false, 3, late);  // Y, queued on the open row
  }
  std::vector<Served> s = drain(d, now);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].tag, 1u);
  EXPECT_EQ(s[1].tag, 3u) << "Y hits the open row and must go before Z's precharge";
  EXPECT_EQ(s[2].tag, 2u);
  EXPECT_EQ(d.stats.row_hits, 1u);
  EXPECT_EQ(d.stats.precharges, 1u);
}

TEST(MemDram, FrFcfsKeepsRowForHitQueuedBeforeActivate) { keeps_row_for_late_hit(true); }
TEST(MemDram, FrFcfsKeepsRowForHitQueuedAfterActivate) { keeps_row_for_late_hit(false); }

// Once the row's last hit is served the bank is free to precharge: Z waits
// for nothing else, and a later hit on row 1 counts as a hit again.
TEST(MemDram, HitCountFollowsServedRequests) {
  const config::Config c = cfg();
  DramCtrl d(c);
  d.push(addr(c, 0), false, 1, 0);
  d.push(addr(c, 0) + 128, false, 2, 0);
  d.push(addr(c, 1), false, 3, 0);
  d.push(addr(c, 1) + 128, false, 4, 0);
  std::vector<Served> s = drain(d);
  ASSERT_EQ(s.size(), 4u);
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(s[i].tag, i + 1);
  EXPECT_EQ(d.stats.row_hits, 2u);
  EXPECT_EQ(d.stats.activates, 2u);
  EXPECT_EQ(d.stats.precharges, 1u);
}

}  // namespace
}  // namespace relgpu::mem
