// Host driver for hotspot.cu: several explicit thermal time steps on a chip
// grid, ping-ponging two device buffers, checked against a CPU model that
// performs the same arithmetic in the same order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "hotspot_ref.h"
#include "workload.h"

namespace relgpu::wl {
namespace {

using hotspot_ref::Chip;

Result run_hotspot(Context& ctx) {
  const bool small = ctx.size == Size::small;
  // Sizes not multiples of the 16x16 tile, so edge blocks are partly idle.
  Chip p{small ? 20 : 250, small ? 30 : 260, 0.5f, 0.2f, 0.2f, 0.05f, 300.0f};
  const int steps = small ? 3 : 12;
  // Stability of the explicit scheme: cap_inv * (2 rx + 2 ry + rz) < 1.
  const size_t cells = size_t(p.rows) * p.cols;

  Rng rng(ctx.seed);
  std::vector<float> temp(cells), power(cells);
  for (auto& v : temp) v = rng.uniform(320.0f, 340.0f);
  for (auto& v : power) v = rng.uniform(0.0f, 0.5f);

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k = dev.kernel(mod, "hotspot_step");
  runtime::DevPtr buf[2] = {dev.malloc(cells * 4), dev.malloc(cells * 4)};
  runtime::DevPtr d_power = dev.malloc(cells * 4);
  dev.memcpy_to_device(buf[0], temp.data(), cells * 4);
  dev.memcpy_to_device(d_power, power.data(), cells * 4);
  const uint32_t gx = uint32_t((p.cols + 15) / 16), gy = uint32_t((p.rows + 15) / 16);
  for (int s = 0; s < steps; ++s) {
    runtime::DevPtr src = buf[s % 2], dst = buf[(s + 1) % 2];
    void* args[] = {&src, &d_power, &dst, &p.rows, &p.cols, &p.cap_inv, &p.rx_inv, &p.ry_inv, &p.rz_inv, &p.ambient};
    dev.launch(k, {gx, gy, 1}, {16, 16, 1}, 0, args);
  }
  dev.synchronize();
  std::vector<float> got(cells);
  dev.memcpy_to_host(got.data(), buf[steps % 2], cells * 4);
  for (auto b : {buf[0], buf[1], d_power}) dev.free(b);
  ctx.log << "hotspot: " << p.rows << "x" << p.cols << " steps=" << steps << "\n";

  std::vector<float> want = temp, next(cells);
  for (int s = 0; s < steps; ++s) {
    hotspot_ref::step(p, want, power, next);
    want.swap(next);
  }
  // The reference repeats the kernel's operations and roundings, so results
  // should agree to the bit; 1e-6 relative (about 8 ulp at these
  // temperatures) only leaves room for a last-bit difference per step.
  std::string msg;
  bool ok = compare_floats(got.data(), want.data(), cells, 1e-6, 0.0, msg) < 0;
  return {ok, "temperatures after " + std::to_string(steps) + " steps: " + msg};
}

}  // namespace

RELGPU_WORKLOAD(hotspot, "thermal stencil: shared-memory tiles with halos, __syncthreads, f32, several steps",
                run_hotspot);

}  // namespace relgpu::wl
