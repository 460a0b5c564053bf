// regress/workloads/kmeans as a standalone CUDA program: the exact kernels
// (nearest centroid from __constant__ memory; shared then global atomic
// accumulation), launched as the workload's driver launches them (assign,
// accumulate per Lloyd iteration), at a validation size.
#define VAL_PROG "wl_kmeans"
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "val.h"
#include "../workloads/kmeans/kmeans.cu"

struct Points {
  int n, f;
  std::vector<float> x;  // feature-major: x[feature * n + point]
};

// Squared distance in the kernel's arithmetic: diff = x - c and
// dist = fma(diff, diff, dist) over the features in order (nvcc contracts
// dist += diff * diff).
static float distance(const Points& p, int i, const std::vector<float>& cen, int c) {
  float dist = 0.0f;
  for (int f = 0; f < p.f; ++f) {
    float diff = p.x[size_t(f) * p.n + i] - cen[size_t(c) * p.f + f];
    dist = std::fma(diff, diff, dist);
  }
  return dist;
}

// Nearest centroid; strict < keeps the lowest index on ties.
static int nearest(const Points& p, int i, const std::vector<float>& cen, int k) {
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

int main() {
  // 1920 points (15 blocks of 128: one per SM), 8 features, 8 clusters,
  // 2 Lloyd iterations (4 launches).
  Points p{1920, 8, {}};
  int k = 8;
  const int max_iter = 2;
  // Points scattered around k hidden centres, wide enough that clusters
  // overlap and memberships keep moving; all coordinates positive.
  val::Rng rng(19);
  std::vector<float> centre(size_t(k) * p.f);
  for (auto& v : centre) v = rng.uniform(3.0f, 13.0f);
  p.x.resize(size_t(p.n) * p.f);
  for (int i = 0; i < p.n; ++i) {
    int c = int(rng.below(k));
    for (int f = 0; f < p.f; ++f) p.x[size_t(f) * p.n + i] = centre[size_t(c) * p.f + f] + rng.uniform(-2.5f, 2.5f);
  }
  // Initial centroids: the first k points.
  const size_t ncen = size_t(k) * p.f;
  std::vector<float> cen(ncen);
  for (int c = 0; c < k; ++c)
    for (int f = 0; f < p.f; ++f) cen[size_t(c) * p.f + f] = p.x[size_t(f) * p.n + c];

  const size_t xbytes = p.x.size() * 4;
  float *d_x, *d_sums;
  int *d_member, *d_changed, *d_counts;
  CHECK(cudaMalloc(&d_x, xbytes));
  CHECK(cudaMalloc(&d_member, size_t(p.n) * 4));
  CHECK(cudaMalloc(&d_changed, 4));
  CHECK(cudaMalloc(&d_sums, ncen * 4));
  CHECK(cudaMalloc(&d_counts, size_t(k) * 4));
  CHECK(cudaMemcpy(d_x, p.x.data(), xbytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_member, 0xff, size_t(p.n) * 4));  // -1: every point changes on the first pass

  const unsigned block = 128, grid = unsigned((p.n + block - 1) / block);
  const size_t acc_shmem = (ncen + size_t(k)) * 4;
  std::vector<int32_t> member(p.n), prev(p.n, -1), counts(k);
  std::vector<float> sums(ncen), want_sums(ncen);
  int32_t changed = -1;
  for (int iter = 0; iter < max_iter && changed != 0 && val::failures() == 0; ++iter) {
    CHECK(cudaMemcpyToSymbol(c_centroids, cen.data(), ncen * 4));
    CHECK(cudaMemset(d_changed, 0, 4));
    kmeans_assign<<<grid, block>>>(d_x, p.n, p.f, k, d_member, d_changed);
    CHECK_LAUNCH();
    CHECK(cudaMemset(d_sums, 0, ncen * 4));
    CHECK(cudaMemset(d_counts, 0, size_t(k) * 4));
    kmeans_accumulate<<<grid, block, acc_shmem>>>(d_x, p.n, p.f, k, d_member, d_sums, d_counts);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&changed, d_changed, 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(member.data(), d_member, size_t(p.n) * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums.data(), d_sums, ncen * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(counts.data(), d_counts, size_t(k) * 4, cudaMemcpyDeviceToHost));

    // Each membership must be the reference's nearest centroid, or one whose
    // distance is within val::fma_slack of the nearest's (a near-tie that a
    // simulator with unfused fma may break the other way; relgpu matches the
    // reference exactly). The change count, cluster counts and sums are then
    // checked against the device's own memberships.
    std::vector<int32_t> want_member(p.n), want_counts(k, 0);
    std::vector<double> sum64(ncen, 0.0);
    int32_t want_changed = 0;
    for (int i = 0; i < p.n; ++i) {
      const int c = nearest(p, i, cen, k), got_c = member[i];
      want_member[i] = c;
      if (got_c != c && got_c >= 0 && got_c < k) {
        const float best = distance(p, i, cen, c);
        if (distance(p, i, cen, got_c) <= best + val::fma_slack(best)) want_member[i] = got_c;
      }
      const int m = want_member[i];
      want_changed += m != prev[i];
      ++want_counts[m];
      for (int f = 0; f < p.f; ++f) sum64[size_t(m) * p.f + f] += p.x[size_t(f) * p.n + i];
    }
    for (size_t t = 0; t < ncen; ++t) want_sums[t] = float(sum64[t]);
    const std::string it = "iteration " + std::to_string(iter) + ": ";
    val::exact((it + "membership").c_str(), member.data(), want_member.data(), size_t(p.n));
    val::exact((it + "changed count").c_str(), &changed, &want_changed, 1);
    val::exact((it + "cluster counts").c_str(), counts.data(), want_counts.data(), size_t(k));
    // Float sums in an unspecified order (atomics): each block adds at most
    // 128 points, then at most 15 block totals are added; for positive terms
    // the rounding error is below (128 + 15) * 2^-24 ~ 8.5e-6 of the sum,
    // whatever the order, so 3e-5 relative leaves 3.5x margin.
    val::close((it + "cluster sums").c_str(), sums.data(), want_sums.data(), ncen, 3e-5, 1e-6);
    for (int c = 0; c < k; ++c)
      if (counts[c] != 0)
        for (int f = 0; f < p.f; ++f) cen[size_t(c) * p.f + f] = sums[size_t(c) * p.f + f] / float(counts[c]);
    prev = member;
  }
  for (void* q : {(void*)d_x, (void*)d_member, (void*)d_changed, (void*)d_sums, (void*)d_counts}) CHECK(cudaFree(q));
  return val::finish();
}
