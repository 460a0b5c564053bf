// runtime::Device: module loading, memory API bounds checks, symbols,
// launch checks and records, printf through the functional engine.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "common/error.h"
#include "func/memory.h"
#include "runtime/device.h"

namespace relgpu::runtime {
namespace {

const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.global .align 4 .u32 table[3] = {11, 22, 33};
.const .align 4 .f32 scale = 0f40000000;
.global .align 1 .b8 $str[8] = {116, 61, 37, 100, 32, 37, 115, 0};
.global .align 1 .b8 $word[3] = {111, 107, 0};
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.visible .entry scaleadd(.param .u64 p, .param .u32 n, .param .f32 bias) {
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<5>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  ld.param.f32 %f1, [bias];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  ld.global.f32 %f2, [%rd3];
  ld.const.f32 %f3, [scale];
  fma.rn.f32 %f4, %f2, %f3, %f1;
  rem.u32 %r3, %r2, 3;
  mul.wide.u32 %rd2, %r3, 4;
  mov.u64 %rd4, table;
  add.u64 %rd4, %rd4, %rd2;
  ld.global.u32 %r4, [%rd4];
  cvt.rn.f32.u32 %f2, %r4;
  add.f32 %f4, %f4, %f2;
  st.global.f32 [%rd3], %f4;
DONE:
  ret;
}
.visible .entry hello() {
  .local .align 8 .b8 depot[16];
  .reg .b32 %r<4>; .reg .b64 %rd<8>;
  mov.u64 %rd1, depot;
  cvta.local.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  st.local.u32 [%rd1], %r1;
  mov.u64 %rd3, $word;
  cvta.global.u64 %rd4, %rd3;
  st.local.u64 [%rd1+8], %rd4;
  mov.u64 %rd5, $str;
  cvta.global.u64 %rd6, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0], %rd6;
  .param .b64 param1;
  st.param.b64 [param1], %rd2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r2, [retval0];
  }
  ret;
}
)";

TEST(RuntimeDevice, LaunchComputesAndRecords) {
  config::Config cfg;
  Device dev(cfg);
  const ptx::Module& m = dev.load_module(kPtx, "dev.ptx");
  const ptx::Function& k = dev.kernel(m, "scaleadd");
  std::vector<float> h(50);
  for (int i = 0; i < 50; ++i) h[i] = float(i) * 0.5f;
  DevPtr p = dev.malloc(50 * 4);
  dev.memcpy_to_device(p, h.data(), 200);
  uint32_t n = 45;
  float bias = 1.0f;
  void* args[] = {&p, &n, &bias};
  dev.launch(k, {1, 1, 1}, {64, 1, 1}, 0, args);
  std::vector<float> out(50);
  dev.memcpy_to_host(out.data(), p, 200);
  const float tab[3] = {11, 22, 33};
  for (int i = 0; i < 50; ++i) EXPECT_EQ(out[i], i < 45 ? h[i] * 2 + 1 + tab[i % 3] : h[i]) << i;
  ASSERT_EQ(dev.launches().size(), 1u);
  const LaunchRecord& rec = dev.launches()[0];
  EXPECT_EQ(rec.kernel, "scaleadd");
  EXPECT_EQ(rec.block.x, 64u);
  EXPECT_GT(rec.warp_insn, 0u);
  EXPECT_EQ(rec.detail["engine"], "functional");
  // symbols
  size_t sz = 0;
  DevPtr t = dev.symbol(m, "table", &sz);
  EXPECT_EQ(sz, 12u);
  uint32_t v[3];
  dev.memcpy_to_host(v, t, 12);
  EXPECT_EQ(v[2], 33u);
  EXPECT_THROW(dev.symbol(m, "nope"), InputError);
  EXPECT_THROW(dev.kernel(m, "nope"), InputError);
}

TEST(RuntimeDevice, PrintfFromDevice) {
  config::Config cfg;
  Device dev(cfg);
  const ptx::Module& m = dev.load_module(kPtx, "dev.ptx");
  testing::internal::CaptureStdout();
  dev.launch(dev.kernel(m, "hello"), {1, 1, 1}, {3, 1, 1}, 0, nullptr);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "t=0 okt=1 okt=2 ok");
}

TEST(RuntimeDevice, MemoryApiBoundsErrors) {
  config::Config cfg;
  Device dev(cfg);
  DevPtr p = dev.malloc(64);
  EXPECT_EQ(p % 256, 0u);
  std::vector<uint8_t> buf(128);
  auto msg = [&](auto fn) {
    try {
      fn();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = msg([&] { dev.memcpy_to_device(p, buf.data(), 65); });
  EXPECT_NE(e.find("65 bytes at device pointer " + func::hex(p)), std::string::npos) << e;
  EXPECT_NE(e.find("64 bytes available"), std::string::npos) << e;
  e = msg([&] { dev.memcpy_to_host(buf.data(), p + 4096, 4); });
  EXPECT_NE(e.find("device pointer " + func::hex(p + 4096) + " is not inside any allocation"), std::string::npos) << e;
  e = msg([&] { dev.memset(p + 60, 0, 8); });
  EXPECT_NE(e.find("memset"), std::string::npos) << e;
  DevPtr q = dev.malloc(64);
  e = msg([&] { dev.memcpy_device(q, p + 8, 64); });
  EXPECT_NE(e.find("source"), std::string::npos) << e;
  dev.memcpy_device(q, p, 64);
  dev.free(p);
  EXPECT_THROW(dev.memcpy_to_host(buf.data(), p, 4), InputError);
  EXPECT_THROW(dev.free(p), InputError);
}

// Found while fuzzing (a hand-made input run through fuzz/ptx_fuzz;
// fuzz/corpus/ptx/oom-*, docs/hardening.md): a module declaring
// `.global .b8 big[3000000000]` made relgpu exec allocate and zero 3 GB of
// host memory, past the device memory it simulates.
TEST(RuntimeDevice, ModuleVariablesMustFitTheDeviceMemory) {
  config::Config cfg;
  Device dev(cfg);
  dev.set_memory_capacity(1 << 20, "test.mem_bytes");
  DevPtr p = dev.malloc(1000);
  auto module = [](const std::string& vars) {
    return ".version 9.0\n.target sm_75\n.address_size 64\n" + vars + ".visible .entry k() { ret; }\n";
  };
  try {
    dev.load_module(module(".global .align 1 .b8 big[3000000000];\n.const .align 4 .u32 c[4];\n"), "big.ptx");
    ADD_FAILURE() << "loaded";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "big.ptx: its .global and .const variables need 3000000016 bytes ('big' 3000000000), "
                           "more than the 1047576 bytes of device memory left (test.mem_bytes=1048576)");
  }
  EXPECT_EQ(dev.memory().bytes_allocated(), 1000u);  // nothing of it allocated
  dev.load_module(module(".global .align 1 .b8 fits[1047576];\n"), "fits.ptx");
  dev.free(p);
}

// Device memory is calloc'd: what a program never touches costs no host memory.
TEST(RuntimeDevice, UntouchedDeviceMemoryTakesNoHostMemory) {
  config::Config cfg;
  Device dev(cfg);
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  const size_t n = size_t(512) << 20;
  DevPtr p = dev.malloc(n);
  uint32_t v = 0x12345678, w = 0;
  dev.memcpy_to_device(p + n - 4, &v, 4);
  dev.memcpy_to_host(&w, p + n - 4, 4);
  dev.memcpy_to_host(&v, p, 4);
  getrusage(RUSAGE_SELF, &after);
  EXPECT_EQ(w, 0x12345678u);
  EXPECT_EQ(v, 0u);  // zero, as cudaMalloc'd memory is here
  // Under ASan the allocation's shadow memory takes an eighth of it.
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 128 * 1024) << "KiB more at peak for 512 MiB allocated";
  dev.free(p);
}

TEST(RuntimeDevice, LaunchChecks) {
  config::Config cfg;
  Device dev(cfg);
  const ptx::Module& m = dev.load_module(kPtx, "dev.ptx");
  const ptx::Function& k = dev.kernel(m, "hello");
  EXPECT_THROW(dev.launch(k, {1, 1, 1}, {1025, 1, 1}, 0, nullptr), InputError);
  EXPECT_THROW(dev.launch(k, {1, 1, 1}, {0, 1, 1}, 0, nullptr), InputError);
  EXPECT_THROW(dev.launch(k, {1, 1, 1}, {32, 1, 1}, 49153, nullptr), InputError);
  EXPECT_THROW(dev.launch(dev.kernel(m, "scaleadd"), {1, 1, 1}, {32, 1, 1}, 0, nullptr), InputError);
  EXPECT_TRUE(dev.launches().empty());
}

TEST(RuntimeDevice, RejectsUnsupportedInstruction) {
  config::Config cfg;
  Device dev(cfg);
  const char* bad = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p) {
  .reg .b64 %rd<2>; .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  atom.global.inc.u64 %rd1, [%rd1], 5;
  ret;
}
)";
  try {
    dev.load_module(bad, "bad.ptx");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.ptx:7:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace relgpu::runtime
