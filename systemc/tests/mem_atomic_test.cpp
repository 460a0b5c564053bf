// Atomics at the L2 give the functional executor's results: the same lanes
// run as a PTX kernel on FuncEngine and as one atomic line request through
// a Partition (first on a miss, then on a hit), compared bit for bit.
#include "func_test_rig.h"
#include "mem_test_rig.h"

namespace relgpu::mem::test {
namespace {

struct Case {
  const char* atom;  // PTX: old value -> %r5, address %rd7, operands %r3 (b), %r4 (c)
  ptx::AtomOp op;
  ptx::Type type;
};

std::string kernel(const Case& c) {
  return std::string(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 px, .param .u64 pb, .param .u64 pc, .param .u64 pout) {
  .reg .b32 %r<8>; .reg .b64 %rd<12>; .reg .f32 %f<4>;
  ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc]; ld.param.u64 %rd4, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  and.b32 %r2, %r1, 3;
  mul.wide.u32 %rd6, %r2, 4;
  add.u64 %rd7, %rd1, %rd6;
  add.u64 %rd8, %rd2, %rd5; ld.global.u32 %r3, [%rd8];
  add.u64 %rd9, %rd3, %rd5; ld.global.u32 %r4, [%rd9];
  )") + c.atom + R"(
  add.u64 %rd10, %rd4, %rd5; st.global.u32 [%rd10], %r5;
  ret;
})";
}

void check(const Case& c, std::vector<uint32_t> x0, std::vector<uint32_t> b, std::vector<uint32_t> cc) {
  // Functional executor: two launches of one warp.
  func::test::Rig f;
  f.load(kernel(c));
  uint64_t fx = f.upload(x0), fb = f.upload(b), fc = f.upload(cc), fo = f.upload(std::vector<uint32_t>(32));
  f.run("k", {1, 1, 1}, {32, 1, 1}, {fx, fb, fc, fo});
  auto old1 = f.download<uint32_t>(fo, 32);
  f.run("k", {1, 1, 1}, {32, 1, 1}, {fx, fb, fc, fo});
  auto old2 = f.download<uint32_t>(fo, 32);
  auto fin = f.download<uint32_t>(fx, 4);

  // The L2: the same lanes as one atomic request, twice (miss, then hit).
  config::Config cfg = simple_config();
  func::GlobalMemory g;
  uint64_t x = g.alloc(16, func::Allocation::Kind::heap, "x");
  g.write(x, x0.data(), 16, "x0");
  Initiator ini("ini");
  Partition part("part", cfg, 0, g);
  ini.sock.bind(part.tgt);
  std::vector<AtomLane> lanes;
  for (unsigned l = 0; l < 32; ++l) {
    AtomLane a;
    a.offset = uint16_t((l & 3) * 4);
    a.bytes = 4;
    a.lane = uint8_t(l);
    a.op = c.op;
    a.type = c.type;
    a.b = b[l];
    a.c = cc[l];
    lanes.push_back(a);
  }
  Req& r1 = ini.atomic(x, lanes);
  Req& r2 = ini.atomic(x, lanes, sc_time(500, SC_NS));
  sc_core::sc_start(sc_time(1000, SC_NS));
  ASSERT_TRUE(r1.finished && r2.finished);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(uint32_t(r1.ext->atoms[l].old), old1[l]) << c.atom << " lane " << l << " (miss)";
    EXPECT_EQ(uint32_t(r2.ext->atoms[l].old), old2[l]) << c.atom << " lane " << l << " (hit)";
  }
  EXPECT_EQ(part.stats()["l2"]["per_kind"]["atomic"]["hits"], 1);
  part.flush();
  std::vector<uint32_t> got(4);
  g.read(got.data(), x, 16, "x");
  EXPECT_EQ(got, fin) << c.atom;
}

std::vector<uint32_t> rnd(unsigned seed, uint32_t mask) {
  std::vector<uint32_t> v(32);
  uint32_t s = seed;
  for (auto& e : v) e = (s = s * 1664525u + 1013904223u) & mask;
  return v;
}

TEST(MemAtomic, AddU32) {
  check({"atom.global.add.u32 %r5, [%rd7], %r3;", ptx::AtomOp::add, ptx::Type::u32},
        {1, 0xfffffff0u, 7, 0}, rnd(1, 0xffffffffu), rnd(2, 0));
}

TEST(MemAtomic, AddF32) {
  std::vector<uint32_t> b(32);
  for (unsigned l = 0; l < 32; ++l) {
    float v = 0.1f * float(l + 1) * (l % 3 ? 1.f : -3.7f);
    std::memcpy(&b[l], &v, 4);
  }
  check({"mov.b32 %f2, %r3; atom.global.add.f32 %f1, [%rd7], %f2; mov.b32 %r5, %f1;", ptx::AtomOp::add,
         ptx::Type::f32},
        {0x3f800000u, 0x4b800000u, 0x00000001u, 0xbf000000u}, b, rnd(2, 0));
}

TEST(MemAtomic, CasB32) {
  std::vector<uint32_t> b(32), c(32);
  for (unsigned l = 0; l < 32; ++l) {
    b[l] = l / 4;      // a chain of successes per location...
    c[l] = l / 4 + 1;
  }
  b[13] = 77;          // ...broken at lane 13 (location 1)
  check({"atom.global.cas.b32 %r5, [%rd7], %r3, %r4;", ptx::AtomOp::cas, ptx::Type::b32}, {0, 0, 0, 5}, b, c);
}

TEST(MemAtomic, ExchB32) {
  check({"atom.global.exch.b32 %r5, [%rd7], %r3;", ptx::AtomOp::exch, ptx::Type::b32}, {9, 8, 7, 6},
        rnd(3, 0xffffffffu), rnd(4, 0));
}

TEST(MemAtomic, MinU32) {
  check({"atom.global.min.u32 %r5, [%rd7], %r3;", ptx::AtomOp::min, ptx::Type::u32},
        {1000, 0xffffffffu, 0, 500}, rnd(5, 0xfff), rnd(6, 0));
}

TEST(MemAtomic, MinS32) {
  check({"atom.global.min.s32 %r5, [%rd7], %r3;", ptx::AtomOp::min, ptx::Type::s32},
        {1000, 0x80000000u, 0, 0xfffffff0u}, rnd(7, 0xffffffffu), rnd(8, 0));
}

}  // namespace
}  // namespace relgpu::mem::test
