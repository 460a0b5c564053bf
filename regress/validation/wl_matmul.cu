// regress/workloads/matmul as a standalone CUDA program: the exact kernel
// (tiled SGEMM, 16x16 shared-memory tiles, barriers, edge guards), launched
// as the workload's driver launches it, at a validation size.
#define VAL_PROG "wl_matmul"
#include <algorithm>
#include <cmath>
#include <vector>

#include "val.h"
#include "../workloads/matmul/matmul.cu"

int main() {
  // 75x90 output, K = 40: 6x5 = 30 blocks (2 per SM), 3 K-steps, edge
  // tiles in all three dimensions (none is a multiple of 16).
  int M = 75, N = 90, K = 40;
  float alpha = 1.5f, beta = -0.5f;
  val::Rng rng(13);
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N), got(C.size());
  for (auto& v : A) v = rng.uniform(-1.f, 1.f);
  for (auto& v : B) v = rng.uniform(-1.f, 1.f);
  for (auto& v : C) v = rng.uniform(-1.f, 1.f);
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * 4));
  CHECK(cudaMalloc(&dB, B.size() * 4));
  CHECK(cudaMalloc(&dC, C.size() * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
  const dim3 grid((N + MM_TILE - 1) / MM_TILE, (M + MM_TILE - 1) / MM_TILE), block(MM_TILE, MM_TILE);
  sgemm_tiled<<<grid, block>>>(dA, dB, dC, M, N, K, alpha, beta);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(got.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
  for (float* p : {dA, dB, dC}) CHECK(cudaFree(p));

  // Same operation order as the kernel: one fma per k in increasing k (the
  // zero-filled tile padding adds fmaf(0, 0, acc) == acc), then
  // fmaf(alpha, acc, beta*c): bit-identical under IEEE rounding. As in the
  // workload's driver, 1e-6 relative + 1e-6 absolute forgives a
  // double-rounded fma; val::fma_slack of the largest sum of |terms| (~1e-5)
  // also admits a simulator with unfused fma. A wrong or missing product
  // moves a value by ~1e-3 or more.
  double max_mag = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0.f;
      double mag = 0;
      for (int k = 0; k < K; ++k) {
        acc = std::fma(A[size_t(r) * K + k], B[size_t(k) * N + c], acc);
        mag += std::fabs(A[size_t(r) * K + k] * B[size_t(k) * N + c]);
      }
      float& out = C[size_t(r) * N + c];
      mag = std::fabs(alpha) * mag + std::fabs(beta * out);
      out = std::fma(alpha, acc, beta * out);
      max_mag = std::max(max_mag, mag);
    }
  val::close("C", got.data(), C.data(), C.size(), 1e-6, 1e-6 + val::fma_slack(max_mag));
  return val::finish();
}
