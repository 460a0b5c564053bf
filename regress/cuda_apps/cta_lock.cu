// A spin lock across CTAs (the classic atomicCAS / __threadfence /
// atomicExch idiom): one thread per warp of every CTA takes the lock and
// increments two plain counters inside it. The counters must add up exactly.
#include "check.h"

__device__ void lock(int* l) {
  while (atomicCAS(l, 0, 1) != 0) {
  }
  __threadfence();  // acquire: read the counters only after taking the lock
}

__device__ void unlock(int* l) {
  __threadfence();  // release: the counters before the lock is free
  atomicExch(l, 0);
}

__global__ void count(int* l, int* counters, int rounds) {
  if (threadIdx.x % 32 != 0) return;  // warps contend, not lanes of one warp
  for (int r = 0; r < rounds; ++r) {
    lock(l);
    counters[0] += 1;
    counters[1] += int(blockIdx.x);
    unlock(l);
  }
}

int main() {
  const int ctas = 24, threads = 64, rounds = 10, warps = ctas * threads / 32;
  int *l, *c;
  CHECK(cudaMalloc(&l, sizeof(int)));
  CHECK(cudaMalloc(&c, 2 * sizeof(int)));
  CHECK(cudaMemset(l, 0, sizeof(int)));
  CHECK(cudaMemset(c, 0, 2 * sizeof(int)));
  count<<<ctas, threads>>>(l, c, rounds);
  CHECK(cudaDeviceSynchronize());
  int h[2];
  CHECK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT(h[0] == warps * rounds, "counter %d, expected %d", h[0], warps * rounds);
  EXPECT(h[1] == rounds * (threads / 32) * ctas * (ctas - 1) / 2, "weighted counter %d", h[1]);
  std::printf("cta_lock: PASS (%d warps x %d rounds)\n", warps, rounds);
  return 0;
}
