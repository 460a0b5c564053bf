// LoSCache on one L2 slice behind a scripted initiator (mem/loscache.h):
// gating after the predicted last access, the under-prediction refetch with
// its mispredict flag, write-back of a dirty line before gating, bypass of
// pred == 1, counting only in the prediction phase, count queries, the
// L2 energy with and without gating, where the powered line-time goes, and
// the best fixed per-PC prediction's exact count.
#include "mem_test_rig.h"

namespace relgpu::mem::test {
namespace {

struct Rig : PartitionRig {
  explicit Rig(bool los = true) : PartitionRig({los ? "loscache.enable=true" : "loscache.enable=false"}) {}
  config::json st() const { return part->stats(); }
  config::json los() const { return part->stats()["loscache"]; }
};

std::vector<uint8_t> data(const Req& r) { return {r.data, r.data + kLineBytes}; }

Req& predicted(Req& r, uint8_t pred, int16_t entry = 0) {
  r.ext->los_pred = r.ext->los_naive = pred;
  r.ext->los_entry = entry;
  return r;
}

L2Cache::State state(PartitionRig& r, uint64_t a) {
  int i = r.part->cache().lookup(a);
  return i < 0 ? L2Cache::State::invalid : r.part->cache().line(i).st;
}

TEST(MemLoscache, GatesAfterPredictedLastAccessThenRefetchesOnUnderPrediction) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 3);
  EXPECT_EQ(r.part->cache().powered_lines(), 0u) << "every line starts gated";
  Req& r1 = predicted(r.ini.read(a), 2, 5);
  Req& r2 = predicted(r.ini.read(a, sc_time(500, SC_NS)), 2, 5);  // 2nd access = predicted last
  sc_core::sc_start(sc_time(800, SC_NS));
  ASSERT_EQ(r.ini.finished, 2u);
  EXPECT_EQ(state(r, a), L2Cache::State::gated) << "gated after its 2nd access, tag kept";
  EXPECT_FALSE(r2.ext->los_mispredict);
  EXPECT_EQ(r.los()["gatings"], 1);
  // A 3rd access: under-prediction. Refetched from DRAM, flagged, data intact.
  Req& r3 = predicted(r.ini.read(a), 2, 5);
  sc_core::sc_start(sc_time(800, SC_NS));
  ASSERT_EQ(r.ini.finished, 3u);
  EXPECT_TRUE(r3.ext->los_mispredict);
  EXPECT_EQ(data(r1), gmem_line(r.g, a));
  EXPECT_EQ(data(r3), gmem_line(r.g, a));
  EXPECT_EQ(r.st()["dram"]["reads"], 2) << "the gated line's data was refetched";
  EXPECT_EQ(state(r, a), L2Cache::State::valid) << "the waking access does not gate again";
  config::json l = r.los();
  EXPECT_EQ(l["gated_hits"], 1);
  EXPECT_EQ(l["mispredicts"], 1);
  EXPECT_EQ(l["wakeups"], 2);
  // One generation of 3 accesses, predicted 2: under-predicted.
  EXPECT_EQ(l["generations_predicted"], 1);
  EXPECT_EQ(l["under_predicted"], 1);
  EXPECT_EQ(l["exact_adaptive"], 0);
}

// loscache.woken_line: a line gated after 2 predicted accesses, woken by a
// 3rd (under-prediction), then read a 4th time. Returns its state after the
// 3rd and after the 4th access, and the gatings.
struct Woken { L2Cache::State after3, after4; int gatings; };
// An empty mode leaves the key at its default.
Woken woken_line(const std::string& mode) {
  PartitionRig r(mode.empty() ? std::vector<std::string>{"loscache.enable=true"}
                              : std::vector<std::string>{"loscache.enable=true", "loscache.woken_line=" + mode});
  uint64_t a = pattern_alloc(r.g, 4096, 3);
  predicted(r.ini.read(a), 2, 5);
  predicted(r.ini.read(a, sc_time(500, SC_NS)), 2, 5);
  sc_core::sc_start(sc_time(800, SC_NS));
  EXPECT_EQ(state(r, a), L2Cache::State::gated);
  Req& r3 = predicted(r.ini.read(a, sc_time(800, SC_NS)), 2, 5);
  sc_core::sc_start(sc_time(800, SC_NS));
  EXPECT_TRUE(r3.ext->los_mispredict);
  EXPECT_EQ(data(r3), gmem_line(r.g, a)) << "served from the refetch";
  Woken w{state(r, a), L2Cache::State::invalid, 0};
  Req& r4 = predicted(r.ini.read(a, sc_time(1600, SC_NS)), 2, 5);
  sc_core::sc_start(sc_time(800, SC_NS));
  EXPECT_EQ(r.ini.finished, 4u);
  EXPECT_EQ(data(r4), gmem_line(r.g, a));
  w.after4 = state(r, a);
  w.gatings = r.part->stats()["loscache"]["gatings"].get<int>();
  return w;
}

TEST(MemLoscache, WokenLineRegateGatesItAfterTheRefetch) {
  Woken w = woken_line("regate");
  EXPECT_EQ(w.after3, L2Cache::State::gated) << "the literal rule: gated again after the waking access";
  EXPECT_EQ(w.gatings, 3) << "and after the 4th, woken again";
}

TEST(MemLoscache, WokenLineNextGatesItAtTheNextAccess) {
  Woken w = woken_line("next");
  EXPECT_EQ(w.after3, L2Cache::State::valid);
  EXPECT_EQ(w.after4, L2Cache::State::gated);
  EXPECT_EQ(w.gatings, 2);
}

TEST(MemLoscache, WokenLineStaysOnByDefault) {
  Woken w = woken_line("");  // loscache.woken_line=stay
  EXPECT_EQ(w.after3, L2Cache::State::valid);
  EXPECT_EQ(w.after4, L2Cache::State::valid) << "woken: never gated again in its generation";
  EXPECT_EQ(w.gatings, 1);
}

TEST(MemLoscache, DirtyLineIsWrittenBackBeforeGating) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 7);
  uint32_t v = 0x12345678;
  predicted(r.ini.write(a, 12, &v, 4), 2);
  Req& rd = predicted(r.ini.read(a, sc_time(500, SC_NS)), 2);  // last access: gate, write back first
  sc_core::sc_start(sc_time(1500, SC_NS));
  ASSERT_EQ(r.ini.finished, 2u);
  EXPECT_EQ(state(r, a), L2Cache::State::gated);
  EXPECT_EQ(r.st()["dram"]["writes"], 1);
  EXPECT_EQ(r.los()["gate_writebacks"], 1);
  uint32_t got;
  std::vector<uint8_t> m = gmem_line(r.g, a);
  std::memcpy(&got, m.data() + 12, 4);
  EXPECT_EQ(got, v) << "DRAM holds the written bytes";
  EXPECT_EQ(data(rd), m);
  Req& again = r.ini.read(a);  // no prediction: refetch, unflagged
  sc_core::sc_start(sc_time(800, SC_NS));
  EXPECT_EQ(data(again), m);
  EXPECT_FALSE(again.ext->los_mispredict);
}

TEST(MemLoscache, PredictionOfOneBypasses) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 9);
  Req& rd = predicted(r.ini.read(a), 1);
  uint8_t w[3] = {0xaa, 0xbb, 0xcc};
  predicted(r.ini.write(a + 256, 40, w, 3), 1);
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(r.ini.finished, 2u);
  EXPECT_EQ(data(rd), gmem_line(r.g, a));
  EXPECT_EQ(r.part->cache().lookup(a), -1) << "nothing allocated";
  EXPECT_EQ(r.part->cache().lookup(a + 256), -1);
  EXPECT_EQ(gmem_line(r.g, a + 256)[41], 0xbb) << "the write went to DRAM";
  EXPECT_EQ(r.st()["dram"]["reads"], 1);
  EXPECT_EQ(r.st()["dram"]["writes"], 1);
  EXPECT_EQ(r.los()["bypass_reads"], 1);
  EXPECT_EQ(r.los()["bypass_writes"], 1);
  EXPECT_EQ(r.part->cache().powered_lines(), 0u);
}

TEST(MemLoscache, PredictionPhaseOnlyCountsAndQueriesReadTheCount) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 1);
  for (int i = 0; i < 3; ++i) {
    Req& q = predicted(r.ini.read(a, sc_time(300 * i, SC_NS)), 1);
    q.ext->los_predict = true;
  }
  Req& q = r.ini.read(a, sc_time(1000, SC_NS));
  q.ext->kind = Kind::query;
  Req& none = r.ini.read(a + 1024, sc_time(1000, SC_NS));
  none.ext->kind = Kind::query;
  sc_core::sc_start(sc_time(1500, SC_NS));
  ASSERT_EQ(r.ini.finished, 5u);
  EXPECT_EQ(state(r, a), L2Cache::State::valid) << "no gating, no bypass in the prediction phase";
  EXPECT_EQ(q.ext->los_count, 3);
  EXPECT_EQ(none.ext->los_count, 0) << "absent line: count 0";
  EXPECT_EQ(r.los()["queries"], 2);
  EXPECT_EQ(r.los()["counted_accesses"], 3);
  EXPECT_EQ(r.st()["dram"]["reads"], 1);
}

uint64_t part(const config::json& los, const char* k) { return los["powered"][k].get<uint64_t>(); }

uint64_t parts_sum(const config::json& los) {
  uint64_t s = 0;
  for (const auto& [k, v] : los["powered"].items()) s += v.get<uint64_t>();
  return s;
}

TEST(MemLoscache, PoweredTimeIsChargedToWhyEachLineStayedPowered) {
  Rig r;
  uint64_t base = pattern_alloc(r.g, 8192, 4);
  uint64_t exact = base, over = base + 128, none = base + 256, under = base + 384, phase = base + 512;
  uint64_t written = base + 640;  // written only, no prediction
  uint32_t v = 1;
  r.ini.write(written, 0, &v, 4);
  predicted(r.ini.read(exact), 2);
  predicted(r.ini.read(over), 3);
  r.ini.read(none);
  predicted(r.ini.read(under), 2);
  r.ini.read(phase).ext->los_predict = true;  // counted in a prediction phase, never predicted
  predicted(r.ini.read(exact, sc_time(500, SC_NS)), 2);  // predicted last: gated at once
  predicted(r.ini.read(under, sc_time(500, SC_NS)), 2);  // gated ...
  predicted(r.ini.read(under, sc_time(900, SC_NS)), 2);  // ... woken by a 3rd access
  sc_core::sc_start(sc_time(3000, SC_NS));
  ASSERT_EQ(r.ini.finished, 9u);
  config::json l = r.los();
  EXPECT_EQ(parts_sum(l), l["powered_line_cycles"].get<uint64_t>()) << l["powered"].dump();
  EXPECT_GT(part(l, "live"), 0u) << "exact and under: first to last access";
  EXPECT_EQ(part(l, "gating"), 0u) << "both gatings came with the predicted access, after the fill";
  EXPECT_EQ(part(l, "exact"), 0u) << "the exactly predicted line is off after its last access";
  EXPECT_GT(part(l, "over"), 0u);
  EXPECT_GT(part(l, "uncovered"), 0u);
  EXPECT_GT(part(l, "uncovered_write"), 0u);
  EXPECT_GT(part(l, "phase"), 0u);
  EXPECT_GT(part(l, "under"), 0u);
  EXPECT_EQ(part(l, "idle"), 0u);
  // The over- and unpredicted lines stay on from their miss (a cycle apart)
  // to the end, longer than the woken line's tail (from 900 ns).
  EXPECT_NEAR(double(part(l, "over")), double(part(l, "uncovered")), 0.01 * double(part(l, "over")));
  EXPECT_GT(part(l, "over"), part(l, "under"));

  // A new kernel: the five lines still powered are idle until accessed.
  r.part->begin_kernel();
  r.part->reset_stats();
  sc_core::sc_start(sc_time(1000, SC_NS));
  l = r.los();
  EXPECT_EQ(part(l, "idle"), l["powered_line_cycles"].get<uint64_t>());
  EXPECT_GT(part(l, "idle"), 0u);
  r.ini.read(none, sc_core::sc_time_stamp());
  sc_core::sc_start(sc_time(1000, SC_NS));
  l = r.los();
  EXPECT_EQ(parts_sum(l), l["powered_line_cycles"].get<uint64_t>()) << l["powered"].dump();
  EXPECT_GT(part(l, "uncovered"), 0u) << "the accessed line, after its access";
  EXPECT_EQ(part(l, "live"), 0u) << "one access: no live time";
}

// A line predicted to be used once and read twice. With the bypass (the
// default) the second read misses again: no tag reports the under-prediction.
// Without it (loscache.bypass=false, an ablation) the line is allocated and
// gated after its fill, and the second read hits the gated tag: mispredict.
void used_twice(bool bypass) {
  PartitionRig r({"loscache.enable=true", std::string("loscache.bypass=") + (bypass ? "true" : "false")});
  uint64_t a = pattern_alloc(r.g, 4096, 10);
  Req& r1 = predicted(r.ini.read(a), 1, 3);
  sc_core::sc_start(sc_time(800, SC_NS));
  EXPECT_EQ(state(r, a), bypass ? L2Cache::State::invalid : L2Cache::State::gated);
  Req& r2 = predicted(r.ini.read(a), 1, 3);
  sc_core::sc_start(sc_time(800, SC_NS));
  ASSERT_EQ(r.ini.finished, 2u);
  EXPECT_EQ(data(r1), gmem_line(r.g, a));
  EXPECT_EQ(data(r2), gmem_line(r.g, a));
  EXPECT_EQ(r2.ext->los_mispredict, !bypass);
  config::json l = r.part->stats()["loscache"];
  EXPECT_EQ(l["bypass_reads"], bypass ? 2 : 0);
  EXPECT_EQ(l["under_predicted"], 1) << "one generation, two accesses, predicted one";
  EXPECT_EQ(l["under_predicted_bypassed"], bypass ? 1 : 0);
  EXPECT_EQ(l["mispredicts"], bypass ? 0 : 1);
}

TEST(MemLoscache, BypassedLineLeavesNoTagToReportUnderPrediction) { used_twice(true); }

TEST(MemLoscache, WithoutBypassAGatedTagReportsUnderPrediction) { used_twice(false); }

// exact_pc_mode: per (SM, PC) that predicted them, the generations with the
// count most of that predictor's generations had. SM 0's PC 7 predicts 3 for
// lines of 2, 2 and 3 accesses; SM 1's PC 7 predicts 6 for two lines of 4.
TEST(MemLoscache, PcModeCountsTheBestFixedPredictionPerSmAndPc) {
  Rig r;
  uint64_t base = pattern_alloc(r.g, 8192, 5);
  struct Line { uint64_t a; unsigned sm, pred, accesses; };
  const Line lines[] = {{base, 0, 3, 2}, {base + 128, 0, 3, 2}, {base + 256, 0, 3, 3},
                        {base + 384, 1, 6, 4}, {base + 512, 1, 6, 4}};
  unsigned n = 0;
  for (const Line& l : lines)
    for (unsigned k = 0; k < l.accesses; ++k, ++n) {
      Req& q = predicted(r.ini.read(l.a, sc_time(300.0 * k, SC_NS)), uint8_t(l.pred));
      q.ext->sm = l.sm;
      q.ext->pc = 7;
    }
  sc_core::sc_start(sc_time(3000, SC_NS));
  ASSERT_EQ(r.ini.finished, n);
  config::json l = r.los();
  EXPECT_EQ(l["generations_predicted"], 5);
  EXPECT_EQ(l["exact_naive"], 1) << "only the 3-access line matches its fixed prediction";
  EXPECT_EQ(l["exact_pc_mode"], 4) << "2 of SM 0's (count 2) and 2 of SM 1's (count 4); by PC alone 2";
}

// loscache.launch_gating: at a launch, clean lines power off (their data is
// in DRAM) and dirty ones stay; without it both stay powered.
void launch(bool gating) {
  PartitionRig r({"loscache.enable=true", std::string("loscache.launch_gating=") + (gating ? "true" : "false")});
  uint64_t a = pattern_alloc(r.g, 4096, 6);
  uint32_t v = 7;
  r.ini.read(a);
  r.ini.write(a + 128, 0, &v, 4);
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_EQ(r.ini.finished, 2u);
  EXPECT_EQ(r.part->cache().powered_lines(), 2u);
  r.part->begin_kernel();
  EXPECT_EQ(state(r, a), gating ? L2Cache::State::invalid : L2Cache::State::valid);
  EXPECT_EQ(state(r, a + 128), L2Cache::State::valid) << "dirty: stays";
  EXPECT_EQ(r.part->cache().powered_lines(), gating ? 1u : 2u);
}

TEST(MemLoscache, LaunchGatingPowersOffCleanLinesOnly) { launch(true); }

TEST(MemLoscache, WithoutLaunchGatingLinesStayPowered) { launch(false); }

TEST(MemLoscache, GatingLowersLeakageAndEveryLineLeaksWithoutIt) {
  Rig r;
  uint64_t a = pattern_alloc(r.g, 4096, 2);
  predicted(r.ini.read(a), 2);
  predicted(r.ini.read(a, sc_time(400, SC_NS)), 2);
  sc_core::sc_start(sc_time(2000, SC_NS));
  config::json e = r.st()["l2_energy"];
  EXPECT_GT(e["all_powered_leakage_nj"].get<double>(), 0);
  EXPECT_LT(e["leakage_nj"].get<double>(), 0.2 * e["all_powered_leakage_nj"].get<double>())
      << "one line powered for a few hundred ns of 2 us, the rest gated";
  EXPECT_EQ(e["events"]["wake"]["count"], 1);
  EXPECT_EQ(e["events"]["tag"]["count"], 2);
  double on = r.los()["powered_line_cycles"].get<double>() / r.los()["line_cycles"].get<double>();
  EXPECT_GT(on, 0);
  EXPECT_LT(on, 0.01);
}

TEST(MemLoscache, WithoutLoscacheEveryLineLeaksAndNothingIsGated) {
  Rig r(false);
  uint64_t a = pattern_alloc(r.g, 4096, 2);
  predicted(r.ini.read(a), 1);  // ignored: LoSCache is off
  predicted(r.ini.read(a, sc_time(400, SC_NS)), 1);
  sc_core::sc_start(sc_time(2000, SC_NS));
  config::json s = r.st();
  EXPECT_FALSE(s.contains("loscache"));
  EXPECT_EQ(s["l2"]["hits"], 1);
  EXPECT_EQ(state(r, a), L2Cache::State::valid);
  EXPECT_DOUBLE_EQ(s["l2_energy"]["leakage_nj"].get<double>(), s["l2_energy"]["all_powered_leakage_nj"].get<double>());
  EXPECT_EQ(s["l2_energy"]["events"]["wake"]["count"], 0);
  EXPECT_EQ(s["l2_energy"]["events"]["data_read"]["count"], 2);
  EXPECT_EQ(s["l2_energy"]["events"]["data_write"]["count"], 1) << "the fill";
}

}  // namespace
}  // namespace relgpu::mem::test
