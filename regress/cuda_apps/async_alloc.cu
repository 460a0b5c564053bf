// Stream-ordered allocation: cudaMallocAsync / cudaFreeAsync on two
// streams, a pitched buffer cleared with cudaMemset2DAsync, kernels and
// copies on the same streams, an event ordering one stream after the other.
#include "check.h"

__global__ void fill(int* x, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v + i;
}

int main() {
  const int n = 4096;
  cudaStream_t a, b;
  cudaEvent_t done;
  CHECK(cudaStreamCreate(&a));
  CHECK(cudaStreamCreate(&b));
  CHECK(cudaEventCreate(&done));
  int *x, *y;
  CHECK(cudaMallocAsync(&x, n * sizeof(int), a));
  CHECK(cudaMallocAsync(&y, n * sizeof(int), b));
  CHECK(cudaMemsetAsync(x, 0, n * sizeof(int), a));
  fill<<<n / 256, 256, 0, a>>>(x, n, 3);
  CHECK(cudaEventRecord(done, a));
  CHECK(cudaStreamWaitEvent(b, done, 0));
  CHECK(cudaMemcpyAsync(y, x, n * sizeof(int), cudaMemcpyDeviceToDevice, b));
  fill<<<n / 256, 256, 0, b>>>(y, n, 1);
  int* h = new int[n];
  CHECK(cudaMemcpyAsync(h, y, n * sizeof(int), cudaMemcpyDeviceToHost, b));
  CHECK(cudaFreeAsync(x, a));
  CHECK(cudaFreeAsync(y, b));
  CHECK(cudaStreamSynchronize(b));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == 2 * i + 4, "h[%d] = %d", i, h[i]);
  // A pitched 2-D buffer: clear a 100x20 window to 0x7f, the rest stays 0.
  size_t pitch;
  unsigned char* p;
  CHECK(cudaMallocPitch((void**)&p, &pitch, 128, 32));
  CHECK(cudaMemset2DAsync(p, pitch, 0, 128, 32, a));
  CHECK(cudaMemset2DAsync(p, pitch, 0x7f, 100, 20, a));
  unsigned char* hp = new unsigned char[pitch * 32];
  CHECK(cudaMemcpyAsync(hp, p, pitch * 32, cudaMemcpyDeviceToHost, a));
  CHECK(cudaStreamSynchronize(a));
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 128; ++c)
      EXPECT(hp[r * pitch + c] == (r < 20 && c < 100 ? 0x7f : 0), "(%d,%d) = %d", r, c, hp[r * pitch + c]);
  // One row needs no pitch; two rows wider than it are refused (as CUDA 13 does on an H200).
  CHECK(cudaMemset2DAsync(p, pitch, 0, pitch + 1, 1, a));
  EXPECT(cudaMemset2DAsync(p, pitch, 0, pitch + 1, 2, a) == cudaErrorInvalidValue, "width > pitch accepted");
  CHECK(cudaFree(p));
  delete[] h;
  delete[] hp;
  std::printf("async_alloc: PASS\n");
  return 0;
}
