// Barriers and warp divergence, 30 CTAs x 256 threads (all SMs).
//   ctl_barrier    : 32 rounds of exchange through shared memory, two
//                    __syncthreads per round (barrier wait of 8 warps)
//   ctl_div_ifelse : if/else on the lane's parity around two different
//                    8-step integer loops: each warp runs both paths, half
//                    its lanes masked off in each (SIMT stack, reconvergence)
//   ctl_div_loop   : a loop whose trip count grows with the lane (8..70):
//                    the warp runs 70 iterations with its active mask shrinking
#define VAL_PROG "control"
#include <vector>

#include "val.h"

#define BAR_ROUNDS 32
#define DIV_ROUNDS 4
#define DIV_STEPS 8

// Barrier: each round every thread publishes a value, waits, reads its
// neighbour's and waits again before the slot is overwritten.
extern "C" __global__ void ctl_barrier(const unsigned* in, unsigned* out) {
  __shared__ unsigned s[256];
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t];
  for (int r = 0; r < BAR_ROUNDS; ++r) {
    s[threadIdx.x] = v;
    __syncthreads();
    v = v * 3u + s[(threadIdx.x + 1) & 255];
    __syncthreads();
  }
  out[t] = v;
}

// if/else on lane parity: odd lanes run a multiply-add loop, even lanes an
// xor-add loop, DIV_ROUNDS times (each time the warp splits and reconverges).
extern "C" __global__ void ctl_div_ifelse(const unsigned* in, unsigned* out, unsigned a, unsigned b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = in[t];
  for (int r = 0; r < DIV_ROUNDS; ++r) {
    if (threadIdx.x & 1) {
#pragma unroll 1
      for (int i = 0; i < DIV_STEPS; ++i) x = x * a + b;
    } else {
#pragma unroll 1
      for (int i = 0; i < DIV_STEPS; ++i) x = (x ^ a) + (x >> 3);
    }
  }
  out[t] = x;
}

// Per-lane trip count 8 + 2*lane: lane 0 leaves after 8 iterations, lane 31
// after 70; the warp issues 70 iterations, fewer lanes active each time.
extern "C" __global__ void ctl_div_loop(const unsigned* in, unsigned* out, unsigned a, unsigned b) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const int trips = 8 + 2 * int(threadIdx.x & 31);
  unsigned x = in[t];
#pragma unroll 1
  for (int i = 0; i < trips; ++i) x = x * a + b;
  out[t] = x;
}

int main() {
  const int grid = 30, block = 256, nt = grid * block;
  const unsigned a = 1664525u, b = 1013904223u;
  val::Rng rng(8);
  std::vector<unsigned> in(nt), got(nt), want(nt);
  for (auto& v : in) v = uint32_t(rng.next());
  unsigned *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, nt * 4));
  CHECK(cudaMalloc(&d_out, nt * 4));
  CHECK(cudaMemcpy(d_in, in.data(), nt * 4, cudaMemcpyHostToDevice));
  auto fetch = [&] { CHECK(cudaMemcpy(got.data(), d_out, nt * 4, cudaMemcpyDeviceToHost)); };

  // 1. ctl_barrier: the CPU runs each block's rounds in lock step.
  ctl_barrier<<<grid, block>>>(d_in, d_out);
  CHECK_LAUNCH();
  fetch();
  for (int blk = 0; blk < grid; ++blk) {
    std::vector<unsigned> v(in.begin() + blk * block, in.begin() + (blk + 1) * block), s(block);
    for (int r = 0; r < BAR_ROUNDS; ++r) {
      s = v;
      for (int x = 0; x < block; ++x) v[x] = v[x] * 3u + s[(x + 1) & 255];
    }
    for (int x = 0; x < block; ++x) want[blk * block + x] = v[x];
  }
  val::exact("ctl_barrier", got.data(), want.data(), nt);

  // 2. ctl_div_ifelse
  ctl_div_ifelse<<<grid, block>>>(d_in, d_out, a, b);
  CHECK_LAUNCH();
  fetch();
  for (int t = 0; t < nt; ++t) {
    unsigned x = in[t];
    for (int r = 0; r < DIV_ROUNDS; ++r)
      for (int i = 0; i < DIV_STEPS; ++i) x = (t & 1) ? x * a + b : (x ^ a) + (x >> 3);
    want[t] = x;
  }
  val::exact("ctl_div_ifelse", got.data(), want.data(), nt);

  // 3. ctl_div_loop
  ctl_div_loop<<<grid, block>>>(d_in, d_out, a, b);
  CHECK_LAUNCH();
  fetch();
  for (int t = 0; t < nt; ++t) {
    unsigned x = in[t];
    for (int i = 0; i < 8 + 2 * (t & 31); ++i) x = x * a + b;
    want[t] = x;
  }
  val::exact("ctl_div_loop", got.data(), want.data(), nt);

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return val::finish();
}
