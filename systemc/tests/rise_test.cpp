// RISE (sm/rise.h): Eq. 3.1's redundancy counter and IS-FRISE's SM choice on
// the unit alone; in the whole timing model on the chapter's GPU
// (configs/rise.json): every workload passes with RISE and with every
// instruction run twice, RISE's accounting alone moves no cycle, a full copy
// costs issue slots, and SP-lane strikes that corrupt a plain run are caught
// and voted out when every instruction runs twice.
#include "gpu/stats.h"
#include "gpu_test_util.h"
#include "sm/rise.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

// One run in its own process: pass, cycles and the "rise" and "sp_upsets"
// sections summed over launches (ratios derived), as JSON.
config::json run(const std::string& name, const std::vector<std::string>& sets) {
  const std::string out = in_child([&] {
    config::Config cfg = make_config("rise");
    for (auto& s : sets) cfg.set(s);
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, name, 1);
    config::json rise = config::json::object(), up = config::json::object();
    for (auto& d : t.dev.launches()) {
      if (d.detail.contains("rise")) gpu::add_json(rise, d.detail["rise"]);
      if (d.detail.contains("sp_upsets")) gpu::add_json(up, d.detail["sp_upsets"]);
    }
    if (!rise.empty()) sm::derive_rise(rise);
    config::json j = {{"pass", r.result.pass}, {"message", r.result.message}, {"cycles", r.cycles},
                      {"rise", rise}, {"sp_upsets", up}};
    return j.dump();
  });
  if (out.rfind("error", 0) == 0) return {{"error", out}};
  return config::json::parse(out);
}

uint64_t u64(const config::json& j, const char* k) { return j.value(k, uint64_t(0)); }
uint64_t copies(const config::json& r) {
  uint64_t n = 0;
  for (auto& [k, v] : r["copies"].items()) n += v.get<uint64_t>();
  return n;
}

const std::vector<std::string> kCount = {"rise.enable=true", "rise.request_pending=false", "rise.idle_sm=false",
                                         "rise.partial=false"};
std::vector<std::string> with(std::vector<std::string> v, std::initializer_list<std::string> more) {
  v.insert(v.end(), more);
  return v;
}

class RiseWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(RiseWorkload, CopiesKeepTheOutput) {
  const std::string& name = GetParam();
  const config::json rise = run(name, {"rise.enable=true"});
  ASSERT_FALSE(rise.contains("error")) << rise.dump();
  EXPECT_TRUE(rise["pass"].get<bool>()) << name << ": " << rise["message"];
  const config::json& r = rise["rise"];
  EXPECT_EQ(u64(r, "compared"), copies(r)) << "every copy is compared at writeback";
  EXPECT_EQ(u64(r, "mismatches"), 0u) << "no strike, no mismatch";
  EXPECT_EQ(u64(r, "ace_lane_cycles") + u64(r, "protected_lane_cycles"), u64(r, "sp_lane_cycles"));
  EXPECT_EQ(run(name, {"rise.enable=true"}).dump(), rise.dump()) << "same seed, same stats";

  // The accounting alone is the plain run, cycle for cycle.
  const config::json plain = run(name, {});
  const config::json count = run(name, kCount);
  ASSERT_FALSE(plain.contains("error") || count.contains("error")) << plain.dump() << count.dump();
  EXPECT_EQ(count["cycles"], plain["cycles"]) << "counting the SP AVF moves no cycle";
  EXPECT_EQ(copies(count["rise"]), 0u);
  EXPECT_GT(count["rise"]["sp_avf"].get<double>(), 0.0);

  const config::json all = run(name, {"rise.enable=true", "rise.duplicate_all=true"});
  ASSERT_FALSE(all.contains("error")) << all.dump();
  EXPECT_TRUE(all["pass"].get<bool>()) << name << " every instruction twice: " << all["message"];
  EXPECT_EQ(all["rise"]["sp_avf"].get<double>(), 0.0) << "every SP lane result is checked";
  EXPECT_EQ(u64(all["rise"]["copies"], "all"), u64(all["rise"], "sp_insn"));
  EXPECT_GE(all["cycles"].get<uint64_t>(), count["cycles"].get<uint64_t>()) << "copies take issue slots";
  // Unit-cycles: an SP instruction's initiation interval (at least 1), twice with a copy.
  EXPECT_GE(u64(count["rise"], "busy_unit_cycles"), u64(count["rise"], "sp_insn"));
  if (u64(all["rise"], "sp_insn") == u64(count["rise"], "sp_insn"))  // bfs's work depends on timing
    EXPECT_EQ(u64(all["rise"], "busy_unit_cycles"), 2 * u64(count["rise"], "busy_unit_cycles"));
  EXPECT_LE(u64(count["rise"], "partly_idle_unit_cycles"), u64(count["rise"], "busy_unit_cycles"));
  EXPECT_LE(u64(count["rise"], "sp_lane_cycles"), 32 * u64(count["rise"], "busy_unit_cycles"));
}

INSTANTIATE_TEST_SUITE_P(All, RiseWorkload, ::testing::ValuesIn([] {
                           std::vector<std::string> v;
                           for (auto& w : wl::all()) v.push_back(w.name);
                           return v;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// Eq. 3.1 with T_ref = 128 and T_thr = 16, on CTA slot 0 of 4 warps.
TEST(RiseCounter, Equation31) {
  config::Config cfg;
  cfg.set("rise.pend_threshold=16");
  cfg.set("rise.sample_period=1000");
  sm::Rise r(0, cfg);
  r.begin_launch(1, 1, 0);
  r.cta_added(0, 4);
  using W = sm::Rise::Why;
  r.response(0, 0, 500, 10);  // an L2 hit carries no RC
  EXPECT_EQ(r.full_copy(0), W::none);
  r.response(0, 16, 64, 20);  // T_P at the threshold: RC = 0 (T_acc sampled: 64)
  EXPECT_EQ(r.full_copy(0), W::none);
  r.response(0, 40, 999, 30);  // T_acc stays 64 until the next period: RC = 64 * 40 / 128 = 20
  EXPECT_EQ(r.st.rc_sum, 20u);
  for (int i = 0; i < 80; ++i) ASSERT_EQ(r.full_copy(0), W::pending) << i;  // RC x 4 warps
  EXPECT_EQ(r.full_copy(0), W::none);
  r.response(0, 3000, 200, 1500);  // new period: T_acc = 200 >= 128, RC = T_P, saturated at 1023
  EXPECT_EQ(r.st.rc_sum, 20u + 1023u);
  r.response(0, 500, 200, 1600);  // a counter above 0 ignores new RCs
  EXPECT_EQ(r.st.rc_set, 2u);
  cfg.set("rise.request_pending=false");
  sm::Rise off(0, cfg);
  off.begin_launch(1, 1, 0);
  off.cta_added(0, 4);
  off.response(0, 500, 200, 10);
  EXPECT_EQ(off.full_copy(0), W::none);
}

// IS-FRISE: r of the SMs run q + 1 blocks; the others fix their q-th block.
TEST(RiseIdleSm, RemainderSmsRunOneBlockMore) {
  config::Config cfg;
  cfg.set("rise.request_pending=false");
  unsigned fixed = 0;
  for (unsigned sm = 0; sm < 28; ++sm) {
    sm::Rise r(sm, cfg);
    r.begin_launch(2 * 28 + 5, 28, 7);  // q = 2, r = 5
    r.cta_added(0, 2);
    EXPECT_NE(r.full_copy(0), sm::Rise::Why::idle_sm) << "not the first block";
    r.cta_added(1, 2);
    if (r.full_copy(1) == sm::Rise::Why::idle_sm) {
      ++fixed;
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(r.full_copy(1), sm::Rise::Why::idle_sm) << "no decrement";
      EXPECT_TRUE(r.full_mode(1));
    }
  }
  EXPECT_EQ(fixed, 28u - 5u);
  sm::Rise even(3, cfg);
  even.begin_launch(56, 28, 7);  // r = 0: no SM idles
  even.cta_added(0, 2);
  even.cta_added(1, 2);
  EXPECT_EQ(even.full_copy(1), sm::Rise::Why::none);
}

TEST(RiseTiming, CopiesAndRecoveryCostCycles) {
  const config::json count = run("hotspot", kCount);
  const config::json all = run("hotspot", with(kCount, {"rise.duplicate_all=true"}));
  ASSERT_FALSE(count.contains("error") || all.contains("error")) << count.dump() << all.dump();
  EXPECT_GT(all["cycles"].get<uint64_t>(), count["cycles"].get<uint64_t>()) << "hotspot's SP pipes are busy";
  // 4 blocks a launch on 3 SMs: q = 1, r = 1, so two SMs run their first block twice.
  const config::json is = run("hotspot", with(kCount, {"rise.idle_sm=true", "gpu.num_sms=3"}));
  EXPECT_GT(u64(is["rise"], "is_blocks"), 0u);
  EXPECT_GT(u64(is["rise"]["copies"], "idle_sm"), 0u);
  const config::json rp = run("bfs", with(kCount, {"rise.request_pending=true"}));
  EXPECT_GT(u64(rp["rise"], "rc_set"), 0u);
  EXPECT_GT(u64(rp["rise"]["copies"], "pending"), 0u);
  const config::json part = run("bfs", with(kCount, {"rise.partial=true"}));
  EXPECT_GT(u64(part["rise"], "pairs_used"), 0u) << "diverged warps pair with warps at the same PC";
  EXPECT_GE(u64(part["rise"], "pair_searches"), u64(part["rise"], "pair_same_pc_any"));
  EXPECT_GE(u64(part["rise"], "pair_same_pc_any"), u64(part["rise"], "pair_same_pc"));
  EXPECT_GE(u64(part["rise"], "pair_same_pc"), u64(part["rise"], "pairs_set"));
  EXPECT_GE(u64(part["rise"], "pairs_set"), u64(part["rise"], "pairs_used"));
  EXPECT_EQ(part["cycles"], run("bfs", kCount)["cycles"]) << "Partial-RISE takes no issue slot";
  const config::json sm = run("bfs", with(kCount, {"rise.partial=true", "rise.pair_scope=sm"}));
  EXPECT_GT(u64(sm["rise"], "pair_same_pc_any"), u64(part["rise"], "pair_same_pc_any"))
      << "the whole SM holds more warps at the diverged warp's PC than its scheduler";
  const config::json nw = run("nw", with(kCount, {"rise.partial=true"}));
  EXPECT_GT(u64(nw["rise"]["copies"], "intra"), 0u) << "nw's 16-thread warps copy into their idle lanes";
  const config::json nw0 = run("nw", kCount);
  EXPECT_LT(nw["rise"]["sp_avf"].get<double>(), nw0["rise"]["sp_avf"].get<double>());
  // nw's warps have 16 threads: every SP unit-cycle has idle lanes; matmul's are full.
  EXPECT_EQ(u64(nw0["rise"], "partly_idle_unit_cycles"), u64(nw0["rise"], "busy_unit_cycles"));
  const config::json mm = run("matmul", kCount);
  EXPECT_LT(u64(mm["rise"], "partly_idle_unit_cycles"), u64(mm["rise"], "busy_unit_cycles") / 4);
}

// Strikes on SP lanes: a plain run's output is corrupted (wrong or stopped);
// with every instruction run twice each struck result is outvoted.
TEST(RiseStrikes, CopiesCatchWhatCorruptsAPlainRun) {
  const std::vector<std::string> strikes = {"sp.upset_rate=3000", "sp.upset_seed=2"};
  const config::json plain = run("hotspot", strikes);
  EXPECT_TRUE(plain.contains("error") || !plain["pass"].get<bool>()) << plain.dump();
  const config::json all = run("hotspot", with(strikes, {"rise.enable=true", "rise.duplicate_all=true"}));
  ASSERT_FALSE(all.contains("error")) << all.dump();
  EXPECT_TRUE(all["pass"].get<bool>()) << all["message"];
  EXPECT_GT(u64(all["sp_upsets"], "original"), 0u);
  EXPECT_EQ(u64(all["sp_upsets"], "original_unprotected"), 0u);
  EXPECT_GT(u64(all["rise"], "mismatches"), 0u);
  EXPECT_EQ(u64(all["rise"], "recovery_cycles"), 20 * u64(all["rise"], "mismatches")) << "rise.recovery_cycles each";
  const config::json& up = all["sp_upsets"];
  EXPECT_EQ(u64(up, "idle_unit") + u64(up, "idle_lane") + u64(up, "original") + u64(up, "copy"), u64(up, "strikes"))
      << "each strike lands somewhere";
  EXPECT_GT(u64(up, "copy"), 0u);
  EXPECT_GT(u64(up, "idle_unit"), 0u);
  EXPECT_EQ(u64(all["rise"], "recovered_lanes"), u64(all["sp_upsets"], "original") - u64(all["sp_upsets"], "no_result"))
      << "each struck original lane is voted back (no two strikes on one result here)";
  // Recovery re-fetches: a longer penalty, more cycles.
  const config::json slow = run("hotspot", with(strikes, {"rise.enable=true", "rise.duplicate_all=true",
                                                          "rise.recovery_cycles=2000"}));
  EXPECT_GT(slow["cycles"].get<uint64_t>(), all["cycles"].get<uint64_t>());
}

TEST(RiseErrors, NotWithUniformVectors) {
  for (const char* k : {"rise.enable=true", "sp.upset_rate=1"}) {
    const config::json e = run("vecops", {k, "uniform.enable=true"});
    ASSERT_TRUE(e.contains("error")) << e.dump();
    EXPECT_NE(e["error"].get<std::string>().find("cannot be combined with uniform.enable"), std::string::npos) << e;
  }
}

}  // namespace
