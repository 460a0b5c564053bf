// Kernels compiled by nvcc, run on the functional engine. CUDA source:
//   __device__ int counter;  __constant__ float cscale[4];
//   __device__ __noinline__ int helper(int a, int b) { return a * b + 3; }
//   divergent(out, n): if/else nested, loop with t%5 trips, early return t>=n
//   shared_sum(in, out): shared-memory tree reduction with __syncthreads
//   atomics(g): atomicAdd on shared and on __device__ counter, atomicMax
//   warpops(out): ballot, shfl down/xor/up/idx, all, any
//   calls(out, f): .func call, sinf (slow path uses local memory), __constant__, printf
//   localarr(out, k): local array indexed by a runtime value
#include <cmath>

#include "func_nvcc_kernels.h"
#include "func_test_rig.h"

namespace relgpu::func::test {
namespace {

TEST(FuncNvcc, DivergenceAndEarlyExit) {
  Rig r;
  r.load(kNvccPtx);
  int n = 90;
  uint64_t out = r.upload(std::vector<int>(96, -7));
  r.run("divergent", {2, 1, 1}, {48, 1, 1}, {out, uint64_t(n)});
  auto got = r.download<int>(out, 96);
  for (int t = 0; t < 96; ++t) {
    int want = -7;
    if (t < n) {
      int v = (t & 1) ? t * 2 : ((t & 2) ? -t : 100 + t);
      for (int i = 0; i < t % 5; ++i) v += i;
      want = v;
    }
    EXPECT_EQ(got[t], want) << "t=" << t;
  }
  EXPECT_GT(r.rec.warp_insn, 0u);
  EXPECT_GT(r.rec.thread_insn, r.rec.warp_insn);
  EXPECT_LE(r.rec.thread_insn, r.rec.warp_insn * 32);
  EXPECT_GT(r.rec.detail["class_counts"]["BRANCH"].get<uint64_t>(), 0u);
  EXPECT_GT(r.rec.detail["class_counts"]["LDST_GLOBAL"].get<uint64_t>(), 0u);
}

TEST(FuncNvcc, SharedReductionWithBarriers) {
  Rig r;
  r.load(kNvccPtx);
  std::vector<int> in(4 * 256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 7 % 101) - 50;
  uint64_t din = r.upload(in), dout = r.upload(std::vector<int>(4, 0));
  r.run("shared_sum", {4, 1, 1}, {256, 1, 1}, {din, dout});
  auto got = r.download<int>(dout, 4);
  for (int b = 0; b < 4; ++b) {
    int s = 0;
    for (int i = 0; i < 256; ++i) s += in[b * 256 + i];
    EXPECT_EQ(got[b], s) << b;
  }
  EXPECT_GT(r.rec.detail["class_counts"]["BARRIER"].get<uint64_t>(), 0u);
  EXPECT_GT(r.rec.detail["class_counts"]["LDST_SHARED"].get<uint64_t>(), 0u);
}

TEST(FuncNvcc, ContendedAtomics) {
  Rig r;
  r.load(kNvccPtx);
  uint64_t g = r.upload(std::vector<int>{0, -1});
  r.run("atomics", {3, 1, 1}, {200, 1, 1}, {g});
  auto got = r.download<int>(g, 2);
  EXPECT_EQ(got[0], 600);
  EXPECT_EQ(got[1], 199);
  EXPECT_EQ(r.download<int>(r.global("counter"), 1)[0], 600);
  EXPECT_GT(r.rec.detail["class_counts"]["ATOMIC"].get<uint64_t>(), 0u);
}

TEST(FuncNvcc, VoteAndShuffle) {
  Rig r;
  r.load(kNvccPtx);
  uint64_t out = r.upload(std::vector<unsigned>(64 * 6, 0));
  r.run("warpops", {1, 1, 1}, {64, 1, 1}, {out});
  auto got = r.download<unsigned>(out, 64 * 6);
  for (int t = 0; t < 64; ++t) {
    int l = t & 31, base = t & ~31;
    const unsigned* o = &got[t * 6];
    EXPECT_EQ(o[0], 0xaaaaaaaau) << t;
    EXPECT_EQ(int(o[1]), l + 1 < 32 ? t + 1 : t) << t;
    EXPECT_EQ(int(o[2]), base + (l ^ 3)) << t;
    EXPECT_EQ(int(o[3]), l >= 2 ? t - 2 : t) << t;
    EXPECT_EQ(int(o[4]), base + 5) << t;
    EXPECT_EQ(o[5], 1u + 2u * (base == 0)) << t;
  }
}

TEST(FuncNvcc, CallsConstantAndPrintf) {
  Rig r;
  r.load(kNvccPtx);
  std::vector<float> cs = {0.5f, 1.5f, 2.5f, 3.5f};
  r.mem.write(r.global("cscale"), cs.data(), 16, "cscale");
  std::vector<float> f(64);
  for (int i = 0; i < 64; ++i) f[i] = 0.37f * i - 5.0f;
  uint64_t dout = r.upload(std::vector<int>(64, 0)), df = r.upload(f);
  r.run("calls", {1, 1, 1}, {64, 1, 1}, {dout, df});
  auto got = r.download<int>(dout, 64);
  auto gf = r.download<float>(df, 64);
  for (int t = 0; t < 64; ++t) {
    EXPECT_EQ(got[t], t * (t + 1) + 3) << t;
    // sinf of large arguments takes the Payne-Hanek slow path (local memory).
    EXPECT_NEAR(gf[t], std::sin(double(f[t] * 1000.0f)) + cs[t & 3], 2e-6) << t;
  }
  EXPECT_EQ(r.out.str(), "hello 3 1.500000 str ff -5 Z\n");
}

TEST(FuncNvcc, LocalArray) {
  Rig r;
  r.load(kNvccPtx);
  uint64_t out = r.upload(std::vector<int>(40, 0));
  r.run("localarr", {1, 1, 1}, {40, 1, 1}, {out, 5});
  auto got = r.download<int>(out, 40);
  for (int t = 0; t < 40; ++t) EXPECT_EQ(got[t], ((t + 5) & 15) * t) << t;
}

}  // namespace
}  // namespace relgpu::func::test
