// Every workload's small size passes its output check in functional mode,
// and the same seed gives the same instruction counts.
#include <gtest/gtest.h>

#include <sstream>

#include "runtime/device.h"
#include "workload.h"

using namespace relgpu;

namespace {

struct Outcome {
  wl::Result result;
  uint64_t thread_insn = 0, warp_insn = 0;
};

Outcome run_small(const wl::Workload& w, uint64_t seed) {
  config::Config cfg;
  runtime::Device dev(cfg);
  std::ostringstream log;
  wl::Context ctx{dev, wl::Size::small, seed, wl::ptx_text(w.name), wl::ptx_path(w.name), wl::ptxas_info(w.name), log};
  Outcome o;
  o.result = w.run(ctx);
  for (auto& l : dev.launches()) o.thread_insn += l.thread_insn, o.warp_insn += l.warp_insn;
  return o;
}

class WorkloadSmall : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkloadSmall, FunctionalPassesAndIsDeterministic) {
  const wl::Workload* w = wl::find(GetParam());
  ASSERT_NE(w, nullptr);
  Outcome a = run_small(*w, 7);
  EXPECT_TRUE(a.result.pass) << a.result.message;
  EXPECT_GT(a.thread_insn, 0u);
  // Small sizes are run in every test and in timing mode later: keep them small.
  EXPECT_LT(a.thread_insn, 2'000'000u) << "small size is too large for the test suite";
  Outcome b = run_small(*w, 7);
  EXPECT_EQ(a.thread_insn, b.thread_insn);
  EXPECT_EQ(a.warp_insn, b.warp_insn);
}

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (auto& w : wl::all()) n.push_back(w.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadSmall, ::testing::ValuesIn(names()),
                         [](const auto& info) { return info.param; });

TEST(Workloads, SuiteHasAtLeastTwelve) { EXPECT_GE(wl::all().size(), 12u); }

}  // namespace
