// Voltage smoothing in the whole timing model: every workload passes its
// output check with the local droop predictor in every SM (default,
// untrained thresholds) and the global smoother on, through the block's C++
// model and through the Verilated RTL checked against it every cycle
// (--rtl-check; a mismatch throws and fails the run).
#include "gpu/stats.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

using Param = std::tuple<std::string, std::string>;  // implementation, workload

class SmoothingWorkload : public ::testing::TestWithParam<Param> {};

TEST_P(SmoothingWorkload, PassesOutputCheck) {
  const auto& [impl, name] = GetParam();
  config::Config cfg = make_config("", {"smoothing.local.enable=true", "smoothing.global.enable=true"});
  if (impl == "rtl_check") {
    cfg.set("sim.rtl=droop_predictor");
    cfg.set("sim.rtl_check=true");
  }
  TimingDevice t(cfg);
  WorkloadRun r = run_workload(t.dev, name, 1);
  EXPECT_TRUE(r.result.pass) << name << ": " << r.result.message;
  uint64_t block_cycles = 0, reports = 0;
  for (auto& l : t.dev.launches()) {
    block_cycles += l.detail["sm_total"]["droop"]["block_cycles"].get<uint64_t>();
    reports += l.detail["global_smoother"]["reports"].get<uint64_t>();
  }
  EXPECT_GT(block_cycles, 0u) << "the predictor runs in every SM that issues";
  EXPECT_GT(reports, 0u);
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const char* i : {"cpp", "rtl_check"})
    for (auto& w : wl::all()) p.emplace_back(i, w.name);
  return p;
}

INSTANTIATE_TEST_SUITE_P(All, SmoothingWorkload, ::testing::ValuesIn(params()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
});

}  // namespace
