// Runtime calls around occupancy and the cache split:
// cudaOccupancyAvailableDynamicSMemPerBlock agrees with the occupancy
// calculator, and a cache preference or carveout, which cannot change the
// modelled L1/shared split, is refused with cudaErrorNotSupported (relgpu
// says why) while the default preference is accepted.
#include "check.h"

__global__ void uses_shared(int* out) {
  extern __shared__ int buf[];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

int main() {
  size_t dyn = 0;
  CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, uses_shared, 4, 128));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, uses_shared, 128, dyn));
  EXPECT(per_sm >= 4, "%d CTAs per SM with %zu bytes each, expected at least 4", per_sm, dyn);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, uses_shared, 128, dyn + 1024));
  EXPECT(per_sm < 4, "%d CTAs per SM with %zu bytes each, expected fewer than 4", per_sm, dyn + 1024);
  size_t none = 1;  // more CTAs than can reside: an error, the output untouched (as CUDA 13 does)
  EXPECT(cudaOccupancyAvailableDynamicSMemPerBlock(&none, uses_shared, 1000, 128) == cudaErrorInvalidValue &&
             none == 1, "1000 CTAs per SM accepted: %zu bytes", none);
  int* out;
  CHECK(cudaMalloc(&out, 128 * sizeof(int)));
  uses_shared<<<1, 128, dyn>>>(out);
  int h[128];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 128; ++i) EXPECT(h[i] == 127 - i, "out[%d] = %d", i, h[i]);

  CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferNone));
  EXPECT(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared) == cudaErrorNotSupported, "PreferShared accepted");
  EXPECT(cudaFuncSetCacheConfig(uses_shared, cudaFuncCachePreferL1) == cudaErrorNotSupported, "PreferL1 accepted");
  CHECK(cudaFuncSetAttribute(uses_shared, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
  EXPECT(cudaFuncSetAttribute(uses_shared, cudaFuncAttributePreferredSharedMemoryCarveout, 50) ==
             cudaErrorNotSupported, "a carveout accepted");
  cudaGetLastError();
  std::printf("runtime_calls: PASS (%zu bytes of dynamic shared memory for 4 CTAs per SM)\n", dyn);
  return 0;
}
