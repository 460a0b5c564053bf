// Latency hiding versus occupancy: the same memory-latency-bound kernel and
// the same work (120 CTAs x 128 threads, 6 dependent coalesced loads per
// thread) in four kernels with 40, 20, 10 and 5 KB of static shared memory
// per CTA, which allows 1, 2, 4 and 8 resident CTAs per SM (48 KB shared
// memory, at most 8 CTAs): 4 to 32 warps per SM to hide the DRAM latency.
// Static, not dynamic, shared memory: GPGPU-Sim 4.0 leaves dynamic shared
// memory out of its occupancy ("CTA/core = 8, limited by: cta_limit" for a
// 40 KB launch), so only static arrays limit both simulators alike. Each
// launch reads its own 360 KB slice, so every launch starts with its data
// out of L2.
#define VAL_PROG "occupancy"
#include <vector>

#include "val.h"

#define OCC_STEPS 6

// Dependent coalesced loads: the next index adds (v >> 31), which is 0 for
// the data used (every value < 2^31) but unknown to the compiler, so each
// load waits for the previous one. The shared array limits how many CTAs
// fit on an SM (its first words pass the result through, so it is kept).
#define OCC_PROBE(NAME, KB)                                                             \
  extern "C" __global__ void NAME(const unsigned* a, unsigned* out) {                \
    __shared__ unsigned occ_pad[(KB) * 256];                                            \
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x; \
    unsigned j = t, s = 0;                                                              \
    for (int k = 0; k < OCC_STEPS; ++k) {                                               \
      const unsigned v = a[j];                                                          \
      s += v;                                                                           \
      j += T + (v >> 31);                                                               \
    }                                                                                   \
    occ_pad[threadIdx.x] = s;                                                           \
    __syncthreads();                                                                    \
    out[t] = occ_pad[threadIdx.x];                                                      \
  }
OCC_PROBE(occ_probe_40k, 40)
OCC_PROBE(occ_probe_20k, 20)
OCC_PROBE(occ_probe_10k, 10)
OCC_PROBE(occ_probe_5k, 5)

int main() {
  const int grid = 120, block = 128;
  const unsigned T = grid * block;
  const size_t slice = size_t(T) * OCC_STEPS;  // words per launch
  const int shmem_kb[4] = {40, 20, 10, 5};
  void (*const probe[4])(const unsigned*, unsigned*) = {occ_probe_40k, occ_probe_20k, occ_probe_10k, occ_probe_5k};
  val::Rng rng(9);
  std::vector<unsigned> h(4 * slice), got(T), want(T);
  for (auto& v : h) v = uint32_t(rng.next()) >> 1;  // < 2^31
  unsigned *d_a, *d_out;
  CHECK(cudaMalloc(&d_a, h.size() * 4));
  CHECK(cudaMalloc(&d_out, T * 4));
  CHECK(cudaMemcpy(d_a, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  for (int l = 0; l < 4; ++l) {
    probe[l]<<<grid, block>>>(d_a + l * slice, d_out);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), d_out, T * 4, cudaMemcpyDeviceToHost));
    for (unsigned t = 0; t < T; ++t) {
      unsigned s = 0;
      for (int k = 0; k < OCC_STEPS; ++k) s += h[l * slice + size_t(k) * T + t];
      want[t] = s;
    }
    char name[32];
    std::snprintf(name, sizeof name, "occ_probe_%dk", shmem_kb[l]);
    val::exact(name, got.data(), want.data(), T);
  }
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_out));
  return val::finish();
}
