// Load-to-use latency of the memory hierarchy by pointer chasing: each
// element holds the address of the next one, so one thread issues one load
// at a time (p = *p) and the kernel time is steps x latency.
//   lat_l1   : 4 KB ring (32 lines of 128 B) that stays in the 16 KB L1D
//   lat_l2   : 256 KB ring, stride 128 B, 2048 lines (larger than L1D,
//              smaller than the 768 KB L2), warmed into L2 by lat_l2_warm
//   lat_dram : 2048 random lines of an 8 MB array (larger than L2), each
//              visited once, so every load misses L1D and L2
// The chains hold device addresses written by the host, so each step is a
// single ld.global.u64 whose result is the next address.
#define VAL_PROG "latency"
#include <algorithm>
#include <vector>

#include "val.h"

typedef unsigned long long u64;

// Follows the chain for `steps` loads (unrolled so that the loop overhead is
// 1 add + 1 compare + 1 branch per 8 loads) and returns the final address.
__device__ __forceinline__ u64 chase(u64 p, int steps) {
#pragma unroll 8
  for (int i = 0; i < steps; ++i) p = *reinterpret_cast<const u64*>(p);
  return p;
}

// L1D hit latency: one warp loads all 32 lines of the ring with one
// instruction (warming L1D in one memory round trip); lane 0 then chases,
// starting from the value its own warm-up load returned.
extern "C" __global__ void lat_l1(const u64* ring, u64* out, int steps) {
  const u64 first = ring[threadIdx.x * 16];  // 16 x 8 B = one 128-B line per lane
  if (threadIdx.x != 0) return;
  out[0] = chase(first, steps - 1);
}

// Streams the 256 KB ring once with all SMs so that lat_l2 finds it in L2
// (not a measurement of its own; its sum keeps the loads).
extern "C" __global__ void lat_l2_warm(const u64* ring, size_t n, u64* out) {
  u64 s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    s += ring[i];
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// L2 hit latency: one thread, 4096 loads through the 2048-line ring (two
// laps); the ring is 16x the L1D, so every load misses L1D and hits L2.
extern "C" __global__ void lat_l2(const u64* ring, u64* out, int steps) {
  out[0] = chase(reinterpret_cast<u64>(ring), steps);
}

// DRAM latency: one thread, 2048 loads to distinct random lines of an 8 MB
// array: every load misses L1D and L2 (and mostly opens a new DRAM row).
extern "C" __global__ void lat_dram(const u64* start, u64* out, int steps) {
  out[0] = chase(reinterpret_cast<u64>(start), steps);
}

int main() {
  u64* d_out;
  CHECK(cudaMalloc(&d_out, 15 * 256 * 8));
  u64 got = 0;

  // 1. lat_l1: ring of 32 lines, element k (first word of line k) -> line k+1.
  {
    const int lines = 32, steps = 4096;
    u64* d_ring;
    CHECK(cudaMalloc(&d_ring, lines * 128));
    const u64 base = reinterpret_cast<u64>(d_ring);
    std::vector<u64> h(lines * 16, 0);
    for (int k = 0; k < lines; ++k) h[k * 16] = base + u64((k + 1) % lines) * 128;
    CHECK(cudaMemcpy(d_ring, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
    lat_l1<<<1, 32>>>(d_ring, d_out, steps);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&got, d_out, 8, cudaMemcpyDeviceToHost));
    // `steps` loads in all (the warm-up load is the first): line steps % 32.
    const u64 want = base + u64(steps % lines) * 128;
    val::exact("lat_l1", &got, &want, 1);
    CHECK(cudaFree(d_ring));
  }

  // 2-3. lat_l2_warm, lat_l2: 2048 lines of 128 B in order, line k -> k+1.
  {
    const int lines = 2048, steps = 4096;
    const size_t words = size_t(lines) * 16;
    u64* d_ring;
    CHECK(cudaMalloc(&d_ring, words * 8));
    const u64 base = reinterpret_cast<u64>(d_ring);
    std::vector<u64> h(words, 0);
    for (int k = 0; k < lines; ++k) h[size_t(k) * 16] = base + u64((k + 1) % lines) * 128;
    CHECK(cudaMemcpy(d_ring, h.data(), words * 8, cudaMemcpyHostToDevice));
    lat_l2_warm<<<15, 256>>>(d_ring, words, d_out);
    CHECK_LAUNCH();
    std::vector<u64> sums(15 * 256), want_sums(15 * 256, 0);
    CHECK(cudaMemcpy(sums.data(), d_out, sums.size() * 8, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < words; ++i) want_sums[i % want_sums.size()] += h[i];
    val::exact("lat_l2_warm", sums.data(), want_sums.data(), sums.size());
    lat_l2<<<1, 1>>>(d_ring, d_out, steps);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&got, d_out, 8, cudaMemcpyDeviceToHost));
    const u64 want = base + u64(steps % lines) * 128;
    val::exact("lat_l2", &got, &want, 1);
    CHECK(cudaFree(d_ring));
  }

  // 4. lat_dram: a random cycle through 2048 distinct lines of 8 MB (the
  // first word of each line), in a random order.
  {
    const int lines = 65536, visit = 2048, steps = 2048;
    u64* d_arr;
    CHECK(cudaMalloc(&d_arr, size_t(lines) * 128));
    const u64 base = reinterpret_cast<u64>(d_arr);
    std::vector<int> perm(lines);
    for (int i = 0; i < lines; ++i) perm[i] = i;
    val::Rng rng(4);
    for (int i = lines - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(uint32_t(i + 1))]);
    std::vector<u64> h(size_t(lines) * 16, 0);
    for (int k = 0; k < visit; ++k) h[size_t(perm[k]) * 16] = base + u64(perm[(k + 1) % visit]) * 128;
    CHECK(cudaMemcpy(d_arr, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
    lat_dram<<<1, 1>>>(reinterpret_cast<const u64*>(base + u64(perm[0]) * 128), d_out, steps);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(&got, d_out, 8, cudaMemcpyDeviceToHost));
    const u64 want = base + u64(perm[steps % visit]) * 128;
    val::exact("lat_dram", &got, &want, 1);
    CHECK(cudaFree(d_arr));
  }
  CHECK(cudaFree(d_out));
  return val::finish();
}
