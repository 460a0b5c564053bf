// An API relgpu does not implement returns a CUDA error (cudaErrorNotSupported)
// and relgpu names it once; the program carries on.
#include "check.h"

__global__ void twice(int* x) { x[threadIdx.x] *= 2; }

int main() {
  cudaGraph_t g;
  cudaError_t e1 = cudaGraphCreate(&g, 0);
  cudaError_t e2 = cudaGraphCreate(&g, 0);
  std::printf("cudaGraphCreate: %s, %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2));
  EXPECT(e1 == cudaErrorNotSupported && e2 == cudaErrorNotSupported, "expected cudaErrorNotSupported");
  EXPECT(cudaGetLastError() == cudaErrorNotSupported, "last error");
  EXPECT(cudaGetLastError() == cudaSuccess, "the error is not sticky");
  int h[32], *d;
  for (int i = 0; i < 32; ++i) h[i] = i;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  twice<<<1, 32>>>(d);
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) EXPECT(h[i] == 2 * i, "h[%d] = %d", i, h[i]);
  std::printf("unimplemented: PASS\n");
  return 0;
}
