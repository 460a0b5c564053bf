// Every workload's small size passes its output check in timing mode, on
// each shipped config, and executes exactly the instructions functional mode
// executes (the timing model decides when, the executor what; bfs aside, see
// below). One test
// case per (config, workload), so ctest runs them in parallel processes.
#include "gpu_test_util.h"
#include "ptx/analysis.h"
#include "ptx/parser.h"
#include "ptx/ptxas.h"
#include "sm/keys.h"

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

  // Registers outside the banks (past the warp's rows: ptxas's count
  // rounded up to whole rows of all bank groups) are written, and counted,
  // exactly in the kernels that have any.
  auto mod = ptx::parse(wl::ptx_text(name), wl::ptx_path(name));
  ptx::analyse(*mod);
  ptx::apply(*mod, wl::ptxas_info(name));
  const unsigned groups = unsigned(cfg.get(sm::kRfBanks) / (1024 / cfg.get(sm::kRfEntryBits)));
  ASSERT_FALSE(t.dev.launches().empty());
  for (auto& l : t.dev.launches()) {
    uint64_t outside_writes = 0;
    for (const auto& sm : l.detail["sms"]) outside_writes += sm["rf"]["outside_writes"].get<uint64_t>();
    const ptx::Function& k = *mod->find(l.kernel);
    const unsigned capacity = (k.regs_used() + groups - 1) / groups * groups;
    EXPECT_EQ(outside_writes > 0, k.regs_allocator > capacity) << l.kernel;

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

// gpu.regs_outside: the same kernels, the same instructions; which registers
// lose their bank moves the reads outside and the cycles.
TEST(TimingWorkloadRegisters, OutsideTheBanksFollowsTheKey) {
  uint64_t outside[2] = {}, cycles[2] = {}, insn[2] = {};
  const char* how[2] = {"constants", "highest"};
  for (int i = 0; i < 2; ++i) {
    const std::string out = in_child([&] {
      TimingDevice t(make_config("gtx480", {std::string("gpu.regs_outside=") + how[i]}));
      WorkloadRun r = run_workload(t.dev, "pathfinder", 3);
      if (!r.result.pass) return "error: " + r.result.message;
      uint64_t n = 0;
      for (auto& l : t.dev.launches())
        for (const auto& sm : l.detail["sms"]) n += sm["rf"]["outside_reads"].get<uint64_t>();
      return std::to_string(n) + " " + std::to_string(r.cycles) + " " + std::to_string(r.warp_insn);
    });
    ASSERT_EQ(out.rfind("error", 0), std::string::npos) << how[i] << ": " << out;
    std::istringstream(out) >> outside[i] >> cycles[i] >> insn[i];
  }
  EXPECT_EQ(insn[0], insn[1]);
  EXPECT_GT(outside[0], 0u);
  EXPECT_GT(outside[1], 0u);
  EXPECT_NE(outside[0], outside[1]);
  EXPECT_NE(cycles[0], cycles[1]);
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
