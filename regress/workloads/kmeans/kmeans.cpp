// Host driver for kmeans.cu: Lloyd iterations driven by the device results.
// Each iteration is checked on its own inputs:
// - assignment: memberships and the change count must equal a CPU
//   assignment from the same centroids, exactly;
// - update: the device's per-cluster counts must be exact and its sums
//   (float atomics, order not fixed) within a tolerance of double sums.
// The host then divides sums by counts to get the next centroids.
#include <cstdint>
#include <string>
#include <vector>

#include "kmeans_ref.h"
#include "workload.h"

namespace relgpu::wl {
namespace {

constexpr size_t kMaxCentroidFloats = 2048;  // KMEANS_MAX_CENTROID_FLOATS in kmeans.cu

Result run_kmeans(Context& ctx) {
  const bool small = ctx.size == Size::small;
  int k = small ? 4 : 8;
  const int max_iter = small ? 3 : 6;

  // All coordinates are positive (>= 0.5), which bounds the sums' rounding below.
  Rng rng(ctx.seed);
  kmeans_ref::Points p = kmeans_ref::make_points(rng, small ? 320 : 20000, small ? 4 : 8, k);
  const size_t ncen = size_t(k) * p.f;
  std::vector<float> cen = kmeans_ref::first_centroids(p, k);

  auto& dev = ctx.dev;
  const auto& mod = dev.load_module(ctx.ptx, ctx.ptx_file, &ctx.ptxas);
  const auto& k_assign = dev.kernel(mod, "kmeans_assign");
  const auto& k_acc = dev.kernel(mod, "kmeans_accumulate");
  size_t sym_size = 0;
  runtime::DevPtr d_cen = dev.symbol(mod, "c_centroids", &sym_size);
  if (sym_size < kMaxCentroidFloats * 4 || ncen > kMaxCentroidFloats)
    return {false, "kmeans: c_centroids holds " + std::to_string(sym_size / 4) + " floats, need " +
                       std::to_string(ncen)};
  const size_t xbytes = p.x.size() * 4;
  runtime::DevPtr d_x = dev.malloc(xbytes), d_member = dev.malloc(size_t(p.n) * 4), d_changed = dev.malloc(4),
                  d_sums = dev.malloc(ncen * 4), d_counts = dev.malloc(size_t(k) * 4);
  dev.memcpy_to_device(d_x, p.x.data(), xbytes);
  dev.memset(d_member, 0xff, size_t(p.n) * 4);  // -1: every point changes on the first pass

  const uint32_t block = 128, grid = uint32_t((p.n + block - 1) / block);
  const size_t acc_shmem = (ncen + size_t(k)) * 4;
  std::vector<int32_t> member(p.n), prev(p.n, -1), counts(k);
  std::vector<float> sums(ncen), want_sums(ncen);
  std::string fail, sums_msg;
  int iter = 0;
  int32_t changed = -1;
  while (iter < max_iter && changed != 0 && fail.empty()) {
    const std::string it = "iteration " + std::to_string(iter) + ": ";
    dev.memcpy_to_device(d_cen, cen.data(), ncen * 4);
    dev.memset(d_changed, 0, 4);
    void* a_args[] = {&d_x, &p.n, &p.f, &k, &d_member, &d_changed};
    dev.launch(k_assign, {grid, 1, 1}, {block, 1, 1}, 0, a_args);
    dev.memset(d_sums, 0, ncen * 4);
    dev.memset(d_counts, 0, size_t(k) * 4);
    void* c_args[] = {&d_x, &p.n, &p.f, &k, &d_member, &d_sums, &d_counts};
    dev.launch(k_acc, {grid, 1, 1}, {block, 1, 1}, acc_shmem, c_args);
    dev.memcpy_to_host(&changed, d_changed, 4);
    dev.memcpy_to_host(member.data(), d_member, size_t(p.n) * 4);
    dev.memcpy_to_host(sums.data(), d_sums, ncen * 4);
    dev.memcpy_to_host(counts.data(), d_counts, size_t(k) * 4);
    ++iter;

    std::vector<int32_t> want_member(p.n), want_counts;
    int32_t want_changed = 0;
    for (int i = 0; i < p.n; ++i) want_member[i] = kmeans_ref::nearest(p, i, cen, k);
    kmeans_ref::tally(p, want_member, prev, k, want_changed, want_counts, want_sums);
    std::string msg;
    if (compare_exact(member.data(), want_member.data(), size_t(p.n), msg) >= 0) {
      fail = it + "membership " + msg;
    } else if (changed != want_changed) {
      fail = it + "changed count " + std::to_string(changed) + ", want " + std::to_string(want_changed);
    } else if (compare_exact(counts.data(), want_counts.data(), size_t(k), msg) >= 0) {
      fail = it + "cluster count " + msg;
    } else if (compare_floats(sums.data(), want_sums.data(), ncen, 3e-5, 1e-6, sums_msg) >= 0) {
      // Float sums in an unspecified order: each block adds at most 128
      // points, then at most `grid` block totals are added. For positive
      // terms the rounding error is below (128 + grid) * 2^-24 of the sum,
      // whatever the order; 3e-5 covers that for grid <= 256 (157 here).
      fail = it + "cluster sums " + sums_msg;
    }
    for (int c = 0; c < k; ++c)
      if (counts[c] != 0)
        for (int f = 0; f < p.f; ++f) cen[size_t(c) * p.f + f] = sums[size_t(c) * p.f + f] / float(counts[c]);
    prev = member;
  }
  for (auto q : {d_x, d_member, d_changed, d_sums, d_counts}) dev.free(q);
  ctx.log << "kmeans: points=" << p.n << " features=" << p.f << " k=" << k << " iterations=" << iter << "\n";
  if (!fail.empty()) return {false, fail};
  return {true, std::to_string(iter) + " iterations (last changed " + std::to_string(changed) +
                    "): memberships and counts exact; last sums: " + sums_msg};
}

}  // namespace

RELGPU_WORKLOAD(kmeans, "k-means clustering: __constant__ centroids, nearest-centroid search, shared/global atomics",
                run_kmeans);

}  // namespace relgpu::wl
