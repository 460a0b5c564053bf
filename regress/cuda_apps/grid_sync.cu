// A cooperative launch with grid-wide barriers (cooperative groups'
// this_grid().sync()): each phase reads what every CTA wrote in the phase
// before, so the barrier must hold all CTAs. Launched with
// cudaLaunchCooperativeKernel and with cudaLaunchKernelEx (its cooperative
// attribute); a grid larger than can be resident at once is refused with
// cudaErrorCooperativeLaunchTooLarge, as on a GPU.
#include <cooperative_groups.h>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;

// x[i] ends as the sum over all phases of the neighbour ring shift.
__global__ void phases(int* x, int* y, int n, int rounds) {
  cg::grid_group g = cg::this_grid();
  int i = int(g.thread_rank());
  for (int r = 0; r < rounds; ++r) {
    if (i < n) y[i] = x[(i + 1) % n] + 1;  // reads another CTA's element
    g.sync();
    if (i < n) x[i] = y[i];
    g.sync();
  }
}

int main() {
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, kThreads, 0));
  int ctas = sms * per_sm, n = ctas * kThreads, rounds = 5;
  int *x, *y;
  CHECK(cudaMalloc(&x, n * sizeof(int)));
  CHECK(cudaMalloc(&y, n * sizeof(int)));
  int* h = new int[n];
  for (int i = 0; i < n; ++i) h[i] = i;
  CHECK(cudaMemcpy(x, h, n * sizeof(int), cudaMemcpyHostToDevice));
  void* args[] = {&x, &y, &n, &rounds};
  CHECK(cudaLaunchCooperativeKernel((void*)phases, dim3(ctas), dim3(kThreads), args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  // Again through cudaLaunchKernelEx with the cooperative attribute.
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.gridDim = dim3(ctas);
  cfg.blockDim = dim3(kThreads);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, phases, x, y, n, rounds));
  CHECK(cudaMemcpy(h, x, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == (i + 2 * rounds) % n + 2 * rounds, "x[%d] = %d, expected %d", i, h[i], (i + 2 * rounds) % n + 2 * rounds);
  // One CTA more than fits is refused before it runs.
  cudaError_t e = cudaLaunchCooperativeKernel((void*)phases, dim3(ctas + 1), dim3(kThreads), args, 0, 0);
  EXPECT(e == cudaErrorCooperativeLaunchTooLarge, "got %s", cudaGetErrorName(e));
  EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge, "last error");
  delete[] h;
  std::printf("grid_sync: PASS (%d CTAs x %d rounds)\n", ctas, rounds);
  return 0;
}
