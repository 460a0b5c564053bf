// The shipped configs load (every key known, typed and in range) and the
// code defaults are the GTX480 / GR-Guard baseline.
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

TEST(TimingConfigs, DefaultsAreGtx480) {
  config::Config defaults, gtx = make_config("gtx480");
  EXPECT_EQ(defaults.effective().dump(1), gtx.effective().dump(1));
}

TEST(TimingConfigs, PaperValues) {
  config::Config g = make_config("gtx480");
  EXPECT_EQ(g.get(gpu::kNumSms), 15);
  EXPECT_EQ(g.get(gpu::kSmClockMhz), 700.0);
  EXPECT_EQ(g.value("rf.num_banks"), 32);
  EXPECT_EQ(g.value("rf.entries_per_bank"), 256);
  EXPECT_EQ(g.value("rf.entry_bits"), 128);
  EXPECT_EQ(g.value("l2.sets").get<int64_t>() * g.value("l2.ways").get<int64_t>() * 128 *
                g.value("mem.sub_partitions").get<int64_t>(),
            128 * 1024);
  EXPECT_EQ(g.value("mem.num_partitions"), 6);

  config::Config l = make_config("fermi_1p4ghz");
  EXPECT_EQ(l.get(gpu::kSmClockMhz), 1400.0);
  EXPECT_EQ(l.value("l2.ways"), 16);
  EXPECT_EQ(l.value("l2.sets").get<int64_t>() * 16 * 128 * l.value("mem.num_partitions").get<int64_t>() *
                l.value("mem.sub_partitions").get<int64_t>(),
            768 * 1024);
  EXPECT_EQ(l.value("l1d.mshrs"), 32);

  config::Config p = make_config("fermi_16bank");
  EXPECT_EQ(p.value("rf.num_banks"), 16);
  EXPECT_EQ(p.value("rf.entries_per_bank"), 64);
  EXPECT_EQ(p.value("rf.entry_bits"), 1024);
  EXPECT_EQ(p.value("sm.schedulers"), 2);
  EXPECT_EQ(p.value("sm.scheduler"), "lrr");
  // 128 KB of registers per SM in every config.
  for (auto* c : {&g, &l, &p})
    EXPECT_EQ(c->value("rf.num_banks").get<int64_t>() * c->value("rf.entries_per_bank").get<int64_t>() *
                  c->value("rf.entry_bits").get<int64_t>() / 8,
              128 * 1024);
}

TEST(TimingConfigs, PerSmClocks) {
  config::Config c = make_config("fermi_16bank", {"gpu.num_sms=3", "gpu.sm_clock_mhz_list=700, 650.5,600"});
  auto clocks = gpu::sm_clocks(c);
  ASSERT_EQ(clocks.size(), 3u);
  EXPECT_EQ(clocks[1].khz, 650500u);
  // Edges are exact: 7 cycles of 700 MHz are 10 ns.
  EXPECT_EQ(clocks[0].edge_ps(7), 10000u);
  EXPECT_EQ(clocks[0].edge_ps(1), 1428u);
  EXPECT_EQ(clocks[0].cycle_at_or_after(1429), 2u);
  EXPECT_EQ(clocks[0].cycle_at_or_after(1428), 1u);
  EXPECT_EQ(clocks[0].edge_ps(7'000'000'000), 10'000'000'000'000u);
}

}  // namespace
