// The local droop predictor in the SM's issue path (sm/droop_unit.h):
// the block's throttle defers issue in the very cycle it says so, a low
// threshold costs cycles, an unreachable one gives the plain run's cycles
// exactly, and the mutant that ignores the outputs is caught.
#include <gtest/gtest.h>

#include "gpu_test_util.h"
#include "sm/droop_unit.h"
#include "sm_test_rig.h"

using namespace relgpu;
using namespace relgpu::sm;
using namespace relgpu::sm::test;
using namespace relgpu::gputest;

namespace {

// 8 warps of FMA and SFU work from a standing start: dual FP/SFU issue
// after idle cycles, the power steps the predictor watches for.
std::string fp_sfu_kernel() {
  std::string body;
  for (int i = 0; i < 12; ++i)
    body += "  fma.rn.f32 %f3, %f1, %f2, %f2;\n  sin.approx.f32 %f4, %f1;\n  fma.rn.f32 %f5, %f3, %f4, %f1;\n"
            "  mul.f32 %f1, %f5, 0f3F000000;\n";
  return std::string(kHead) + ".visible .entry k(.param .u64 out) {\n"
         "  .reg .f32 %f<8>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
         "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n  cvt.rn.f32.u32 %f1, %r1;\n"
         "  mov.f32 %f2, 0f3F800000;\n" + body +
         "  mul.wide.u32 %rd2, %r1, 4;\n  add.u64 %rd3, %rd1, %rd2;\n  st.global.f32 [%rd3], %f1;\n  ret;\n}\n";
}

struct Outcome {
  uint64_t cycles = 0, warp_insn = 0, throttled = 0, issued_while_throttled = 0, over_width = 0, clocked = 0;
  std::vector<float> out;
};

// Per cycle (the SM publishes its Activity at the end of each): the issue
// trace's entries of this cycle against the block's outputs of this cycle.
struct SameCycleCheck final : ActivityObserver {
  TRig* rig = nullptr;
  std::vector<Core::IssueRecord>* trace = nullptr;
  size_t seen = 0;
  unsigned width = 0;
  Outcome* o = nullptr;
  void on_cycle(const Activity& a, uint64_t skipped) override {
    if (skipped) return;
    unsigned n = 0;
    for (; seen < trace->size(); ++seen) n += (*trace)[seen].cycle == a.cycle;
    const DroopUnit::Last& l = dynamic_cast<const DroopUnit&>(*rig->sm->issue_gate()).last();
    if (l.cycle != a.cycle) return;
    ++o->clocked;
    if (!l.dispatch) return;
    ++o->throttled;
    if (n) ++o->issued_while_throttled;
    if (n > width) ++o->over_width;
  }
};

Outcome run_sm(std::initializer_list<std::string> sets, bool smoothing = true) {
  TRig r;
  if (smoothing) r.cfg.set("smoothing.local.enable=true");
  for (auto& s : sets) r.cfg.set(s);
  r.load(fp_sfu_kernel());
  const uint64_t out = r.upload(std::vector<float>(256, 0.f));
  Outcome o;
  std::vector<Core::IssueRecord> trace;
  SameCycleCheck chk;
  chk.rig = &r;
  chk.trace = &trace;
  chk.o = &o;
  chk.width = unsigned(r.cfg.get(kLocalWidth));
  if (smoothing) r.observers.push_back(&chk);
  r.before_cycle = [&](uint64_t) { r.sm->set_issue_trace(&trace); };
  o.cycles = r.run_timing("k", {1, 1, 1}, {256, 1, 1}, {out});
  o.warp_insn = r.stat("warp_insn");
  o.out = r.download<float>(out, 256);
  return o;
}

TEST(SmoothingLocal, ThrottleDefersIssueInTheSameCycle) {
  const Outcome plain = run_sm({}, false);
  const Outcome t = run_sm({"smoothing.local.thr2=40", "smoothing.local.thr3=50", "smoothing.local.thr4=60",
                            "smoothing.local.dispatch_width=0"});
  EXPECT_GT(t.clocked, 100u);
  EXPECT_GT(t.throttled, 5u) << "the low thresholds must throttle";
  EXPECT_EQ(t.issued_while_throttled, 0u) << "dispatch_width 0: no issue in a throttled cycle";
  EXPECT_GT(t.cycles, plain.cycles);
  EXPECT_EQ(t.warp_insn, plain.warp_insn) << "deferred, not dropped";
  EXPECT_EQ(t.out, plain.out);
  // "Drop by one": at most one issue in a throttled cycle, and some cycles issue one.
  const Outcome one = run_sm({"smoothing.local.thr2=40", "smoothing.local.thr3=50", "smoothing.local.thr4=60",
                              "smoothing.local.dispatch_width=1"});
  EXPECT_GT(one.throttled, 0u);
  EXPECT_EQ(one.over_width, 0u);
  EXPECT_GT(one.issued_while_throttled, 0u);
  EXPECT_EQ(one.out, plain.out);
}

// The mutant (the SM ignores the outputs) issues in throttled cycles: the
// same-cycle check above bites, and the cycles are the plain run's.
TEST(SmoothingLocal, MutantIgnoringTheThrottleIsCaught) {
  const Outcome plain = run_sm({}, false);
  const Outcome m = run_sm({"smoothing.local.thr2=40", "smoothing.local.thr3=50", "smoothing.local.thr4=60",
                            "smoothing.local.debug_ignore_throttle=true"});
  EXPECT_GT(m.throttled, 5u);
  EXPECT_GT(m.issued_while_throttled, 0u);
  EXPECT_EQ(m.cycles, plain.cycles);
}

// Unreachable thresholds (P <= 4095, so P - hist > 4095 never holds) give
// the plain run's cycles exactly: the gate changes nothing else.
TEST(SmoothingLocal, UnreachableThresholdIsThePlainRun) {
  const Outcome plain = run_sm({}, false);
  const Outcome h = run_sm({"smoothing.local.thr2=4095", "smoothing.local.thr3=4095", "smoothing.local.thr4=4095"});
  EXPECT_EQ(h.throttled, 0u);
  EXPECT_EQ(h.cycles, plain.cycles);
  EXPECT_EQ(h.out, plain.out);
}

// The whole GPU on a workload: a low threshold costs cycles, an unreachable
// one costs none, the mutant with the low threshold costs none; outputs pass.
std::string gpu_run(const std::string& wl, std::initializer_list<std::string> sets) {
  return in_child([&] {
    config::Config cfg = make_config("", sets);
    TimingDevice t(cfg);
    WorkloadRun r = run_workload(t.dev, wl, 1);
    uint64_t thr = 0, pred = 0, rf = 0;
    for (auto& l : t.dev.launches())
      if (l.detail["sm_total"].contains("droop")) {
        thr += l.detail["sm_total"]["droop"]["throttled_dispatch_cycles"].get<uint64_t>();
        pred += l.detail["sm_total"]["droop"]["predictions"].get<uint64_t>();
        rf += l.detail["sm_total"]["droop"]["throttled_rf_cycles"].get<uint64_t>();
      }
    return std::string(r.result.pass ? "pass" : "FAIL " + r.result.message) + " " + std::to_string(r.cycles) + " " +
           std::to_string(thr) + " " + std::to_string(pred) + " " + std::to_string(rf);
  });
}

struct Gpu {
  std::string pass;
  uint64_t cycles = 0, throttled = 0, predictions = 0, rf = 0;
};
Gpu parse(const std::string& s) {
  Gpu g;
  std::istringstream in(s);
  in >> g.pass >> g.cycles >> g.throttled >> g.predictions >> g.rf;
  return g;
}

TEST(SmoothingLocal, ThresholdChangesWorkloadCycles) {
  const std::string w = "matmul";
  const Gpu plain = parse(gpu_run(w, {}));
  const Gpu low = parse(gpu_run(w, {"smoothing.local.enable=true", "smoothing.local.thr2=40",
                                    "smoothing.local.thr3=50", "smoothing.local.thr4=60",
                                    "smoothing.local.dispatch_width=0"}));
  const Gpu huge = parse(gpu_run(w, {"smoothing.local.enable=true", "smoothing.local.thr2=4095",
                                     "smoothing.local.thr3=4095", "smoothing.local.thr4=4095"}));
  const Gpu mutant = parse(gpu_run(w, {"smoothing.local.enable=true", "smoothing.local.thr2=40",
                                       "smoothing.local.thr3=50", "smoothing.local.thr4=60",
                                       "smoothing.local.debug_ignore_throttle=true"}));
  for (const Gpu* g : {&plain, &low, &huge, &mutant}) EXPECT_EQ(g->pass, "pass");
  EXPECT_GT(low.throttled, 0u);
  EXPECT_GT(low.cycles, plain.cycles);
  EXPECT_EQ(huge.predictions, 0u);
  EXPECT_EQ(huge.cycles, plain.cycles);
  EXPECT_GT(mutant.predictions, 0u);
  EXPECT_EQ(mutant.cycles, plain.cycles);
  // The RF actuator alone: operand reads deferred, issue never.
  const Gpu rf = parse(gpu_run(w, {"smoothing.local.enable=true", "smoothing.local.thr2=40",
                                   "smoothing.local.thr3=50", "smoothing.local.thr4=60",
                                   "smoothing.local.throttle=rf"}));
  EXPECT_EQ(rf.pass, "pass");
  EXPECT_GT(rf.rf, 0u);
  EXPECT_EQ(rf.throttled, 0u);
  EXPECT_GT(rf.cycles, plain.cycles);
}

// 'auto' weights: the power model's per-event energies in LSB = Pmax_SM/1024.
TEST(SmoothingLocal, AutoWeightsFromThePowerModel) {
  config::Config cfg;
  const double pmax = DroopUnit::pmax_nj(cfg);
  // 3 x (3.3094 + 5.8786 + 11.0313 + 4.7288) + 31 x (0.131 + 0.123) nJ (the defaults' energies)
  EXPECT_NEAR(pmax, 3 * 24.9481 + 31 * 0.254, 1e-9);
  DroopUnit u(0, cfg);
  const std::array<uint32_t, 10> want{41, 73, 137, 59, 2, 2, 83, 83, 83, 1};
  EXPECT_EQ(u.csrs(), want);
  cfg.set("power.sfu_nj=1000");  // SFU alone is 1000/3042 of the full scale: 336 LSB, not 8 bits
  try {
    DroopUnit bad(0, cfg);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("smoothing.local.weights"), std::string::npos) << e.what();
  }
}

// Explicit weights: six integers, spaces allowed, 0 and the weight field's
// maximum (255) included, each checked against the field whatever its place.
TEST(SmoothingLocal, ExplicitWeightsAreProgrammed) {
  config::Config cfg;
  cfg.set("smoothing.local.weights=0, 7 ,255,1,2,3");
  DroopUnit u(0, cfg);
  const std::array<uint32_t, 10> want{0, 7, 255, 1, 2, 3, 83, 83, 83, 1};
  EXPECT_EQ(u.csrs(), want);
  for (const char* bad : {"smoothing.local.weights=256,1,2,3,4,5", "smoothing.local.weights=1,2,3,4,5,6,7",
                          "smoothing.local.weights=1,2,3,4,5,6x"}) {
    cfg.set(bad);
    EXPECT_THROW(DroopUnit(0, cfg), InputError) << bad;
  }
}

// Each launch's predictor stats are its own: the 15 blocks are clocked at
// most once per SM cycle of the launch (bfs: 9 launches).
TEST(SmoothingLocal, StatsArePerLaunch) {
  const std::string s = in_child([] {
    config::Config cfg = make_config("", {"smoothing.local.enable=true"});
    TimingDevice t(cfg);
    run_workload(t.dev, "bfs", 1);
    std::string out;
    for (auto& l : t.dev.launches())
      out += std::to_string(l.detail["sm_total"]["droop"]["block_cycles"].get<uint64_t>()) + " " +
             std::to_string(l.detail["gpu_sim_cycle"].get<uint64_t>()) + " ";
    return out;
  });
  std::istringstream in(s);
  uint64_t clocked = 0, cycles = 0;
  unsigned launches = 0;
  while (in >> clocked >> cycles) {
    ++launches;
    EXPECT_GT(clocked, 0u) << "launch " << launches;
    EXPECT_LE(clocked, 15 * cycles) << "launch " << launches;
  }
  EXPECT_GT(launches, 5u) << s;
}

// Each of the six inputs reaches the block with its weight: one cycle of one
// event class at a time (idle cycles between, so the history is zeros) gives
// an estimate of weight x count.
TEST(SmoothingLocal, EveryEventClassFeedsTheEstimate) {
  config::Config cfg;
  cfg.set("smoothing.local.weights=3,5,7,11,13,17");
  DroopUnit u(0, cfg);
  u.begin_launch();
  const uint32_t w[6] = {3, 5, 7, 11, 13, 17};
  uint64_t now = 10;
  for (unsigned i = 0; i < 6; ++i, now += 20) {
    IssueGate::Demand d;
    if (i < 4)
      d.issue[i] = 2;
    else if (i == 4)
      d.rf_reads = 2;
    else
      d.rf_writes = 2;
    u.cycle(now, d);
    EXPECT_EQ(u.last().cycle, now);
    EXPECT_EQ(u.last().power, 2 * w[i]) << "input " << i;
  }
}

// Cycles without events, skipped by the SM or called with none, enter the
// history as zeros, as many as there were: after two skipped cycles, T4 compares with the estimate three
// cycles back, the last clocked one (D4 = 150 - 100 = 50, under T4 = 100);
// with no event then, D4 = 150 fires.
TEST(SmoothingLocal, SkippedCyclesAreZerosInTheHistory) {
  config::Config cfg;
  for (const char* s : {"smoothing.local.weights=25,25,25,25,0,0", "smoothing.local.thr2=4095",
                        "smoothing.local.thr3=4095", "smoothing.local.thr4=100"})
    cfg.set(s);
  IssueGate::Demand p100, p150;
  for (unsigned c = 0; c < 4; ++c) p100.issue[c] = 1, p150.issue[c] = c == 0 || c == 3 ? 2 : 1;
  DroopUnit u(0, cfg);
  u.begin_launch();
  u.cycle(100, p100);
  u.cycle(103, p150);
  EXPECT_EQ(u.last().power, 150u);
  EXPECT_FALSE(u.last().dispatch);
  u.cycle(200, p150);  // the history all zeros
  EXPECT_TRUE(u.last().dispatch);
  // The same with the cycles between called without events instead of skipped.
  DroopUnit v(0, cfg);
  v.begin_launch();
  v.cycle(100, p100);
  v.cycle(101, IssueGate::Demand{});
  v.cycle(102, IssueGate::Demand{});
  v.cycle(103, p150);
  EXPECT_EQ(v.last().power, 150u);
  EXPECT_FALSE(v.last().dispatch);
}

std::string error_of(std::initializer_list<std::string> sets) {
  return in_child([&] {
    try {
      config::Config cfg = make_config("", sets);
      TimingDevice t(cfg);
      run_workload(t.dev, "vecops", 1);
      return std::string("no error");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
  });
}

TEST(SmoothingLocal, BadKeysAreNamed) {
  EXPECT_NE(error_of({"smoothing.local.enable=true", "smoothing.local.weights=1,2,3"}).find("smoothing.local.weights"),
            std::string::npos);
  EXPECT_NE(error_of({"smoothing.local.enable=true", "smoothing.local.weights=1,2,3,4,5,x"})
                .find("smoothing.local.weights"),
            std::string::npos);
  EXPECT_NE(error_of({"smoothing.local.enable=true", "smoothing.local.weights=1,2,3,4,5,600"})
                .find("weight_width"),
            std::string::npos);
  EXPECT_NE(error_of({"smoothing.local.thr2=5000"}).find("smoothing.local.thr2"), std::string::npos);
  EXPECT_NE(error_of({"smoothing.local.throttle=sometimes"}).find("smoothing.local.throttle"), std::string::npos);
  EXPECT_NE(error_of({"smoothing.local.enable=true", "grguard.enable=true"}).find("smoothing.local.enable"),
            std::string::npos);
  EXPECT_NE(error_of({"smoothing.global.enable=true", "smoothing.global.threshold=15"})
                .find("smoothing.global.threshold"),
            std::string::npos);
  EXPECT_NE(error_of({"smoothing.global.report_period=0"}).find("smoothing.global.report_period"), std::string::npos);
}

TEST(SmoothingLocal, SameSeedSameStats) {
  auto run = [] {
    return in_child([] {
      config::Config cfg = make_config("", {"smoothing.local.enable=true", "smoothing.global.enable=true"});
      TimingDevice t(cfg);
      return run_workload(t.dev, "matmul", 7).details;
    });
  };
  const std::string a = run(), b = run();
  EXPECT_NE(a.find("\"droop\""), std::string::npos);
  EXPECT_NE(a.find("\"global_smoother\""), std::string::npos);
  EXPECT_EQ(a, b);
}

}  // namespace
