// Uniform vectors in the whole timing model (sm/uniform_unit.h, the scalar
// data path of sm/regfile.h): every workload passes its output check with
// each uniform register held as a scalar (two copies, the paper's
// reliability variant); detection is sound (no uniform result had lanes
// that differed) and no copy pair differed in a fault-free RF; uniform
// instructions are found (none in nw, whose 16-thread warps never have a
// full mask); a uniform register's accesses touch only its scalar slot's
// bank; with uniform.scalar_issue=false the cycles and
// instructions are the baseline's exactly (the data path moves no time), and
// the same run twice gives the same stats. It composes with GR-Guard and
// the bank organization table.
#include "gpu/stats.h"
#include "gpu_test_util.h"
#include "sm/uniform_unit.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

// One run in its own process: pass, cycles, thread instructions and the
// "uniform" section summed over launches (ratios derived), as JSON.
config::json run(const std::string& name, const std::vector<std::string>& sets) {
  const std::string out = in_child([&] {
    config::Config cfg = make_config("gtx480");
    for (auto& s : sets) cfg.set(s);
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, name, 1);
    config::json u = config::json::object();
    uint64_t reads = 0, writes = 0;  // RF bank accesses (entries)
    for (auto& l : t.dev.launches()) {
      if (l.detail.contains("uniform")) gpu::add_json(u, l.detail["uniform"]);
      for (uint64_t n : l.detail["sm_total"]["rf"]["reads"]) reads += n;
      for (uint64_t n : l.detail["sm_total"]["rf"]["writes"]) writes += n;
    }
    if (!u.empty()) sm::derive_uniform(u, double(r.thread_insn));
    config::json j = {{"pass", r.result.pass}, {"message", r.result.message}, {"cycles", r.cycles},
                      {"thread_insn", r.thread_insn}, {"uniform", u}, {"rf_reads", reads},
                      {"rf_writes", writes}};
    return j.dump();
  });
  if (out.rfind("error", 0) == 0) return {{"error", out}};
  return config::json::parse(out);
}

class UniformWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(UniformWorkload, ScalarRegistersKeepTheOutput) {
  const std::string& name = GetParam();
  const config::json on = run(name, {"uniform.enable=true", "uniform.copies=2"});
  ASSERT_FALSE(on.contains("error")) << on.dump();
  EXPECT_TRUE(on["pass"].get<bool>()) << name << ": " << on["message"];
  const config::json& u = on["uniform"];
  EXPECT_EQ(u["unsound_writes"].get<uint64_t>(), 0u) << "a uniform result had lanes that differed";
  EXPECT_EQ(u["copy_mismatches"].get<uint64_t>(), 0u) << "fault-free copies differed";
  if (name == "nw") {  // 16-thread CTAs: no warp has a full mask (the paper's NW)
    EXPECT_EQ(u["scalar_writes"].get<uint64_t>(), 0u);
    EXPECT_GT(u["divergent_candidates"].get<uint64_t>(), 0u);
  } else {
    EXPECT_GT(u["scalar_writes"].get<uint64_t>(), 0u) << "kernel parameters and CTA ids are uniform";
    EXPECT_GT(u["broadcast_reads"].get<uint64_t>(), 0u);
  }
  EXPECT_GT(u["intra_redundancy"].get<double>(), name == "nw" ? -1.0 : 0.0);
  EXPECT_GE(u["alu_coverage"].get<double>(), 0.0);
  EXPECT_LE(u["alu_coverage"].get<double>(), 1.0);
  EXPECT_LE(u["vrf_protected_reg_cycles"].get<uint64_t>(), u["vrf_live_reg_cycles"].get<uint64_t>());

  const config::json base = run(name, {});
  const config::json same_time = run(name, {"uniform.enable=true", "uniform.scalar_issue=false"});
  ASSERT_FALSE(base.contains("error") || same_time.contains("error")) << base.dump() << same_time.dump();
  EXPECT_TRUE(same_time["pass"].get<bool>());
  EXPECT_EQ(same_time["cycles"], base["cycles"]) << "the scalar data path alone moves no cycle";
  EXPECT_EQ(same_time["thread_insn"], base["thread_insn"]);
  // A scalar write touches one bank of the 8 a warp register spans (lane
  // 16's), a broadcast read likewise: the RF's accesses, and its energy, drop.
  const config::json& su = same_time["uniform"];
  EXPECT_EQ(base["rf_writes"].get<uint64_t>() - same_time["rf_writes"].get<uint64_t>(),
            7 * su["scalar_writes"].get<uint64_t>());
  if (su["broadcast_reads"].get<uint64_t>() > 0) {
    EXPECT_LT(same_time["rf_reads"].get<uint64_t>(), base["rf_reads"].get<uint64_t>());
  }
  EXPECT_LE(on["cycles"].get<uint64_t>(), base["cycles"].get<uint64_t>() * 101 / 100)
      << "one-cycle issue of uniform instructions does not slow a run by more than 1%";
  EXPECT_EQ(run(name, {"uniform.enable=true", "uniform.copies=2"}).dump(), on.dump()) << "same seed, same stats";
}

// The scalar slot is written and read through the RF's placement and bank
// map, so it composes with GR-Guard's patches (faulty cells at 0.4%) and the
// bank organization table (RF-BRO pairing, slow sub-banks, hybrid banks).
TEST(UniformCombined, WithGrGuardAndTheBankOrganizationTable) {
  for (const char* w : {"hotspot", "bfs"}) {
    config::json g = run(w, {"uniform.enable=true", "uniform.copies=2", "grguard.enable=true",
                             "rf.cell_failure_rate=0.004"});
    ASSERT_FALSE(g.contains("error")) << g.dump();
    EXPECT_TRUE(g["pass"].get<bool>()) << w << " with GR-Guard: " << g["message"];
    EXPECT_GT(g["uniform"]["scalar_writes"].get<uint64_t>(), 0u);
    EXPECT_EQ(g["uniform"]["unsound_writes"].get<uint64_t>(), 0u);
  }
  const std::string out = in_child([] {
    config::Config cfg = make_config("fermi_16bank", {"uniform.enable=true", "uniform.copies=2", "bot.enable=true",
                                                      "bot.pairing=rf_bro", "bot.slow_sbs=pv", "bot.hybrid=true"});
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, "hotspot", 1);
    return std::string(r.result.pass ? "pass" : "fail: " + r.result.message);
  });
  EXPECT_EQ(out, "pass") << "with the BOT";
}

// uniform.broadcast_loads=false: loads set no token, so fewer registers are
// uniform (kernel parameters start most uniform chains), and the output holds.
TEST(UniformAblation, WithoutTheBroadcastPathLoadsSetNoToken) {
  const config::json with = run("hotspot", {"uniform.enable=true"});
  const config::json without = run("hotspot", {"uniform.enable=true", "uniform.broadcast_loads=false"});
  ASSERT_FALSE(with.contains("error") || without.contains("error")) << with.dump() << without.dump();
  EXPECT_TRUE(without["pass"].get<bool>());
  EXPECT_GT(with["uniform"]["uniform_loads"].get<uint64_t>(), 0u);
  EXPECT_EQ(without["uniform"]["uniform_loads"].get<uint64_t>(), 0u);
  EXPECT_LT(without["uniform"]["scalar_writes"].get<uint64_t>(), with["uniform"]["scalar_writes"].get<uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(All, UniformWorkload, ::testing::ValuesIn([] {
                           std::vector<std::string> v;
                           for (auto& w : wl::all()) v.push_back(w.name);
                           return v;
                         }()),
                         [](const auto& info) { return info.param; });

}  // namespace
