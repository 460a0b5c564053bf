// Functional-mode speed on compute-bound kernels, and their results.
// CUDA source of func_bench_kernels.h:
//   matmul(A, B, C, n): 16x16 shared-memory tiles, __syncthreads, unrolled k loop
//   nbody(p, acc, n): float4 positions, rsqrtf, all-pairs accumulation
// The rate is printed (thread instructions per second); the assertion is
// a loose floor because the test machine is shared.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "func_bench_kernels.h"
#include "func_test_rig.h"

namespace relgpu::func::test {
namespace {

double rate(const Rig& r, double secs) { return double(r.rec.thread_insn) / secs; }

TEST(FuncBench, TiledMatmul) {
  Rig r;
  r.load(kBenchPtx);
  const int n = 128;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) a[i] = float(i % 13) * 0.25f - 1.0f, b[i] = float(i % 7) * 0.5f - 1.5f;
  uint64_t da = r.upload(a), db = r.upload(b), dc = r.upload(std::vector<float>(n * n, 0.f));
  auto t0 = std::chrono::steady_clock::now();
  r.run("matmul", {n / 16, n / 16, 1}, {16, 16, 1}, {da, db, dc, uint64_t(n)});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto c = r.download<float>(dc, n * n);
  for (int i = 0; i < n; i += 7)
    for (int j = 0; j < n; j += 5) {
      double want = 0;
      for (int k = 0; k < n; ++k) want += double(a[i * n + k]) * b[k * n + j];
      ASSERT_NEAR(c[i * n + j], want, 1e-3) << i << "," << j;
    }
  std::printf("matmul %dx%d: %llu thread insns in %.3f s = %.1f M thread-insn/s\n", n, n,
              (unsigned long long)r.rec.thread_insn, s, rate(r, s) / 1e6);
  EXPECT_GT(rate(r, s), 5e6);
}

TEST(FuncBench, NBody) {
  Rig r;
  r.load(kBenchPtx);
  const int n = 1024;
  std::vector<float> p(4 * n);
  for (int i = 0; i < 4 * n; ++i) p[i] = float((i * 37) % 101) / 50.0f - 1.0f + (i % 4 == 3 ? 2.0f : 0.0f);
  uint64_t dp = r.upload(p), da = r.upload(std::vector<float>(3 * n, 0.f));
  auto t0 = std::chrono::steady_clock::now();
  r.run("nbody", {n / 128, 1, 1}, {128, 1, 1}, {dp, da, uint64_t(n)});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto acc = r.download<float>(da, 3 * n);
  for (int i = 0; i < n; i += 97) {
    double ax = 0;
    for (int j = 0; j < n; ++j) {
      double dx = p[4 * j] - p[4 * i], dy = p[4 * j + 1] - p[4 * i + 1], dz = p[4 * j + 2] - p[4 * i + 2];
      double r2 = dx * dx + dy * dy + dz * dz + 1e-3;
      ax += dx * p[4 * j + 3] / (r2 * std::sqrt(r2));
    }
    ASSERT_NEAR(acc[3 * i], ax, 1e-3 * std::fabs(ax) + 0.5) << i;
  }
  std::printf("nbody n=%d: %llu thread insns in %.3f s = %.1f M thread-insn/s\n", n,
              (unsigned long long)r.rec.thread_insn, s, rate(r, s) / 1e6);
  EXPECT_GT(rate(r, s), 5e6);
}

}  // namespace
}  // namespace relgpu::func::test
