// A flag handed across SMs with PTX release/acquire (the message-passing
// litmus test). CTA 0 writes a block of data, then the flag with
// st.release.gpu; CTA 1, on another SM, has first read the data and the flag
// with plain loads (so its L1 holds them, stale), then spins on the flag with
// ld.acquire.gpu (or ld.relaxed.gpu + fence.acq_rel.gpu) and reads the data
// with plain loads again. On a GPU the spin ends and the data is the new one:
// the acquire reads past L1 and makes later loads miss the stale lines.
// Argument: "acquire" (default) or "fence".
#include <cstring>

#include "check.h"

constexpr int kWords = 32 * 64;  // 64 warp-wide stores before the release

__device__ int ld_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ int ld_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ void st_release(int* p, int v) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void handoff(int* data, int* flag, int* out, bool use_fence) {
  int lane = threadIdx.x;
  if (blockIdx.x == 0) {
    // Producer: give the consumer time to cache the old values first.
    long long t0 = clock64();
    while (clock64() - t0 < 30000) {
    }
    for (int i = lane; i < kWords; i += 32) data[i] = i + 1;
    if (lane == 0) st_release(flag, 1);  // orders the warp's data stores before it
  } else {
    int warm = 0;
    for (int i = lane; i < kWords; i += 32) warm += data[i];
    warm += *flag;
    if (use_fence) {
      while (ld_relaxed(flag) == 0) {
      }
      asm volatile("fence.acq_rel.gpu;" ::: "memory");
    } else {
      while (ld_acquire(flag) == 0) {
      }
    }
    int bad = 0;
    for (int i = lane; i < kWords; i += 32) bad += data[i] != i + 1;
    out[lane] = bad;
    out[32 + lane] = warm;
  }
}

int main(int argc, char** argv) {
  bool fence = argc > 1 && std::strcmp(argv[1], "fence") == 0;
  int *data, *flag, *out;
  CHECK(cudaMalloc(&data, kWords * sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, 96 * sizeof(int)));
  CHECK(cudaMemset(data, 0, kWords * sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  handoff<<<2, 32>>>(data, flag, out, fence);
  CHECK(cudaDeviceSynchronize());
  int h[96];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < 32; ++i) bad += h[i];
  EXPECT(bad == 0, "the consumer read %d stale data words after the %s", bad, fence ? "fence" : "acquire");
  std::printf("flag_acquire: PASS (%s)\n", fence ? "ld.relaxed + fence.acq_rel" : "ld.acquire");
  return 0;
}
