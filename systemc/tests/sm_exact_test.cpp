// Timing mode is bit-exact with functional mode: nvcc kernels (divergence,
// barriers, shared and global atomics, shuffles, .func calls, local memory,
// printf, tiled matmul, n-body) and hand-written PTX for the L1-bypass,
// reduction and 64-bit paths, on several RF organisations and schedulers.
#include <cmath>

#include "func_bench_kernels.h"
#include "func_nvcc_kernels.h"
#include "sm_test_rig.h"

namespace relgpu::sm::test {
namespace {

struct Buf { uint64_t addr; size_t bytes; };
struct Launch { std::vector<uint64_t> args; std::vector<Buf> bufs; };

// Runs `setup` on two rigs, the kernel functionally on one and on the SM on
// the other, and compares every buffer and the printf output byte for byte.
template <class F>
config::json expect_same(const char* ptx, F setup, const std::string& kernel, runtime::Dim3 grid, runtime::Dim3 block,
                 std::vector<std::string> overrides = {}, uint64_t dyn = 0) {
  func::test::Rig fr;
  fr.load(ptx);
  Launch a = setup(fr);
  fr.run(kernel, grid, block, a.args, dyn);
  TRig tr;
  for (auto& o : overrides) tr.cfg.set(o);
  tr.load(ptx);
  Launch b = setup(tr);
  tr.run_timing(kernel, grid, block, b.args, dyn);
  EXPECT_EQ(fr.out.str(), tr.out.str());
  EXPECT_EQ(fr.rec.warp_insn, tr.stat("warp_insn")) << kernel;
  EXPECT_EQ(fr.rec.thread_insn, tr.stat("thread_insn")) << kernel;
  for (size_t i = 0; i < a.bufs.size(); ++i) {
    auto x = fr.download<uint8_t>(a.bufs[i].addr, a.bufs[i].bytes);
    auto y = tr.download<uint8_t>(b.bufs[i].addr, b.bufs[i].bytes);
    size_t bad = 0;
    while (bad < x.size() && x[bad] == y[bad]) ++bad;
    EXPECT_EQ(bad, x.size()) << kernel << ": buffer " << i << " differs first at byte " << bad;
  }
  return tr.stats();
}

const std::vector<std::vector<std::string>> kConfigs = {
    {},                                                                  // GTX480: 32 x 256 x 128 b, GTO
    {"rf.num_banks=16", "rf.entries_per_bank=64", "rf.entry_bits=1024", "sm.scheduler=lrr"},  // PV/NBTI RF
    {"sm.scheduler=two_level", "sm.schedulers=1", "l1d.mshrs=2", "sm.miss_queue=1"},
    {"sm.scheduler=fetch_group", "sm.fetch_group_warps=2"},
};

class SmExact : public ::testing::TestWithParam<int> {
 protected:
  std::vector<std::string> cfg() const { return kConfigs[size_t(GetParam())]; }
};

TEST_P(SmExact, DivergenceAndEarlyExit) {
  expect_same(kNvccPtx, [](func::test::Rig& r) {
    uint64_t out = r.upload(std::vector<int>(96, -7));
    return Launch{{out, 90}, {{out, 96 * 4}}};
  }, "divergent", {2, 1, 1}, {48, 1, 1}, cfg());
}

TEST_P(SmExact, SharedReductionWithBarriers) {
  config::json t = expect_same(kNvccPtx, [](func::test::Rig& r) {
    std::vector<int> in(4 * 256);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 7 % 101) - 50;
    uint64_t din = r.upload(in), dout = r.upload(std::vector<int>(4, 0));
    return Launch{{din, dout}, {{dout, 16}}};
  }, "shared_sum", {4, 1, 1}, {256, 1, 1}, cfg());
  if (GetParam() != 2) {  // two-level demotes barrier-waiting warps, so its stalls are not "barrier"
    EXPECT_GT(t["scheduler_cycles"]["barrier"].get<uint64_t>(), 0u);
  }
  EXPECT_GT(t["smem"]["accesses"].get<uint64_t>(), 0u);
}

TEST_P(SmExact, ContendedAtomics) {
  expect_same(kNvccPtx, [](func::test::Rig& r) {
    uint64_t g = r.upload(std::vector<int>{0, -1});
    return Launch{{g}, {{g, 8}, {r.global("counter"), 4}}};
  }, "atomics", {3, 1, 1}, {200, 1, 1}, cfg());
}

TEST_P(SmExact, VoteAndShuffle) {
  expect_same(kNvccPtx, [](func::test::Rig& r) {
    uint64_t out = r.upload(std::vector<unsigned>(64 * 6, 0));
    return Launch{{out}, {{out, 64 * 6 * 4}}};
  }, "warpops", {1, 1, 1}, {64, 1, 1}, cfg());
}

TEST_P(SmExact, CallsConstantLocalAndPrintf) {
  expect_same(kNvccPtx, [](func::test::Rig& r) {
    std::vector<float> cs = {0.5f, 1.5f, 2.5f, 3.5f};
    r.mem.write(r.global("cscale"), cs.data(), 16, "cscale");
    std::vector<float> f(64);
    for (int i = 0; i < 64; ++i) f[i] = 0.37f * i - 5.0f;
    uint64_t dout = r.upload(std::vector<int>(64, 0)), df = r.upload(f);
    return Launch{{dout, df}, {{dout, 256}, {df, 256}}};
  }, "calls", {1, 1, 1}, {64, 1, 1}, cfg());
}

TEST_P(SmExact, LocalArray) {
  expect_same(kNvccPtx, [](func::test::Rig& r) {
    uint64_t out = r.upload(std::vector<int>(40, 0));
    return Launch{{out, 5}, {{out, 160}}};
  }, "localarr", {1, 1, 1}, {40, 1, 1}, cfg());
}

TEST_P(SmExact, TiledMatmul) {
  config::json t = expect_same(kBenchPtx, [](func::test::Rig& r) {
    const int n = 48;
    std::vector<float> a(n * n), b(n * n);
    for (int i = 0; i < n * n; ++i) a[i] = float(i % 13) * 0.25f, b[i] = float(i % 7) - 3.0f;
    uint64_t da = r.upload(a), db = r.upload(b), dc = r.upload(std::vector<float>(n * n, 0.f));
    return Launch{{da, db, dc, n}, {{dc, n * n * 4}}};
  }, "matmul", {3, 3, 1}, {16, 16, 1}, cfg());
  EXPECT_GT(t["l1d"]["hits"].get<uint64_t>(), 0u);
  EXPECT_GT(t["l1d"]["misses"].get<uint64_t>(), 0u);
}

TEST_P(SmExact, NBody) {
  expect_same(kBenchPtx, [](func::test::Rig& r) {
    const int n = 256;
    std::vector<float> p(4 * n);
    for (int i = 0; i < 4 * n; ++i) p[i] = float((i * 37) % 101) * 0.01f;
    uint64_t dp = r.upload(p), da = r.upload(std::vector<float>(3 * n, 0.f));
    return Launch{{dp, da, n}, {{da, 3 * n * 4}}};
  }, "nbody", {2, 1, 1}, {128, 1, 1}, cfg());
}

// Stores then loads of the same lines by the same warp (write-evict and
// stale MSHRs), .cg / volatile loads, red, atom.cas, 64-bit values, a
// predicated store, and a generic access to shared memory.
const char* kMixPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry mix(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  .shared .align 8 .b8 sh[512];
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd1, %rd4;
  ld.global.u32 %r2, [%rd5];
  add.u32 %r3, %r2, %r1;
  st.global.u32 [%rd5], %r3;
  ld.global.u32 %r4, [%rd5];
  ld.global.cg.u32 %r5, [%rd5+516];
  ld.volatile.global.u32 %r6, [%rd5+520];
  add.u32 %r7, %r4, %r5;
  add.u32 %r7, %r7, %r6;
  mul.wide.u32 %rd6, %r1, 8;
  add.u64 %rd7, %rd2, %rd6;
  cvt.u64.u32 %rd8, %r7;
  shl.b64 %rd9, %rd8, 33;
  or.b64 %rd9, %rd9, %rd8;
  st.global.u64 [%rd7], %rd9;
  red.global.add.u32 [%rd3], %r1;
  shr.u32 %r12, %r1, 5;
  mul.wide.u32 %rd15, %r12, 4;
  add.u64 %rd16, %rd3, %rd15;
  atom.global.cas.b32 %r8, [%rd16+4], 0, %r1;
  setp.lt.u32 %p1, %r1, 7;
  @%p1 st.global.u32 [%rd3+12], %r8;
  mov.u64 %rd10, sh;
  cvta.shared.u64 %rd11, %rd10;
  add.u64 %rd12, %rd11, %rd4;
  st.u32 [%rd12], %r7;
  bar.sync 0;
  xor.b32 %r9, %r1, 1;
  mul.wide.u32 %rd13, %r9, 4;
  add.u64 %rd14, %rd11, %rd13;
  ld.u32 %r10, [%rd14];
  st.global.u32 [%rd5+256], %r10;
  membar.gl;
  ld.global.u32 %r11, [%rd5+256];
  st.global.u32 [%rd5+512], %r11;
  ret;
}
)";

TEST_P(SmExact, MixedGlobalPaths) {
  config::json t = expect_same(kMixPtx, [](func::test::Rig& r) {
    std::vector<uint32_t> a(256);
    for (size_t i = 0; i < a.size(); ++i) a[i] = uint32_t(i * 2654435761u);
    uint64_t da = r.upload(a), db = r.upload(std::vector<uint64_t>(64, 0)), dc = r.upload(std::vector<uint32_t>(4, 0));
    return Launch{{da, db, dc}, {{da, 1024}, {db, 512}, {dc, 16}}};
  }, "mix", {1, 1, 1}, {64, 1, 1}, cfg());
  EXPECT_GT(t["l1d"]["bypass"].get<uint64_t>(), 0u);
  EXPECT_GT(t["mem_requests"]["atomic"].get<uint64_t>(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Configs, SmExact, ::testing::Range(0, int(kConfigs.size())));

// Many CTAs over time on one SM: slots, registers and shared memory are
// reused, and results stay exact.
TEST(SmExactReuse, ManyCtasReuseSlots) {
  expect_same(kNvccPtx, [](func::test::Rig& r) {
    std::vector<int> in(24 * 256);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 11 % 97) - 40;
    uint64_t din = r.upload(in), dout = r.upload(std::vector<int>(24, 0));
    return Launch{{din, dout}, {{dout, 24 * 4}}};
  }, "shared_sum", {24, 1, 1}, {256, 1, 1});
}

}  // namespace
}  // namespace relgpu::sm::test
