// A runaway kernel and a deadlocked one reach the program as different CUDA
// errors. `runaway` spins on a flag in global memory that nothing sets, so
// its SM keeps waiting on loads until the runaway guard (gpu.max_cycles,
// func.max_warp_insn) stops it: cudaErrorLaunchTimeout, as a GPU's watchdog.
// `deadlock` has its two warps wait at different named barriers that can never
// fill: no warp can issue, relgpu says so and the program gets
// cudaErrorLaunchFailure. Argument: "runaway" or "deadlock".
#include <cstring>

#include "check.h"

__global__ void runaway(volatile int* flag) {
  while (*flag == 0) {
  }
}

__global__ void deadlock() {
  if (threadIdx.x < 32) asm volatile("bar.sync 1;");
  else asm volatile("bar.sync 2;");
}

int main(int argc, char** argv) {
  bool run = argc > 1 && std::strcmp(argv[1], "runaway") == 0;
  cudaError_t want = run ? cudaErrorLaunchTimeout : cudaErrorLaunchFailure;
  int* flag;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  if (run) runaway<<<1, 32>>>(flag);
  else deadlock<<<1, 64>>>();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("%s: %s\n", run ? "runaway" : "deadlock", cudaGetErrorName(sync));
  EXPECT(sync == want, "expected %s", cudaGetErrorName(want));
  std::printf("runaway: PASS (%s)\n", cudaGetErrorName(sync));
  return 0;
}
