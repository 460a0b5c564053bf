// Integer arithmetic: add sub mul mad (.lo .hi .wide .sat .cc), addc subc
// madc, mul24 mad24, sad, div rem, abs neg min max (.relu).
// Arithmetic is done on unsigned 64/128-bit values and truncated, so signed
// overflow wraps as on the GPU and is never undefined behaviour in C++.
#include <limits>

#include "func/alu_lanes.h"

namespace relgpu::func::detail {
namespace {

using ptx::Instr;
using ptx::MulMode;
using ptx::Opcode;
using ptx::Type;
using u128 = unsigned __int128;
using s128 = __int128;

// ---- two- and three-operand kernels over one integer type T ----------------
template <class T, class Op>
void k2(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t *x = a.src[0], *y = a.src[1];
  uint64_t* d = o.dst;
  for_lanes(a.mask, [&](unsigned l) { d[l] = zext(T(Op::f(T(x[l]), T(y[l])))); });
}
template <class T, class Op>
void k1(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t* x = a.src[0];
  uint64_t* d = o.dst;
  for_lanes(a.mask, [&](unsigned l) { d[l] = zext(T(Op::f(T(x[l])))); });
}
template <class T, class Op>
void k3(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t *x = a.src[0], *y = a.src[1], *z = a.src[2];
  uint64_t* d = o.dst;
  for_lanes(a.mask, [&](unsigned l) { d[l] = zext(T(Op::f(T(x[l]), T(y[l]), T(z[l])))); });
}

template <class T> using U = std::make_unsigned_t<T>;
template <class T> constexpr unsigned W = sizeof(T) * 8;

// Full product of two T values, as a signed or unsigned 128-bit number.
template <class T> inline s128 prod(T x, T y) { return s128(x) * s128(y); }
template <> inline s128 prod<uint64_t>(uint64_t x, uint64_t y) { return s128(u128(x) * u128(y)); }
template <> inline s128 prod<int64_t>(int64_t x, int64_t y) { return s128(x) * s128(y); }
template <class T> inline T hi_of(T x, T y) { return T(u128(prod(x, y)) >> W<T>); }

struct Add { template <class T> static T f(T x, T y) { return T(U<T>(x) + U<T>(y)); } };
struct Sub { template <class T> static T f(T x, T y) { return T(U<T>(x) - U<T>(y)); } };
struct MulLo { template <class T> static T f(T x, T y) { return T(uint64_t(x) * uint64_t(y)); } };
struct MulHi { template <class T> static T f(T x, T y) { return hi_of(x, y); } };
struct MadLo { template <class T> static T f(T x, T y, T z) { return T(uint64_t(x) * uint64_t(y) + uint64_t(z)); } };
struct MadHi { template <class T> static T f(T x, T y, T z) { return T(uint64_t(hi_of(x, y)) + uint64_t(z)); } };
// Saturating s32 forms: exact in 64 bits, then clamped.
inline int32_t sat32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : int32_t(v);
}
struct AddSat { static int32_t f(int32_t x, int32_t y) { return sat32(int64_t(x) + y); } };
struct SubSat { static int32_t f(int32_t x, int32_t y) { return sat32(int64_t(x) - y); } };
// mad.hi.sat.s32: the high half of a*b plus c, clamped (PTX: saturation
// applies to the .s32 .hi form only).
struct MadHiSat { static int32_t f(int32_t x, int32_t y, int32_t z) { return sat32(int64_t(hi_of(x, y)) + z); } };
// mul24/mad24: operands are the low 24 bits (sign-extended for .s32); the
// 48-bit product's bits 31..0 (.lo) or 47..16 (.hi).
template <class T> inline int64_t low24(T x) {
  return std::is_signed_v<T> ? int64_t(int32_t(uint32_t(x) << 8) >> 8) : int64_t(uint32_t(x) & 0xFFFFFF);
}
struct Mul24Lo { template <class T> static T f(T x, T y) { return T(uint64_t(low24(x) * low24(y))); } };
struct Mul24Hi { template <class T> static T f(T x, T y) { return T(uint64_t(low24(x) * low24(y) >> 16)); } };
struct Mad24Lo { template <class T> static T f(T x, T y, T z) { return T(uint64_t(low24(x) * low24(y)) + uint64_t(z)); } };
struct Mad24Hi { template <class T> static T f(T x, T y, T z) { return T(uint64_t(low24(x) * low24(y) >> 16) + uint64_t(z)); } };
struct Mad24HiSat { static int32_t f(int32_t x, int32_t y, int32_t z) { return sat32((low24(x) * low24(y) >> 16) + z); } };
struct Sad {
  template <class T> static T f(T x, T y, T z) {
    U<T> diff = x < y ? U<T>(U<T>(y) - U<T>(x)) : U<T>(U<T>(x) - U<T>(y));
    return T(U<T>(U<T>(z) + diff));
  }
};
// Division by zero: the PTX ISA leaves the value machine-specific. We return
// what NVIDIA GPUs produce for unsigned x/0 (all ones) and use all ones (-1)
// for signed x/0 too; x%0 = x. INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0
// (the wrapped two's-complement results).
struct Div {
  template <class T> static T f(T x, T y) {
    if (y == 0) return T(~U<T>(0));
    if (std::is_signed_v<T> && y == T(-1)) return T(U<T>(0) - U<T>(x));
    return T(x / y);
  }
};
struct Rem {
  template <class T> static T f(T x, T y) {
    if (y == 0) return x;
    if (std::is_signed_v<T> && y == T(-1)) return 0;
    return T(x % y);
  }
};
struct Abs { template <class T> static T f(T x) { return x < 0 ? T(U<T>(0) - U<T>(x)) : x; } };
struct Neg { template <class T> static T f(T x) { return T(U<T>(0) - U<T>(x)); } };
struct Min { template <class T> static T f(T x, T y) { return y < x ? y : x; } };
struct Max { template <class T> static T f(T x, T y) { return y > x ? y : x; } };
struct MinRelu { template <class T> static T f(T x, T y) { T r = y < x ? y : x; return r < 0 ? T(0) : r; } };
struct MaxRelu { template <class T> static T f(T x, T y) { T r = y > x ? y : x; return r < 0 ? T(0) : r; } };

// mul.wide / mad.wide: T -> the double-width type D.
template <class T, class D>
void mul_wide(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t *x = a.src[0], *y = a.src[1];
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = zext(D(D(T(x[l])) * D(T(y[l])))); });
}
template <class T, class D>
void mad_wide(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t *x = a.src[0], *y = a.src[1], *z = a.src[2];
  for_lanes(a.mask, [&](unsigned l) {
    o.dst[l] = zext(D(std::make_unsigned_t<D>(D(T(x[l])) * D(T(y[l]))) + std::make_unsigned_t<D>(D(z[l]))));
  });
}

// ---- carry chain: add.cc addc sub.cc subc mad.cc madc -----------------------
// CC.CF holds the carry (add) or the borrow (sub), as the PTX ISA defines it.
// Lanes outside the mask keep their flag.
enum class CK { add, sub, mad_lo, mad_hi };
template <class T, CK K, bool CIN, bool COUT>
void carry_k(const Instr&, const AluIn& a, AluOut& o) {
  using UT = U<T>;
  const uint64_t *x = a.src[0], *y = a.src[1], *z = a.src[2];
  uint32_t cf = a.carry & ~a.mask;
  for_lanes(a.mask, [&](unsigned l) {
    const u128 cin = CIN ? (a.carry >> l) & 1 : 0;
    u128 r;
    if (K == CK::add) {
      r = u128(UT(x[l])) + u128(UT(y[l])) + cin;
      cf |= uint32_t(r >> W<T>) << l;
    } else if (K == CK::sub) {
      const u128 sub = u128(UT(y[l])) + cin;
      r = u128(UT(x[l])) - sub;
      cf |= uint32_t(u128(UT(x[l])) < sub) << l;
    } else {
      UT t = K == CK::mad_lo ? UT(uint64_t(T(x[l])) * uint64_t(T(y[l]))) : UT(hi_of(T(x[l]), T(y[l])));
      r = u128(t) + u128(UT(z[l])) + cin;
      cf |= uint32_t(r >> W<T>) << l;
    }
    o.dst[l] = uint64_t(UT(r));
  });
  if (COUT) o.carry = cf;
}

template <class T>
Kern carry_sel(Opcode op, bool cc, MulMode mm) {
  const bool lo = mm != MulMode::hi;
  switch (op) {
    case Opcode::add: return &carry_k<T, CK::add, false, true>;
    case Opcode::sub: return &carry_k<T, CK::sub, false, true>;
    case Opcode::addc: return cc ? &carry_k<T, CK::add, true, true> : &carry_k<T, CK::add, true, false>;
    case Opcode::subc: return cc ? &carry_k<T, CK::sub, true, true> : &carry_k<T, CK::sub, true, false>;
    case Opcode::mad:
      return lo ? &carry_k<T, CK::mad_lo, false, true> : &carry_k<T, CK::mad_hi, false, true>;
    case Opcode::madc:
      if (lo) return cc ? &carry_k<T, CK::mad_lo, true, true> : &carry_k<T, CK::mad_lo, true, false>;
      return cc ? &carry_k<T, CK::mad_hi, true, true> : &carry_k<T, CK::mad_hi, true, false>;
    default: return nullptr;
  }
}

Kern select_carry(const Instr& in) {
  const auto& m = in.m;
  if (m.sat) return nullptr;
  if ((in.op == Opcode::mad || in.op == Opcode::madc) && m.mul == MulMode::wide) return nullptr;
  switch (m.type) {
    case Type::u32: return carry_sel<uint32_t>(in.op, m.cc, m.mul);
    case Type::s32: return carry_sel<int32_t>(in.op, m.cc, m.mul);
    case Type::u64: return carry_sel<uint64_t>(in.op, m.cc, m.mul);
    case Type::s64: return carry_sel<int64_t>(in.op, m.cc, m.mul);
    default: return nullptr;
  }
}

// Picks K<T> for the six integer types u16 u32 u64 s16 s32 s64.
template <template <class> class K>
Kern by_type(Type t) {
  switch (t) {
    case Type::u16: return K<uint16_t>::k;
    case Type::u32: return K<uint32_t>::k;
    case Type::u64: return K<uint64_t>::k;
    case Type::s16: return K<int16_t>::k;
    case Type::s32: return K<int32_t>::k;
    case Type::s64: return K<int64_t>::k;
    default: return nullptr;
  }
}
#define RELGPU_K2(Name, Op) template <class T> struct Name { static constexpr Kern k = &k2<T, Op>; };
#define RELGPU_K3(Name, Op) template <class T> struct Name { static constexpr Kern k = &k3<T, Op>; };
RELGPU_K2(KAdd, Add) RELGPU_K2(KSub, Sub) RELGPU_K2(KMulLo, MulLo) RELGPU_K2(KMulHi, MulHi)
RELGPU_K2(KDiv, Div) RELGPU_K2(KRem, Rem) RELGPU_K2(KMin, Min) RELGPU_K2(KMax, Max)
RELGPU_K3(KMadLo, MadLo) RELGPU_K3(KMadHi, MadHi) RELGPU_K3(KSad, Sad)
#undef RELGPU_K2
#undef RELGPU_K3

Kern select_mulmad(const Instr& in) {
  const auto& m = in.m;
  const bool mad = in.op == Opcode::mad;
  if (m.sat) {
    if (mad && m.type == Type::s32 && m.mul == MulMode::hi) return &k3<int32_t, MadHiSat>;
    return nullptr;
  }
  switch (m.mul) {
    case MulMode::none:  // PTX requires .lo/.hi/.wide; "mul.u32" is read as .lo
    case MulMode::lo: return mad ? by_type<KMadLo>(m.type) : by_type<KMulLo>(m.type);
    case MulMode::hi: return mad ? by_type<KMadHi>(m.type) : by_type<KMulHi>(m.type);
    case MulMode::wide:
      switch (m.type) {
        case Type::u16: return mad ? &mad_wide<uint16_t, uint32_t> : &mul_wide<uint16_t, uint32_t>;
        case Type::s16: return mad ? &mad_wide<int16_t, int32_t> : &mul_wide<int16_t, int32_t>;
        case Type::u32: return mad ? &mad_wide<uint32_t, uint64_t> : &mul_wide<uint32_t, uint64_t>;
        case Type::s32: return mad ? &mad_wide<int32_t, int64_t> : &mul_wide<int32_t, int64_t>;
        default: return nullptr;
      }
  }
  return nullptr;
}

Kern select_24(const Instr& in) {
  const auto& m = in.m;
  const bool mad = in.op == Opcode::mad24;
  const bool hi = m.mul == MulMode::hi;
  if (m.mul == MulMode::wide) return nullptr;
  if (m.sat) return (mad && hi && m.type == Type::s32) ? &k3<int32_t, Mad24HiSat> : nullptr;
  if (m.type == Type::u32) {
    if (mad) return hi ? &k3<uint32_t, Mad24Hi> : &k3<uint32_t, Mad24Lo>;
    return hi ? &k2<uint32_t, Mul24Hi> : &k2<uint32_t, Mul24Lo>;
  }
  if (m.type == Type::s32) {
    if (mad) return hi ? &k3<int32_t, Mad24Hi> : &k3<int32_t, Mad24Lo>;
    return hi ? &k2<int32_t, Mul24Hi> : &k2<int32_t, Mul24Lo>;
  }
  return nullptr;
}

}  // namespace

Kern select_int(const Instr& in) {
  const auto& m = in.m;
  const Type t = m.type;
  if (m.cc || in.op == Opcode::addc || in.op == Opcode::subc || in.op == Opcode::madc) return select_carry(in);
  switch (in.op) {
    case Opcode::add:
    case Opcode::sub:
      if (m.sat) {
        if (t != Type::s32) return nullptr;
        return in.op == Opcode::add ? &k2<int32_t, AddSat> : &k2<int32_t, SubSat>;
      }
      return in.op == Opcode::add ? by_type<KAdd>(t) : by_type<KSub>(t);
    case Opcode::mul:
    case Opcode::mad:
      return select_mulmad(in);
    case Opcode::mul24:
    case Opcode::mad24:
      return select_24(in);
    case Opcode::sad: return by_type<KSad>(t);
    case Opcode::div: return by_type<KDiv>(t);
    case Opcode::rem: return by_type<KRem>(t);
    case Opcode::abs:
    case Opcode::neg:
      switch (t) {
        case Type::s16: return in.op == Opcode::abs ? &k1<int16_t, Abs> : &k1<int16_t, Neg>;
        case Type::s32: return in.op == Opcode::abs ? &k1<int32_t, Abs> : &k1<int32_t, Neg>;
        case Type::s64: return in.op == Opcode::abs ? &k1<int64_t, Abs> : &k1<int64_t, Neg>;
        default: return nullptr;
      }
    case Opcode::min:
    case Opcode::max:
      if (m.relu) {
        if (t != Type::s32) return nullptr;
        return in.op == Opcode::min ? &k2<int32_t, MinRelu> : &k2<int32_t, MaxRelu>;
      }
      return in.op == Opcode::min ? by_type<KMin>(t) : by_type<KMax>(t);
    default:
      return nullptr;
  }
}

}  // namespace relgpu::func::detail
