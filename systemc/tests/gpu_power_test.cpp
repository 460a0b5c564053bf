// The chip power model (power/chip_power.h) responds to what runs: FP
// energy follows FP instructions, DRAM energy follows DRAM traffic; a faster
// clock raises dynamic power but not dynamic energy, and cuts leakage
// energy; a lower supply scales dynamic energy by V^2; the GTX 480 leaks the
// thesis's 41.9 W; and the per-SM trace sums to the stats.
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_test_util.h"
#include "gpu/stats.h"
#include "gpu_test_util.h"
#include "power/vf.h"

using namespace relgpu;
using namespace relgpu::gputest;
using config::json;

namespace {

// The power sections of launches [from, to) summed, ratios derived.
json power_of(runtime::Device& dev, size_t from, size_t to) {
  json p;
  for (size_t i = from; i < to; ++i) gpu::add_json(p, dev.launches()[i].detail["power"]);
  power::derive_power(p);
  return p;
}

double comp(const json& p, const char* c) { return p["components"][c]["dynamic_nj"].get<double>(); }

TEST(TimingPower, ComputeKernelSpendsOnFpMemoryKernelOnDram) {
  TimingDevice t(make_config("gtx480", {"power.enable=true"}));
  WorkloadRun a = run_workload(t.dev, "nbody", 1);
  ASSERT_TRUE(a.result.pass) << a.result.message;
  size_t n1 = t.dev.launches().size();
  WorkloadRun b = run_workload(t.dev, "vecops", 1);
  ASSERT_TRUE(b.result.pass) << b.result.message;
  json nb = power_of(t.dev, 0, n1), vo = power_of(t.dev, n1, t.dev.launches().size());
  const double nb_dyn = nb["dynamic_nj"].get<double>(), vo_dyn = vo["dynamic_nj"].get<double>();
  ASSERT_GT(nb_dyn, 0);
  ASSERT_GT(vo_dyn, 0);
  // nbody is FP and SFU work, vecops streams memory (memory traffic: DRAM
  // without refresh, which follows time alone, crossbar and L2). Idle SMs
  // weigh much in small runs, so the two are compared with each other.
  auto traffic = [](const json& p) {
    return comp(p, "dram") - p["components"]["dram"]["refresh_nj"].get<double>() + comp(p, "icnt") + comp(p, "l2");
  };
  EXPECT_GT(comp(nb, "fp"), 3 * comp(vo, "fp"));
  EXPECT_GT(traffic(vo), 3 * traffic(nb));
  EXPECT_GT(comp(nb, "fp") / traffic(nb), 30 * comp(vo, "fp") / traffic(vo));
  EXPECT_GT(comp(nb, "sfu"), 0);
  EXPECT_GT(nb["dynamic_w"].get<double>(), 0);
  // Every component adds up to the totals.
  double dyn = 0, leak = 0;
  for (auto& c : vo["components"]) dyn += c["dynamic_nj"].get<double>(), leak += c["leakage_nj"].get<double>();
  EXPECT_NEAR(dyn, vo_dyn, 1e-9 * vo_dyn);
  EXPECT_NEAR(vo["total_nj"].get<double>(), dyn + leak + vo["constant_nj"].get<double>(), 1e-9 * dyn);
}

TEST(TimingPower, EventsCyclesAndAccountsMatchTheStats) {
  // power.l2_access_nj at 0: the L2 component is LoSCache's account alone
  // (MemorySideKeysAddToTheL2AndMemoryController checks what the key adds).
  TimingDevice t(make_config("gtx480", {"power.enable=true", "power.l2_access_nj=0"}));
  WorkloadRun r = run_workload(t.dev, "histogram", 1);
  ASSERT_TRUE(r.result.pass) << r.result.message;
  uint64_t issued = 0, run_cycles = 0, kernel_cycles = 0;
  for (auto& l : t.dev.launches()) {
    const json& d = l.detail;
    const json& p = d["power"];
    for (const char* k : {"int", "fp", "sfu", "ldst"}) issued += p["events"][k].get<uint64_t>();
    // Every edge of every SM's clock during the launch is accounted once
    // (plus the edge at the launch's end when the SM ran it: chip_power.h).
    for (size_t i = 0; i < d["sms"].size(); ++i) {
      const uint64_t acc = p["sms"][i]["active_cycles"].get<uint64_t>() + p["sms"][i]["idle_cycles"].get<uint64_t>();
      const uint64_t kc = d["sms"][i]["kernel_cycles"].get<uint64_t>();
      EXPECT_TRUE(acc == kc || acc == kc + 1) << l.kernel << " SM " << i << ": " << acc << " vs " << kc;
      run_cycles += acc, kernel_cycles += kc;
    }
    // The RF and L2 accounts are the model's RF and L2 components.
    EXPECT_DOUBLE_EQ(p["components"]["rf"]["dynamic_nj"].get<double>(), d["energy"]["rf"]["dynamic_nj"].get<double>());
    EXPECT_DOUBLE_EQ(p["components"]["rf"]["leakage_nj"].get<double>(), d["energy"]["rf"]["leakage_nj"].get<double>());
    EXPECT_DOUBLE_EQ(p["components"]["l2"]["dynamic_nj"].get<double>(), d["l2_energy"]["dynamic_nj"].get<double>());
    // Without GR-Guard the activity's RF energy is the account's.
    double sm_rf = p["sm_dynamic_nj"].get<double>();
    for (const char* k : {"int", "fp", "sfu", "ldst", "oc", "l1d", "shared", "const", "icache", "pipeline", "idle_sm"})
      sm_rf -= p["components"][k]["dynamic_nj"].get<double>();
    EXPECT_NEAR(sm_rf, d["energy"]["rf"]["dynamic_nj"].get<double>(), 1e-6 * sm_rf);
    // The thesis's GTX 480: 41.9 W modelled leakage, 59 W with the constant part.
    EXPECT_NEAR(p["leakage_w"].get<double>(), 41.9, 1e-3);
    EXPECT_NEAR(p["leakage_w"].get<double>() + p["constant_w"].get<double>(), 59.0, 1e-3);
    EXPECT_GT(p["events"]["icache"].get<uint64_t>(), 0u);
    EXPECT_GT(p["events"]["shared"].get<uint64_t>(), 0u);
    EXPECT_GT(p["events"]["const"].get<uint64_t>(), 0u);
  }
  EXPECT_EQ(issued, r.warp_insn);
  // Over the run, at most the final edge of each SM more.
  EXPECT_GE(run_cycles, kernel_cycles);
  EXPECT_LE(run_cycles, kernel_cycles + 15);
}

// GR-Guard's undervolted RF and patching unit and LoSCache's gated L2 are
// the chip model's rf, patching_unit and l2 components.
TEST(TimingPower, GrGuardAndLoscacheAccountsArePartsOfTheTotal) {
  TimingDevice t(make_config("gtx480", {"power.enable=true", "grguard.enable=true", "rf.cell_failure_rate=0.01",
                                        "pv.sigma_ratio=4:1", "pv.chip_seed=1", "loscache.enable=true"}));
  WorkloadRun r = run_workload(t.dev, "nbody", 1);
  ASSERT_TRUE(r.result.pass) << r.result.message;
  for (auto& l : t.dev.launches()) {
    const json& d = l.detail;
    const json& c = d["power"]["components"];
    ASSERT_TRUE(c.contains("patching_unit")) << l.kernel;
    EXPECT_GT(c["patching_unit"]["dynamic_nj"].get<double>(), 0);
    for (const char* k : {"rf", "patching_unit"})
      for (const char* e : {"dynamic_nj", "leakage_nj"})
        EXPECT_DOUBLE_EQ(c[k][e].get<double>(), d["energy"][k][e].get<double>()) << k << " " << e;
    // Gated lines leak less than all powered, and that is the model's L2.
    EXPECT_DOUBLE_EQ(c["l2"]["leakage_nj"].get<double>(), d["l2_energy"]["leakage_nj"].get<double>());
    EXPECT_LT(c["l2"]["leakage_nj"].get<double>(), d["l2_energy"]["all_powered_leakage_nj"].get<double>());
    // The undervolted RF leaks less than the nominal 0.13 W per SM.
    const double rf_leak_w = c["rf"]["leakage_nj"].get<double>() / d["power"]["time_ps"].get<double>() * 1e3;
    EXPECT_GT(rf_leak_w, 0);
    EXPECT_LT(rf_leak_w, 15 * 0.130);
  }
}

// power.l2_access_nj and power.mc_w (fitted to GPUWattch by default) add to
// the L2 and memory-controller components what GPUWattch charges there beyond
// relgpu's accounts: per L2 sector access, and per channel whatever the
// traffic. The test sets every energy it checks.
TEST(TimingPower, MemorySideKeysAddToTheL2AndMemoryController) {
  TimingDevice t(make_config("gtx480", {"power.enable=true", "power.l2_access_nj=2", "power.mc_w=0.5",
                                             "power.mc_nj=1.28"}));
  WorkloadRun r = run_workload(t.dev, "vecops", 1);
  ASSERT_TRUE(r.result.pass) << r.result.message;
  for (auto& l : t.dev.launches()) {
    const json& d = l.detail;
    const json& c = d["power"]["components"];
    const double sectors = d["l2"]["sectors"].get<double>();
    const double reqs = d["dram"]["reads"].get<double>() + d["dram"]["writes"].get<double>();
    const double secs = d["power"]["time_ps"].get<double>() * 1e-12;
    ASSERT_GT(sectors, 0) << l.kernel;
    EXPECT_NEAR(c["l2"]["dynamic_nj"].get<double>(), d["l2_energy"]["dynamic_nj"].get<double>() + 2 * sectors,
                1e-9 * sectors);
    EXPECT_NEAR(c["mc"]["dynamic_nj"].get<double>(), 1.28 * reqs + 0.5 * 6 * secs * 1e9, 1e-6);
  }
}

std::vector<std::map<std::string, double>> read_csv(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  std::vector<std::string> cols;
  std::stringstream h(line);
  for (std::string c; std::getline(h, c, ',');) cols.push_back(c);
  std::vector<std::map<std::string, double>> rows;
  while (std::getline(f, line)) {
    std::stringstream s(line);
    std::map<std::string, double> r;
    size_t i = 0;
    for (std::string c; std::getline(s, c, ',') && i < cols.size(); ++i) r[cols[i]] = std::stod(c);
    rows.push_back(r);
  }
  return rows;
}

TEST(TimingPower, TraceRowsSumToTheStats) {
  const std::string path = ::testing::TempDir() + "power_trace_test.csv";
  std::remove(path.c_str());
  TimingDevice t(make_config("gtx480", {"power.enable=true", "power.trace=" + path, "power.trace_interval=37"}));
  WorkloadRun r = run_workload(t.dev, "bfs", 1);  // many launches
  ASSERT_TRUE(r.result.pass) << r.result.message;
  json p = power_of(t.dev, 0, t.dev.launches().size());
  auto rows = read_csv(path);
  ASSERT_GT(rows.size(), 15u);
  const size_t nsm = p["sms"].size();
  std::vector<double> dyn(nsm), leak(nsm), cycles(nsm), next(nsm, -1);
  double fp = 0;
  for (auto& row : rows) {
    size_t s = size_t(row["sm"]);
    ASSERT_LT(s, nsm);
    // Each SM's rows tile its cycles: no gap, no overlap, at most one window.
    if (next[s] >= 0) {
      EXPECT_EQ(row["first_cycle"], next[s]) << "SM " << s;
    }
    EXPECT_LE(row["cycles"], 37);
    EXPECT_GT(row["end_ps"], row["start_ps"]);
    next[s] = row["first_cycle"] + row["cycles"];
    dyn[s] += row["dynamic_nj"], leak[s] += row["leakage_nj"], cycles[s] += row["cycles"];
    fp += row["fp_nj"];
  }
  double total = 0;
  for (size_t s = 0; s < nsm; ++s) {
    const json& j = p["sms"][s];
    EXPECT_NEAR(dyn[s], j["dynamic_nj"].get<double>(), 1e-6 * dyn[s] + 1e-9) << "SM " << s;
    EXPECT_NEAR(leak[s], j["leakage_nj"].get<double>(), 1e-6 * leak[s]) << "SM " << s;
    EXPECT_EQ(uint64_t(cycles[s]), j["active_cycles"].get<uint64_t>() + j["idle_cycles"].get<uint64_t>());
    total += dyn[s];
  }
  EXPECT_NEAR(total, p["sm_dynamic_nj"].get<double>(), 1e-6 * total);
  EXPECT_NEAR(fp, comp(p, "fp"), 1e-6 * fp + 1e-9);
}

// The summed power section of matmul under extra config keys, in a child
// (one GPU per process).
json matmul_power(std::initializer_list<std::string> sets) {
  std::string out = in_child([&] {
    config::Config cfg = make_config("gtx480", {"power.enable=true"});
    for (auto& s : sets) cfg.set(s);
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, "matmul", 1);
    if (!r.result.pass) return std::string("error: ") + r.result.message;
    return power_of(t.dev, 0, t.dev.launches().size()).dump();
  });
  if (out.rfind("error", 0) == 0) ADD_FAILURE() << out;
  return out.rfind("error", 0) == 0 ? json::object() : json::parse(out);
}

TEST(TimingPower, ClockScalesDynamicPowerNotDynamicEnergy) {
  json slow = matmul_power({}), fast = matmul_power({"gpu.sm_clock_mhz=1400"});
  ASSERT_TRUE(slow.contains("components") && fast.contains("components"));
  // The same instructions: the same execution-unit events and energy.
  EXPECT_EQ(slow["events"]["fp"], fast["events"]["fp"]);
  EXPECT_DOUBLE_EQ(comp(slow, "fp"), comp(fast, "fp"));
  EXPECT_DOUBLE_EQ(comp(slow, "int"), comp(fast, "int"));
  // In less time: leakage and constant energy shrink with it, power stays.
  const double ts = slow["time_ps"].get<double>(), tf = fast["time_ps"].get<double>();
  EXPECT_LT(tf, 0.8 * ts);
  EXPECT_NEAR(fast["leakage_nj"].get<double>() / slow["leakage_nj"].get<double>(), tf / ts, 1e-9);
  EXPECT_NEAR(fast["leakage_w"].get<double>(), slow["leakage_w"].get<double>(), 1e-6);
  // Dynamic power rises: the events come faster.
  EXPECT_GT(fast["dynamic_w"].get<double>(), 1.2 * slow["dynamic_w"].get<double>());
  EXPECT_GT(fast["components"]["fp"]["avg_w"].get<double>(), 1.2 * slow["components"]["fp"]["avg_w"].get<double>());
}

TEST(TimingPower, SupplyScalesDynamicEnergyBySquareAndLeakage) {
  json nom = matmul_power({}), low = matmul_power({"power.vdd=0.9"});
  ASSERT_TRUE(nom.contains("components") && low.contains("components"));
  EXPECT_EQ(nom["time_ps"], low["time_ps"]);  // the supply does not change timing
  for (const char* c : {"fp", "int", "ldst", "pipeline", "icnt", "dram"})
    EXPECT_NEAR(comp(low, c), 0.81 * comp(nom, c), 1e-9 * comp(nom, c)) << c;
  // The RF keeps its own supply (rf.vdd).
  EXPECT_DOUBLE_EQ(comp(low, "rf"), comp(nom, "rf"));
  config::Config cfg;
  const double scale = power::VfModel(cfg).leakage_scale(0.9);
  EXPECT_LT(scale, 0.9);  // DIBL: below the plain P ~ V rule
  EXPECT_NEAR(low["components"]["sm_logic"]["avg_w"].get<double>(),
              scale * nom["components"]["sm_logic"]["avg_w"].get<double>(), 1e-6);
}

TEST(PowerCli, TraceOptionAndBadTracePath) {
  const std::string path = ::testing::TempDir() + "power_cli_trace.csv";
  auto o = clitest::relgpu("run vecops --size small --config " + config_path("gtx480") + " --power-trace " + path +
                           " --power-trace-interval 500");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("average power"), std::string::npos) << o.text;
  std::ifstream f(path);
  std::string head;
  std::getline(f, head);
  EXPECT_EQ(head.rfind("sm,first_cycle,cycles,start_ps,end_ps,dynamic_nj,leakage_nj,power_w,int_nj", 0), 0u) << head;
  o = clitest::relgpu("run vecops --size small --power-trace /nonexistent-dir/x.csv");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("/nonexistent-dir/x.csv: cannot open the power trace file"), std::string::npos) << o.text;
  o = clitest::relgpu("run vecops --size small --mode functional --power");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("power.enable (--power, --power-trace) needs the timing model"), std::string::npos) << o.text;
}

}  // namespace
