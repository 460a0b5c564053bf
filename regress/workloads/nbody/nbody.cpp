// nbody: all-pairs gravity with shared-memory tiling (compute-bound, fma and
// rsqrt heavy), followed by a semi-implicit Euler step; repeated for a few
// steps. Checks positions, velocities and the last accelerations.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "nbody_ref.h"
#include "workload.h"

namespace {

using namespace relgpu;
using runtime::DevPtr;
using runtime::Dim3;

constexpr int kTile = 64;  // NBODY_TILE in nbody.cu

struct F4 {
  float x, y, z, w;
};
static_assert(sizeof(F4) == 16, "F4 must match float4");
const float* fl(const std::vector<F4>& v) { return reinterpret_cast<const float*>(v.data()); }

wl::Result run(wl::Context& ctx) {
  const bool small = ctx.size == wl::Size::small;
  // small: 70 bodies (one full tile and a partial one), ~2.8e5 thread
  // instructions; default: 1536 bodies, ~7e7.
  int n = small ? 70 : 1536;  // not const: launch args point at it
  const int steps = 2;
  float eps2 = 0.01f, dt = 1e-3f;

  wl::Rng rng(ctx.seed);
  std::vector<F4> pos(n), vel(n), acc(n);
  nbody_ref::make_bodies(rng, pos, vel);
  ctx.log << "nbody: " << n << " bodies, " << steps << " steps\n";

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k_accel = dev.kernel(mod, "nbody_accel");
  const auto& k_step = dev.kernel(mod, "nbody_integrate");
  const size_t bytes = sizeof(F4) * n;
  DevPtr d_pos = dev.malloc(bytes), d_vel = dev.malloc(bytes), d_acc = dev.malloc(bytes);
  dev.memcpy_to_device(d_pos, pos.data(), bytes);
  dev.memcpy_to_device(d_vel, vel.data(), bytes);

  const Dim3 accel_grid{uint32_t((n + kTile - 1) / kTile)}, accel_block{uint32_t(kTile)};
  const Dim3 step_grid{small ? 1u : 4u}, step_block{128};  // grid-stride: fewer threads than bodies
  for (int s = 0; s < steps; ++s) {
    void* a_args[] = {&d_pos, &d_acc, &n, &eps2};
    dev.launch(k_accel, accel_grid, accel_block, 0, a_args);
    void* s_args[] = {&d_pos, &d_vel, &d_acc, &n, &dt};
    dev.launch(k_step, step_grid, step_block, 0, s_args);
  }
  dev.synchronize();
  std::vector<F4> g_pos(n), g_vel(n), g_acc(n);
  dev.memcpy_to_host(g_pos.data(), d_pos, bytes);
  dev.memcpy_to_host(g_vel.data(), d_vel, bytes);
  dev.memcpy_to_host(g_acc.data(), d_acc, bytes);
  dev.free(d_pos);
  dev.free(d_vel);
  dev.free(d_acc);

  std::vector<float> mag(n);
  for (int s = 0; s < steps; ++s) {
    nbody_ref::accel(pos, acc, mag, eps2);
    nbody_ref::integrate(pos, vel, acc, dt);
  }

  // Tolerances. rsqrt.approx.f32 has a relative error below 2^-22.9, so each
  // term s*d (s holds rsqrt cubed) is off by at most ~4e-7 of itself and the
  // sum by ~4e-7 of sum|terms| (mag). The acceleration check allows
  // 2e-6 * max(mag); an rsqrt biased by a full 2 ulp in every call uses
  // under 10% of it, a 1e-4 error fails. Velocity and position only see that
  // error times dt (and dt^2), so they are checked far tighter.
  const float max_mag = *std::max_element(mag.begin(), mag.end());
  const double acc_abs = 2e-6 * max_mag;
  const double vel_abs = steps * dt * acc_abs + 1e-7;
  const double pos_abs = steps * dt * vel_abs + 1e-7;
  std::string msg;
  const size_t nf = size_t(n) * 4;
  if (wl::compare_floats(fl(g_acc), fl(acc), nf, 1e-5, acc_abs, msg) >= 0) return {false, "acc: " + msg};
  const std::string acc_msg = msg;
  if (wl::compare_floats(fl(g_vel), fl(vel), nf, 1e-6, vel_abs, msg) >= 0) return {false, "vel: " + msg};
  if (wl::compare_floats(fl(g_pos), fl(pos), nf, 1e-6, pos_abs, msg) >= 0) return {false, "pos: " + msg};
  return {true, "nbody " + std::to_string(n) + " bodies x " + std::to_string(steps) + " steps: acc " + acc_msg + "; pos " + msg};
}

}  // namespace

RELGPU_WORKLOAD(nbody, "all-pairs n-body gravity, shared-memory tiles, rsqrt/fma (compute-bound, f32)", run);
