// CPU reference of nbody.cu's arithmetic, in the kernels' fma order; shared by
// the workload's driver (nbody.cpp) and its validation program
// (regress/validation/wl_nbody.cu). V is any struct of four floats x, y, z, w
// (float4 on the CUDA side).
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

namespace nbody_ref {

// Positions in [-1, 1)^3 with masses 0.5..1.5 / n (total about 1), velocities
// in [-0.1, 0.1)^3; drawn in this order (x, y, z, w per body, then x, y, z).
// Rng: any generator with uniform(lo, hi).
template <class V, class Rng>
void make_bodies(Rng& rng, std::vector<V>& pos, std::vector<V>& vel) {
  const float n = float(pos.size());
  for (V& p : pos) {
    p.x = rng.uniform(-1.f, 1.f);
    p.y = rng.uniform(-1.f, 1.f);
    p.z = rng.uniform(-1.f, 1.f);
    p.w = rng.uniform(0.5f, 1.5f) / n;
  }
  for (V& v : vel) {
    v.x = rng.uniform(-0.1f, 0.1f);
    v.y = rng.uniform(-0.1f, 0.1f);
    v.z = rng.uniform(-0.1f, 0.1f);
    v.w = 0.f;
  }
}

// nbody_accel: padded tile slots add fmaf(d, 0, a) == a exactly, so they are
// skipped here. rsqrtf is an approximation on the GPU; 1/sqrt is its exact
// counterpart. mag gets the sum of |terms| per body, which bounds the error
// of the sum.
template <class V>
void accel(const std::vector<V>& pos, std::vector<V>& acc, std::vector<float>& mag, float eps2) {
  for (size_t i = 0; i < pos.size(); ++i) {
    const V me = pos[i];
    float ax = 0, ay = 0, az = 0;
    double m = 0;
    for (const V& p : pos) {
      const float dx = p.x - me.x, dy = p.y - me.y, dz = p.z - me.z;
      const float r2 = std::fma(dz, dz, std::fma(dy, dy, std::fma(dx, dx, eps2)));
      const float inv = 1.0f / std::sqrt(r2);
      const float s = p.w * (inv * inv * inv);
      ax = std::fma(dx, s, ax);
      ay = std::fma(dy, s, ay);
      az = std::fma(dz, s, az);
      m += std::fabs(double(s)) * (std::fabs(dx) + std::fabs(dy) + std::fabs(dz));
    }
    acc[i].x = ax, acc[i].y = ay, acc[i].z = az, acc[i].w = 0.f;
    mag[i] = float(m);
  }
}

// nbody_integrate: semi-implicit Euler.
template <class V>
void integrate(std::vector<V>& pos, std::vector<V>& vel, const std::vector<V>& acc, float dt) {
  for (size_t i = 0; i < pos.size(); ++i) {
    V& v = vel[i];
    V& p = pos[i];
    v.x = std::fma(acc[i].x, dt, v.x);
    v.y = std::fma(acc[i].y, dt, v.y);
    v.z = std::fma(acc[i].z, dt, v.z);
    p.x = std::fma(v.x, dt, p.x);
    p.y = std::fma(v.y, dt, p.y);
    p.z = std::fma(v.z, dt, p.z);
  }
}

}  // namespace nbody_ref
