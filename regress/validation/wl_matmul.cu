// regress/workloads/matmul as a standalone CUDA program: the exact kernel
// (tiled SGEMM, 16x16 shared-memory tiles, barriers, edge guards), launched
// as the workload's driver launches it, at a validation size.
#define VAL_PROG "wl_matmul"
#include <vector>

#include "val.h"
#include "../workloads/matmul/matmul.cu"
#include "../workloads/matmul/matmul_ref.h"

int main() {
  // 75x90 output, K = 40: 6x5 = 30 blocks (2 per SM), 3 K-steps, edge
  // tiles in all three dimensions (none is a multiple of 16).
  int M = 75, N = 90, K = 40;
  float alpha = 1.5f, beta = -0.5f;
  val::Rng rng(13);
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N), got(C.size());
  matmul_ref::make_matrices(rng, A, B, C);
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

  // The reference repeats the kernel's fma order: bit-identical under IEEE
  // rounding. As in the workload's driver, 1e-6 relative + 1e-6 absolute
  // forgives a double-rounded fma; val::fma_slack of the largest sum of
  // |terms| (~1e-5) also admits a simulator with unfused fma. A wrong or
  // missing product moves a value by ~1e-3 or more.
  const double max_mag = matmul_ref::sgemm(A, B, C, M, N, K, alpha, beta);
  val::close("C", got.data(), C.data(), C.size(), 1e-6, 1e-6 + val::fma_slack(max_mag));
  return val::finish();
}
