// Several kernels and launches, a template kernel in two instantiations,
// cudaLaunchKernel, cudaFuncGetAttributes and the device properties.
#include <cmath>
#include <vector>

#include "check.h"

__global__ void fill(float* x, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v + i;
}

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

__global__ void square2d(int* m, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) m[y * w + x] = (y * w + x) * (y * w + x);
}

int main() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT(count == 1, "device count %d", count);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  EXPECT(p.multiProcessorCount > 0 && p.warpSize == 32 && p.maxThreadsPerBlock >= 256, "properties");
  std::printf("device: %s, %d SMs, compute %d.%d\n", p.name, p.multiProcessorCount, p.major, p.minor);
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  EXPECT(clock_khz > 0, "clock %d", clock_khz);

  const int n = 1000;
  float *x, *y;
  double *dx, *dy;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&dx, n * sizeof(double)));
  CHECK(cudaMalloc(&dy, n * sizeof(double)));
  fill<<<(n + 127) / 128, 128>>>(x, 1.0f, n);
  fill<<<(n + 127) / 128, 128>>>(y, 0.0f, n);
  CHECK(cudaGetLastError());
  axpy<float><<<4, 64>>>(2.0f, x, y, n);
  CHECK(cudaGetLastError());
  std::vector<double> hd(n), hy(n);
  for (int i = 0; i < n; ++i) hd[i] = 0.5 * i, hy[i] = 1.0;
  CHECK(cudaMemcpy(dx, hd.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, hy.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  // The same template through cudaLaunchKernel.
  double a = 3.0;
  int nn = n;
  void* args[] = {&a, &dx, &dy, &nn};
  CHECK(cudaLaunchKernel((const void*)axpy<double>, dim3(2), dim3(96), args, 0, 0));
  CHECK(cudaDeviceSynchronize());

  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(out[i] == 2.0f * (1.0f + i) + i, "y[%d] = %f", i, out[i]);
  std::vector<double> outd(n);
  CHECK(cudaMemcpy(outd.data(), dy, n * sizeof(double), cudaMemcpyDefault));
  for (int i = 0; i < n; ++i) EXPECT(outd[i] == 3.0 * 0.5 * i + 1.0, "dy[%d] = %f", i, outd[i]);

  const int w = 37, h = 21;
  int* m;
  CHECK(cudaMalloc(&m, w * h * sizeof(int)));
  CHECK(cudaMemset(m, 0xff, w * h * sizeof(int)));
  square2d<<<dim3((w + 15) / 16, (h + 7) / 8), dim3(16, 8)>>>(m, w, h);
  std::vector<int> hm(w * h);
  CHECK(cudaMemcpy(hm.data(), m, hm.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i) EXPECT(hm[i] == i * i, "m[%d] = %d", i, hm[i]);

  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, (const void*)axpy<float>));
  EXPECT(fa.numRegs > 0 && fa.maxThreadsPerBlock > 0, "attributes: %d regs, %d threads", fa.numRegs,
         fa.maxThreadsPerBlock);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(m));
  std::printf("kernels: PASS (5 launches)\n");
  return 0;
}
