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

// Host mirror of stencil7, with the kernel's summation order.
static void ref_step(const std::vector<float>& in, std::vector<float>& out, int nx, int ny, int nz, float c0,
                     float c1) {
  const size_t plane = size_t(nx) * ny;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const size_t i = z * plane + size_t(y) * nx + x;
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
          out[i] = in[i];
          continue;
        }
        float s = in[i - 1] + in[i + 1];
        s += in[i - nx];
        s += in[i + nx];
        s += in[i - plane];
        s += in[i + plane];
        out[i] = std::fma(c1, s, c0 * in[i]);
      }
}

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
    ref_step(a, b, nx, ny, nz, c0, c1);
    std::swap(a, b);
  }
  // Same adds in the same order and one fma per cell: bit-identical under
  // IEEE rounding. 1e-6 relative only forgives a double-rounded fma (values
  // are 0..100, so abs 1e-5 is ~1 ulp of the largest).
  val::close("volume", got.data(), a.data(), cells, 1e-6, 1e-5);
  return val::finish();
}
