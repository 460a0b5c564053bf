// Global stores in loops.
//   st_sgemm_naive : naive SGEMM, C[i] += A*B in the inner loop. A, B and C
//                    may alias, so the compiler must store C[i] on every k
//                    (one st.global per fma) and load A and B after it: the
//                    store stream of a common naive kernel, written through
//                    the L1D to L2 on every iteration.
//   st_same_line   : every warp stores 24 times to its own 128-B line, so
//                    repeated writes to lines already in L2 (write hits,
//                    merging, no DRAM traffic beyond the first write).
#define VAL_PROG "stores"
#include <algorithm>
#include <vector>

#include "val.h"

// Naive SGEMM (C += A*B, row-major, A MxK, B KxN), one thread per C element
// in 16x16 blocks: per k one load of A (broadcast in a warp), one load of B
// (coalesced), one fma and one store of C (coalesced).
extern "C" __global__ void st_sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  for (int k = 0; k < K; ++k) C[row * N + col] += A[row * K + k] * B[k * N + col];
}

// Repeated stores to one line per warp: `rounds` rounds of st.global.u32 (inline
// PTX, so none can be merged away) of the round number plus the thread index.
extern "C" __global__ void st_same_line(unsigned* out, int rounds) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = out + t;  // warp w writes words 32w..32w+31: one line
  for (int r = 0; r < rounds; ++r) {
    const unsigned v = unsigned(r) * 65536u + t;
    asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  }
}

int main() {
  // 1. st_sgemm_naive: 128x128 output (64 blocks of 16x16), K = 16 (the
  // full 128x128x128 would be ~17 M thread instructions).
  {
    const int M = 128, N = 128, K = 16;
    val::Rng rng(6);
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N), got(C.size());
    for (auto& v : A) v = rng.uniform(-1.f, 1.f);
    for (auto& v : B) v = rng.uniform(-1.f, 1.f);
    for (auto& v : C) v = rng.uniform(-1.f, 1.f);
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * 4));
    CHECK(cudaMalloc(&dB, B.size() * 4));
    CHECK(cudaMalloc(&dC, C.size() * 4));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
    st_sgemm_naive<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(dA, dB, dC, M, N, K);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(got.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
    // nvcc contracts c + a*b into one fma per k, in increasing k: the
    // reference does the same, so relgpu's results are bit-identical. The
    // tolerance, 1e-6 relative plus val::fma_slack of the largest sum of
    // |terms| (~3e-6), also admits a simulator with unfused fma; a lost or
    // repeated product moves an element by ~1e-3 or more.
    double max_mag = 0;
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c) {
        float acc = C[size_t(r) * N + c];
        double mag = std::fabs(acc);
        for (int k = 0; k < K; ++k) {
          acc = std::fma(A[size_t(r) * K + k], B[size_t(k) * N + c], acc);
          mag += std::fabs(A[size_t(r) * K + k] * B[size_t(k) * N + c]);
        }
        C[size_t(r) * N + c] = acc;
        max_mag = std::max(max_mag, mag);
      }
    val::close("st_sgemm_naive", got.data(), C.data(), C.size(), 1e-6, val::fma_slack(max_mag));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
  }

  // 2. st_same_line: 60 CTAs x 256 threads, 24 rounds.
  {
    const int grid = 60, block = 256, rounds = 24, nt = grid * block;
    unsigned* d;
    CHECK(cudaMalloc(&d, nt * 4));
    CHECK(cudaMemset(d, 0, nt * 4));
    st_same_line<<<grid, block>>>(d, rounds);
    CHECK_LAUNCH();
    std::vector<unsigned> got(nt), want(nt);
    CHECK(cudaMemcpy(got.data(), d, nt * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < nt; ++t) want[t] = unsigned(rounds - 1) * 65536u + unsigned(t);  // the last round wins
    val::exact("st_same_line", got.data(), want.data(), nt);
    CHECK(cudaFree(d));
  }
  return val::finish();
}
