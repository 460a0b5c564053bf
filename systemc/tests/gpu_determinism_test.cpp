// The same seed and config give identical timing stats in separate runs.
// SystemC elaborates once per process, so each run is a forked child that
// writes its per-launch stats (no wall-clock fields are in them) to a pipe.
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

std::string run_in_child(const std::string& cfg_name, const std::string& workload, uint64_t seed) {
  return in_child([&] {
    TimingDevice t(make_config(cfg_name));
    WorkloadRun r = run_workload(t.dev, workload, seed);
    return (r.result.pass ? "pass\n" : "FAIL " + r.result.message + "\n") + r.details;
  });
}

void expect_same(const std::string& cfg, const std::string& w) {
  std::string a = run_in_child(cfg, w, 5), b = run_in_child(cfg, w, 5);
  ASSERT_EQ(a.rfind("pass\n", 0), 0u) << a.substr(0, 2000);
  EXPECT_NE(a.find("gpu_sim_cycle"), std::string::npos);
  EXPECT_TRUE(a == b) << "stats differ between two runs with the same seed";
}

TEST(TimingDeterminism, MatmulSameSeedSameStats) { expect_same("gtx480", "matmul"); }
TEST(TimingDeterminism, BfsSameSeedSameStats) { expect_same("gtx480", "bfs"); }
TEST(TimingDeterminism, HistogramAtomicsSameSeedSameStats) { expect_same("fermi_16bank", "histogram"); }

}  // namespace
