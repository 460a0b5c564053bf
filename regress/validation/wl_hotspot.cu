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

struct Chip {
  int rows, cols;
  float cap_inv, rx_inv, ry_inv, rz_inv, ambient;
};

// One step, in the kernel's order: nvcc emits
//   flow = fma((n+s) - 2c, ry, power); flow = fma((w+e) - 2c, rx, flow);
//   flow = fma(amb - c, rz, flow);     out = fma(flow, cap, c).
static void step_ref(const Chip& p, const std::vector<float>& t, const std::vector<float>& power,
                     std::vector<float>& out) {
  auto at = [&](int y, int x) {
    y = std::min(std::max(y, 0), p.rows - 1);
    x = std::min(std::max(x, 0), p.cols - 1);
    return t[size_t(y) * p.cols + x];
  };
  for (int y = 0; y < p.rows; ++y)
    for (int x = 0; x < p.cols; ++x) {
      float c = at(y, x), two_c = c + c;
      float flow = std::fma((at(y - 1, x) + at(y + 1, x)) - two_c, p.ry_inv, power[size_t(y) * p.cols + x]);
      flow = std::fma((at(y, x - 1) + at(y, x + 1)) - two_c, p.rx_inv, flow);
      flow = std::fma(p.ambient - c, p.rz_inv, flow);
      out[size_t(y) * p.cols + x] = std::fma(flow, p.cap_inv, c);
    }
}

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
    step_ref(p, want, power, next);
    want.swap(next);
  }
  // The reference repeats the kernel's operations and roundings, so results
  // agree to the bit; 1e-6 relative (about 8 ulp at these temperatures) only
  // leaves room for a last-bit difference per step.
  val::close("temperatures", got.data(), want.data(), cells, 1e-6, 0.0);
  return val::finish();
}
