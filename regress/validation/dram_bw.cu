// DRAM bandwidth with all SMs busy: streaming reads, streaming writes and a
// copy, 16-byte (uint4) accesses, each kernel on its own 1.9 MB buffers
// (2.5x the 768 KB L2, and untouched by the kernels before it, so every line
// comes from or goes to DRAM). 60 CTAs of 256 threads (4 per SM), grid-stride
// loop of 8 iterations per thread, each warp instruction covering 4 lines.
#define VAL_PROG "dram_bw"
#include <vector>

#include "val.h"

// Streaming read: each thread sums its 8 uint4 (a per-thread result, so
// every load is needed and the only stores are the 15360 results).
extern "C" __global__ void bw_read(const uint4* in, size_t n, unsigned* out) {
  unsigned s = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 v = in[i];
    s += v.x + v.y + v.z + v.w;
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Streaming write: fills the buffer with a pattern computed from the index
// (no loads at all).
extern "C" __global__ void bw_write(uint4* out, size_t n, unsigned k) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned u = unsigned(i);
    out[i] = make_uint4(u, u ^ k, u + k, u * k);
  }
}

// Copy: one 16-byte load and one 16-byte store per element (reads and
// writes mixed in the DRAM queues).
extern "C" __global__ void bw_copy(const uint4* in, uint4* out, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
}

int main() {
  const int grid = 60, block = 256;
  const int nt = grid * block;
  const size_t n = size_t(nt) * 8;  // uint4 elements per buffer: 122880 (1.9 MB)
  const unsigned k = 0x9E3779B9u;
  val::Rng rng(3);
  std::vector<uint4> a(n), c(n), got(n);
  for (auto& v : a) v = make_uint4(uint32_t(rng.next()), uint32_t(rng.next()), uint32_t(rng.next()), uint32_t(rng.next()));
  for (auto& v : c) v = make_uint4(uint32_t(rng.next()), uint32_t(rng.next()), uint32_t(rng.next()), uint32_t(rng.next()));
  uint4 *d_a, *d_b, *d_c, *d_d;
  unsigned* d_sum;
  const size_t bytes = n * sizeof(uint4);
  CHECK(cudaMalloc(&d_a, bytes));
  CHECK(cudaMalloc(&d_b, bytes));
  CHECK(cudaMalloc(&d_c, bytes));
  CHECK(cudaMalloc(&d_d, bytes));
  CHECK(cudaMalloc(&d_sum, nt * 4));
  CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_c, c.data(), bytes, cudaMemcpyHostToDevice));

  // 1. bw_read
  bw_read<<<grid, block>>>(d_a, n, d_sum);
  CHECK_LAUNCH();
  {
    std::vector<unsigned> sums(nt), want(nt, 0);
    CHECK(cudaMemcpy(sums.data(), d_sum, nt * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) want[i % nt] += a[i].x + a[i].y + a[i].z + a[i].w;
    val::exact("bw_read", sums.data(), want.data(), nt);
  }

  // 2. bw_write
  bw_write<<<grid, block>>>(d_b, n, k);
  CHECK_LAUNCH();
  {
    CHECK(cudaMemcpy(got.data(), d_b, bytes, cudaMemcpyDeviceToHost));
    std::vector<unsigned> g(4 * n), w(4 * n);
    for (size_t i = 0; i < n; ++i) {
      const unsigned u = unsigned(i);
      const unsigned gv[4] = {got[i].x, got[i].y, got[i].z, got[i].w}, wv[4] = {u, u ^ k, u + k, u * k};
      for (int j = 0; j < 4; ++j) g[4 * i + j] = gv[j], w[4 * i + j] = wv[j];
    }
    val::exact("bw_write", g.data(), w.data(), 4 * n);
  }

  // 3. bw_copy
  bw_copy<<<grid, block>>>(d_c, d_d, n);
  CHECK_LAUNCH();
  {
    CHECK(cudaMemcpy(got.data(), d_d, bytes, cudaMemcpyDeviceToHost));
    const unsigned* g = reinterpret_cast<const unsigned*>(got.data());
    const unsigned* w = reinterpret_cast<const unsigned*>(c.data());
    val::exact("bw_copy", g, w, 4 * n);
  }
  for (void* p : {(void*)d_a, (void*)d_b, (void*)d_c, (void*)d_d, (void*)d_sum}) CHECK(cudaFree(p));
  return val::finish();
}
