// regress/workloads/stencil3d as a standalone CUDA program: the exact kernel
// (7-point 3-D Jacobi stencil, z-marching columns, memory-bound), launched as
// the workload's driver launches it (one launch per step, ping-pong buffers),
// at a validation size.
#define VAL_PROG "wl_stencil3d"
#include <cmath>
#include <utility>
#include <vector>

#include "val.h"
#include "../workloads/stencil3d/stencil3d.cu"
#include "../workloads/stencil3d/stencil3d_ref.h"

int main() {
  // 64x48x14 cells, 2 steps: 3072 columns = 24 blocks of 128 (all 15 SMs).
  int nx = 64, ny = 48, nz = 14;
  const int steps = 2;
  float c0 = 0.4f, c1 = 0.1f;  // c0 + 6*c1 = 1: a stable diffusion step
  const size_t cells = size_t(nx) * ny * nz;
  val::Rng rng(16);
  std::vector<float> a(cells), b(cells);
  for (auto& v : a) v = rng.uniform(0.f, 100.f);

  const size_t bytes = cells * sizeof(float);
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMemcpy(d_in, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0xff, bytes));  // NaN: a cell never written cannot pass
  const unsigned block = 128, grid = unsigned((size_t(nx) * ny + block - 1) / block);
  for (int s = 0; s < steps; ++s) {
    stencil7<<<grid, block>>>(d_in, d_out, nx, ny, nz, c0, c1);
    CHECK_LAUNCH();
    std::swap(d_in, d_out);
  }
  std::vector<float> got(cells);
  CHECK(cudaMemcpy(got.data(), d_in, bytes, cudaMemcpyDeviceToHost));  // after the swap, d_in holds the result
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));

  for (int s = 0; s < steps; ++s) {
    stencil3d_ref::step(a, b, nx, ny, nz, c0, c1);
    std::swap(a, b);
  }
  // Same adds in the same order and one fma per cell: bit-identical under
  // IEEE rounding. 1e-6 relative only forgives a double-rounded fma (values
  // are 0..100, so abs 1e-5 is ~1 ulp of the largest).
  val::close("volume", got.data(), a.data(), cells, 1e-6, 1e-5);
  return val::finish();
}
