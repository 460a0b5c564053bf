// LoSCache in the whole timing model (mem/loscache.h, sm/loscache_unit.h):
// every workload passes its output check with gating on, under each warp
// scheduler; the mechanism changes what the simulation does (gated lines,
// bypasses, count queries on the interconnect, prediction accuracy); forced
// under-predictions raise thresholds without corrupting data; dirty lines
// are written back before gating; loscache.enable=false changes nothing.
#include "gpu/stats.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

using Param = std::tuple<std::string, std::string>;  // scheduler, workload

// The run's "loscache" section summed over launches (ratios re-derived).
config::json run_los(const std::vector<std::string>& sets, const std::string& name, bool* pass) {
  config::Config cfg = make_config("gtx480");
  for (auto& s : sets) cfg.set(s);
  TimingDevice t(cfg);
  WorkloadRun r = run_workload(t.dev, name, 1);
  *pass = r.result.pass;
  config::json sum = config::json::object();
  for (auto& l : t.dev.launches()) {
    config::json part = config::json::object();
    for (const char* k : {"loscache", "l2_energy", "dram", "gpu_sim_cycle"})
      if (l.detail.contains(k)) part[k] = l.detail[k];
    gpu::add_json(sum, part);
  }
  gpu::derive_ratios(sum);
  return sum;
}

class LoscacheWorkload : public ::testing::TestWithParam<Param> {};

TEST_P(LoscacheWorkload, PassesOutputCheck) {
  const auto& [sched, name] = GetParam();
  bool pass = false;
  config::json s = run_los({"loscache.enable=true", "sm.scheduler=" + sched}, name, &pass);
  EXPECT_TRUE(pass) << name << " under " << sched;
  // Small runs often end inside the prediction phase (100 L2 accesses of the
  // GPU, or the predictor CTAs' end); whatever was queried was answered.
  EXPECT_GT(s["loscache"]["sm"]["inserts"].get<int64_t>(), 0) << "the predictor CTA filled the table";
  EXPECT_EQ(s["loscache"]["l2"]["queries"], s["loscache"]["sm"]["queries"]);
  EXPECT_EQ(s["loscache"]["icnt"]["query_packets"].get<int64_t>(), 2 * s["loscache"]["sm"]["queries"].get<int64_t>())
      << "a request and an answer per query";
  // Every powered line-cycle is charged to one reason (mem/loscache.h PoweredTime).
  const config::json& l2 = s["loscache"]["l2"];
  uint64_t parts = 0;
  for (const auto& [k, v] : l2["powered"].items()) parts += v.get<uint64_t>();
  EXPECT_EQ(parts, l2["powered_line_cycles"].get<uint64_t>()) << l2["powered"].dump();
  // A table entry's count is fixed for its kernel: no naive prediction beats
  // the best fixed count per SM and PC.
  EXPECT_GE(l2["exact_pc_mode"].get<uint64_t>(), l2["exact_naive"].get<uint64_t>());
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const char* s : {"gto", "lrr", "two_level"})
    for (auto& w : wl::all()) p.emplace_back(s, w.name);
  return p;
}

INSTANTIATE_TEST_SUITE_P(All, LoscacheWorkload, ::testing::ValuesIn(params()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
});

// bfs and spmv (irregular reuse) with a shorter prediction phase, so that
// most of a small run is in the normal phase.
TEST(Loscache, GatesBypassesAndQueriesOnTheInterconnect) {
  bool pass = false;
  config::json s = run_los({"loscache.enable=true", "loscache.phase_count=sm", "blocks.loscache_table.phase_limit=20"}, "spmv", &pass);
  ASSERT_TRUE(pass);
  const config::json& l2 = s["loscache"]["l2"];
  EXPECT_GT(l2["gatings"].get<int64_t>(), 0);

  EXPECT_GT(s["loscache"]["icnt"]["query_bytes"].get<int64_t>(), 0);
  EXPECT_GT(s["loscache"]["icnt_traffic_increase"].get<double>(), 0);
  EXPECT_GT(l2["generations_predicted"].get<int64_t>(), 0);
  EXPECT_LE(l2["exact_adaptive"].get<int64_t>() + l2["under_predicted"].get<int64_t>() +
                l2["over_predicted"].get<int64_t>(),
            l2["generations_predicted"].get<int64_t>());
  EXPECT_GT(s["loscache"]["accuracy_adaptive"].get<double>(), 0);
  EXPECT_LT(s["loscache"]["powered_fraction"].get<double>(), 1.0);
  EXPECT_LT(s["l2_energy"]["leakage_nj"].get<double>(), s["l2_energy"]["all_powered_leakage_nj"].get<double>());
}

// Lines predicted to be used once bypass the L2 (reads and writes served
// from DRAM contents without allocating); rare in a small run, seen in bfs.
TEST(Loscache, BypassesLinesPredictedUsedOnce) {
  bool pass = false;
  config::json s = run_los({"loscache.enable=true", "loscache.phase_count=sm", "blocks.loscache_table.phase_limit=20"}, "bfs", &pass);
  ASSERT_TRUE(pass);
  const config::json& l2 = s["loscache"]["l2"];
  EXPECT_GT(l2["bypass_reads"].get<int64_t>() + l2["bypass_writes"].get<int64_t>(), 0);
}

// A 20-access prediction phase reads partial counts: the tables
// under-predict, lines are gated early and hit again. Thresholds rise and
// the data stays right.
TEST(Loscache, UnderPredictionRaisesThresholdsAndKeepsDataCorrect) {
  bool pass = false;
  config::json s = run_los({"loscache.enable=true", "loscache.phase_count=sm", "blocks.loscache_table.phase_limit=20"}, "spmv", &pass);
  EXPECT_TRUE(pass);
  const config::json& los = s["loscache"];
  EXPECT_GT(los["l2"]["gated_hits"].get<int64_t>(), 0);
  EXPECT_GT(los["l2"]["mispredicts"].get<int64_t>(), 0);
  EXPECT_GT(los["sm"]["mispredicts"].get<int64_t>(), 0) << "flagged responses reached the tables";
  EXPECT_GT(los["sm"]["thr_sum"].get<int64_t>(), 0) << "later predictions carry a raised threshold";
}

TEST(Loscache, DirtyLinesAreWrittenBackBeforeGating) {
  bool on_pass = false;
  std::string off = in_child([] {
    bool pass = false;
    std::string d = run_los({}, "bfs", &pass)["dram"].dump();
    return pass ? d : "error: output check failed";
  });
  config::json s = run_los({"loscache.enable=true", "loscache.phase_count=sm", "blocks.loscache_table.phase_limit=20"}, "bfs", &on_pass);
  EXPECT_TRUE(on_pass);
  ASSERT_EQ(off.find("error"), std::string::npos) << off;
  config::json d = config::json::parse(off);
  EXPECT_GT(s["loscache"]["l2"]["gate_writebacks"].get<int64_t>(), 0);
  EXPECT_GT(s["dram"]["writes"].get<int64_t>(), d["writes"].get<int64_t>())
      << "stores reach DRAM during the kernel when their lines are gated";
}

// The random predictor draw is reproducible: the same loscache.seed gives
// the same stats, and another seed picks other CTAs (different stats). Two
// SMs, so that each holds several CTAs when the launch starts.
TEST(Loscache, SameSeedSameStatsOtherSeedOtherCtas) {
  auto run = [](int seed) {
    return in_child([seed] {
      bool pass = false;
      config::json s =
          run_los({"loscache.enable=true", "gpu.num_sms=2", "loscache.seed=" + std::to_string(seed)}, "vecops", &pass);
      return pass ? s.dump() : std::string("error: output check failed");
    });
  };
  std::string a = run(3), b = run(3);
  ASSERT_EQ(a.find("error"), std::string::npos) << a;
  EXPECT_EQ(a, b);
  bool differs = false;
  for (int seed : {4, 5, 6})
    if (run(seed) != a) differs = true;
  EXPECT_TRUE(differs) << "three other seeds drew the same predictor CTAs everywhere";
}

// One GPU-wide phase: every SM's table leaves PREDICT at the GPU's 100th
// L2 access, far sooner in table cycles than when each SM counts its own.
// Were the phase not shared, "gpu" would behave as "sm" (same stats).
TEST(Loscache, GpuWidePhaseIsSharedBySms) {
  auto run = [](const std::string& count) {
    return in_child([count] {
      bool pass = false;
      config::json s = run_los({"loscache.enable=true", "loscache.phase_count=" + count}, "spmv", &pass);
      return pass ? s["loscache"]["sm"].dump() : std::string("error: output check failed");
    });
  };
  std::string g = run("gpu"), m = run("sm");
  ASSERT_EQ(g.find("error"), std::string::npos) << g;
  ASSERT_EQ(m.find("error"), std::string::npos) << m;
  config::json gj = config::json::parse(g), mj = config::json::parse(m);
  EXPECT_LT(gj["predict_cycles"].get<int64_t>(), mj["predict_cycles"].get<int64_t>());
  EXPECT_LT(gj["inserts"].get<int64_t>(), mj["inserts"].get<int64_t>());
}

TEST(Loscache, DisabledIsIdenticalToNoKey) {
  auto run = [](bool with_key) {
    return in_child([with_key] {
      config::Config cfg = make_config("gtx480");
      if (with_key) cfg.set("loscache.enable=false");
      TimingDevice t(cfg);
      WorkloadRun r = run_workload(t.dev, "spmv", 2);
      return r.details + (r.result.pass ? "pass" : "fail");
    });
  };
  std::string a = run(false), b = run(true);
  EXPECT_EQ(a.find("error"), std::string::npos) << a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.find("\"loscache\""), std::string::npos);
}

}  // namespace

// l2.life_stats only records: the same cycles and L2 energy with it on; dead
// time lies in (0, 1) and the Ideal-Gating bound is below every line powered.
TEST(L2LifeStats, RecordOnlyAndBoundTheEnergy) {
  auto run = [](bool life) {
    return in_child([life] {
      config::Config cfg = make_config("fermi_1p4ghz", {std::string("l2.life_stats=") + (life ? "true" : "false")});
      TimingDevice t(cfg);
      WorkloadRun r = run_workload(t.dev, "hotspot", 1);
      config::json sum = config::json::object();
      for (auto& l : t.dev.launches()) {
        config::json part = config::json::object();
        for (const char* k : {"l2_life", "l2_energy", "gpu_sim_cycle"})
          if (l.detail.contains(k)) part[k] = l.detail[k];
        gpu::add_json(sum, part);
      }
      gpu::derive_ratios(sum);
      sum["pass"] = r.result.pass;
      return sum.dump();
    });
  };
  config::json off = config::json::parse(run(false)), on = config::json::parse(run(true));
  EXPECT_TRUE(on["pass"].get<bool>());
  EXPECT_EQ(on["gpu_sim_cycle"], off["gpu_sim_cycle"]);
  EXPECT_EQ(on["l2_energy"]["total_nj"], off["l2_energy"]["total_nj"]);
  EXPECT_FALSE(off.contains("l2_life"));
  const config::json& l = on["l2_life"];
  EXPECT_GT(l["dead_fraction"].get<double>(), 0.0);
  EXPECT_LT(l["dead_fraction"].get<double>(), 1.0);
  EXPECT_GT(l["generations"].get<uint64_t>(), 0u);
  EXPECT_GT(l["ideal_gating_energy_ratio"].get<double>(), 0.0);
  EXPECT_LT(l["ideal_gating_energy_ratio"].get<double>(), 1.0);
}
