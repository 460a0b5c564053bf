// The error path: a kernel writes past the end of its buffer. relgpu prints
// what happened and the program gets cudaErrorIllegalAddress from its next
// synchronizing call, as on a GPU. Exits 0 when the error arrived.
#include "check.h"

__global__ void overrun(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  x[i] = i;  // no bounds check: the last block runs past n
  (void)n;
}

int main() {
  const int n = 100;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  overrun<<<2, 64>>>(d, n);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch: %s, synchronize: %s (%s)\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
              cudaGetErrorString(sync));
  EXPECT(sync == cudaErrorIllegalAddress, "expected cudaErrorIllegalAddress from cudaDeviceSynchronize");
  // The error is sticky: later calls report it too.
  int h = 0;
  cudaError_t copy = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  EXPECT(copy == cudaErrorIllegalAddress, "expected the sticky error from cudaMemcpy, got %s", cudaGetErrorName(copy));
  std::printf("oob: PASS (the program was told: %s)\n", cudaGetErrorName(sync));
  return 0;
}
