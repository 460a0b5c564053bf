// Internal to the ALU (func/alu*.cpp): lane loop, bit casts, NaN/ftz
// helpers, host rounding-mode guard, software rounding to narrow formats,
// and the per-family selectors alu.cpp dispatches to.
#pragma once
#include <cfenv>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "func/alu.h"

namespace relgpu::func::detail {

// A kernel computes one instruction for the lanes in AluIn::mask. A selector
// returns the kernel for an instruction, or nullptr if the ALU does not
// compute it; alu_supports and alu_exec both go through the selector, so
// they cannot disagree.
using Kern = void (*)(const ptx::Instr&, const AluIn&, AluOut&);
Kern select_int(const ptx::Instr& in);    // alu_int.cpp
Kern select_bits(const ptx::Instr& in);   // alu_bits.cpp
Kern select_float(const ptx::Instr& in);  // alu_float.cpp
Kern select_cmp(const ptx::Instr& in);    // alu_cmp.cpp
Kern select_cvt(const ptx::Instr& in);    // alu_cvt.cpp
Kern select_half(const ptx::Instr& in);   // alu_half.cpp

// Full warps run a plain counted loop (the compiler can unroll/vectorise it);
// partial masks visit the set bits only.
template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
  if (mask == 0xFFFFFFFFu) {
    for (unsigned l = 0; l < kWarpSize; ++l) f(l);
  } else {
    while (mask) {
      unsigned l = unsigned(__builtin_ctz(mask));
      mask &= mask - 1;
      f(l);
    }
  }
}

inline float as_f32(uint64_t v) { uint32_t u = uint32_t(v); float f; std::memcpy(&f, &u, 4); return f; }
inline double as_f64(uint64_t v) { double d; std::memcpy(&d, &v, 8); return d; }
inline uint32_t bits_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline uint64_t bits_of(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u; }

template <class T>
inline uint64_t zext(T v) { return uint64_t(std::make_unsigned_t<T>(v)); }

// NVIDIA's canonical NaNs (all exponent and fraction bits set, sign clear).
// f64: the PTX ISA does not document the pattern; we use the same all-ones
// form as f32/f16.
constexpr uint32_t kNaN32 = 0x7FFFFFFFu;
constexpr uint64_t kNaN64 = 0x7FFFFFFFFFFFFFFFull;
constexpr uint16_t kNaN16 = 0x7FFF;

inline bool is_sub32(uint32_t u) { return (u & 0x7F800000u) == 0 && (u & 0x007FFFFFu) != 0; }
inline bool is_sub64(uint64_t u) { return (u & 0x7FF0000000000000ull) == 0 && (u & 0x000FFFFFFFFFFFFFull) != 0; }
// .ftz: a subnormal becomes a zero of the same sign.
inline uint32_t ftz32(uint32_t u) { return (u & 0x7F800000u) == 0 ? (u & 0x80000000u) : u; }
inline uint64_t ftz64(uint64_t u) { return (u & 0x7FF0000000000000ull) == 0 ? (u & 0x8000000000000000ull) : u; }

// Final f32 result: canonical NaN, optional flush, optional [0,1] clamp.
// .sat maps NaN, -0 and negatives to +0 (the PTX "NaN results are flushed to
// +0"; we also return +0 for -0: the clamp's lower bound is +0.0).
template <bool FTZ, bool SAT>
inline uint64_t fin32(float r) {
  if (SAT) {
    if (!(r > 0.0f)) return 0;
    if (r >= 1.0f) return 0x3F800000u;
  }
  uint32_t u = bits_of(r);
  if (r != r) return kNaN32;
  return FTZ ? ftz32(u) : u;
}
template <bool SAT>
inline uint64_t fin64(double r) {
  if (SAT) {
    if (!(r > 0.0)) return 0;
    if (r >= 1.0) return 0x3FF0000000000000ull;
  }
  if (r != r) return kNaN64;
  return bits_of(r);
}

// Sets the host rounding mode for .rz/.rm/.rp (and .rzi/.rmi/.rpi) and puts
// round-to-nearest back on exit. The simulator always runs in
// round-to-nearest, so .rn and "no modifier" change nothing.
class RoundGuard {
 public:
  explicit RoundGuard(ptx::Rnd r) : mode_(host_mode(r)) {
    if (mode_ != FE_TONEAREST) std::fesetround(mode_);
  }
  ~RoundGuard() {
    if (mode_ != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  }
  RoundGuard(const RoundGuard&) = delete;
  RoundGuard& operator=(const RoundGuard&) = delete;
  static int host_mode(ptx::Rnd r) {
    switch (r) {
      case ptx::Rnd::rz: case ptx::Rnd::rzi: return FE_TOWARDZERO;
      case ptx::Rnd::rm: case ptx::Rnd::rmi: return FE_DOWNWARD;
      case ptx::Rnd::rp: case ptx::Rnd::rpi: return FE_UPWARD;
      default: return FE_TONEAREST;
    }
  }
 private:
  int mode_;
};

// ---- software rounding (alu_soft.cpp) ---------------------------------------
// Binary formats the ALU rounds to in software.
struct Fmt {
  int frac;    // stored fraction bits
  int emin;    // exponent of the smallest normal
  int emax;    // exponent of the largest finite
  int bias;
};
constexpr Fmt kF16{10, -14, 15, 15};
constexpr Fmt kBF16{7, -126, 127, 127};
constexpr Fmt kF32{23, -126, 127, 127};
constexpr Fmt kF64{52, -1022, 1023, 1023};

enum class Dir : uint8_t { rn, rz, rm, rp };
Dir dir_of(ptx::Rnd r);  // none/rn/rni -> rn, rz/rzi -> rz, ...

// Rounds the exact value (-1)^neg * mag * 2^exp2 (mag != 0) to `f` in
// direction `d`; returns the format's bit pattern (sign at bit 1+frac+ebits).
// Overflow gives inf or the largest finite as IEEE directs for `d`;
// `satfinite` turns inf results into the largest finite; `ftz` flushes a
// subnormal result to a signed zero.
uint64_t round_pack(bool neg, uint64_t mag, int exp2, const Fmt& f, Dir d, bool ftz = false,
                    bool satfinite = false);
// A double (finite, inf or NaN) to format f. NaN gives the format's canonical
// NaN (satfinite keeps NaN). Exact when the double fits.
uint64_t round_double(double x, const Fmt& f, Dir d, bool ftz = false, bool satfinite = false);
// a + b computed exactly and rounded to 53 bits with round-to-odd, so that a
// second rounding to a format of <= 51 bits is correctly rounded.
double add_odd(double a, double b);
// Narrow format bits -> double (exact).
double f16_to_double(uint16_t h);
double bf16_to_double(uint16_t h);
inline float bf16_to_f32(uint16_t h) { return as_f32(uint64_t(h) << 16); }

}  // namespace relgpu::func::detail
