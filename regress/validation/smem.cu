// Shared memory: the same dependent chase through a 4 KB table in shared
// memory, with four access patterns per warp instruction: no bank conflict,
// 2-way and 32-way bank conflicts, and one broadcast word.
//
// Each table entry holds the byte offset of the entry to read next; a lane
// starting at word s with step d reads words s, s+d, s+2d, ... (mod 1024).
// The start and step per lane choose the pattern (32 banks of 4 bytes):
//   no conflict : start tid,     step 32  -> lane l always in bank l
//   2-way       : start 2*tid,   step 64  -> lanes l and l+16 share a bank
//   32-way      : start 32*tid,  step 1   -> all lanes in one bank, 32 words
//   broadcast   : start 0,       step 1   -> all lanes read the same word
// Each step is one ld.shared plus one add (address = table + offset), and
// every step depends on the last, so the kernel time is the per-access cost
// (conflict passes included) times the steps, overlapped across 8 warps/SM.
#define VAL_PROG "smem"
#include <vector>

#include "val.h"

#define SM_WORDS 1024  // 4 KB table, a power of two

__device__ __forceinline__ void smem_chase(unsigned start, unsigned step, int steps, unsigned* out) {
  __shared__ unsigned tab[SM_WORDS];
  for (unsigned j = threadIdx.x; j < SM_WORDS; j += blockDim.x) tab[j] = ((j + step) & (SM_WORDS - 1)) * 4u;
  __syncthreads();
  unsigned off = (start & (SM_WORDS - 1)) * 4u;
  const char* base = reinterpret_cast<const char*>(tab);
#pragma unroll 8
  for (int i = 0; i < steps; ++i) off = *reinterpret_cast<const unsigned*>(base + off);
  out[blockIdx.x * blockDim.x + threadIdx.x] = off;
}

// Conflict-free: 32 lanes in 32 distinct banks, one pass per access.
extern "C" __global__ void smem_noconflict(unsigned* out, int steps) { smem_chase(threadIdx.x, 32, steps, out); }

// 2-way bank conflict: lanes l and l+16 hit one bank at two words, two passes.
extern "C" __global__ void smem_2way(unsigned* out, int steps) { smem_chase(2 * threadIdx.x, 64, steps, out); }

// 32-way bank conflict: all lanes in one bank at 32 words, 32 passes.
extern "C" __global__ void smem_32way(unsigned* out, int steps) { smem_chase(32 * threadIdx.x, 1, steps, out); }

// Broadcast: all lanes read the same word, one pass.
extern "C" __global__ void smem_broadcast(unsigned* out, int steps) { smem_chase(0, 1, steps, out); }

int main() {
  const int grid = 30, block = 128;  // 2 CTAs of 4 warps per SM
  const int steps = 48;
  const int nt = grid * block;
  unsigned* d_out;
  CHECK(cudaMalloc(&d_out, nt * 4));
  std::vector<unsigned> got(nt), want(nt);

  struct Case {
    const char* name;
    void (*kernel)(unsigned*, int);
    unsigned start_mul, step;
  };
  const Case cases[] = {{"smem_noconflict", smem_noconflict, 1, 32},
                        {"smem_2way", smem_2way, 2, 64},
                        {"smem_32way", smem_32way, 32, 1},
                        {"smem_broadcast", smem_broadcast, 0, 1}};
  for (const Case& c : cases) {
    CHECK(cudaMemset(d_out, 0xff, nt * 4));
    c.kernel<<<grid, block>>>(d_out, steps);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), d_out, nt * 4, cudaMemcpyDeviceToHost));
    // The chase ends at word start + steps*step (mod 1024); out holds its byte offset.
    for (int t = 0; t < nt; ++t) {
      unsigned tid = unsigned(t % block);
      want[t] = ((c.start_mul * tid + unsigned(steps) * c.step) & (SM_WORDS - 1)) * 4u;
    }
    val::exact(c.name, got.data(), want.data(), nt);
  }
  CHECK(cudaFree(d_out));
  return val::finish();
}
