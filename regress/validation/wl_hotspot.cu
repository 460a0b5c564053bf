// regress/workloads/hotspot as a standalone CUDA program: the exact kernel
// (thermal stencil, 16x16 shared-memory tiles with halos, __syncthreads),
// launched as the workload's driver launches it (one launch per time step,
// ping-pong buffers), at a validation size.
#define VAL_PROG "wl_hotspot"
#include <algorithm>
#include <cmath>
#include <vector>

#include "val.h"
#include "../workloads/hotspot/hotspot.cu"
#include "../workloads/hotspot/hotspot_ref.h"

using hotspot_ref::Chip;

int main() {
  // 90x100 cells (not multiples of the tile: edge blocks partly idle), 7x6 =
  // 42 blocks (all 15 SMs), 2 steps.
  Chip p{90, 100, 0.5f, 0.2f, 0.2f, 0.05f, 300.0f};
  const int steps = 2;
  const size_t cells = size_t(p.rows) * p.cols;
  val::Rng rng(14);
  std::vector<float> temp(cells), power(cells);
  for (auto& v : temp) v = rng.uniform(320.0f, 340.0f);
  for (auto& v : power) v = rng.uniform(0.0f, 0.5f);

  float *buf[2], *d_power;
  CHECK(cudaMalloc(&buf[0], cells * 4));
  CHECK(cudaMalloc(&buf[1], cells * 4));
  CHECK(cudaMalloc(&d_power, cells * 4));
  CHECK(cudaMemcpy(buf[0], temp.data(), cells * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_power, power.data(), cells * 4, cudaMemcpyHostToDevice));
  const dim3 grid((p.cols + TILE - 1) / TILE, (p.rows + TILE - 1) / TILE), block(TILE, TILE);
  for (int s = 0; s < steps; ++s) {
    hotspot_step<<<grid, block>>>(buf[s % 2], d_power, buf[(s + 1) % 2], p.rows, p.cols, p.cap_inv, p.rx_inv,
                                  p.ry_inv, p.rz_inv, p.ambient);
    CHECK_LAUNCH();
  }
  std::vector<float> got(cells);
  CHECK(cudaMemcpy(got.data(), buf[steps % 2], cells * 4, cudaMemcpyDeviceToHost));
  for (float* b : {buf[0], buf[1], d_power}) CHECK(cudaFree(b));

  std::vector<float> want = temp, next(cells);
  for (int s = 0; s < steps; ++s) {
    hotspot_ref::step(p, want, power, next);
    want.swap(next);
  }
  // The reference repeats the kernel's operations and roundings, so results
  // agree to the bit; 1e-6 relative (about 8 ulp at these temperatures) only
  // leaves room for a last-bit difference per step.
  val::close("temperatures", got.data(), want.data(), cells, 1e-6, 0.0);
  return val::finish();
}
