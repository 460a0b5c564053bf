// Interconnect and L2 bandwidth: all 15 SMs stream loads that hit in L2 and
// bypass the L1D (ld.global.cg), so every load crosses the crossbar to one
// of the 6 partitions and back. The 256 KB array (1/3 of the L2, 16x the
// L1D) is interleaved over all partitions in 256-B chunks, so each SM's
// stream reaches every partition; icnt_warm brings it into L2 first.
//   icnt_read32  : 4-byte loads, one 128-B line per warp instruction (request-rate bound)
//   icnt_read128 : 16-byte loads, four lines per warp instruction (reply-data bound)
#define VAL_PROG "icnt"
#include <vector>

#include "val.h"

#define ICNT_WORDS 65536  // 256 KB, a power of two

// Reads the whole array once with all SMs (normal loads) so it is in L2.
extern "C" __global__ void icnt_warm(const unsigned* a, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  unsigned s = 0;
  for (unsigned i = t; i < ICNT_WORDS; i += T) s += a[i];
  out[t] = s;
}

// 12 coalesced 4-byte L2 loads per thread (2.8 laps of the array in all).
extern "C" __global__ void icnt_read32(const unsigned* a, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  unsigned s = 0;
#pragma unroll
  for (unsigned k = 0; k < 12; ++k) s += __ldcg(&a[(k * T + t) & (ICNT_WORDS - 1)]);
  out[t] = s;
}

// 6 coalesced 16-byte L2 loads per thread (5.6 laps of the array in all).
extern "C" __global__ void icnt_read128(const uint4* a, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, T = gridDim.x * blockDim.x;
  unsigned s = 0;
#pragma unroll
  for (unsigned k = 0; k < 6; ++k) {
    const uint4 v = __ldcg(&a[(k * T + t) & (ICNT_WORDS / 4 - 1)]);
    s += v.x ^ v.y ^ v.z ^ v.w;
  }
  out[t] = s;
}

int main() {
  const int grid = 60, block = 256;
  const unsigned T = grid * block;
  val::Rng rng(7);
  std::vector<unsigned> h(ICNT_WORDS), got(T), want(T);
  for (auto& v : h) v = uint32_t(rng.next());
  unsigned *d_a, *d_out;
  CHECK(cudaMalloc(&d_a, ICNT_WORDS * 4));
  CHECK(cudaMalloc(&d_out, T * 4));
  CHECK(cudaMemcpy(d_a, h.data(), ICNT_WORDS * 4, cudaMemcpyHostToDevice));
  auto fetch = [&] { CHECK(cudaMemcpy(got.data(), d_out, T * 4, cudaMemcpyDeviceToHost)); };

  // 1. icnt_warm
  icnt_warm<<<grid, block>>>(d_a, d_out);
  CHECK_LAUNCH();
  fetch();
  for (unsigned t = 0; t < T; ++t) {
    unsigned s = 0;
    for (unsigned i = t; i < ICNT_WORDS; i += T) s += h[i];
    want[t] = s;
  }
  val::exact("icnt_warm", got.data(), want.data(), T);

  // 2. icnt_read32
  icnt_read32<<<grid, block>>>(d_a, d_out);
  CHECK_LAUNCH();
  fetch();
  for (unsigned t = 0; t < T; ++t) {
    unsigned s = 0;
    for (unsigned k = 0; k < 12; ++k) s += h[(k * T + t) & (ICNT_WORDS - 1)];
    want[t] = s;
  }
  val::exact("icnt_read32", got.data(), want.data(), T);

  // 3. icnt_read128
  icnt_read128<<<grid, block>>>(reinterpret_cast<const uint4*>(d_a), d_out);
  CHECK_LAUNCH();
  fetch();
  for (unsigned t = 0; t < T; ++t) {
    unsigned s = 0;
    for (unsigned k = 0; k < 6; ++k) {
      const unsigned* v = &h[4 * ((k * T + t) & (ICNT_WORDS / 4 - 1))];
      s += v[0] ^ v[1] ^ v[2] ^ v[3];
    }
    want[t] = s;
  }
  val::exact("icnt_read128", got.data(), want.data(), T);

  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_out));
  return val::finish();
}
