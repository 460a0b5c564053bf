// Compare and select: setp (.and/.or/.xor with a predicate, p|q pairs), set,
// selp, slct, testp.
#include <cmath>

#include "func/alu_lanes.h"

namespace relgpu::func::detail {
namespace {

using ptx::BoolOp;
using ptx::Cmp;
using ptx::Instr;
using ptx::Opcode;
using ptx::Type;

// Ordered compares are false when either operand is NaN; the ...u forms are
// true then. ne is ordered (false on NaN), neu unordered.
template <Cmp C, class F>
inline bool fcmp(F x, F y) {
  switch (C) {
    case Cmp::eq: return x == y;
    case Cmp::ne: return x < y || x > y;
    case Cmp::lt: return x < y;
    case Cmp::le: return x <= y;
    case Cmp::gt: return x > y;
    case Cmp::ge: return x >= y;
    case Cmp::equ: return !(x < y || x > y);
    case Cmp::neu: return x != y;
    case Cmp::ltu: return !(x >= y);
    case Cmp::leu: return !(x > y);
    case Cmp::gtu: return !(x <= y);
    case Cmp::geu: return !(x < y);
    case Cmp::num: return x == x && y == y;
    case Cmp::nan: return x != x || y != y;
    default: return false;
  }
}
// Integers: lo/ls/hi/hs are unsigned; eq..ge follow T's signedness.
template <Cmp C, class T>
inline bool icmp(T x, T y) {
  using UT = std::make_unsigned_t<T>;
  switch (C) {
    case Cmp::eq: return x == y;
    case Cmp::ne: return x != y;
    case Cmp::lt: return x < y;
    case Cmp::le: return x <= y;
    case Cmp::gt: return x > y;
    case Cmp::ge: return x >= y;
    case Cmp::lo: return UT(x) < UT(y);
    case Cmp::ls: return UT(x) <= UT(y);
    case Cmp::hi: return UT(x) > UT(y);
    case Cmp::hs: return UT(x) >= UT(y);
    default: return false;
  }
}
bool fcmp_rt(Cmp c, double x, double y) {
  switch (c) {
#define RELGPU_C(n) case Cmp::n: return fcmp<Cmp::n>(x, y);
    RELGPU_C(eq) RELGPU_C(ne) RELGPU_C(lt) RELGPU_C(le) RELGPU_C(gt) RELGPU_C(ge) RELGPU_C(equ)
    RELGPU_C(neu) RELGPU_C(ltu) RELGPU_C(leu) RELGPU_C(gtu) RELGPU_C(geu) RELGPU_C(num) RELGPU_C(nan)
#undef RELGPU_C
    default: return false;
  }
}
template <class T>
bool icmp_rt(Cmp c, T x, T y) {
  switch (c) {
#define RELGPU_C(n) case Cmp::n: return icmp<Cmp::n>(x, y);
    RELGPU_C(eq) RELGPU_C(ne) RELGPU_C(lt) RELGPU_C(le) RELGPU_C(gt) RELGPU_C(ge)
    RELGPU_C(lo) RELGPU_C(ls) RELGPU_C(hi) RELGPU_C(hs)
#undef RELGPU_C
    default: return false;
  }
}

inline bool combine(BoolOp op, bool r, bool c) {
  switch (op) {
    case BoolOp::and_: return r && c;
    case BoolOp::or_: return r || c;
    case BoolOp::xor_: return r != c;
    default: return r;
  }
}
// setp result to p (and to q as the complement, if the instruction has p|q).
inline void put_pred(BoolOp op, const AluIn& a, AluOut& o, unsigned l, bool r) {
  const bool c = op != BoolOp::none && (a.src[2][l] & 1);
  o.dst[l] = combine(op, r, c);
  if (o.dst2) o.dst2[l] = combine(op, !r, c);
}

template <class T, Cmp C>
void setp_int(const Instr& in, const AluIn& a, AluOut& o) {
  const BoolOp op = in.m.bop;
  for_lanes(a.mask, [&](unsigned l) { put_pred(op, a, o, l, icmp<C>(T(a.src[0][l]), T(a.src[1][l]))); });
}
template <Cmp C, bool FTZ>
void setp_f32(const Instr& in, const AluIn& a, AluOut& o) {
  const BoolOp op = in.m.bop;
  for_lanes(a.mask, [&](unsigned l) {
    uint32_t x = uint32_t(a.src[0][l]), y = uint32_t(a.src[1][l]);
    if (FTZ) { x = ftz32(x); y = ftz32(y); }
    put_pred(op, a, o, l, fcmp<C>(as_f32(x), as_f32(y)));
  });
}
template <Cmp C>
void setp_f64(const Instr& in, const AluIn& a, AluOut& o) {
  const BoolOp op = in.m.bop;
  for_lanes(a.mask, [&](unsigned l) { put_pred(op, a, o, l, fcmp<C>(as_f64(a.src[0][l]), as_f64(a.src[1][l]))); });
}

// 16-bit float halves to double, with .ftz flushing f16 subnormals.
inline double half_val(uint32_t h, bool bf, bool ftz) {
  h &= 0xFFFF;
  if (ftz && (h & (bf ? 0x7F80u : 0x7C00u)) == 0) h &= 0x8000;
  return bf ? bf16_to_double(uint16_t(h)) : f16_to_double(uint16_t(h));
}
// setp on f16/bf16: one result; on f16x2/bf16x2: p from the low halves, q
// from the high halves (PTX ISA), each combined with c.
void setp_half(const Instr& in, const AluIn& a, AluOut& o) {
  const Type t = in.m.type;
  const bool bf = t == Type::bf16 || t == Type::bf16x2, x2 = t == Type::f16x2 || t == Type::bf16x2;
  const auto& m = in.m;
  for_lanes(a.mask, [&](unsigned l) {
    const uint64_t x = a.src[0][l], y = a.src[1][l];
    const bool c = m.bop != BoolOp::none && (a.src[2][l] & 1);
    const bool r0 = fcmp_rt(m.cmp, half_val(uint32_t(x), bf, m.ftz), half_val(uint32_t(y), bf, m.ftz));
    if (!x2) {
      o.dst[l] = combine(m.bop, r0, c);
      if (o.dst2) o.dst2[l] = combine(m.bop, !r0, c);
      return;
    }
    const bool r1 = fcmp_rt(m.cmp, half_val(uint32_t(x >> 16), bf, m.ftz), half_val(uint32_t(y >> 16), bf, m.ftz));
    o.dst[l] = combine(m.bop, r0, c);
    if (o.dst2) o.dst2[l] = combine(m.bop, r1, c);
  });
}

// One compare of src0/src1 at lane l under the source type (runtime form,
// for set, whose results are rarer than setp's).
bool compare_rt(const Instr& in, const AluIn& a, unsigned l, unsigned half) {
  const auto& m = in.m;
  const uint64_t x = a.src[0][l] >> (16 * half), y = a.src[1][l] >> (16 * half);
  switch (m.type2) {
    case Type::b16: case Type::u16: return icmp_rt<uint16_t>(m.cmp, uint16_t(x), uint16_t(y));
    case Type::b32: case Type::u32: return icmp_rt<uint32_t>(m.cmp, uint32_t(x), uint32_t(y));
    case Type::b64: case Type::u64: return icmp_rt<uint64_t>(m.cmp, x, y);
    case Type::s16: return icmp_rt<int16_t>(m.cmp, int16_t(x), int16_t(y));
    case Type::s32: return icmp_rt<int32_t>(m.cmp, int32_t(x), int32_t(y));
    case Type::s64: return icmp_rt<int64_t>(m.cmp, int64_t(x), int64_t(y));
    case Type::f32: {
      uint32_t u = uint32_t(x), v = uint32_t(y);
      if (m.ftz) { u = ftz32(u); v = ftz32(v); }
      return fcmp_rt(m.cmp, as_f32(u), as_f32(v));
    }
    case Type::f64: return fcmp_rt(m.cmp, as_f64(x), as_f64(y));
    case Type::f16: case Type::f16x2: return fcmp_rt(m.cmp, half_val(uint32_t(x), false, m.ftz), half_val(uint32_t(y), false, m.ftz));
    case Type::bf16: case Type::bf16x2: return fcmp_rt(m.cmp, half_val(uint32_t(x), true, m.ftz), half_val(uint32_t(y), true, m.ftz));
    default: return false;
  }
}
// "true" in the destination type: all ones for integers, 1.0 for floats.
uint64_t true_of(Type t) {
  switch (t) {
    case Type::u16: case Type::s16: return 0xFFFF;
    case Type::u32: case Type::s32: return 0xFFFFFFFFu;
    case Type::f32: return 0x3F800000u;
    case Type::f16: return 0x3C00;
    case Type::bf16: return 0x3F80;
    default: return 0;
  }
}
// set.CmpOp{.BoolOp}.dtype.stype d, a, b{, c}. With an x2 source each 16-bit
// half of d gets its own result (0xFFFF or 1.0 in f16/bf16; dtype u32/s32 or
// f16x2/bf16x2).
void set_k(const Instr& in, const AluIn& a, AluOut& o) {
  const auto& m = in.m;
  const bool x2 = m.type2 == Type::f16x2 || m.type2 == Type::bf16x2;
  uint64_t one = true_of(m.type);
  if (x2) one = m.type == Type::f16x2 ? 0x3C00 : m.type == Type::bf16x2 ? 0x3F80 : 0xFFFF;
  for_lanes(a.mask, [&](unsigned l) {
    const bool c = m.bop != BoolOp::none && (a.src[2][l] & 1);
    uint64_t r = combine(m.bop, compare_rt(in, a, l, 0), c) ? one : 0;
    if (x2 && combine(m.bop, compare_rt(in, a, l, 1), c)) r |= one << 16;
    o.dst[l] = r;
  });
}

template <unsigned W>
void selp_k(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t mk = W == 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1;
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = ((a.src[2][l] & 1) ? a.src[0][l] : a.src[1][l]) & mk; });
}
// slct d, a, b, c: a if c >= 0 else b. For an f32 selector, -0 >= 0 picks a
// and NaN picks b (the comparison is false).
template <unsigned W, bool F32, bool FTZ>
void slct_k(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t mk = W == 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1;
  for_lanes(a.mask, [&](unsigned l) {
    const uint32_t c = uint32_t(a.src[2][l]);
    const bool ge = F32 ? as_f32(FTZ ? ftz32(c) : c) >= 0.0f : int32_t(c) >= 0;
    o.dst[l] = (ge ? a.src[0][l] : a.src[1][l]) & mk;
  });
}

template <bool F64>
void testp_k(const Instr& in, const AluIn& a, AluOut& o) {
  const ptx::TestpOp op = in.m.testp;
  for_lanes(a.mask, [&](unsigned l) {
    const int c = F64 ? std::fpclassify(as_f64(a.src[0][l])) : std::fpclassify(as_f32(a.src[0][l]));
    bool r = false;
    switch (op) {
      case ptx::TestpOp::finite: r = c != FP_INFINITE && c != FP_NAN; break;
      case ptx::TestpOp::infinite: r = c == FP_INFINITE; break;
      case ptx::TestpOp::number: r = c != FP_NAN; break;
      case ptx::TestpOp::notanumber: r = c == FP_NAN; break;
      case ptx::TestpOp::normal: r = c == FP_NORMAL; break;
      case ptx::TestpOp::subnormal: r = c == FP_SUBNORMAL; break;
      case ptx::TestpOp::none: break;
    }
    o.dst[l] = r;
  });
}

// ---- selection -------------------------------------------------------------------
bool is_float_cmp(Cmp c) { return c != Cmp::none && c != Cmp::lo && c != Cmp::ls && c != Cmp::hi && c != Cmp::hs; }
bool is_int_cmp(Cmp c) { return c >= Cmp::eq && c <= Cmp::hs; }

template <class T>
Kern setp_int_sel(Cmp c) {
  switch (c) {
#define RELGPU_C(n) case Cmp::n: return &setp_int<T, Cmp::n>;
    RELGPU_C(eq) RELGPU_C(ne) RELGPU_C(lt) RELGPU_C(le) RELGPU_C(gt) RELGPU_C(ge)
    RELGPU_C(lo) RELGPU_C(ls) RELGPU_C(hi) RELGPU_C(hs)
#undef RELGPU_C
    default: return nullptr;
  }
}
template <bool FTZ>
Kern setp_f32_sel(Cmp c) {
  switch (c) {
#define RELGPU_C(n) case Cmp::n: return &setp_f32<Cmp::n, FTZ>;
    RELGPU_C(eq) RELGPU_C(ne) RELGPU_C(lt) RELGPU_C(le) RELGPU_C(gt) RELGPU_C(ge) RELGPU_C(equ)
    RELGPU_C(neu) RELGPU_C(ltu) RELGPU_C(leu) RELGPU_C(gtu) RELGPU_C(geu) RELGPU_C(num) RELGPU_C(nan)
#undef RELGPU_C
    default: return nullptr;
  }
}
Kern setp_f64_sel(Cmp c) {
  switch (c) {
#define RELGPU_C(n) case Cmp::n: return &setp_f64<Cmp::n>;
    RELGPU_C(eq) RELGPU_C(ne) RELGPU_C(lt) RELGPU_C(le) RELGPU_C(gt) RELGPU_C(ge) RELGPU_C(equ)
    RELGPU_C(neu) RELGPU_C(ltu) RELGPU_C(leu) RELGPU_C(gtu) RELGPU_C(geu) RELGPU_C(num) RELGPU_C(nan)
#undef RELGPU_C
    default: return nullptr;
  }
}

bool cmp_fits(Type t, Cmp c) {
  if (ptx::type_is_float(t)) return is_float_cmp(c);
  switch (t) {
    case Type::b16: case Type::b32: case Type::b64: case Type::u16: case Type::u32: case Type::u64:
    case Type::s16: case Type::s32: case Type::s64:
      return is_int_cmp(c);
    default: return false;
  }
}

Kern select_setp(const Instr& in) {
  const auto& m = in.m;
  if (!cmp_fits(m.type, m.cmp)) return nullptr;
  if (m.ftz && m.type != Type::f32 && m.type != Type::f16 && m.type != Type::f16x2) return nullptr;
  switch (m.type) {
    case Type::b16: case Type::u16: return setp_int_sel<uint16_t>(m.cmp);
    case Type::b32: case Type::u32: return setp_int_sel<uint32_t>(m.cmp);
    case Type::b64: case Type::u64: return setp_int_sel<uint64_t>(m.cmp);
    case Type::s16: return setp_int_sel<int16_t>(m.cmp);
    case Type::s32: return setp_int_sel<int32_t>(m.cmp);
    case Type::s64: return setp_int_sel<int64_t>(m.cmp);
    case Type::f32: return m.ftz ? setp_f32_sel<true>(m.cmp) : setp_f32_sel<false>(m.cmp);
    case Type::f64: return setp_f64_sel(m.cmp);
    case Type::f16: case Type::f16x2: case Type::bf16: case Type::bf16x2: return &setp_half;
    default: return nullptr;
  }
}

Kern select_set(const Instr& in) {
  const auto& m = in.m;
  if (!cmp_fits(m.type2, m.cmp)) return nullptr;
  const bool x2 = m.type2 == Type::f16x2 || m.type2 == Type::bf16x2;
  if (x2) {
    const bool ok = m.type == Type::u32 || m.type == Type::s32 || m.type == m.type2;
    return ok ? &set_k : nullptr;
  }
  return true_of(m.type) ? &set_k : nullptr;
}

unsigned value_bits(Type t) {
  const unsigned b = ptx::type_bits(t);
  return (b == 16 || b == 32 || b == 64) ? b : 0;
}

}  // namespace

Kern select_cmp(const Instr& in) {
  const auto& m = in.m;
  switch (in.op) {
    case Opcode::setp: return select_setp(in);
    case Opcode::set: return select_set(in);
    case Opcode::selp:
      switch (value_bits(m.type)) {
        case 16: return &selp_k<16>;
        case 32: return &selp_k<32>;
        case 64: return &selp_k<64>;
        default: return nullptr;
      }
    case Opcode::slct: {
      const unsigned w = value_bits(m.type);
      if (w == 0) return nullptr;
      if (m.type2 == Type::s32 && !m.ftz) return w == 16 ? &slct_k<16, false, false> : w == 32 ? &slct_k<32, false, false> : &slct_k<64, false, false>;
      if (m.type2 != Type::f32) return nullptr;
      if (m.ftz) return w == 16 ? &slct_k<16, true, true> : w == 32 ? &slct_k<32, true, true> : &slct_k<64, true, true>;
      return w == 16 ? &slct_k<16, true, false> : w == 32 ? &slct_k<32, true, false> : &slct_k<64, true, false>;
    }
    case Opcode::testp:
      if (m.testp == ptx::TestpOp::none) return nullptr;
      if (m.type == Type::f32) return &testp_k<false>;
      if (m.type == Type::f64) return &testp_k<true>;
      return nullptr;
    default: return nullptr;
  }
}

}  // namespace relgpu::func::detail
