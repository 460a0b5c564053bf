// ARGO end to end (sm/argo.h, reliability/nbti_argo.h): the Evergreen-like
// config, workloads under the rotating allocator with power gating, the
// derived run summary (utilization, worst-row duty, leakage, aging) and the
// NBTI model's ratios.
#include <cmath>

#include "gpu/stats.h"
#include "gpu_test_util.h"
#include "reliability/nbti_argo.h"
#include "sm/argo.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

TEST(GpuArgo, EvergreenConfig) {
  config::Config c = make_config("evergreen_argo");
  EXPECT_EQ(c.value("gpu.num_sms"), 20);
  const int64_t banks = c.value("rf.num_banks"), rows = c.value("rf.entries_per_bank"),
                bits = c.value("rf.entry_bits");
  EXPECT_EQ(banks * rows * bits / 8, 256 * 1024);  // 256 KB per SM
  EXPECT_EQ(rows, 256);
  EXPECT_EQ(banks * bits / 8, 1024);                // a row is 1 KB
  EXPECT_EQ(c.value("sm.max_ctas"), 8);             // Evergreen's 8 work-groups per CU
  EXPECT_EQ(c.value("sm.max_threads"), 2048);       // 32 wavefronts x 64
}

// A few workloads on the Evergreen-like GPU: ARGO keeps every output exact.
// Stats: "pass|fail <utilization> <min recovery> <wakeups> <cycles>".
std::string run(const std::string& name, std::initializer_list<std::string> sets) {
  return in_child([&] {
    config::Config cfg = make_config("evergreen_argo", sets);
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, name, 1);
    config::json total = config::json::object();
    for (auto& l : t.dev.launches()) gpu::add_json(total, l.detail);
    gpu::derive_ratios(total);
    const auto& a = total["argo"];
    return std::string(r.result.pass ? "pass" : "fail") + " " + std::to_string(a["utilization"].get<double>()) +
           " " + std::to_string(a["min_recovery"].get<double>()) + " " + std::to_string(a["wakeups"].get<uint64_t>()) +
           " " + std::to_string(r.cycles);
  });
}

TEST(GpuArgo, WorkloadsPassUnderArgo) {
  double best_recovery = 0;
  for (const char* w : {"reduce", "matmul", "hotspot"}) {
    std::istringstream ff(run(w, {"rf.row_stats=true"}));
    std::istringstream ar(run(w, {"rf.alloc_policy=rotating", "rf.power_gating=true"}));
    std::string pf, pa;
    double uf, ua, rf, ra;
    uint64_t wf, wa, cf, ca;
    ff >> pf >> uf >> rf >> wf >> cf;
    ar >> pa >> ua >> ra >> wa >> ca;
    ASSERT_EQ(pf, "pass") << w << ": " << ff.str();
    ASSERT_EQ(pa, "pass") << w << ": " << ar.str();
    EXPECT_GT(uf, 0.0) << w;
    EXPECT_LT(uf, 1.0) << w;
    EXPECT_NEAR(ua, uf, 0.1 * uf) << w;  // rotation moves rows, not how many
    EXPECT_EQ(rf, 0.0) << w;             // no gates: every row always stressed
    best_recovery = std::max(best_recovery, ra);  // a CTA resident for the whole launch keeps its rows busy
    EXPECT_EQ(wf, 0u);
    EXPECT_GT(wa, 0u);
    EXPECT_LE(double(ca), 1.02 * double(cf)) << w;  // 10-cycle wake-ups: no real throughput loss
  }
  EXPECT_GT(best_recovery, 0.2);  // ARGO: the busiest row recovers
}

// Two SMs by hand: utilization, worst-row duty and leakage from the counters.
TEST(GpuArgo, DerivedSummary) {
  using config::json;
  json d;
  auto sm = [](std::vector<uint64_t> alloc, std::vector<uint64_t> powered, uint64_t kc) {
    json s;
    s["kernel_cycles"] = kc;
    s["cycles"] = kc / 2;
    s["argo"]["launches"] = 1;
    s["argo"]["gated_launches"] = 1;
    s["argo"]["alloc_row_cycles"] = alloc;
    s["argo"]["powered_row_cycles"] = powered;
    return s;
  };
  d["sms"] = json::array({sm({50, 0, 100, 10}, {50, 0, 100, 10}, 200), sm({0, 0, 0, 0}, {0, 0, 0, 0}, 200)});
  sm::derive_argo(d);
  const json& a = d["argo"];
  EXPECT_DOUBLE_EQ(a["utilization"].get<double>(), 160.0 / 1600);
  EXPECT_DOUBLE_EQ(a["utilization_busy"].get<double>(), 160.0 / 800);
  EXPECT_DOUBLE_EQ(a["leakage_reduction"].get<double>(), 1 - 160.0 / 1600);
  EXPECT_DOUBLE_EQ(a["max_row_duty"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(a["min_recovery"].get<double>(), 0.5);
  EXPECT_GT(a["aging"]["45nm"]["vth_reduction_dc_matched"].get<double>(),
            a["aging"]["45nm"]["vth_reduction_high_freq"].get<double>());
  // No gating: every row powered the whole launch, no recovery, no gain.
  for (auto& s : d["sms"]) s["argo"]["gated_launches"] = 0, s["argo"].erase("powered_row_cycles");
  sm::derive_argo(d);
  EXPECT_DOUBLE_EQ(d["argo"]["leakage_reduction"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(d["argo"]["min_recovery"].get<double>(), 0.0);
  EXPECT_NEAR(d["argo"]["aging"]["65nm"]["vth_reduction_dc_matched"].get<double>(), 0.0, 1e-12);
}

TEST(GpuArgo, NbtiModel) {
  using namespace reliability;
  const NbtiTech& n45 = nbti_tech(45);
  const NbtiTech& n65 = nbti_tech(65);
  NbtiPoint hot;  // 110 C, 5 years
  NbtiPoint cold;
  cold.temp_c = 25;
  // High-frequency limit: alpha^(1/6) (n = 1/6).
  EXPECT_NEAR(nbti_ratio(0.5, n45, hot, 0), std::pow(0.5, 1.0 / 6), 1e-12);
  const double p45 = nbti_dc_matched_period(n45, hot.temp_c);
  EXPECT_GT(p45, 0.1);  // about a second at 110 C
  EXPECT_LT(p45, 10.0);
  EXPECT_NEAR(nbti_ratio(1.0, n45, hot, p45), 1.0, 1e-12);
  // dc_matched: 1 - ratio = 1 - alpha^(1/6) (1 + 3 sqrt(xi2 (1 - alpha)))^(-1/3), node-free.
  for (double a : {0.13, 0.5, 0.9}) {
    double want = std::pow(a, 1.0 / 6) * std::pow(1 + 3 * std::sqrt(0.5 * (1 - a)), -1.0 / 3);
    EXPECT_NEAR(nbti_ratio(a, n45, hot, p45), want, 2e-3) << a;
    EXPECT_NEAR(nbti_ratio(a, n65, hot, nbti_dc_matched_period(n65, hot.temp_c)), want, 2e-3) << a;
  }
  // Less stress, less shift; recovery helps more when hot (ARGO Fig. 10) and
  // on the thinner oxide at a fixed period.
  EXPECT_LT(nbti_ratio(0.3, n45, hot, p45), nbti_ratio(0.6, n45, hot, p45));
  EXPECT_LT(nbti_ratio(0.5, n45, hot, p45), nbti_ratio(0.5, n45, cold, p45));
  EXPECT_LT(nbti_ratio(0.5, n45, hot, p45), nbti_ratio(0.5, n65, hot, p45));
  EXPECT_THROW(nbti_tech(32), std::invalid_argument);
  EXPECT_THROW(nbti_ratio(1.5, n45, hot, p45), std::invalid_argument);
}

}  // namespace
