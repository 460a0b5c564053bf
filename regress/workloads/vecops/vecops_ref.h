// CPU side of vecops.cu: the test vectors and the three kernels' arithmetic;
// shared by the workload's driver (vecops.cpp) and its validation program
// (regress/validation/wl_vecops.cu).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace vecops_ref {

// x and y in [-1, 1), z in [-2, 2); drawn in that order. Rng: any generator
// with uniform(lo, hi).
template <class Rng>
void make_vectors(Rng& rng, std::vector<float>& x, std::vector<float>& y, std::vector<float>& z) {
  for (auto& v : x) v = rng.uniform(-1.f, 1.f);
  for (auto& v : y) v = rng.uniform(-1.f, 1.f);
  for (auto& v : z) v = rng.uniform(-2.f, 2.f);
}

// Largest sums of |terms| of y and of w (for a tolerance).
struct Mags {
  double y = 0, w = 0;
};

// saxpy, triad4 and clamp_scale in the kernels' order: y = fma(a, x, y);
// w = fma(s, y, x) * z; w = clamp(w, lo, hi) * scale.
inline Mags compute(float a, float s, float lo, float hi, float scale, const std::vector<float>& x,
                    std::vector<float>& y, const std::vector<float>& z, std::vector<float>& w) {
  const size_t n = x.size();
  Mags m;
  for (size_t i = 0; i < n; ++i) {
    m.y = std::max(m.y, double(std::fabs(a * x[i]) + std::fabs(y[i])));
    y[i] = std::fma(a, x[i], y[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    m.w = std::max(m.w, double((std::fabs(s * y[i]) + std::fabs(x[i])) * std::fabs(z[i]) * scale));
    w[i] = std::fma(s, y[i], x[i]) * z[i];
  }
  for (size_t i = 0; i < n; ++i) w[i] = std::min(std::max(w[i], lo), hi) * scale;
  return m;
}

}  // namespace vecops_ref
