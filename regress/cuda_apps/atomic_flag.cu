// Message passing between CTAs with libcu++: each producer CTA writes a
// block of data and publishes it with cuda::atomic_ref::store(release) on
// a flag; its consumer CTA, on another SM, waits with load(acquire) and
// sums the block with plain loads. The consumers read the blocks once
// before (so their L1s hold stale copies), as a program reusing buffers would.
#include <cuda/atomic>

#include "check.h"

constexpr int kWords = 1024;

__global__ void pairs(int* data, unsigned* flags, long long* sums, int npairs) {
  int pair = int(blockIdx.x) % npairs;
  int* block = data + pair * kWords;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(flags[pair]);
  __shared__ long long part[256];
  if (int(blockIdx.x) < npairs) {
    long long t0 = clock64();
    while (clock64() - t0 < 20000) {
    }
    for (int i = threadIdx.x; i < kWords; i += blockDim.x) block[i] = pair * kWords + i;
    __syncthreads();  // the whole CTA's writes before the flag
    if (threadIdx.x == 0) flag.store(1, cuda::memory_order_release);
  } else {
    long long stale = 0;
    for (int i = threadIdx.x; i < kWords; i += blockDim.x) stale += block[i];
    if (threadIdx.x == 0)
      while (flag.load(cuda::memory_order_acquire) == 0) {
      }
    __syncthreads();
    long long s = 0;
    for (int i = threadIdx.x; i < kWords; i += blockDim.x) s += block[i];
    part[threadIdx.x] = s + 0 * stale;
    __syncthreads();
    if (threadIdx.x == 0) {
      long long t = 0;
      for (int k = 0; k < int(blockDim.x); ++k) t += part[k];
      sums[pair] = t;
    }
  }
}

int main() {
  const int npairs = 6;
  int* data;
  unsigned* flags;
  long long* sums;
  CHECK(cudaMalloc(&data, npairs * kWords * sizeof(int)));
  CHECK(cudaMalloc(&flags, npairs * sizeof(unsigned)));
  CHECK(cudaMalloc(&sums, npairs * sizeof(long long)));
  CHECK(cudaMemset(data, 0, npairs * kWords * sizeof(int)));
  CHECK(cudaMemset(flags, 0, npairs * sizeof(unsigned)));
  pairs<<<2 * npairs, 256>>>(data, flags, sums, npairs);
  CHECK(cudaDeviceSynchronize());
  long long h[npairs];
  CHECK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
  for (int p = 0; p < npairs; ++p) {
    long long want = (long long)kWords * p * kWords + (long long)kWords * (kWords - 1) / 2;
    EXPECT(h[p] == want, "pair %d: sum %lld, expected %lld", p, h[p], want);
  }
  std::printf("atomic_flag: PASS (%d producer/consumer pairs)\n", npairs);
  return 0;
}
