// matmul: tiled SGEMM C = alpha*A*B + beta*C with shared-memory tiles and
// __syncthreads (compute-bound). The small size uses dimensions that are not
// multiples of the tile, so every bounds guard is taken both ways.
#include <vector>

#include "matmul_ref.h"
#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;

constexpr int kTile = 16;  // MM_TILE in matmul.cu

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 21x18 output, K=35: 2x2 blocks, 3 K-steps, edges in all three
  // dimensions (~2.8e5 thread instructions). default: 256x320, K=192 (~8e7).
  int M = small ? 21 : 256, N = small ? 18 : 320, K = small ? 35 : 192;
  float alpha = 1.5f, beta = -0.5f;

  wl::Rng rng(ctx.seed);
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
  matmul_ref::make_matrices(rng, A, B, C);
  ctx.log << "matmul: " << M << "x" << K << " * " << K << "x" << N << "\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k = dev.kernel(mod, "sgemm_tiled");
  DevPtr dA = dev.malloc(A.size() * 4), dB = dev.malloc(B.size() * 4), dC = dev.malloc(C.size() * 4);
  dev.memcpy_to_device(dA, A.data(), A.size() * 4);
  dev.memcpy_to_device(dB, B.data(), B.size() * 4);
  dev.memcpy_to_device(dC, C.data(), C.size() * 4);
  void* args[] = {&dA, &dB, &dC, &M, &N, &K, &alpha, &beta};
  const Dim3 grid{uint32_t((N + kTile - 1) / kTile), uint32_t((M + kTile - 1) / kTile)};
  dev.launch(k, grid, Dim3{kTile, kTile}, 0, args);
  dev.synchronize();
  std::vector<float> got(C.size());
  dev.memcpy_to_host(got.data(), dC, got.size() * 4);
  dev.free(dA);
  dev.free(dB);
  dev.free(dC);

  matmul_ref::sgemm(A, B, C, M, N, K, alpha, beta);
  // The reference repeats the kernel's exact fma order, so IEEE single
  // rounding gives bit-identical results; 1e-6 relative (~8 ulp) is only
  // slack for an fma evaluated with double rounding. One wrong or missing
  // product changes a value by ~1e-3 or more and fails.
  std::string msg;
  if (wl::compare_floats(got.data(), C.data(), C.size(), 1e-6, 1e-6, msg) >= 0) return {false, "C: " + msg};
  return {true, "sgemm " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + ": " + msg};
}

}  // namespace

RELGPU_WORKLOAD(matmul, "tiled SGEMM in shared memory with __syncthreads and edge guards (compute-bound, f32)", run);
