// Errors in timing mode come out of Device::launch as the same KernelError
// (or InputError) the functional mode gives: never a SystemC report, never a
// crash. Each case runs in its own process (the model stops mid-kernel).
#include "gpu_test_util.h"

#include "common/error.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry oob(.param .u64 p, .param .u32 n) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  add.u32 %r2, %r2, %r1;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.u32 %r3, [%rd3];
  st.global.u32 [%rd3], %r3;
  ret;
}
.visible .entry spin() {
LOOP:
  bra.uni LOOP;
}
.visible .entry deadlock() {
  .reg .pred %p<2>; .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra A;
  bar.sync 1;
  ret;
A:
  bar.sync 0;
  ret;
}
)";

std::string kernel_error(runtime::Device& dev, const char* kernel, runtime::Dim3 grid, runtime::Dim3 block,
                         std::vector<uint64_t> args) {
  const ptx::Module& m = dev.load_module(kPtx, "errors.ptx");
  std::vector<void*> a;
  std::vector<uint32_t> u32(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    u32[i] = uint32_t(args[i]);
    // parameter types: oob takes (u64, u32)
    a.push_back(i == 0 ? static_cast<void*>(&args[i]) : static_cast<void*>(&u32[i]));
  }
  try {
    dev.launch(dev.kernel(m, kernel), grid, block, 0, a.data());
  } catch (const KernelError& e) {
    return e.what();
  }
  return "";
}

TEST(TimingErrors, OutOfBoundsIsAKernelError) {
  TimingDevice t(make_config("gtx480"));
  std::vector<uint32_t> host(64, 1);
  uint64_t p = t.dev.malloc(host.size() * 4);
  t.dev.memcpy_to_device(p, host.data(), host.size() * 4);
  EXPECT_EQ(kernel_error(t.dev, "oob", {1, 1, 1}, {64, 1, 1}, {p, 0}), "");  // in bounds first
  std::string e = kernel_error(t.dev, "oob", {2, 1, 1}, {64, 1, 1}, {p, 1});
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e.find("kernel 'oob'"), std::string::npos) << e;
  EXPECT_NE(e.find("out-of-bounds global"), std::string::npos) << e;
  EXPECT_NE(e.find(func::hex(p + 256)), std::string::npos) << e;
  // The model stopped mid-kernel: later launches say so instead of hanging.
  std::string again = kernel_error(t.dev, "oob", {1, 1, 1}, {64, 1, 1}, {p, 0});
  EXPECT_NE(again.find("stopped mid-kernel by an earlier error"), std::string::npos) << again;
}

TEST(TimingErrors, RunawayHitsTheCycleLimit) {
  TimingDevice t(make_config("gtx480", {"gpu.max_cycles=20000", "icache.enable=false", "ccache.enable=false"}));
  std::string e = kernel_error(t.dev, "spin", {1, 1, 1}, {32, 1, 1}, {});
  EXPECT_NE(e.find("kernel 'spin' exceeded gpu.max_cycles=20000 cycles"), std::string::npos) << e;
  EXPECT_NE(e.find("1 of 1 CTAs dispatched, 0 finished; busy SMs: 0"), std::string::npos) << e;
  // Simulated time stopped at the limit: 20000 cycles of 700 MHz.
  EXPECT_EQ(sc_core::sc_time_stamp().value(), gpu::clock_from_mhz(700).edge_ps(20000));
}

TEST(TimingErrors, RunawayHitsTheInstructionLimit) {
  TimingDevice t(make_config("gtx480", {"func.max_warp_insn=5000"}));
  std::string e = kernel_error(t.dev, "spin", {1, 1, 1}, {32, 1, 1}, {});
  EXPECT_NE(e.find("kernel 'spin' exceeded func.max_warp_insn=5000 warp instructions"), std::string::npos) << e;
}

TEST(TimingErrors, BarrierDeadlockIsAKernelError) {
  TimingDevice t(make_config("gtx480", {"gpu.max_cycles=200000"}));
  std::string e = kernel_error(t.dev, "deadlock", {1, 1, 1}, {64, 1, 1}, {});
  EXPECT_NE(e.find("kernel 'deadlock'"), std::string::npos) << e;
  EXPECT_TRUE(e.find("deadlock") != std::string::npos || e.find("gpu.max_cycles") != std::string::npos) << e;
}

TEST(TimingErrors, ClockListMustHaveOneClockPerSm) {
  config::Config cfg = make_config("gtx480", {"gpu.sm_clock_mhz_list=700,650"});
  try {
    gpu::sm_clocks(cfg);
    FAIL() << "no error";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("gpu.sm_clock_mhz_list"), std::string::npos) << m;
    EXPECT_NE(m.find("gtx480.json"), std::string::npos) << m;
    EXPECT_NE(m.find("2 clocks given, but gpu.num_sms is 15"), std::string::npos) << m;
  }
  config::Config bad = make_config("", {"gpu.sm_clock_mhz_list=700,fast"});
  bad.set("gpu.num_sms=2");
  EXPECT_THROW(gpu::sm_clocks(bad), InputError);
}

TEST(TimingErrors, ADifferentConfigInTheSameProcessIsRefused) {
  TimingDevice a(make_config("gtx480"));
  a.engine->elaborate();
  TimingDevice b(make_config("fermi_16bank"));
  EXPECT_THROW(b.engine->elaborate(), InputError);
}

}  // namespace

// An RF supply whose alpha-power delay misses the SM clock (power/vf.h) is
// an input error naming the keys, not a silent run.
TEST(TimingErrors, RfSupplyTooLowForTheClock) {
  config::Config cfg = make_config("gtx480", {"rf.vdd=0.5"});
  try {
    TimingDevice t(cfg);  // the GPU is built at the first launch
    run_workload(t.dev, "vecops", 1);
    FAIL() << "no error";
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("below the SM clock of 700"), std::string::npos) << m;
    EXPECT_NE(m.find("vf.fo4_ps"), std::string::npos) << m;
  }
}
