// Global load coalescing: the same number of 4-byte loads (16 per thread,
// 7680 threads on 30 CTAs) with four address patterns per warp instruction:
//   coalesced : word g              -> 1 line (128 B) per warp instruction
//   stride 2  : word 2g             -> 2 lines per warp instruction
//   stride 32 : word 32g            -> 32 lines, 4 useful bytes in each
//   scattered : word hash(g) mod 4M -> up to 32 random lines of 16 MB
// where g = k*7680 + thread for the thread's k-th load. Each kernel reads
// its own region (nothing is in L2 when it starts) and sums its loads into a
// per-thread result.
#define VAL_PROG "access"
#include <vector>

#include "val.h"

#define ACC_K 16                 // loads per thread
#define ACC_SCATTER_BITS 22      // scattered region: 2^22 words = 16 MB

// Multiplicative hash of the element number into [0, 2^22).
__host__ __device__ __forceinline__ unsigned scatter_index(unsigned g) {
  return (g * 2654435761u) >> (32 - ACC_SCATTER_BITS);
}

// Coalesced: consecutive lanes read consecutive words.
extern "C" __global__ void acc_coalesced(const unsigned* a, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  unsigned s = 0;
#pragma unroll
  for (unsigned k = 0; k < ACC_K; ++k) s += a[k * T + t];
  out[t] = s;
}

// Stride 2: every other word, each warp instruction touches 2 lines.
extern "C" __global__ void acc_stride2(const unsigned* a, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  unsigned s = 0;
#pragma unroll
  for (unsigned k = 0; k < ACC_K; ++k) s += a[2 * (k * T + t)];
  out[t] = s;
}

// Stride 32 words (128 B): each lane in its own line, 32 lines per instruction.
extern "C" __global__ void acc_stride32(const unsigned* a, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  unsigned s = 0;
#pragma unroll
  for (unsigned k = 0; k < ACC_K; ++k) s += a[(size_t)32 * (k * T + t)];
  out[t] = s;
}

// Scattered: hashed (pseudo-random) word indices over 16 MB.
extern "C" __global__ void acc_scattered(const unsigned* a, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  unsigned s = 0;
#pragma unroll
  for (unsigned k = 0; k < ACC_K; ++k) s += a[scatter_index(k * T + t)];
  out[t] = s;
}

int main() {
  const int grid = 30, block = 256;
  const unsigned T = grid * block;
  const size_t n_coal = size_t(T) * ACC_K, n_s2 = 2 * n_coal, n_s32 = 32 * n_coal;
  const size_t n_scat = size_t(1) << ACC_SCATTER_BITS;
  // One allocation per region, so that no kernel finds another's lines in L2.
  std::vector<unsigned> h(n_scat);  // big enough for every region's contents
  val::Rng rng(5);
  for (auto& v : h) v = uint32_t(rng.next());
  unsigned *d_coal, *d_s2, *d_s32, *d_scat, *d_out;
  CHECK(cudaMalloc(&d_coal, n_coal * 4));
  CHECK(cudaMalloc(&d_s2, n_s2 * 4));
  CHECK(cudaMalloc(&d_s32, n_s32 * 4));
  CHECK(cudaMalloc(&d_scat, n_scat * 4));
  CHECK(cudaMalloc(&d_out, T * 4));
  CHECK(cudaMemcpy(d_coal, h.data(), n_coal * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_s2, h.data(), n_s2 * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_s32, h.data(), n_s32 * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_scat, h.data(), n_scat * 4, cudaMemcpyHostToDevice));

  struct Case {
    const char* name;
    void (*kernel)(const unsigned*, unsigned*);
    const unsigned* buf;
    size_t (*index)(unsigned g);
  };
  const Case cases[] = {
      {"acc_coalesced", acc_coalesced, d_coal, [](unsigned g) { return size_t(g); }},
      {"acc_stride2", acc_stride2, d_s2, [](unsigned g) { return 2 * size_t(g); }},
      {"acc_stride32", acc_stride32, d_s32, [](unsigned g) { return 32 * size_t(g); }},
      {"acc_scattered", acc_scattered, d_scat, [](unsigned g) { return size_t(scatter_index(g)); }},
  };
  std::vector<unsigned> got(T), want(T);
  for (const Case& c : cases) {
    CHECK(cudaMemset(d_out, 0, T * 4));
    c.kernel<<<grid, block>>>(c.buf, d_out);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), d_out, T * 4, cudaMemcpyDeviceToHost));
    for (unsigned t = 0; t < T; ++t) {
      unsigned s = 0;
      for (unsigned k = 0; k < ACC_K; ++k) s += h[c.index(k * T + t)];
      want[t] = s;
    }
    val::exact(c.name, got.data(), want.data(), T);
  }
  for (void* p : {(void*)d_coal, (void*)d_s2, (void*)d_s32, (void*)d_scat, (void*)d_out}) CHECK(cudaFree(p));
  return val::finish();
}
