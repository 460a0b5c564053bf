// Dynamic shared memory (a block reduction), __constant__ memory written with
// cudaMemcpyToSymbol, and a __device__ variable read with cudaMemcpyFromSymbol.
#include <vector>

#include "check.h"

__constant__ int weights[8];
__device__ unsigned long long total;
__device__ int blocks_done;

__global__ void weighted_sum(const int* in, int n) {
  extern __shared__ long long partial[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? (long long)in[i] * weights[i % 8] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&total, (unsigned long long)partial[0]);
    atomicAdd(&blocks_done, 1);
  }
}

int main() {
  const int n = 3000, block = 256, grid = (n + block - 1) / block;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % 13;
  int w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(cudaMemcpyToSymbol(weights, w, sizeof w));
  // Overwrite the last half through the offset argument.
  int w2[4] = {10, 20, 30, 40};
  CHECK(cudaMemcpyToSymbol(weights, w2, sizeof w2, 4 * sizeof(int)));
  unsigned long long zero = 0;
  CHECK(cudaMemcpyToSymbol(total, &zero, sizeof zero));
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  weighted_sum<<<grid, block, block * sizeof(long long)>>>(d, n);
  CHECK(cudaGetLastError());
  unsigned long long got = 0;
  int done = 0;
  CHECK(cudaMemcpyFromSymbol(&got, total, sizeof got));
  CHECK(cudaMemcpyFromSymbol(&done, blocks_done, sizeof done));
  const int wt[8] = {1, 2, 3, 4, 10, 20, 30, 40};
  unsigned long long want = 0;
  for (int i = 0; i < n; ++i) want += (unsigned long long)h[i] * wt[i % 8];
  EXPECT(got == want, "sum %llu, expected %llu", got, want);
  EXPECT(done == grid, "%d blocks finished, expected %d", done, grid);
  void* addr = nullptr;
  size_t size = 0;
  CHECK(cudaGetSymbolAddress(&addr, weights));
  CHECK(cudaGetSymbolSize(&size, weights));
  EXPECT(addr != nullptr && size == sizeof w, "symbol address %p size %zu", addr, size);
  CHECK(cudaFree(d));
  std::printf("shared_const: PASS (sum %llu over %d blocks)\n", got, done);
  return 0;
}
