// An ActivityObserver sees every SM cycle: the warp instructions it counts
// equal gpu_warp_insn, its RF reads per bank equal the RF stats, and its
// cycles (reported plus skipped) cover every busy cycle of the SM.
#include "gpu_test_util.h"

#include "sm/activity.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

struct Counter : sm::ActivityObserver {
  uint64_t issued = 0, calls = 0, skipped = 0, rf_reads = 0, max_active = 0;
  std::vector<uint64_t> cycles_per_sm;
  void on_cycle(const sm::Activity& a, uint64_t skip) override {
    ++calls;
    skipped += skip;
    for (uint8_t n : a.issued) issued += n;
    for (uint8_t n : a.rf_reads) rf_reads += n;
    max_active = std::max<uint64_t>(max_active, a.active_warps);
    if (cycles_per_sm.size() <= a.sm) cycles_per_sm.resize(a.sm + 1);
    cycles_per_sm[a.sm] += skip ? skip : 1;
  }
};

TEST(TimingActivity, ObserverCountsMatchStats) {
  TimingDevice t(make_config("gtx480"));
  gpu::Gpu& g = t.engine->elaborate();
  Counter c;
  for (unsigned i = 0; i < g.num_sms(); ++i) g.sm(i).core().add_observer(&c);
  WorkloadRun r = run_workload(t.dev, "vecops", 1);
  ASSERT_TRUE(r.result.pass) << r.result.message;
  EXPECT_GT(r.warp_insn, 0u);
  EXPECT_EQ(c.issued, r.warp_insn);
  uint64_t rf_reads = 0, busy = 0;
  for (auto& l : t.dev.launches())
    for (auto& sm : l.detail["sms"]) {
      for (auto& v : sm["rf"]["reads"]) rf_reads += v.get<uint64_t>();
      busy += sm["cycles"].get<uint64_t>();
    }
  EXPECT_EQ(c.rf_reads, rf_reads);
  EXPECT_GT(c.max_active, 0u);
  uint64_t seen = 0;
  for (uint64_t n : c.cycles_per_sm) seen += n;
  EXPECT_GE(seen, busy);
}

}  // namespace
