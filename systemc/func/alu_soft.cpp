// Software rounding to f16/bf16/f32/f64, used where the host FPU has no
// direct instruction (narrow formats, exact integer sources) and where one
// code path for every rounding direction is simpler than switching modes.
#include <cmath>

#include "func/alu_lanes.h"

namespace relgpu::func::detail {

Dir dir_of(ptx::Rnd r) {
  switch (r) {
    case ptx::Rnd::rz: case ptx::Rnd::rzi: return Dir::rz;
    case ptx::Rnd::rm: case ptx::Rnd::rmi: return Dir::rm;
    case ptx::Rnd::rp: case ptx::Rnd::rpi: return Dir::rp;
    default: return Dir::rn;
  }
}

uint64_t round_pack(bool neg, uint64_t mag, int exp2, const Fmt& f, Dir d, bool ftz, bool satfinite) {
  const int ebits = f.bias == 15 ? 5 : f.bias == 127 ? 8 : 11;
  const uint64_t sign = uint64_t(neg) << (f.frac + ebits);
  const uint64_t inf = uint64_t((1u << ebits) - 1) << f.frac;
  const uint64_t maxfin = inf - 1;
  const int msb = 63 - __builtin_clzll(mag);
  const int e = exp2 + msb;                            // value in [2^e, 2^(e+1))
  const int lsb = (e < f.emin ? f.emin : e) - f.frac;  // weight of the result's last bit
  const int shift = lsb - exp2;                        // low bits of mag dropped
  uint64_t q;
  bool guard = false, sticky = false;
  if (shift <= 0) {
    q = mag << -shift;  // exact; fits: the result has at most frac+1 bits
  } else if (shift > 64) {
    q = 0; sticky = true;
  } else if (shift == 64) {
    q = 0; guard = mag >> 63; sticky = (mag << 1) != 0;
  } else {
    q = mag >> shift;
    guard = (mag >> (shift - 1)) & 1;
    sticky = shift > 1 && (mag & ((uint64_t(1) << (shift - 1)) - 1)) != 0;
  }
  bool inc = false;
  switch (d) {
    case Dir::rn: inc = guard && (sticky || (q & 1)); break;
    case Dir::rz: break;
    case Dir::rm: inc = neg && (guard || sticky); break;
    case Dir::rp: inc = !neg && (guard || sticky); break;
  }
  q += inc;
  int qlsb = lsb;
  if (q >> (f.frac + 1)) { q >>= 1; ++qlsb; }          // rounding carried into a new bit
  if (q == 0) return sign;
  const uint64_t hidden = uint64_t(1) << f.frac;
  if (q < hidden) return ftz ? sign : (sign | q);     // subnormal
  const int re = qlsb + f.frac;
  if (re > f.emax) {
    bool to_inf = d == Dir::rn || (d == Dir::rp && !neg) || (d == Dir::rm && neg);
    return sign | (to_inf && !satfinite ? inf : maxfin);
  }
  return sign | (uint64_t(re + f.bias) << f.frac) | (q - hidden);
}

uint64_t round_double(double x, const Fmt& f, Dir d, bool ftz, bool satfinite) {
  const int ebits = f.bias == 15 ? 5 : f.bias == 127 ? 8 : 11;
  const uint64_t u = bits_of(x);
  const bool neg = u >> 63;
  const uint64_t sign = uint64_t(neg) << (f.frac + ebits);
  const uint64_t inf = uint64_t((1u << ebits) - 1) << f.frac;
  const int be = int((u >> 52) & 0x7FF);
  const uint64_t fr = u & 0x000FFFFFFFFFFFFFull;
  if (be == 0x7FF) {
    if (fr) return (ebits == 5 || f.frac == 7) ? kNaN16 : ebits == 8 ? uint64_t(kNaN32) : kNaN64;
    return sign | (satfinite ? inf - 1 : inf);
  }
  if (be == 0 && fr == 0) return sign;
  if (be == 0) return round_pack(neg, fr, -1074, f, d, ftz, satfinite);
  return round_pack(neg, fr | (uint64_t(1) << 52), be - 1075, f, d, ftz, satfinite);
}

double add_odd(double a, double b) {
  double s = a + b;
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);  // TwoSum: a + b == s + err exactly
  if (err == 0 || std::isinf(s) || s != s) return s;
  uint64_t u = bits_of(s);
  // Round toward zero: s already is, unless it rounded away from zero.
  if ((s > 0) != (err > 0)) u -= 1;
  return as_f64(u | 1);  // odd: marks the value as inexact for the next rounding
}

double f16_to_double(uint16_t h) {
  const bool neg = h >> 15;
  const int e = (h >> 10) & 0x1F;
  const int fr = h & 0x3FF;
  double v;
  if (e == 0x1F) v = fr ? NAN : INFINITY;
  else if (e == 0) v = std::ldexp(double(fr), -24);
  else v = std::ldexp(double(fr | 0x400), e - 25);
  return neg ? -v : v;
}

double bf16_to_double(uint16_t h) { return double(bf16_to_f32(h)); }

}  // namespace relgpu::func::detail
