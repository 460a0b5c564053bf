// Every workload's small size passes its output check in timing mode, on
// each shipped config, and executes exactly the instructions functional mode
// executes (the timing model decides when, the executor what; bfs aside, see
// below). One test
// case per (config, workload), so ctest runs them in parallel processes.
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

using Param = std::tuple<std::string, std::string>;  // config, workload

class TimingWorkload : public ::testing::TestWithParam<Param> {};

TEST_P(TimingWorkload, PassesAndMatchesFunctionalCounts) {
  const auto& [cfg_name, name] = GetParam();
  config::Config cfg = make_config(cfg_name);
  TimingDevice t(cfg);
  WorkloadRun timed = run_workload(t.dev, name, 3);
  EXPECT_TRUE(timed.result.pass) << timed.result.message;

  runtime::Device fdev(cfg);  // functional engine (Device's default)
  WorkloadRun func = run_workload(fdev, name, 3);
  ASSERT_TRUE(func.result.pass) << func.result.message;
  if (name == "bfs") {
    // A benign race (frontier vertices claiming the same neighbour, see
    // bfs.cu): how many threads find a neighbour unvisited depends on the
    // interleaving, which differs between CTA-at-a-time functional mode and
    // concurrent CTAs. The levels, and so the output, are exact either way.
    EXPECT_NEAR(double(timed.thread_insn), double(func.thread_insn), 0.05 * double(func.thread_insn));
  } else {
    EXPECT_EQ(timed.thread_insn, func.thread_insn);
    EXPECT_EQ(timed.warp_insn, func.warp_insn);
  }

  ASSERT_FALSE(t.dev.launches().empty());
  for (auto& l : t.dev.launches()) {
    const auto& d = l.detail;
    ASSERT_EQ(d.value("engine", ""), "timing");
    uint64_t cycles = d["gpu_sim_cycle"].get<uint64_t>();
    EXPECT_GT(cycles, 0u) << l.kernel;
    // Thread IPC cannot exceed SMs x schedulers x 32 lanes.
    double max_ipc = double(cfg.get(gpu::kNumSms)) * 2 * 32;
    EXPECT_LE(d["ipc"].get<double>(), max_ipc) << l.kernel;
    EXPECT_EQ(d["sms"].size(), size_t(cfg.get(gpu::kNumSms)));
    EXPECT_EQ(d["ctas"].get<uint64_t>(), l.grid.count());
  }
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const char* c : {"gtx480", "fermi_1p4ghz", "fermi_16bank"})
    for (auto& w : wl::all()) p.emplace_back(c, w.name);
  return p;
}

INSTANTIATE_TEST_SUITE_P(All, TimingWorkload, ::testing::ValuesIn(params()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
});

}  // namespace
