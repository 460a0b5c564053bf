// Atomic operations, 30 CTAs x 256 threads (all SMs), 8 atomics per thread.
//   atom_same_addr : every thread adds to one global word (all 61440 atomics
//                    serialize at one L2 slice's atomic unit)
//   atom_distinct  : every thread adds to its own word (coalesced, one line
//                    per warp instruction, spread over all partitions)
//   atom_shared    : shared-memory atomics, 2 lanes per address, 32 per
//                    thread, then one plain store per bin
// The global ones ignore the returned value (nvcc 13 still emits
// atom.global.add.u32, into an unused register).
#define VAL_PROG "atomics"
#include <vector>

#include "val.h"

#define ATOM_ROUNDS 8
#define SHARED_BINS 16
#define SHARED_ROUNDS 32

// Same address: 8 rounds of atomicAdd(counter, (t & 7) + 1) by every thread.
extern "C" __global__ void atom_same_addr(unsigned* counter) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < ATOM_ROUNDS; ++r) atomicAdd(counter, (t & 7u) + 1u);
}

// Distinct addresses: 8 rounds of atomicAdd(a[t], r + 1), lane-consecutive words.
extern "C" __global__ void atom_distinct(unsigned* a) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int r = 0; r < ATOM_ROUNDS; ++r) atomicAdd(&a[t], unsigned(r) + 1u);
}

// Shared-memory atomics: 16 bins, lane l adds to bin (l + r) % 16 in round r,
// so each warp instruction has 2 lanes on every bin; then bins go to global.
extern "C" __global__ void atom_shared(unsigned* out) {
  __shared__ unsigned bins[SHARED_BINS];
  if (threadIdx.x < SHARED_BINS) bins[threadIdx.x] = 0;
  __syncthreads();
  for (int r = 0; r < SHARED_ROUNDS; ++r) atomicAdd(&bins[(threadIdx.x + r) % SHARED_BINS], threadIdx.x + 1u);
  __syncthreads();
  if (threadIdx.x < SHARED_BINS) out[blockIdx.x * SHARED_BINS + threadIdx.x] = bins[threadIdx.x];
}

int main() {
  const int grid = 30, block = 256, nt = grid * block;
  unsigned *d_counter, *d_a, *d_bins;
  CHECK(cudaMalloc(&d_counter, 4));
  CHECK(cudaMalloc(&d_a, nt * 4));
  CHECK(cudaMalloc(&d_bins, grid * SHARED_BINS * 4));

  // 1. atom_same_addr
  CHECK(cudaMemset(d_counter, 0, 4));
  atom_same_addr<<<grid, block>>>(d_counter);
  CHECK_LAUNCH();
  {
    unsigned got = 0, want = 0;
    CHECK(cudaMemcpy(&got, d_counter, 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < nt; ++t) want += ATOM_ROUNDS * ((unsigned(t) & 7u) + 1u);
    val::exact("atom_same_addr", &got, &want, 1);
  }

  // 2. atom_distinct: a[t] starts at t.
  {
    std::vector<unsigned> a(nt), got(nt), want(nt);
    for (int t = 0; t < nt; ++t) a[t] = unsigned(t);
    CHECK(cudaMemcpy(d_a, a.data(), nt * 4, cudaMemcpyHostToDevice));
    atom_distinct<<<grid, block>>>(d_a);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), d_a, nt * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < nt; ++t) want[t] = unsigned(t) + ATOM_ROUNDS * (ATOM_ROUNDS + 1) / 2;
    val::exact("atom_distinct", got.data(), want.data(), nt);
  }

  // 3. atom_shared
  {
    atom_shared<<<grid, block>>>(d_bins);
    CHECK_LAUNCH();
    std::vector<unsigned> got(grid * SHARED_BINS), want(grid * SHARED_BINS, 0);
    CHECK(cudaMemcpy(got.data(), d_bins, got.size() * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < grid; ++b)
      for (int x = 0; x < block; ++x)
        for (int r = 0; r < SHARED_ROUNDS; ++r) want[b * SHARED_BINS + (x + r) % SHARED_BINS] += unsigned(x) + 1u;
    val::exact("atom_shared", got.data(), want.data(), got.size());
  }
  for (void* p : {(void*)d_counter, (void*)d_a, (void*)d_bins}) CHECK(cudaFree(p));
  return val::finish();
}
