// Many small launches: with --stats the run's memory and stats file must stay
// bounded (cudart.stats_detail_launches) while every launch is still counted.
// Each launch adds 1 to every element; the program checks the sum.
#include <cstdlib>

#include "check.h"

__global__ void add_one(int* x) { x[blockIdx.x * blockDim.x + threadIdx.x] += 1; }

int main(int argc, char** argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : 513;
  const int n = 64;
  int h[n] = {}, *d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemset(d, 0, sizeof h));
  for (int i = 0; i < launches; ++i) add_one<<<2, n / 2>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == launches, "h[%d] = %d, expected %d", i, h[i], launches);
  std::printf("launches: PASS (%d launches)\n", launches);
  return 0;
}
