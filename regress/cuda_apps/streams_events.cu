// Streams (serialized by relgpu), asynchronous copies and memsets, pinned
// host memory, and events whose elapsed time is simulated time.
#include "check.h"

__global__ void inc(int* x, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += by;
}

static int callbacks = 0;
static void CUDART_CB on_done(void* user) { ++*static_cast<int*>(user); }

int main() {
  const int n = 4096;
  cudaStream_t s[2];
  for (auto& st : s) CHECK(cudaStreamCreate(&st));
  int *h, *d[2];
  CHECK(cudaMallocHost(&h, n * sizeof(int)));
  for (int k = 0; k < 2; ++k) CHECK(cudaMalloc(&d[k], n * sizeof(int)));
  cudaEvent_t start, mid, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&mid));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, s[0]));
  for (int k = 0; k < 2; ++k) {
    CHECK(cudaMemsetAsync(d[k], 0, n * sizeof(int), s[k]));
    inc<<<n / 256, 256, 0, s[k]>>>(d[k], n, k + 1);
    inc<<<n / 256, 256, 0, s[k]>>>(d[k], n, 10);
  }
  CHECK(cudaEventRecord(mid, s[1]));
  CHECK(cudaStreamWaitEvent(s[0], mid, 0));
  inc<<<n / 256, 256, 0, s[0]>>>(d[0], n, 100);
  CHECK(cudaEventRecord(stop, s[0]));
  CHECK(cudaLaunchHostFunc(s[0], on_done, &callbacks));
  CHECK(cudaMemcpyAsync(h, d[0], n * sizeof(int), cudaMemcpyDeviceToHost, s[0]));
  CHECK(cudaStreamSynchronize(s[0]));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaStreamQuery(s[1]));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == 111, "stream 0: h[%d] = %d", i, h[i]);
  CHECK(cudaMemcpyAsync(h, d[1], n * sizeof(int), cudaMemcpyDeviceToHost, s[1]));
  CHECK(cudaStreamSynchronize(s[1]));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == 12, "stream 1: h[%d] = %d", i, h[i]);
  EXPECT(callbacks == 1, "host function ran %d times", callbacks);
  float total = -1, first = -1;
  CHECK(cudaEventElapsedTime(&total, start, stop));
  CHECK(cudaEventElapsedTime(&first, start, mid));
  EXPECT(total > 0 && first > 0 && first < total, "elapsed start-mid %f ms, start-stop %f ms", first, total);
  std::printf("streams_events: PASS (5 kernels in %.6f ms of simulated time)\n", total);
  for (auto e : {start, mid, stop}) CHECK(cudaEventDestroy(e));
  for (auto& st : s) CHECK(cudaStreamDestroy(st));
  CHECK(cudaFreeHost(h));
  for (int k = 0; k < 2; ++k) CHECK(cudaFree(d[k]));
  CHECK(cudaDeviceReset());
  return 0;
}
