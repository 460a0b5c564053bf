// Unified memory: cudaMallocManaged memory is written by the host, by
// kernels, by cudaMemcpy and cudaMemset, and read back by the host through
// the same pointer after each synchronisation.
#include "check.h"

__global__ void scale(float* v, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * a + 1.0f;
}

int main() {
  const int n = 5000;
  float* v;
  int* flags;
  CHECK(cudaMallocManaged(&v, n * sizeof(float)));
  CHECK(cudaMallocManaged(&flags, 64 * sizeof(int), cudaMemAttachGlobal));
  for (int i = 0; i < n; ++i) v[i] = float(i);  // the host writes it directly
  scale<<<(n + 255) / 256, 256>>>(v, n, 2.0f);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) EXPECT(v[i] == 2.0f * i + 1.0f, "v[%d] = %g after one kernel", i, v[i]);
  v[7] = 100.0f;  // a host write between kernels reaches the next one
  scale<<<(n + 255) / 256, 256>>>(v, n, 0.5f);
  CHECK(cudaDeviceSynchronize());
  EXPECT(v[7] == 51.0f, "v[7] = %g", v[7]);
  EXPECT(v[8] == (2.0f * 8 + 1.0f) * 0.5f + 1.0f, "v[8] = %g", v[8]);
  // Copies and memsets in and out of managed memory.
  float* d;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpy(d, v, n * sizeof(float), cudaMemcpyDefault));
  CHECK(cudaMemset(v, 0, n * sizeof(float)));
  EXPECT(v[7] == 0.0f, "after cudaMemset v[7] = %g", v[7]);
  CHECK(cudaMemcpy(v, d, n * sizeof(float), cudaMemcpyDeviceToDevice));
  EXPECT(v[7] == 51.0f, "after the copy back v[7] = %g", v[7]);
  CHECK(cudaMemset(flags, 1, 64 * sizeof(int)));
  EXPECT(flags[63] == 0x01010101, "flags[63] = %x", flags[63]);
  CHECK(cudaFree(v));
  CHECK(cudaFree(flags));
  CHECK(cudaFree(d));
  std::printf("managed: PASS\n");
  return 0;
}
