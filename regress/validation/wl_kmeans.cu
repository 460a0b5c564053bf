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
#include "../workloads/kmeans/kmeans_ref.h"

int main() {
  // 1920 points (15 blocks of 128: one per SM), 8 features, 8 clusters,
  // 2 Lloyd iterations (4 launches).
  int k = 8;
  const int max_iter = 2;
  val::Rng rng(19);
  kmeans_ref::Points p = kmeans_ref::make_points(rng, 1920, 8, k);
  const size_t ncen = size_t(k) * p.f;
  std::vector<float> cen = kmeans_ref::first_centroids(p, k);

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
    std::vector<int32_t> want_member(p.n), want_counts;
    int32_t want_changed = 0;
    for (int i = 0; i < p.n; ++i) {
      const int c = kmeans_ref::nearest(p, i, cen, k), got_c = member[i];
      want_member[i] = c;
      if (got_c != c && got_c >= 0 && got_c < k) {
        const float best = kmeans_ref::distance(p, i, cen, c);
        if (kmeans_ref::distance(p, i, cen, got_c) <= best + val::fma_slack(best)) want_member[i] = got_c;
      }
    }
    kmeans_ref::tally(p, want_member, prev, k, want_changed, want_counts, want_sums);
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
