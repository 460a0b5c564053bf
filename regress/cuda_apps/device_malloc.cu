// Device-side malloc and free: every thread allocates a small array, fills
// it, a neighbour reads it (so the blocks are real memory shared by all
// threads), then frees it. A heap set small with
// cudaDeviceSetLimit(cudaLimitMallocHeapSize) runs out: malloc returns NULL.
// A runtime may round the limit up (CUDA 13 on an H200 gives at least
// 4 MiB), so the sizes follow the limit read back.
#include "check.h"

__global__ void per_thread(int** slots, int* sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int* a = (int*)malloc(n * sizeof(int));
  slots[i] = a;
  if (a)
    for (int k = 0; k < n; ++k) a[k] = i + k;
  __syncthreads();
  int j = blockIdx.x * blockDim.x + (threadIdx.x + 1) % blockDim.x;  // a neighbour's block
  int s = -1;
  if (slots[j]) {
    s = 0;
    for (int k = 0; k < n; ++k) s += slots[j][k];
  }
  sums[i] = s;
  __syncthreads();
  free(a);
}

__global__ void too_big(unsigned long long* got, size_t heap) { *got = (unsigned long long)malloc(heap + 1); }

int main() {
  size_t heap = 0;
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 256 * 1024));
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  EXPECT(heap >= 256 * 1024, "heap limit %zu", heap);
  const int ctas = 4, threads = 64, total = ctas * threads;
  const int n = int(heap * 2 / 5 / (total * sizeof(int)));  // a round takes 40% of the heap
  int** slots;
  int* sums;
  CHECK(cudaMalloc(&slots, total * sizeof(int*)));
  CHECK(cudaMalloc(&sums, total * sizeof(int)));
  for (int round = 0; round < 3; ++round) {  // 3 rounds of 40% fit only if freed blocks are reused
    per_thread<<<ctas, threads>>>(slots, sums, n);
    CHECK(cudaDeviceSynchronize());
    int h[total];
    CHECK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < total; ++i) {
      int j = i / threads * threads + (i % threads + 1) % threads;
      EXPECT(h[i] == n * j + n * (n - 1) / 2, "round %d: sum[%d] = %d", round, i, h[i]);
    }
  }
  unsigned long long* got;
  CHECK(cudaMalloc(&got, sizeof *got));
  too_big<<<1, 1>>>(got, heap);
  unsigned long long g = 1;
  CHECK(cudaMemcpy(&g, got, sizeof g, cudaMemcpyDeviceToHost));
  EXPECT(g == 0, "malloc past the heap limit returned %llx", g);
  EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * heap) == cudaErrorInvalidValue,
         "the heap limit changed after device malloc ran");
  std::printf("device_malloc: PASS\n");
  return 0;
}
