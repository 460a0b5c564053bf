// cvt between every pair of integer and floating-point types.
// - int -> int: sign/zero extension per the source type, truncation to the
//   destination; .sat clamps to the destination range.
// - float -> int: .rni/.rzi/.rmi/.rpi; NaN -> 0; always saturating to the
//   destination range (the PTX ISA: .sat is implied for float -> int).
// - int -> float and float -> float: rounded in software (exact source
//   value, one rounding), so every direction is correct without touching the
//   host rounding mode; .ftz applies to f32 sources and results; .sat clamps
//   to [0, 1]; .relu/.satfinite for the 16-bit float forms.
// A missing rounding modifier where the PTX ISA requires one on int -> float
// or a narrowing float -> float is read as .rn.
#include <cmath>

#include "func/alu_lanes.h"

namespace relgpu::func::detail {
namespace {

using ptx::Instr;
using ptx::Rnd;
using ptx::Type;

enum class K : uint8_t { none, sint, uint, f16, bf16, f32, f64 };
K kind_of(Type t) {
  switch (t) {
    case Type::s8: case Type::s16: case Type::s32: case Type::s64: return K::sint;
    case Type::u8: case Type::u16: case Type::u32: case Type::u64: return K::uint;
    case Type::f16: return K::f16;
    case Type::bf16: return K::bf16;
    case Type::f32: return K::f32;
    case Type::f64: return K::f64;
    default: return K::none;
  }
}
bool is_int(K k) { return k == K::sint || k == K::uint; }
const Fmt& fmt_of(K k) { return k == K::f16 ? kF16 : k == K::bf16 ? kBF16 : k == K::f32 ? kF32 : kF64; }
bool is_irnd(Rnd r) { return r == Rnd::rni || r == Rnd::rzi || r == Rnd::rmi || r == Rnd::rpi; }
bool is_frnd(Rnd r) { return r == Rnd::rn || r == Rnd::rz || r == Rnd::rm || r == Rnd::rp; }

// Signed source: sign-extend from `bits`; unsigned: zero-extend.
inline int64_t sext(uint64_t v, unsigned bits) { return bits == 64 ? int64_t(v) : int64_t(v << (64 - bits)) >> (64 - bits); }
inline uint64_t zx(uint64_t v, unsigned bits) { return bits == 64 ? v : v & ((uint64_t(1) << bits) - 1); }

// Exact value of a float source as a double (f16/bf16/f32 widen exactly).
inline double fval(uint64_t v, K k, bool ftz) {
  switch (k) {
    case K::f16: return f16_to_double(uint16_t(v));
    case K::bf16: return bf16_to_double(uint16_t(v));
    case K::f32: return double(as_f32(ftz ? ftz32(uint32_t(v)) : uint32_t(v)));
    default: return as_f64(v);
  }
}

struct Dst {
  unsigned bits;
  bool is_signed;
  __int128 lo, hi;  // integer destination range
};
Dst int_dst(Type t) {
  const unsigned b = ptx::type_bits(t);
  const bool s = ptx::type_is_signed(t);
  Dst d{b, s, 0, 0};
  if (s) { d.hi = (__int128(1) << (b - 1)) - 1; d.lo = -(__int128(1) << (b - 1)); }
  else { d.hi = (__int128(1) << b) - 1; d.lo = 0; }
  return d;
}
inline uint64_t put_int(__int128 v, const Dst& d) { return zx(uint64_t(v), d.bits); }

void int_to_int(const Instr& in, const AluIn& a, AluOut& o) {
  const Dst d = int_dst(in.m.type);
  const unsigned sb = ptx::type_bits(in.m.type2);
  const bool ss = ptx::type_is_signed(in.m.type2), sat = in.m.sat;
  for_lanes(a.mask, [&](unsigned l) {
    __int128 v = ss ? __int128(sext(a.src[0][l], sb)) : __int128(zx(a.src[0][l], sb));
    if (sat) v = v < d.lo ? d.lo : v > d.hi ? d.hi : v;
    o.dst[l] = put_int(v, d);
  });
}

void float_to_int(const Instr& in, const AluIn& a, AluOut& o) {
  const Dst d = int_dst(in.m.type);
  const K sk = kind_of(in.m.type2);
  const bool ftz = in.m.ftz;
  const Rnd r = in.m.rnd;
  const double lo = double(d.lo), hi = double(d.hi);  // hi may round up to 2^bits: compare with >=
  for_lanes(a.mask, [&](unsigned l) {
    double x = fval(a.src[0][l], sk, ftz);
    if (x != x) { o.dst[l] = 0; return; }
    switch (r) {
      case Rnd::rni: x = std::nearbyint(x); break;  // simulator runs in round-to-nearest-even
      case Rnd::rzi: x = std::trunc(x); break;
      case Rnd::rmi: x = std::floor(x); break;
      default: x = std::ceil(x); break;
    }
    __int128 v;
    if (x >= hi) v = d.hi;
    else if (x <= lo) v = d.lo;
    else v = __int128(x);
    o.dst[l] = put_int(v, d);
  });
}

void int_to_float(const Instr& in, const AluIn& a, AluOut& o) {
  const K dk = kind_of(in.m.type);
  const Fmt& f = fmt_of(dk);
  const unsigned sb = ptx::type_bits(in.m.type2);
  const bool ss = ptx::type_is_signed(in.m.type2), sat = in.m.sat;
  const Dir dir = dir_of(in.m.rnd);
  for_lanes(a.mask, [&](unsigned l) {
    bool neg = false;
    uint64_t mag;
    if (ss) {
      const int64_t v = sext(a.src[0][l], sb);
      neg = v < 0;
      mag = neg ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    } else {
      mag = zx(a.src[0][l], sb);
    }
    uint64_t r = mag == 0 ? 0 : round_pack(neg, mag, 0, f, dir);
    if (sat) r = (neg || mag == 0) ? 0 : uint64_t(f.bias) << f.frac;  // clamp to [0, 1]
    o.dst[l] = r;
  });
}
// Fast path for the common cvt.rn.f32.{s32,u32}: the host conversion is
// correctly rounded to nearest.
template <class S>
void int_to_f32_rn(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = bits_of(float(S(a.src[0][l]))); });
}

// Float -> float, including rounding to an integral value in the same
// format (.rni .rzi .rmi .rpi).
void float_to_float(const Instr& in, const AluIn& a, AluOut& o) {
  const auto& m = in.m;
  const K dk = kind_of(m.type), sk = kind_of(m.type2);
  const Fmt& f = fmt_of(dk);
  const bool ftz_in = m.ftz && sk == K::f32, ftz_out = m.ftz && dk == K::f32;
  const Dir dir = dir_of(m.rnd);
  const bool irnd = is_irnd(m.rnd);
  for_lanes(a.mask, [&](unsigned l) {
    double x = fval(a.src[0][l], sk, ftz_in);
    if (irnd) {
      switch (m.rnd) {
        case Rnd::rni: x = std::nearbyint(x); break;
        case Rnd::rzi: x = std::trunc(x); break;
        case Rnd::rmi: x = std::floor(x); break;
        default: x = std::ceil(x); break;
      }
    }
    if (m.relu && x < 0) x = 0.0;  // .relu: negative results become +0; NaN stays NaN
    uint64_t r = round_double(x, f, dir, ftz_out, m.satfinite);
    if (m.sat) {  // [0, 1]; NaN, -0 and negatives give +0
      if (!(x > 0)) r = 0;
      else if (x >= 1.0) r = uint64_t(f.bias) << f.frac;
    }
    o.dst[l] = r;
  });
}

// cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a goes to the upper
// half, b to the lower.
void pack_x2(const Instr& in, const AluIn& a, AluOut& o) {
  const auto& m = in.m;
  const Fmt& f = m.type == Type::f16x2 ? kF16 : kBF16;
  const Dir dir = dir_of(m.rnd);
  for_lanes(a.mask, [&](unsigned l) {
    double hi = as_f32(a.src[0][l]), lo = as_f32(a.src[1][l]);
    if (m.relu) { if (hi < 0) hi = 0.0; if (lo < 0) lo = 0.0; }
    o.dst[l] = (round_double(hi, f, dir, false, m.satfinite) << 16) | round_double(lo, f, dir, false, m.satfinite);
  });
}

}  // namespace

Kern select_cvt(const Instr& in) {
  const auto& m = in.m;
  if (m.type == Type::f16x2 || m.type == Type::bf16x2) {
    if (m.type2 != Type::f32 || m.ftz || m.sat || in.ops.size() != 3) return nullptr;
    const bool ok = m.rnd == Rnd::rn || (m.type == Type::f16x2 && m.rnd == Rnd::rz) ||
                    (m.type == Type::bf16x2 && m.rnd == Rnd::rz);
    return ok ? &pack_x2 : nullptr;
  }
  const K dk = kind_of(m.type), sk = kind_of(m.type2);
  if (dk == K::none || sk == K::none) return nullptr;
  const bool to16 = dk == K::f16 || dk == K::bf16;
  if ((m.relu || m.satfinite) && !to16) return nullptr;
  if (is_int(dk) && is_int(sk)) return (m.rnd == Rnd::none && !m.ftz) ? &int_to_int : nullptr;
  if (is_int(dk)) {
    // float -> int needs an integer rounding; .ftz only for an f32 source.
    if (!is_irnd(m.rnd) || (m.ftz && sk != K::f32)) return nullptr;
    return &float_to_int;
  }
  if (is_int(sk)) {
    if (!(m.rnd == Rnd::none || is_frnd(m.rnd)) || m.ftz) return nullptr;
    if (dk == K::f32 && !m.sat && (m.rnd == Rnd::rn || m.rnd == Rnd::none)) {
      if (m.type2 == Type::s32) return &int_to_f32_rn<int32_t>;
      if (m.type2 == Type::u32) return &int_to_f32_rn<uint32_t>;
    }
    return &int_to_float;
  }
  if (m.ftz && dk != K::f32 && sk != K::f32) return nullptr;
  if (is_irnd(m.rnd)) return dk == sk ? &float_to_float : nullptr;
  return (m.rnd == Rnd::none || is_frnd(m.rnd)) ? &float_to_float : nullptr;
}

}  // namespace relgpu::func::detail
