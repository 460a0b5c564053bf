// f32 and f64 arithmetic: add sub mul fma mad div rcp sqrt (.rn .rz .rm .rp,
// .ftz, .sat), .approx/.full forms, rsqrt sin cos lg2 ex2 tanh (.approx),
// abs neg min max (.NaN) copysign.
//
// Correctly rounded operations use the host's IEEE arithmetic (SSE on
// x86-64, no x87): +, -, *, /, sqrt and fma are correctly rounded in the
// current host rounding mode, which RoundGuard sets for .rz/.rm/.rp only.
// .approx operations: we compute them with the host's double-precision libm
// and round once to f32. That is well inside the error bounds the PTX ISA
// documents for each, deterministic across runs, but not bit-identical to
// NVIDIA's MUFU tables.
#include <cmath>

#include "func/alu_lanes.h"

namespace relgpu::func::detail {
namespace {

using ptx::Instr;
using ptx::Opcode;
using ptx::Rnd;
using ptx::Type;

template <bool FTZ> inline float ld32(uint64_t v) { return as_f32(FTZ ? ftz32(uint32_t(v)) : uint32_t(v)); }
template <bool FTZ> inline double ld64(uint64_t v) { return as_f64(FTZ ? ftz64(v) : v); }

// ---- operations ---------------------------------------------------------------
struct Add { template <class F> static F f(F x, F y) { return x + y; } };
struct Sub { template <class F> static F f(F x, F y) { return x - y; } };
struct Mul { template <class F> static F f(F x, F y) { return x * y; } };
struct Div { template <class F> static F f(F x, F y) { return x / y; } };
struct Fma { template <class F> static F f(F x, F y, F z) { return std::fma(x, y, z); } };
struct Sqrt { template <class F> static F f(F x) { return std::sqrt(x); } };
struct Rcp { template <class F> static F f(F x) { return F(1) / x; } };
// div.approx.f32 is a * (1/b) (PTX: max 2 ulp for |b| in [2^-126, 2^126]);
// for 2^126 < |b| < 2^128 the reciprocal underflows and the result is 0, or
// NaN when a is infinite, as the PTX ISA states.
struct DivApprox {
  static float f(float x, float y) {
    float r = 1.0f / y;
    if (std::fabs(y) > 0x1p126f && std::isfinite(y)) r = std::copysign(0.0f, r);
    return x * r;
  }
};
struct Rsqrt { template <class F> static F f(F x) { return F(1.0 / std::sqrt(double(x))); } };
struct Sin { static float f(float x) { return float(std::sin(double(x))); } };
struct Cos { static float f(float x) { return float(std::cos(double(x))); } };
struct Lg2 { static float f(float x) { return float(std::log2(double(x))); } };
struct Ex2 { static float f(float x) { return float(std::exp2(double(x))); } };
struct Tanh { static float f(float x) { return float(std::tanh(double(x))); } };

// min/max: a NaN operand loses to a number; two NaNs give the canonical NaN
// (fin32/fin64); .NaN makes any NaN operand win. -0 orders below +0.
template <bool MAX, bool NANV>
struct MinMax {
  template <class F> static F f(F x, F y) {
    const bool xn = x != x, yn = y != y;
    if (xn || yn) {
      if (NANV || (xn && yn)) return F(NAN);
      return xn ? y : x;
    }
    if (x == y) return (std::signbit(x) != MAX) ? x : y;  // +-0: min takes the negative one
    return (MAX ? x > y : x < y) ? x : y;
  }
};

using MaxNaN = MinMax<true, true>;
using MinNaN = MinMax<false, true>;
using MaxNum = MinMax<true, false>;
using MinNum = MinMax<false, false>;

// ---- f32 kernels -----------------------------------------------------------------
template <class Op, bool FTZ, bool SAT>
void f32_1(const Instr& in, const AluIn& a, AluOut& o) {
  RoundGuard g(in.m.rnd);
  const uint64_t* x = a.src[0];
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = fin32<FTZ, SAT>(Op::f(ld32<FTZ>(x[l]))); });
}
template <class Op, bool FTZ, bool SAT>
void f32_2(const Instr& in, const AluIn& a, AluOut& o) {
  RoundGuard g(in.m.rnd);
  const uint64_t *x = a.src[0], *y = a.src[1];
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = fin32<FTZ, SAT>(Op::f(ld32<FTZ>(x[l]), ld32<FTZ>(y[l]))); });
}
template <class Op, bool FTZ, bool SAT>
void f32_3(const Instr& in, const AluIn& a, AluOut& o) {
  RoundGuard g(in.m.rnd);
  const uint64_t *x = a.src[0], *y = a.src[1], *z = a.src[2];
  for_lanes(a.mask, [&](unsigned l) {
    o.dst[l] = fin32<FTZ, SAT>(Op::f(ld32<FTZ>(x[l]), ld32<FTZ>(y[l]), ld32<FTZ>(z[l])));
  });
}
// fma through the host's FMA instruction when it has one (glibc's fmaf is a
// call per lane); vfmadd honours the MXCSR rounding mode like the library.
// No lambda here: it would not inherit the target attribute.
template <class F, bool FTZ, bool SAT>
__attribute__((target("fma"))) void fma_hw(const Instr& in, const AluIn& a, AluOut& o) {
  RoundGuard g(in.m.rnd);
  const uint64_t *x = a.src[0], *y = a.src[1], *z = a.src[2];
  uint32_t mask = a.mask;
  while (mask) {
    const unsigned l = unsigned(__builtin_ctz(mask));
    mask &= mask - 1;
    if constexpr (sizeof(F) == 4) {
      o.dst[l] = fin32<FTZ, SAT>(__builtin_fmaf(ld32<FTZ>(x[l]), ld32<FTZ>(y[l]), ld32<FTZ>(z[l])));
    } else {
      o.dst[l] = fin64<false>(__builtin_fma(as_f64(x[l]), as_f64(y[l]), as_f64(z[l])));
    }
  }
}
const bool kHostFma = [] { __builtin_cpu_init(); return __builtin_cpu_supports("fma") != 0; }();

// ---- f64 kernels (FTZ only for the .approx.ftz.f64 forms) ----------------------------
template <class Op, bool FTZ>
void f64_1(const Instr& in, const AluIn& a, AluOut& o) {
  RoundGuard g(in.m.rnd);
  for_lanes(a.mask, [&](unsigned l) {
    uint64_t r = fin64<false>(Op::f(ld64<FTZ>(a.src[0][l])));
    o.dst[l] = FTZ ? ftz64(r) : r;
  });
}
template <class Op>
void f64_2(const Instr& in, const AluIn& a, AluOut& o) {
  RoundGuard g(in.m.rnd);
  const uint64_t *x = a.src[0], *y = a.src[1];
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = fin64<false>(Op::f(as_f64(x[l]), as_f64(y[l]))); });
}
template <class Op>
void f64_3(const Instr& in, const AluIn& a, AluOut& o) {
  RoundGuard g(in.m.rnd);
  const uint64_t *x = a.src[0], *y = a.src[1], *z = a.src[2];
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = fin64<false>(Op::f(as_f64(x[l]), as_f64(y[l]), as_f64(z[l]))); });
}

// Sign-bit operations keep NaN payloads (IEEE abs/negate/copySign).
template <bool FTZ, bool ABS>
void absneg32(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    uint32_t u = uint32_t(a.src[0][l]);
    if (FTZ) u = ftz32(u);
    o.dst[l] = ABS ? (u & 0x7FFFFFFFu) : (u ^ 0x80000000u);
  });
}
template <bool ABS>
void absneg64(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint64_t u = a.src[0][l];
    o.dst[l] = ABS ? (u & ~(uint64_t(1) << 63)) : (u ^ (uint64_t(1) << 63));
  });
}
// copysign d, a, b: b's magnitude with a's sign.
template <unsigned W>
void copysign_k(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t s = uint64_t(1) << (W - 1), m = W == 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1;
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = ((a.src[1][l] & ~s) | (a.src[0][l] & s)) & m; });
}

// ---- selection -------------------------------------------------------------------
bool is_ieee_rnd(Rnd r) { return r == Rnd::rn || r == Rnd::rz || r == Rnd::rm || r == Rnd::rp; }

// Kernel K<Op, ftz, sat> for runtime ftz/sat flags.
#define RELGPU_PICK32(K, Op, ftz, sat)                                   \
  ((ftz) ? ((sat) ? Kern(&K<Op, true, true>) : Kern(&K<Op, true, false>)) \
         : ((sat) ? Kern(&K<Op, false, true>) : Kern(&K<Op, false, false>)))

Kern select_f32(const Instr& in) {
  const auto& m = in.m;
  const bool ftz = m.ftz, sat = m.sat;
  const bool rnd_ok = m.rnd == Rnd::none || is_ieee_rnd(m.rnd);
  if (m.relu || m.xorsign || m.abs) return nullptr;
  switch (in.op) {
    case Opcode::add: return rnd_ok ? RELGPU_PICK32(f32_2, Add, ftz, sat) : nullptr;
    case Opcode::sub: return rnd_ok ? RELGPU_PICK32(f32_2, Sub, ftz, sat) : nullptr;
    case Opcode::mul: return rnd_ok ? RELGPU_PICK32(f32_2, Mul, ftz, sat) : nullptr;
    // mad.f32 without a rounding modifier (sm_1x syntax) is read as fma.rn.
    case Opcode::fma:
    case Opcode::mad:
      if (in.op == Opcode::fma ? !is_ieee_rnd(m.rnd) : !rnd_ok) return nullptr;
      if (kHostFma) return ftz ? (sat ? &fma_hw<float, true, true> : &fma_hw<float, true, false>)
                               : (sat ? &fma_hw<float, false, true> : &fma_hw<float, false, false>);
      return RELGPU_PICK32(f32_3, Fma, ftz, sat);
    case Opcode::div:
      if (sat) return nullptr;
      if (m.approx) return ftz ? &f32_2<DivApprox, true, false> : &f32_2<DivApprox, false, false>;
      // div.full: we return the correctly rounded quotient (PTX bound: 2 ulp).
      if (m.full || is_ieee_rnd(m.rnd)) return ftz ? &f32_2<Div, true, false> : &f32_2<Div, false, false>;
      return nullptr;
    case Opcode::rcp:
      if (sat || !(m.approx || is_ieee_rnd(m.rnd))) return nullptr;
      return ftz ? &f32_1<Rcp, true, false> : &f32_1<Rcp, false, false>;
    case Opcode::sqrt:
      if (sat || !(m.approx || is_ieee_rnd(m.rnd))) return nullptr;
      return ftz ? &f32_1<Sqrt, true, false> : &f32_1<Sqrt, false, false>;
    case Opcode::rsqrt:
    case Opcode::sin: case Opcode::cos: case Opcode::lg2: case Opcode::ex2: case Opcode::tanh:
      if (sat || !m.approx || m.rnd != Rnd::none) return nullptr;
      if (in.op == Opcode::tanh && ftz) return nullptr;  // no tanh.approx.ftz in PTX
      switch (in.op) {
        case Opcode::rsqrt: return ftz ? &f32_1<Rsqrt, true, false> : &f32_1<Rsqrt, false, false>;
        case Opcode::sin: return ftz ? &f32_1<Sin, true, false> : &f32_1<Sin, false, false>;
        case Opcode::cos: return ftz ? &f32_1<Cos, true, false> : &f32_1<Cos, false, false>;
        case Opcode::lg2: return ftz ? &f32_1<Lg2, true, false> : &f32_1<Lg2, false, false>;
        case Opcode::ex2: return ftz ? &f32_1<Ex2, true, false> : &f32_1<Ex2, false, false>;
        default: return &f32_1<Tanh, false, false>;
      }
    case Opcode::abs: return sat ? nullptr : ftz ? &absneg32<true, true> : &absneg32<false, true>;
    case Opcode::neg: return sat ? nullptr : ftz ? &absneg32<true, false> : &absneg32<false, false>;
    case Opcode::min:
    case Opcode::max: {
      if (sat) return nullptr;
      const bool mx = in.op == Opcode::max;
      if (m.nan) return mx ? RELGPU_PICK32(f32_2, MaxNaN, ftz, false) : RELGPU_PICK32(f32_2, MinNaN, ftz, false);
      return mx ? RELGPU_PICK32(f32_2, MaxNum, ftz, false) : RELGPU_PICK32(f32_2, MinNum, ftz, false);
    }
    case Opcode::copysign: return (ftz || sat) ? nullptr : &copysign_k<32>;
    default: return nullptr;
  }
}

Kern select_f64(const Instr& in) {
  const auto& m = in.m;
  if (m.sat || m.relu || m.xorsign || m.abs) return nullptr;
  const bool rnd = is_ieee_rnd(m.rnd);
  switch (in.op) {
    case Opcode::add: return (!m.ftz && (rnd || m.rnd == Rnd::none)) ? &f64_2<Add> : nullptr;
    case Opcode::sub: return (!m.ftz && (rnd || m.rnd == Rnd::none)) ? &f64_2<Sub> : nullptr;
    case Opcode::mul: return (!m.ftz && (rnd || m.rnd == Rnd::none)) ? &f64_2<Mul> : nullptr;
    case Opcode::fma: case Opcode::mad:
      if (m.ftz || !rnd) return nullptr;
      return kHostFma ? &fma_hw<double, false, false> : &f64_3<Fma>;
    case Opcode::div: return (!m.ftz && rnd) ? &f64_2<Div> : nullptr;
    case Opcode::sqrt: return (!m.ftz && rnd) ? &f64_1<Sqrt, false> : nullptr;
    case Opcode::rcp:
      if (rnd && !m.ftz) return &f64_1<Rcp, false>;
      // rcp.approx.ftz.f64: we return the correctly rounded reciprocal of the
      // flushed input, flushed (NVIDIA's is coarser; the PTX ISA bounds it only loosely).
      if (m.approx && m.ftz && m.rnd == Rnd::none) return &f64_1<Rcp, true>;
      return nullptr;
    case Opcode::rsqrt:
      if (!m.approx || m.rnd != Rnd::none) return nullptr;
      return m.ftz ? &f64_1<Rsqrt, true> : &f64_1<Rsqrt, false>;
    case Opcode::abs: return m.ftz ? nullptr : &absneg64<true>;
    case Opcode::neg: return m.ftz ? nullptr : &absneg64<false>;
    case Opcode::min: return m.ftz ? nullptr : m.nan ? &f64_2<MinMax<false, true>> : &f64_2<MinMax<false, false>>;
    case Opcode::max: return m.ftz ? nullptr : m.nan ? &f64_2<MinMax<true, true>> : &f64_2<MinMax<true, false>>;
    case Opcode::copysign: return m.ftz ? nullptr : &copysign_k<64>;
    default: return nullptr;
  }
}

}  // namespace

Kern select_float(const Instr& in) {
  if (in.m.type == Type::f32) return select_f32(in);
  if (in.m.type == Type::f64) return select_f64(in);
  return nullptr;
}

}  // namespace relgpu::func::detail
