// Kernel faults stop the launch with a KernelError that names the kernel,
// the PC and source position, the warp, the thread and the address.
#include "func_test_rig.h"

namespace relgpu::func::test {
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
.visible .entry misaligned(.param .u64 p) {
  .reg .b32 %r<2>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  add.u64 %rd2, %rd1, 2;
  ld.global.u32 %r1, [%rd2];
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
.visible .entry trapper() {
  .reg .pred %p<2>; .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 37;
  @%p1 trap;
  ret;
}
.visible .entry nullptr_store() {
  .reg .b64 %rd<2>;
  mov.u64 %rd1, 0;
  st.global.u32 [%rd1], 1;
  ret;
}
)";

TEST(FuncErrors, OutOfBoundsNamesEverything) {
  Rig r;
  r.load(kPtx);
  uint64_t p = r.upload(std::vector<uint32_t>(64, 1));
  r.run("oob", {1, 1, 1}, {64, 1, 1}, {p, 0});  // in bounds
  std::string e = kernel_error([&] { r.run("oob", {2, 1, 1}, {64, 1, 1}, {p, 1}); });
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e.find("kernel 'oob'"), std::string::npos) << e;
  EXPECT_NE(e.find("out-of-bounds global load of 4 bytes at address " + hex(p + 256)), std::string::npos) << e;
  EXPECT_NE(e.find("'cudaMalloc #1'"), std::string::npos) << e;
  EXPECT_NE(e.find("ends 0 bytes before"), std::string::npos) << e;
  EXPECT_NE(e.find("PC 6 (test.ptx:12:3 `ld.global.u32 %r3, [%rd3]`)"), std::string::npos) << e;
  EXPECT_NE(e.find("warp 1 of CTA (0,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("tid (63,0,0) lane 31"), std::string::npos) << e;
}

TEST(FuncErrors, Misaligned) {
  Rig r;
  r.load(kPtx);
  uint64_t p = r.upload(std::vector<uint32_t>(4, 1));
  std::string e = kernel_error([&] { r.run("misaligned", {1, 1, 1}, {1, 1, 1}, {p}); });
  EXPECT_NE(e.find("misaligned global load of 4 bytes at address " + hex(p + 2)), std::string::npos) << e;
  EXPECT_NE(e.find("tid (0,0,0)"), std::string::npos) << e;
}

TEST(FuncErrors, NullPointerStore) {
  Rig r;
  r.load(kPtx);
  std::string e = kernel_error([&] { r.run("nullptr_store", {1, 1, 1}, {1, 1, 1}, {}); });
  EXPECT_NE(e.find("out-of-bounds global store of 4 bytes at address 0x0"), std::string::npos) << e;
}

TEST(FuncErrors, RunawayKernel) {
  Rig r;
  r.cfg.set("func.max_warp_insn=5000");
  r.load(kPtx);
  std::string e = kernel_error([&] { r.run("spin", {1, 1, 1}, {32, 1, 1}, {}); });
  EXPECT_NE(e.find("kernel 'spin' exceeded func.max_warp_insn=5000 warp instructions (runaway kernel?)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("bra.uni LOOP"), std::string::npos) << e;
}

TEST(FuncErrors, BarrierDeadlockIsReported) {
  Rig r;
  r.load(kPtx);
  std::string e = kernel_error([&] { r.run("deadlock", {1, 1, 1}, {64, 1, 1}, {}); });
  EXPECT_NE(e.find("kernel 'deadlock': barrier deadlock in CTA (0,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("warp 0 waits at barrier 0"), std::string::npos) << e;
  EXPECT_NE(e.find("warp 1 waits at barrier 1"), std::string::npos) << e;
}

TEST(FuncErrors, Trap) {
  Rig r;
  r.load(kPtx);
  std::string e = kernel_error([&] { r.run("trapper", {1, 1, 1}, {64, 1, 1}, {}); });
  EXPECT_NE(e.find("trap instruction executed"), std::string::npos) << e;
  EXPECT_NE(e.find("tid (37,0,0)"), std::string::npos) << e;
}

TEST(FuncMemory, AllocationsAreAlignedAndGuarded) {
  GlobalMemory m;
  uint64_t a = m.alloc(100, Allocation::Kind::heap, "");
  uint64_t b = m.alloc(256, Allocation::Kind::heap, "");
  EXPECT_EQ(a % 256, 0u);
  EXPECT_EQ(b % 256, 0u);
  EXPECT_GE(b, a + 100 + kGuardBytes);
  EXPECT_NE(m.translate(a + 96, 4), nullptr);
  EXPECT_EQ(m.translate(a + 97, 4), nullptr);
  EXPECT_EQ(m.translate(a + 100, 1), nullptr);
  EXPECT_EQ(m.translate(0, 4), nullptr);
  EXPECT_NE(m.translate(b, 256), nullptr);
  m.free(a);
  EXPECT_EQ(m.translate(a, 4), nullptr);  // freed space is never reused
  EXPECT_THROW(m.free(a), InputError);
  EXPECT_THROW(m.free(b + 4), InputError);
  uint32_t x = 0;
  try {
    m.read(&x, b + 254, 4, "memcpy");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("memcpy: 4 bytes at device pointer " + hex(b + 254)), std::string::npos)
        << e.what();
  }
}

TEST(FuncMemory, GenericWindows) {
  EXPECT_EQ(generic_space(kSharedWindow + 12), ptx::Space::shared);
  EXPECT_EQ(generic_space(kLocalWindow), ptx::Space::local);
  EXPECT_EQ(generic_space(kParamWindow + kWindowBytes - 1), ptx::Space::param);
  EXPECT_EQ(generic_space(kHeapBase), ptx::Space::global);
  EXPECT_EQ(generic_space(kSharedWindow + kWindowBytes), ptx::Space::global);
}

}  // namespace
}  // namespace relgpu::func::test
