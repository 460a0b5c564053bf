// Constant memory: 16 loads per thread from a 4 KB __constant__ table,
// 30 CTAs x 256 threads (all SMs).
//   const_broadcast : all lanes of a warp read the same word (one constant
//                     cache access per warp instruction, broadcast)
//   const_divergent : the 32 lanes read 32 different words (the constant
//                     cache serves them one address at a time)
#define VAL_PROG "const_mem"
#include <vector>

#include "val.h"

#define CONST_WORDS 1024
#define CONST_LOADS 16

__constant__ unsigned c_tab[CONST_WORDS];

// Warp-uniform index: word (block + 3k) mod 1024 in round k.
extern "C" __global__ void const_broadcast(unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned s = 0;
#pragma unroll 8
  for (unsigned k = 0; k < CONST_LOADS; ++k) s += c_tab[(blockIdx.x + 3u * k) & (CONST_WORDS - 1)];
  out[t] = s;
}

// Lane-divergent index: word (33*lane + 3k) mod 1024, 32 distinct words.
extern "C" __global__ void const_divergent(unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u;
  unsigned s = 0;
#pragma unroll 8
  for (unsigned k = 0; k < CONST_LOADS; ++k) s += c_tab[(33u * lane + 3u * k) & (CONST_WORDS - 1)];
  out[t] = s;
}

int main() {
  const int grid = 30, block = 256, nt = grid * block;
  val::Rng rng(10);
  std::vector<unsigned> tab(CONST_WORDS), got(nt), want(nt);
  for (auto& v : tab) v = uint32_t(rng.next());
  CHECK(cudaMemcpyToSymbol(c_tab, tab.data(), sizeof(unsigned) * CONST_WORDS));
  unsigned* d_out;
  CHECK(cudaMalloc(&d_out, nt * 4));

  // 1. const_broadcast
  const_broadcast<<<grid, block>>>(d_out);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(got.data(), d_out, nt * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < nt; ++t) {
    unsigned s = 0, blk = unsigned(t / block);
    for (unsigned k = 0; k < CONST_LOADS; ++k) s += tab[(blk + 3u * k) & (CONST_WORDS - 1)];
    want[t] = s;
  }
  val::exact("const_broadcast", got.data(), want.data(), nt);

  // 2. const_divergent
  const_divergent<<<grid, block>>>(d_out);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(got.data(), d_out, nt * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < nt; ++t) {
    unsigned s = 0, lane = unsigned(t) & 31u;
    for (unsigned k = 0; k < CONST_LOADS; ++k) s += tab[(33u * lane + 3u * k) & (CONST_WORDS - 1)];
    want[t] = s;
  }
  val::exact("const_divergent", got.data(), want.data(), nt);

  CHECK(cudaFree(d_out));
  return val::finish();
}
