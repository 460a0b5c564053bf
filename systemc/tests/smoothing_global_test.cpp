// The global smoother in the CTA scheduler (gpu/global_smoother.h): the
// detector and the stagger of proposal (a) on synthetic reports, and in the
// whole GPU a kernel start on every SM triggers it, costs cycles and keeps
// the outputs right.
#include <gtest/gtest.h>

#include "gpu/global_smoother.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

gpu::GlobalSmoother make(unsigned sms, std::initializer_list<std::string> sets = {}) {
  config::Config cfg = make_config("", sets);
  return gpu::GlobalSmoother(cfg, std::vector<gpu::Clock>(sms, gpu::clock_from_mhz(700)), gpu::clock_from_mhz(700));
}

// 15 SMs rise at cycle 10: the first 9 proceed, the 10th crosses "more than
// 9" and holds 50 cycles, and so does every later riser of the window.
TEST(SmoothingGlobal, LaterRisersOfTheWindowHold) {
  gpu::GlobalSmoother g = make(15);
  for (unsigned s = 0; s < 15; ++s) EXPECT_EQ(g.report(s, 0, 0), 0u);  // all idle
  for (unsigned s = 0; s < 9; ++s) EXPECT_EQ(g.report(s, 10, 4), 0u) << s;
  EXPECT_EQ(g.report(9, 10, 4), 50u);
  EXPECT_EQ(g.report(10, 20, 4), 50u);   // within 30 cycles of the trigger
  EXPECT_EQ(g.report(11, 30, 2), 50u);
  EXPECT_EQ(g.report(12, 40, 2), 0u);    // the window closed
  EXPECT_EQ(g.report(13, 40, 0), 0u);    // no rise
  const config::json st = g.stats();
  EXPECT_EQ(st["triggers"], 1);
  EXPECT_EQ(st["held_sms"], 3);
  EXPECT_EQ(st["held_sm_cycles"], 150);
}

// Rises spread wider than the window never trigger; a riser counts once;
// an SM that was active is no riser; the cooldown blocks a second trigger.
TEST(SmoothingGlobal, WindowDistinctSmsAndCooldown) {
  gpu::GlobalSmoother g = make(15);
  for (unsigned s = 0; s < 15; ++s) EXPECT_EQ(g.report(s, 40 * s, 1), 0u) << s;  // 40 cycles apart
  EXPECT_EQ(g.stats()["triggers"], 0);
  gpu::GlobalSmoother h = make(15);
  for (int k = 0; k < 12; ++k) {  // SM 0 going 0 -> 1 -> 0 ...: one SM, one riser
    h.report(0, 1000 + 10 * k, k % 2);
  }
  EXPECT_EQ(h.stats()["triggers"], 0);
  gpu::GlobalSmoother c = make(15, {"smoothing.global.cooldown=200"});
  for (unsigned s = 0; s < 10; ++s) c.report(s, 100, 1);
  EXPECT_EQ(c.stats()["triggers"], 1);
  for (unsigned s = 0; s < 10; ++s) c.report(s, 150, 0);
  for (unsigned s = 0; s < 10; ++s) EXPECT_EQ(c.report(s, 200, 1), 0u) << "cooling down";
  EXPECT_EQ(c.stats()["triggers"], 1);
  for (unsigned s = 0; s < 10; ++s) c.report(s, 400, 0);
  for (unsigned s = 0; s < 10; ++s) c.report(s, 410, 1);
  EXPECT_EQ(c.stats()["triggers"], 2);
  // An SM already active never rises.
  gpu::GlobalSmoother a = make(15);
  for (unsigned s = 0; s < 15; ++s) a.report(s, 10, 3);
  EXPECT_EQ(a.stats()["triggers"], 1);
  for (unsigned s = 0; s < 15; ++s) EXPECT_EQ(a.report(s, 500, 5), 0u);
  EXPECT_EQ(a.stats()["rises"], 15);
}

struct GpuRun {
  std::string pass;
  uint64_t cycles = 0, triggers = 0, held = 0, held_sched = 0;
  std::string sm_cycles;  // every launch's per-SM busy cycles
};

GpuRun gpu_run(const std::string& wl, std::initializer_list<std::string> sets) {
  const std::string s = in_child([&] {
    config::Config cfg = make_config("", sets);
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, wl, 1);
    uint64_t trig = 0, held = 0, held_sched = 0;
    std::string per_sm;
    for (auto& l : t.dev.launches()) {
      for (const auto& sm : l.detail["sms"]) per_sm += std::to_string(sm["cycles"].get<uint64_t>()) + ",";
      if (l.detail.contains("global_smoother")) trig += l.detail["global_smoother"]["triggers"].get<uint64_t>();
      held += l.detail["sm_total"].value("held_cycles", uint64_t(0));
      held_sched += l.detail["sm_total"]["scheduler_cycles"]["held"].get<uint64_t>();
    }
    return std::string(r.result.pass ? "pass" : "FAIL") + " " + std::to_string(r.cycles) + " " +
           std::to_string(trig) + " " + std::to_string(held) + " " + std::to_string(held_sched) + " " + per_sm;
  });
  GpuRun r;
  std::istringstream in(s);
  in >> r.pass >> r.cycles >> r.triggers >> r.held >> r.held_sched >> r.sm_cycles;
  if (r.pass != "pass") ADD_FAILURE() << s;
  return r;
}

// scan (small) places 15 CTAs, one per SM, at kernel start: more than 9 rise together.
TEST(SmoothingGlobal, KernelStartTriggersAndCostsCycles) {
  const GpuRun plain = gpu_run("scan", {});
  const GpuRun g = gpu_run("scan", {"smoothing.global.enable=true"});
  EXPECT_GT(g.triggers, 0u);
  EXPECT_GT(g.held, 0u) << "held SMs keep a ready pick back";
  EXPECT_GT(g.held_sched, 0u);
  // The held SMs' cycles move; scan's kernel end is set by its memory-bound
  // tail (each SM finishes 4 cycles after the one before), which 50 cycles
  // do not move, so the kernel's cycles are compared with a longer delay.
  EXPECT_NE(g.sm_cycles, plain.sm_cycles);
  const GpuRun longer = gpu_run("scan", {"smoothing.global.enable=true", "smoothing.global.delay=400"});
  EXPECT_GT(longer.cycles, plain.cycles);
  // Mutant: a delay of 1 cycle hardly holds anything; the stagger is what costs.
  const GpuRun one = gpu_run("scan", {"smoothing.global.enable=true", "smoothing.global.delay=1"});
  EXPECT_GT(one.triggers, 0u);
  EXPECT_LT(one.held, g.held);
}

}  // namespace
