// CPU side of kmeans.cu: the test points and the nearest-centroid search in
// the kernel's arithmetic; shared by the workload's driver (kmeans.cpp) and
// its validation program (regress/validation/wl_kmeans.cu).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kmeans_ref {

struct Points {
  int n, f;
  std::vector<float> x;  // feature-major: x[feature * n + point]
};

// Points scattered around k hidden centres (coordinates in [3, 13)), each a
// centre plus [-2.5, 2.5) per feature: wide enough that clusters overlap and
// memberships keep moving for a few iterations. All coordinates are >= 0.5.
// Drawn in this order: the centres, then per point its centre and features.
// Rng: any generator with below(n) and uniform(lo, hi).
template <class Rng>
Points make_points(Rng& rng, int n, int f, int k) {
  Points p{n, f, {}};
  std::vector<float> centre(size_t(k) * f);
  for (auto& v : centre) v = rng.uniform(3.0f, 13.0f);
  p.x.resize(size_t(n) * f);
  for (int i = 0; i < n; ++i) {
    int c = int(rng.below(k));
    for (int j = 0; j < f; ++j) p.x[size_t(j) * n + i] = centre[size_t(c) * f + j] + rng.uniform(-2.5f, 2.5f);
  }
  return p;
}

// Initial centroids: the first k points.
inline std::vector<float> first_centroids(const Points& p, int k) {
  std::vector<float> cen(size_t(k) * p.f);
  for (int c = 0; c < k; ++c)
    for (int f = 0; f < p.f; ++f) cen[size_t(c) * p.f + f] = p.x[size_t(f) * p.n + c];
  return cen;
}

// Squared distance in the kernel's arithmetic: diff = x - c and
// dist = fma(diff, diff, dist) over the features in order (nvcc contracts
// dist += diff * diff).
inline float distance(const Points& p, int i, const std::vector<float>& cen, int c) {
  float dist = 0.0f;
  for (int f = 0; f < p.f; ++f) {
    float diff = p.x[size_t(f) * p.n + i] - cen[size_t(c) * p.f + f];
    dist = std::fma(diff, diff, dist);
  }
  return dist;
}

// Nearest centroid; strict < keeps the lowest index on ties.
inline int nearest(const Points& p, int i, const std::vector<float>& cen, int k) {
  float best = 3.402823466e38f;
  int best_c = 0;
  for (int c = 0; c < k; ++c) {
    const float dist = distance(p, i, cen, c);
    if (dist < best) {
      best = dist;
      best_c = c;
    }
  }
  return best_c;
}

// What kmeans_assign and kmeans_accumulate should give for memberships
// `member` (previous pass: `prev`): the change count, per-cluster counts and
// per-cluster sums (in double, rounded once to float).
inline void tally(const Points& p, const std::vector<int32_t>& member, const std::vector<int32_t>& prev, int k,
                  int32_t& changed, std::vector<int32_t>& counts, std::vector<float>& sums) {
  std::vector<double> sum64(size_t(k) * p.f, 0.0);
  changed = 0;
  counts.assign(k, 0);
  for (int i = 0; i < p.n; ++i) {
    const int m = member[i];
    changed += m != prev[i];
    ++counts[m];
    for (int f = 0; f < p.f; ++f) sum64[size_t(m) * p.f + f] += p.x[size_t(f) * p.n + i];
  }
  sums.resize(sum64.size());
  for (size_t t = 0; t < sum64.size(); ++t) sums[t] = float(sum64[t]);
}

}  // namespace kmeans_ref
