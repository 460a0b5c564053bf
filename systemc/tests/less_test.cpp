// LESS, the hybrid STT-RAM/SRAM register file (sm/less_unit.h), in the whole
// timing model on its chapter's GPU (configs/less.json): every workload
// passes its output check with LA+NWA-LESS and with an all-STT-RAM RF; the
// path with every register SRAM and no result-bus limit is the baseline
// cycle for cycle; STT-RAM writes cost time (all STT-RAM is slower than
// all SRAM, a shorter STT-RAM write is faster); narrow writes share a bus;
// particle strikes flip SRAM cells and not STT-RAM ones, so an output that a
// strike corrupts under an all-SRAM RF survives under an all-STT-RAM one.
#include "gpu/stats.h"
#include "gpu_test_util.h"
#include "sm/less_unit.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

// One run in its own process: pass, cycles and the "less" and "upsets"
// sections summed over launches (ratios derived), as JSON.
config::json run(const std::string& name, const std::vector<std::string>& sets) {
  const std::string out = in_child([&] {
    config::Config cfg = make_config("less");
    for (auto& s : sets) cfg.set(s);
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, name, 1);
    config::json l = config::json::object(), u = config::json::object();
    double seconds = 0;
    uint64_t rf_writes = 0;  // the SM's own count of RF bank writes
    for (auto& d : t.dev.launches()) {
      for (uint64_t n : d.detail["sm_total"]["rf"]["writes"]) rf_writes += n;
      if (d.detail.contains("less")) gpu::add_json(l, d.detail["less"]);
      if (d.detail.contains("upsets")) gpu::add_json(u, d.detail["upsets"]);
      seconds += d.detail.value("sim_time_ps", 0.0) * 1e-12;
    }
    if (!l.empty()) sm::derive_less(l, seconds);
    config::json j = {{"pass", r.result.pass}, {"message", r.result.message}, {"cycles", r.cycles},
                      {"less", l}, {"upsets", u}, {"rf_writes", rf_writes}};
    return j.dump();
  });
  if (out.rfind("error", 0) == 0) return {{"error", out}};
  return config::json::parse(out);
}

uint64_t u64(const config::json& j, const char* k) { return j.value(k, uint64_t(0)); }

class LessWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(LessWorkload, HybridRfKeepsTheOutput) {
  const std::string& name = GetParam();
  const config::json less = run(name, {"less.enable=true"});
  ASSERT_FALSE(less.contains("error")) << less.dump();
  EXPECT_TRUE(less["pass"].get<bool>()) << name << ": " << less["message"];
  const config::json& l = less["less"];
  EXPECT_GT(u64(l, "stt_writes") + u64(l, "sram_writes"), 0u);
  EXPECT_GT(u64(l, "sram_writes"), 0u) << "short-lived values go to SRAM";
  EXPECT_GT(l["coverage"].get<double>(), 0.0) << "long-lived values sit in STT-RAM";
  EXPECT_LE(l["coverage"].get<double>(), 1.0);
  EXPECT_EQ(u64(l, "sram_writes") + u64(l, "stt_writes"), u64(less, "rf_writes"))
      << "every RF write is one of the segments', counted once per launch";
  EXPECT_EQ(run(name, {"less.enable=true"}).dump(), less.dump()) << "same seed, same stats";

  // Every register SRAM and no result-bus limit: the baseline, cycle for cycle.
  const config::json base = run(name, {});
  const config::json neutral = run(name, {"less.enable=true", "less.placement=none", "less.result_buses=0"});
  ASSERT_FALSE(base.contains("error") || neutral.contains("error")) << base.dump() << neutral.dump();
  EXPECT_EQ(neutral["cycles"], base["cycles"]) << "the LESS path alone moves no cycle";
  EXPECT_EQ(neutral["less"]["coverage"].get<double>(), 0.0);

  const config::json all = run(name, {"less.enable=true", "less.placement=all"});
  ASSERT_FALSE(all.contains("error")) << all.dump();
  EXPECT_TRUE(all["pass"].get<bool>()) << name << " all STT-RAM: " << all["message"];
  EXPECT_EQ(u64(all["less"], "sram_writes"), 0u);
  EXPECT_GT(all["cycles"].get<uint64_t>(), neutral["cycles"].get<uint64_t>()) << "4-cycle writes cost time";
}

INSTANTIATE_TEST_SUITE_P(All, LessWorkload, ::testing::ValuesIn([] {
                           std::vector<std::string> v;
                           for (auto& w : wl::all()) v.push_back(w.name);
                           return v;
                         }()),
                         [](const auto& info) { return info.param; });

// The STT-RAM write latency and the narrow-write pairing each move time.
TEST(LessTiming, WriteLatencyAndNarrowWritesBite) {
  const config::json slow = run("matmul", {"less.enable=true", "less.placement=all", "less.narrow=false"});
  const config::json fast =
      run("matmul", {"less.enable=true", "less.placement=all", "less.narrow=false", "less.stt_write_cycles=1"});
  const config::json nwa = run("matmul", {"less.enable=true", "less.placement=all"});
  for (auto* j : {&slow, &fast, &nwa}) ASSERT_FALSE(j->contains("error")) << j->dump();
  EXPECT_LT(fast["cycles"].get<uint64_t>(), slow["cycles"].get<uint64_t>());
  EXPECT_EQ(u64(slow["less"], "narrow_stt_writes"), 0u);
  EXPECT_GT(u64(nwa["less"], "narrow_stt_writes"), 0u) << "matmul's indices are narrow";
  EXPECT_GT(u64(nwa["less"], "shared_bus_writes"), 0u) << "two narrow writes share a bus";
  EXPECT_LT(nwa["cycles"].get<uint64_t>(), slow["cycles"].get<uint64_t>()) << "NWA-LESS recovers time";
  EXPECT_GT(u64(slow["less"], "bus_waits"), 0u);
  EXPECT_GT(u64(slow["less"], "port_waits"), 0u) << "an STT-RAM bank takes one write per 4 cycles";
}

// Particle strikes: SRAM cells flip, STT-RAM cells do not. At a rate where an
// all-SRAM RF's run goes wrong (a wrong output, or a corrupted address that
// stops the kernel), an all-STT-RAM RF's stays right.
TEST(LessUpsets, SttRamCellsAreImmune) {
  const std::vector<std::string> strikes = {"rf.upset_rate=20000", "rf.upset_seed=3"};
  auto with = [&](std::vector<std::string> s) {
    s.insert(s.end(), strikes.begin(), strikes.end());
    return run("matmul", s);
  };
  auto wrong = [](const config::json& j) { return j.contains("error") || !j["pass"].get<bool>(); };
  const config::json sram = with({"less.enable=true", "less.placement=none"});
  const config::json stt = with({"less.enable=true", "less.placement=all"});
  const config::json plain = with({});
  EXPECT_TRUE(wrong(sram)) << "strikes on live SRAM registers corrupt the run: " << sram.dump();
  EXPECT_TRUE(wrong(plain)) << "strikes without LESS likewise: " << plain.dump();
  ASSERT_FALSE(stt.contains("error")) << stt.dump();
  EXPECT_TRUE(stt["pass"].get<bool>()) << stt["message"];
  EXPECT_EQ(u64(stt["upsets"], "flipped"), 0u);
  EXPECT_GT(u64(stt["upsets"], "immune"), 0u);
  // At a lower rate strikes land on both kinds of cell of the hybrid RF.
  const config::json hyb = run("matmul", {"less.enable=true", "rf.upset_rate=1000"});
  ASSERT_FALSE(hyb.contains("error")) << hyb.dump();
  EXPECT_GT(u64(hyb["upsets"], "flipped"), 0u);
  EXPECT_GT(u64(hyb["upsets"], "immune"), 0u);
}

// RF energy: Table 4.1's per-access energies and leakage for each design's
// segment sizes, over the run's own access counts and time.
TEST(LessEnergy, Table41PerSegment) {
  struct Design { const char* placement; double rd[2], wr[2], leak_mw; };
  const Design designs[] = {{"none", {0.131, 0.131}, {0.123, 0.123}, 130.0},
                            {"lifetime", {0.049, 0.082}, {0.043, 0.529}, 31.2 + 3.21},
                            {"all", {0.092, 0.092}, {0.645, 0.645}, 4.283}};
  for (const Design& d : designs) {
    const config::json j = run("matmul", {"less.enable=true", std::string("less.placement=") + d.placement});
    ASSERT_FALSE(j.contains("error")) << j.dump();
    const config::json& l = j["less"];
    const double want = double(u64(l, "sram_reads")) * d.rd[0] + double(u64(l, "stt_reads")) * d.rd[1] +
                        double(u64(l, "sram_writes")) * d.wr[0] + double(u64(l, "stt_writes")) * d.wr[1];
    EXPECT_NEAR(l["dynamic_nj"].get<double>(), want, 1e-6 * want) << d.placement;
    EXPECT_NEAR(l["leakage_mw"].get<double>(), 16 * d.leak_mw, 1e-9) << d.placement << ": 16 SMs";
    EXPECT_NEAR(l["energy_nj"].get<double>(), l["dynamic_nj"].get<double>() + l["leakage_nj"].get<double>(), 1e-6);
    EXPECT_GT(l["leakage_nj"].get<double>(), 0.0);
  }
}

// Value lifetimes (Fig. 4.1): each value closed once, short or long by the
// threshold in the warp's own instructions; misplacements by design.
TEST(LessLifetimes, ThresholdSplitsTheSameValues) {
  const config::json all = run("hotspot", {"less.enable=true", "less.placement=none", "less.lifetime_threshold=0"});
  const config::json none = run("hotspot", {"less.enable=true", "less.placement=none", "less.lifetime_threshold=100000"});
  const config::json stt = run("hotspot", {"less.enable=true", "less.placement=all"});
  for (auto* j : {&all, &none, &stt}) ASSERT_FALSE(j->contains("error")) << j->dump();
  const config::json &a = all["less"], &n = none["less"], &s = stt["less"];
  EXPECT_EQ(u64(a, "short_values") + u64(a, "long_values"), u64(n, "short_values") + u64(n, "long_values"));
  EXPECT_GT(u64(a, "long_values"), u64(a, "short_values")) << "most values are read at least once later";
  EXPECT_EQ(u64(n, "long_values"), 0u);
  EXPECT_GT(u64(s, "short_values"), 0u);
  EXPECT_EQ(u64(s, "short_in_stt"), u64(s, "short_values")) << "all STT-RAM: every short value is misplaced";
  EXPECT_EQ(u64(s, "long_in_sram"), 0u);
  EXPECT_EQ(u64(n, "short_in_stt"), 0u);
  EXPECT_EQ(u64(a, "long_in_sram"), u64(a, "long_values")) << "all SRAM: every long value is";
}

// less.placement=sram_split: LA-LESS's register allocation with every
// register SRAM: nothing in STT-RAM, and the allocation alone moves banks.
TEST(LessAblation, SplitAllocationWithEveryRegisterSram) {
  const config::json split = run("hotspot", {"less.enable=true", "less.placement=sram_split"});
  const config::json none = run("hotspot", {"less.enable=true", "less.placement=none"});
  ASSERT_FALSE(split.contains("error") || none.contains("error")) << split.dump() << none.dump();
  EXPECT_TRUE(split["pass"].get<bool>()) << split["message"];
  EXPECT_EQ(u64(split["less"], "stt_writes"), 0u);
  EXPECT_EQ(split["less"]["coverage"].get<double>(), 0.0);
  EXPECT_NE(split["cycles"], none["cycles"]) << "another allocation, other bank conflicts";
}

TEST(LessErrors, NeedsItsRegisterFile) {
  const std::string gtx = in_child([] {
    config::Config cfg = make_config("gtx480", {"less.enable=true"});
    TimingDevice t(cfg);
    run_workload(t.dev, "vecops", 1);
    return std::string("ran");
  });
  EXPECT_NE(gtx.find("less.enable needs rf.entry_bits=1024"), std::string::npos) << gtx;
  const std::string bot = in_child([] {
    config::Config cfg = make_config("less", {"less.enable=true", "bot.enable=true"});
    TimingDevice t(cfg);
    run_workload(t.dev, "vecops", 1);
    return std::string("ran");
  });
  EXPECT_NE(bot.find("cannot be combined"), std::string::npos) << bot;
}

}  // namespace
