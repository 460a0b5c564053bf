// Special registers in timing mode (func::MachineRegs from gpu::SmModule):
// %smid / %nsmid name the SM, %clock / %clock64 count its cycles, and
// %globaltimer is the simulated time in ns. Functional mode keeps its
// deterministic stand-ins.
#include <set>

#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

// ids: thread 0 of each CTA writes {%smid, %nsmid} at out[ctaid].
const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry ids(.param .u64 p_out) {
  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %smid;
  mov.u32 %r4, %nsmid;
  mul.wide.u32 %rd2, %r2, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r3, %r4};
DONE:
  ret;
}
)";

// chain: one thread reads %clock64 and %globaltimer, runs kChain dependent
// adds (unrolled: no loop overhead), reads them again, runs kChain more,
// reads again; writes the three pairs, then the %clock read right after the
// middle %clock64 and the chain's result.
constexpr unsigned kChain = 50;
std::string chain_ptx() {
  std::string adds;
  for (unsigned i = 0; i < kChain; ++i) adds += "  add.u32 %r3, %r3, 7;\n";
  return R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry chain(.param .u64 p_out) {
  .reg .b32 %r<5>; .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r3, 1;
  mov.u64 %rd2, %clock64;
  mov.u64 %rd3, %globaltimer;
)" + adds + R"(  mov.u64 %rd4, %clock64;
  mov.u32 %r4, %clock;
  mov.u64 %rd5, %globaltimer;
)" + adds + R"(  mov.u64 %rd6, %clock64;
  mov.u64 %rd7, %globaltimer;
  st.global.v2.u64 [%rd1], {%rd2, %rd3};
  st.global.v2.u64 [%rd1+16], {%rd4, %rd5};
  st.global.v2.u64 [%rd1+32], {%rd6, %rd7};
  st.global.v2.u32 [%rd1+48], {%r4, %r3};
  ret;
}
)";
}

struct Ids {
  std::vector<uint32_t> v;  // smid, nsmid per CTA
};

Ids run_ids(runtime::Device& dev, uint32_t ctas) {
  const ptx::Module& m = dev.load_module(kPtx, "sregs.ptx");
  uint64_t out = dev.malloc(ctas * 8);
  void* args[] = {&out};
  dev.launch(dev.kernel(m, "ids"), {ctas, 1, 1}, {64, 1, 1}, 0, args);
  Ids r;
  r.v.resize(ctas * 2);
  dev.memcpy_to_host(r.v.data(), out, ctas * 8);
  return r;
}

TEST(TimingSregs, SmidNamesTheSmThatRanTheCta) {
  TimingDevice t(make_config("gtx480"));
  const uint32_t ctas = 60;
  Ids r = run_ids(t.dev, ctas);
  std::set<uint32_t> seen;
  for (uint32_t c = 0; c < ctas; ++c) {
    EXPECT_LT(r.v[2 * c], 15u) << "CTA " << c;
    EXPECT_EQ(r.v[2 * c + 1], 15u) << "%nsmid is gpu.num_sms";
    seen.insert(r.v[2 * c]);
  }
  EXPECT_EQ(seen.size(), 15u) << "60 CTAs spread over every SM";
  // CTA i goes to SM i first (round robin over empty SMs).
  EXPECT_EQ(r.v[0], 0u);
  EXPECT_EQ(r.v[2 * 3], 3u);
}

TEST(FunctionalSregs, StandInsAreOneSm) {
  config::Config cfg;
  cfg.set("sim.mode=functional");
  runtime::Device dev(cfg);
  Ids r = run_ids(dev, 4);
  for (uint32_t c = 0; c < 4; ++c) {
    EXPECT_EQ(r.v[2 * c], 0u);
    EXPECT_EQ(r.v[2 * c + 1], 1u);
  }
}

TEST(TimingSregs, ClocksCountCyclesOfADependentChain) {
  // sm.sp_latency=20: each add of the chain waits 20 cycles for the one
  // before. A perfect instruction cache: the chain spans several code lines,
  // whose misses would add memory round trips to the count.
  TimingDevice t(make_config("gtx480", {"sm.sp_latency=20", "icache.enable=false"}));
  const ptx::Module& m = t.dev.load_module(chain_ptx(), "chain.ptx");
  uint64_t out = t.dev.malloc(64);
  void* args[] = {&out};
  t.dev.launch(t.dev.kernel(m, "chain"), {1, 1, 1}, {1, 1, 1}, 0, args);
  uint64_t v[6];
  uint32_t w[2];
  t.dev.memcpy_to_host(v, out, 48);
  t.dev.memcpy_to_host(w, out + 48, 8);
  const uint64_t c0 = v[0], g0 = v[1], c1 = v[2], g1 = v[3], c2 = v[4], g2 = v[5];
  EXPECT_EQ(w[1], 1u + 2 * kChain * 7) << "the chain ran";
  // The second half's cycles: the chain's latency. Each add waits 20 cycles
  // for its operand, plus the model's operand-collector and writeback stages
  // (2 cycles), so 22 per add here.
  uint64_t half = c2 - c1;
  EXPECT_GE(half, kChain * 20u);
  EXPECT_LE(half, kChain * 23u);
  EXPECT_NEAR(double(c1 - c0), double(half), 40.0);
  // %clock is the low half of the counter, read one instruction later.
  EXPECT_LE(uint32_t(w[0] - uint32_t(c1)), 8u);
  // %globaltimer: simulated ns, at 700 MHz 10/7 ns per cycle.
  EXPECT_GT(g1, g0);
  EXPECT_NEAR(double(g2 - g1), double(half) * 1000.0 / 700.0, 2.0);
  EXPECT_NEAR(double(g1 - g0), double(c1 - c0) * 1000.0 / 700.0, 2.0);
  // The counter is the SM's cycle since the simulation began: a second launch reads later values.
  t.dev.launch(t.dev.kernel(m, "chain"), {1, 1, 1}, {1, 1, 1}, 0, args);
  uint64_t again[2];
  t.dev.memcpy_to_host(again, out, 16);
  EXPECT_GT(again[0], c2);
  EXPECT_GT(again[1], g2);
}

}  // namespace
