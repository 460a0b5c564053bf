// regress/workloads/vecops as a standalone CUDA program: the exact kernels
// (saxpy, triad4, clamp_scale: streaming, memory-bound, grid-stride loops),
// launched as the workload's driver launches them, at a validation size.
#define VAL_PROG "wl_vecops"
#include <vector>

#include "val.h"
#include "../workloads/vecops/vecops.cu"
#include "../workloads/vecops/vecops_ref.h"

int main() {
  // 65539 elements (a 3-element tail after the float4 part) on 60 x 256
  // threads: each thread strides 4-5 times in saxpy and clamp_scale.
  size_t n = (size_t(1) << 16) + 3;
  const dim3 grid(60), block(256);
  float a = 0.75f, s = -1.25f, lo = -0.5f, hi = 1.0f, scale = 2.0f;

  val::Rng rng(11);
  std::vector<float> x(n), y(n), z(n);
  vecops_ref::make_vectors(rng, x, y, z);

  const size_t bytes = n * sizeof(float);
  float *dx, *dy, *dz, *dw;
  CHECK(cudaMalloc(&dx, bytes));
  CHECK(cudaMalloc(&dy, bytes));
  CHECK(cudaMalloc(&dz, bytes));
  CHECK(cudaMalloc(&dw, bytes));
  CHECK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dz, z.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dw, 0xff, bytes));  // NaN pattern: an element the kernels skip cannot pass

  saxpy<<<grid, block>>>(n, a, dx, dy);
  CHECK_LAUNCH();
  triad4<<<grid, block>>>(n, s, dx, dy, dz, dw);
  CHECK_LAUNCH();
  clamp_scale<<<grid, block>>>(n, lo, hi, scale, dw);
  CHECK_LAUNCH();
  std::vector<float> gy(n), gw(n);
  CHECK(cudaMemcpy(gy.data(), dy, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gw.data(), dw, bytes, cudaMemcpyDeviceToHost));
  for (float* p : {dx, dy, dz, dw}) CHECK(cudaFree(p));

  std::vector<float> w(n);
  const vecops_ref::Mags mag = vecops_ref::compute(a, s, lo, hi, scale, x, y, z, w);
  // As in the workload's driver: one fma, a multiply and a clamp per element
  // in the kernels' order, bit-identical under IEEE rounding; 1e-6 relative
  // (~8 ulp) forgives a double-rounded fma, and val::fma_slack of the largest
  // |terms| (~3e-6 for w) a simulator with unfused fma.
  val::close("saxpy y", gy.data(), y.data(), n, 1e-6, 1e-7 + val::fma_slack(mag.y));
  val::close("triad4/clamp_scale w", gw.data(), w.data(), n, 1e-6, 1e-7 + val::fma_slack(mag.w));
  return val::finish();
}
