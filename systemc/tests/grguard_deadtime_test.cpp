// Register dead time in the whole timing model (sm/dead_time.h): it is stats
// only (cycles and results unchanged), its counters are consistent, the
// first-read mutant raises the dead time, the dead-bit coverage adds up and
// follows grguard.dead_bits and grguard.exit_deaths, the entry shares follow
// the run's fault map under GR-Guard, and GR-Guard reports the spill lines.
#include "gpu/stats.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

// A one-SM run of `name` (small, seed 1): every launch's detail summed,
// ratios re-derived, "pass" added; {"error": ...} if it did not finish.
config::json run(const std::string& name, std::initializer_list<std::string> sets) {
  std::string out = in_child([&] {
    config::Config cfg = make_config("gtx480", {"gpu.num_sms=1"});
    for (auto& s : sets) cfg.set(s);
    TimingDevice t(cfg);
    config::json sum = config::json::object();
    try {
      WorkloadRun w = run_workload(t.dev, name, 1);
      for (auto& l : t.dev.launches()) gpu::add_json(sum, l.detail);
      gpu::derive_ratios(sum);
      sum["pass"] = w.result.pass;
    } catch (const std::exception& e) {
      sum = {{"error", e.what()}};
    }
    return sum.dump();
  });
  if (out.rfind("error: ", 0) == 0) return {{"error", out}};
  return config::json::parse(out);
}

uint64_t u(const config::json& j, const char* k) { return j.at(k).get<uint64_t>(); }

TEST(DeadTimeRun, StatsOnlyAndConsistent) {
  config::json on = run("nbody", {"grguard.deadtime=true"}), off = run("nbody", {});
  ASSERT_FALSE(on.contains("error")) << on["error"];
  ASSERT_TRUE(on["pass"].get<bool>());
  EXPECT_EQ(on["gpu_sim_cycle"], off["gpu_sim_cycle"]) << "measuring must not change the timing";
  EXPECT_FALSE(off.contains("dead_time"));
  const config::json& d = on["dead_time"];
  EXPECT_GT(u(d, "intervals"), 1000u);
  EXPECT_LE(u(d, "dead_cycles"), u(d, "residency_cycles"));
  EXPECT_GT(d["dead_share"].get<double>(), 0.0);
  EXPECT_LT(d["dead_share"].get<double>(), 1.0);
  EXPECT_LE(u(d, "live_entry_cycles") + u(d, "dead_entry_cycles"), u(d, "entry_cycles"));
  EXPECT_GT(d["unwritten_entry_share"].get<double>(), 0.0);
  // Fault free: every dead entry is good, none is faulty.
  EXPECT_EQ(d["dead_good_entry_cycles"], d["dead_entry_cycles"]);
  EXPECT_EQ(u(d, "live_faulty_entry_cycles"), 0u);
}

TEST(DeadTimeRun, FirstReadMutantRaisesDeadTime) {
  config::json exact = run("nbody", {"grguard.deadtime=true"});
  config::json mutant = run("nbody", {"grguard.deadtime=true", "grguard.deadtime_debug_first_read=true"});
  ASSERT_FALSE(exact.contains("error") || mutant.contains("error"));
  EXPECT_EQ(exact["dead_time"]["residency_cycles"], mutant["dead_time"]["residency_cycles"]);
  // nbody reads its position registers many times between writes.
  EXPECT_GT(u(mutant["dead_time"], "dead_cycles"), u(exact["dead_time"], "dead_cycles"));
}

uint64_t lost(const config::json& d) {
  uint64_t n = 0;
  for (auto& v : d.at("lost_dead_cycles")) n += v.get<uint64_t>();
  return n;
}

TEST(DeadTimeRun, CoverageAddsUpAndFollowsTheDeadBits) {
  config::json two = run("matmul", {"grguard.deadtime=true"});
  config::json all = run("matmul", {"grguard.deadtime=true", "grguard.dead_bits=all"});
  config::json noexit = run("matmul", {"grguard.deadtime=true", "grguard.exit_deaths=false"});
  for (auto* j : {&two, &all, &noexit}) {
    ASSERT_FALSE(j->contains("error")) << (*j)["error"];
    const config::json& d = (*j)["dead_time"];
    EXPECT_EQ(u(d, "known_dead_cycles") + lost(d), u(d, "dead_cycles"));
    EXPECT_EQ(d["lost_dead_cycles"]["marked"], 0u) << "a marking last read loses nothing";
  }
  const config::json &a = two["dead_time"], &b = all["dead_time"], &c = noexit["dead_time"];
  EXPECT_GT(u(a, "known_dead_cycles"), 0u);
  // matmul's FMAs read registers for the last time as their third operand.
  EXPECT_GT(u(a["lost_dead_cycles"], "later_operand"), 0u);
  EXPECT_EQ(u(b["lost_dead_cycles"], "later_operand"), 0u);
  EXPECT_GT(u(b, "known_dead_cycles"), u(a, "known_dead_cycles"));
  // Without exit deaths, registers last read without a mark stay unknown to the end.
  EXPECT_LT(u(c, "known_dead_cycles"), u(a, "known_dead_cycles"));
  EXPECT_EQ(two["gpu_sim_cycle"], all["gpu_sim_cycle"]) << "no GR-Guard: the switch changes only what is counted";
}

TEST(DeadTimeRun, SharesFollowTheFaultMapUnderGrGuard) {
  config::json g = run("nbody", {"grguard.deadtime=true", "grguard.enable=true", "rf.cell_failure_rate=0.01"});
  ASSERT_FALSE(g.contains("error")) << g["error"];
  ASSERT_TRUE(g["pass"].get<bool>());
  const config::json& d = g["dead_time"];
  // The map's faulty share (per launch) is the rf_faults one.
  EXPECT_NEAR(d["faulty_entry_share"].get<double>(), g["sm_total"]["rf_faults"]["faulty_entry_rate"].get<double>(),
              1e-9);
  EXPECT_GT(u(d, "live_faulty_entry_cycles"), 0u);
  EXPECT_LT(u(d, "dead_good_entry_cycles"), u(d, "dead_entry_cycles"));
  // Spill lines: at most the reserved way's (32 sets), and stats combine by maximum.
  EXPECT_LE(g["grguard"]["max_spill_lines"].get<uint64_t>(), 32u);
}

TEST(DeadTimeRun, SpillLinesUsedAreReported) {
  config::json g = run("nbody", {"grguard.enable=true", "rf.cell_failure_rate=0.02"});
  ASSERT_FALSE(g.contains("error")) << g["error"];
  const config::json& gr = g["grguard"];
  ASSERT_GT(gr["l1d_spill_accesses"].get<uint64_t>(), 0u) << "this point spills (GrGuardStats.SpillsWhenPatchesRunOut)";
  EXPECT_GE(gr["max_spill_lines"].get<uint64_t>(), 1u);
  EXPECT_LE(gr["max_spill_lines"].get<uint64_t>(), 32u);
}

}  // namespace
