// One CTA waits for all the others: CTA 0 spins on a counter that every other
// CTA increments. On a GPU the CTAs are resident together and the wait ends;
// relgpu's functional mode must run them together too (it used to run CTA 0
// to its runaway limit before starting CTA 1).
#include "check.h"

__global__ void wait_for_others(int* counter, int* seen) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    while (atomicAdd(counter, 0) < int(gridDim.x) - 1) {
    }
    *seen = atomicAdd(counter, 0);
  } else {
    atomicAdd(counter, 1);
  }
}

int main() {
  const int ctas = 30;
  int *counter, *seen, h = 0;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMalloc(&seen, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  wait_for_others<<<ctas, 64>>>(counter, seen);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&h, seen, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT(h == ctas - 1, "CTA 0 saw %d, expected %d", h, ctas - 1);
  std::printf("cta_wait: PASS (%d CTAs)\n", ctas);
  return 0;
}
