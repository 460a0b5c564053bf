// regress/workloads/nbody as a standalone CUDA program: the exact kernels
// (all-pairs gravity in shared-memory tiles of 64 bodies, rsqrt and fma; a
// grid-stride Euler step), launched as the workload's driver launches them
// (two steps of accel + integrate), at a validation size.
#define VAL_PROG "wl_nbody"
#include <algorithm>
#include <vector>

#include "val.h"
#include "../workloads/nbody/nbody.cu"
#include "../workloads/nbody/nbody_ref.h"

int main() {
  // 960 bodies: 15 blocks of 64 in nbody_accel (one per SM), 4 x 128 threads
  // in the grid-stride step, as the workload's default size has.
  int n = 960;
  const int steps = 2;
  float eps2 = 0.01f, dt = 1e-3f;
  val::Rng rng(19);
  std::vector<float4> pos(n), vel(n), acc(n);
  nbody_ref::make_bodies(rng, pos, vel);

  const size_t bytes = sizeof(float4) * n;
  float4 *d_pos, *d_vel, *d_acc;
  CHECK(cudaMalloc(&d_pos, bytes));
  CHECK(cudaMalloc(&d_vel, bytes));
  CHECK(cudaMalloc(&d_acc, bytes));
  CHECK(cudaMemcpy(d_pos, pos.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_vel, vel.data(), bytes, cudaMemcpyHostToDevice));
  for (int s = 0; s < steps; ++s) {
    nbody_accel<<<(n + NBODY_TILE - 1) / NBODY_TILE, NBODY_TILE>>>(d_pos, d_acc, n, eps2);
    CHECK_LAUNCH();
    nbody_integrate<<<4, 128>>>(d_pos, d_vel, d_acc, n, dt);
    CHECK_LAUNCH();
  }
  std::vector<float4> g_pos(n), g_vel(n), g_acc(n);
  CHECK(cudaMemcpy(g_pos.data(), d_pos, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_vel.data(), d_vel, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_acc.data(), d_acc, bytes, cudaMemcpyDeviceToHost));
  for (float4* p : {d_pos, d_vel, d_acc}) CHECK(cudaFree(p));

  std::vector<float> mag(n);
  for (int s = 0; s < steps; ++s) {
    nbody_ref::accel(pos, acc, mag, eps2);
    nbody_ref::integrate(pos, vel, acc, dt);
  }
  // rsqrt.approx.f32 is within 2^-22.9 relative, so each term s*d is off by
  // at most ~4e-7 of itself and the sum by ~4e-7 of sum|terms| (mag), plus an
  // unfused fma's 2^-24 a step (val.h): 2e-6 * max(mag) covers both with room,
  // a wrong term fails. Velocity and position see that error times dt (dt^2).
  const float max_mag = *std::max_element(mag.begin(), mag.end());
  const double acc_abs = 2e-6 * max_mag + val::fma_slack(max_mag);
  const double vel_abs = steps * dt * acc_abs + 1e-7;
  const double pos_abs = steps * dt * vel_abs + 1e-7;
  const size_t nf = size_t(n) * 4;
  auto fl = [](const std::vector<float4>& v) { return reinterpret_cast<const float*>(v.data()); };
  val::close("accelerations", fl(g_acc), fl(acc), nf, 1e-5, acc_abs);
  val::close("velocities", fl(g_vel), fl(vel), nf, 1e-6, vel_abs);
  val::close("positions", fl(g_pos), fl(pos), nf, 1e-6, pos_abs);
  return val::finish();
}
