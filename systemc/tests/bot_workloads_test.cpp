// The bank organization table on every RF access of every SM (sm/bot_unit.h),
// in the whole timing model on the paper's RF (configs/fermi_16bank.json):
// every workload passes its output check with VL-SB slow sub-banks (chip 1's
// process variation), RF-BRO pairing, the kernel-level re-organisation at
// every launch (the block's sorter) and block renaming, or hybrid banks in
// place of renaming (the sorter's swaps with each kernel's N_hyb), through
// the C++ model and through the Verilated RTL checked against it every cycle
// (--rtl-check).
#include "gpu/stats.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

using Param = std::tuple<std::string, std::string>;  // [hybrid_]implementation, workload

class BotWorkload : public ::testing::TestWithParam<Param> {};

TEST_P(BotWorkload, PassesOutputCheck) {
  const auto& [impl, name] = GetParam();
  const bool hybrid = impl.rfind("hybrid_", 0) == 0;
  config::Config cfg = make_config("fermi_16bank", {"bot.enable=true", "bot.pairing=rf_bro", "bot.slow_sbs=pv",
                                                    "bot.reorg=true"});
  cfg.set(hybrid ? "bot.hybrid=true" : "bot.renaming=true");
  if (impl.find("rtl_check") != std::string::npos) {
    cfg.set("sim.rtl=bank_org_table");
    cfg.set("sim.rtl_check=true");
  }
  TimingDevice t(cfg);
  WorkloadRun r = run_workload(t.dev, name, 1);
  EXPECT_TRUE(r.result.pass) << name << ": " << r.result.message;
  uint64_t lookups = 0, slow = 0, fills = 0, reorgs = 0, hyb_lookups = 0, hyb_regs = 0;
  for (auto& l : t.dev.launches()) {
    const config::json& b = l.detail["sm_total"]["bot"];
    lookups += b["lookups"].get<uint64_t>();
    if (hybrid) {
      hyb_lookups += b["hybrid"]["lookups"].get<uint64_t>();
      hyb_regs += b["hybrid"]["regs"].get<uint64_t>();
    }
    slow += b["slow_accesses"].get<uint64_t>();
    fills += b["rt_fills"].get<uint64_t>();
    for (const auto& sm : l.detail["sms"])  // every SM that ran re-organised first
      if (sm["bot"]["lookups"].get<uint64_t>() > 0) {
        EXPECT_EQ(sm["bot"]["reorgs"].get<uint64_t>(), 1u);
      }
    reorgs += b["reorgs"].get<uint64_t>();
  }
  EXPECT_GT(reorgs, 0u);
  EXPECT_GT(lookups, 0u) << "every RF access is a lookup";
  if (hybrid) {
    EXPECT_EQ(fills, 0u);
    EXPECT_GT(hyb_regs, 0u) << "every workload has registers under a thread-dependent branch";
    EXPECT_GT(hyb_lookups, 0u);
  } else {
    EXPECT_GT(fills, 0u) << "CTA dispatches fill renaming rows";
    EXPECT_GT(slow, 0u) << "5 of 16 vbs are slow under RF-BRO";
  }
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const char* i : {"cpp", "rtl_check", "hybrid_cpp", "hybrid_rtl_check"})
    for (auto& w : wl::all()) p.emplace_back(i, w.name);
  return p;
}

INSTANTIATE_TEST_SUITE_P(All, BotWorkload, ::testing::ValuesIn(params()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
});

}  // namespace
