// CPU side of matmul.cu: the test matrices and the SGEMM in the kernel's
// order; shared by the workload's driver (matmul.cpp) and its validation
// program (regress/validation/wl_matmul.cu).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace matmul_ref {

// A, then B, then C, each in [-1, 1). Rng: any generator with uniform(lo, hi).
template <class Rng>
void make_matrices(Rng& rng, std::vector<float>& A, std::vector<float>& B, std::vector<float>& C) {
  for (auto& v : A) v = rng.uniform(-1.f, 1.f);
  for (auto& v : B) v = rng.uniform(-1.f, 1.f);
  for (auto& v : C) v = rng.uniform(-1.f, 1.f);
}

// C = alpha*A*B + beta*C in the kernel's order: one fma per k in increasing
// k (the zero-filled tile padding adds fmaf(0, 0, acc) == acc), then
// fmaf(alpha, acc, beta*c). Returns the largest sum of |terms| of an output.
inline double sgemm(const std::vector<float>& A, const std::vector<float>& B, std::vector<float>& C, int M, int N,
                    int K, float alpha, float beta) {
  double max_mag = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float acc = 0.f;
      double mag = 0;
      for (int k = 0; k < K; ++k) {
        acc = std::fma(A[size_t(r) * K + k], B[size_t(k) * N + c], acc);
        mag += std::fabs(A[size_t(r) * K + k] * B[size_t(k) * N + c]);
      }
      float& out = C[size_t(r) * N + c];
      mag = std::fabs(alpha) * mag + std::fabs(beta * out);
      out = std::fma(alpha, acc, beta * out);
      max_mag = std::max(max_mag, mag);
    }
  return max_mag;
}

}  // namespace matmul_ref
