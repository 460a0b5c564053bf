// 16-bit floats: f16, bf16 and their x2 pairs (each half computed on its own):
// add sub mul fma (.rn, .ftz, .sat, .relu), neg abs, min max (.NaN, .relu),
// ex2.approx, tanh.approx.
// Values widen exactly to double; a product of two halves is exact in
// double, sums go through add_odd (round-to-odd), so the one final rounding
// to 16 bits is correctly rounded.
#include <cmath>

#include "func/alu_lanes.h"

namespace relgpu::func::detail {
namespace {

using ptx::Instr;
using ptx::Opcode;
using ptx::Rnd;
using ptx::Type;

struct Flags {
  bool bf, ftz, sat, relu, nanv;
};

inline double unpack(uint32_t h, const Flags& f) {
  h &= 0xFFFF;
  if (f.ftz && (h & (f.bf ? 0x7F80u : 0x7C00u)) == 0) h &= 0x8000;  // subnormal -> signed zero
  return f.bf ? bf16_to_double(uint16_t(h)) : f16_to_double(uint16_t(h));
}
inline uint32_t pack(double r, const Flags& f) {
  const Fmt& fm = f.bf ? kBF16 : kF16;
  if (f.sat) {
    if (!(r > 0)) return 0;
    if (r >= 1.0) return f.bf ? 0x3F80 : 0x3C00;
  }
  if (f.relu && r < 0) return 0;
  return uint32_t(round_double(r, fm, Dir::rn, f.ftz));
}

struct Add { static double f(double x, double y, double) { return add_odd(x, y); } };
struct Sub { static double f(double x, double y, double) { return add_odd(x, -y); } };
struct Mul { static double f(double x, double y, double) { return x * y; } };
struct Fma { static double f(double x, double y, double z) { return add_odd(x * y, z); } };
struct Ex2 { static double f(double x, double, double) { return std::exp2(x); } };
struct Tanh { static double f(double x, double, double) { return std::tanh(x); } };

template <class Op, unsigned N>
void arith(const Instr& in, const AluIn& a, AluOut& o) {
  const auto& m = in.m;
  const Flags f{m.type == Type::bf16 || m.type == Type::bf16x2, m.ftz, m.sat, m.relu, m.nan};
  const uint64_t* z = N == 3 ? a.src[2] : a.src[0];
  const uint64_t* y = N >= 2 ? a.src[1] : a.src[0];
  const unsigned halves = (m.type == Type::f16x2 || m.type == Type::bf16x2) ? 2 : 1;
  for_lanes(a.mask, [&](unsigned l) {
    uint64_t r = 0;
    for (unsigned h = 0; h < halves; ++h) {
      const unsigned s = 16 * h;
      const double v = Op::f(unpack(uint32_t(a.src[0][l] >> s), f), unpack(uint32_t(y[l] >> s), f),
                             unpack(uint32_t(z[l] >> s), f));
      r |= uint64_t(pack(v, f)) << s;
    }
    o.dst[l] = r;
  });
}

// min/max return an operand's bits (after .ftz); NaN rules as for f32.
template <bool MAX>
void minmax(const Instr& in, const AluIn& a, AluOut& o) {
  const auto& m = in.m;
  const Flags f{m.type == Type::bf16 || m.type == Type::bf16x2, m.ftz, false, m.relu, m.nan};
  const unsigned halves = (m.type == Type::f16x2 || m.type == Type::bf16x2) ? 2 : 1;
  for_lanes(a.mask, [&](unsigned l) {
    uint64_t r = 0;
    for (unsigned h = 0; h < halves; ++h) {
      const unsigned s = 16 * h;
      uint32_t xb = uint32_t(a.src[0][l] >> s) & 0xFFFF, yb = uint32_t(a.src[1][l] >> s) & 0xFFFF;
      const double x = unpack(xb, f), y = unpack(yb, f);
      if (f.ftz) { xb = uint32_t(round_double(x, f.bf ? kBF16 : kF16, Dir::rn)); yb = uint32_t(round_double(y, f.bf ? kBF16 : kF16, Dir::rn)); }
      uint32_t out;
      const bool xn = x != x, yn = y != y;
      if (xn || yn) out = (f.nanv || (xn && yn)) ? kNaN16 : (xn ? yb : xb);
      else if (x == y) out = (std::signbit(x) != MAX) ? xb : yb;
      else out = (MAX ? x > y : x < y) ? xb : yb;
      if (f.relu && out != kNaN16 && (out & 0x8000)) out = 0;
      r |= uint64_t(out) << s;
    }
    o.dst[l] = r;
  });
}

template <bool ABS>
void absneg(const Instr& in, const AluIn& a, AluOut& o) {
  const auto& m = in.m;
  const bool bf = m.type == Type::bf16 || m.type == Type::bf16x2;
  const bool x2 = m.type == Type::f16x2 || m.type == Type::bf16x2;
  const uint32_t expm = bf ? 0x7F80u : 0x7C00u;
  for_lanes(a.mask, [&](unsigned l) {
    uint64_t r = 0;
    for (unsigned h = 0; h < (x2 ? 2u : 1u); ++h) {
      uint32_t v = uint32_t(a.src[0][l] >> (16 * h)) & 0xFFFF;
      if (m.ftz && (v & expm) == 0) v &= 0x8000;
      v = ABS ? (v & 0x7FFF) : (v ^ 0x8000);
      r |= uint64_t(v) << (16 * h);
    }
    o.dst[l] = r;
  });
}

}  // namespace

Kern select_half(const Instr& in) {
  const auto& m = in.m;
  const bool bf = m.type == Type::bf16 || m.type == Type::bf16x2;
  const bool rn_ok = m.rnd == Rnd::none || m.rnd == Rnd::rn;
  if (bf && m.ftz && in.op != Opcode::ex2) return nullptr;  // no .ftz on bf16 arithmetic
  switch (in.op) {
    case Opcode::add: return rn_ok && !m.relu ? &arith<Add, 2> : nullptr;
    case Opcode::sub: return rn_ok && !m.relu ? &arith<Sub, 2> : nullptr;
    case Opcode::mul: return rn_ok && !m.relu ? &arith<Mul, 2> : nullptr;
    case Opcode::fma: return m.rnd == Rnd::rn && !(m.relu && m.sat) ? &arith<Fma, 3> : nullptr;
    case Opcode::neg: return (m.sat || m.relu) ? nullptr : &absneg<false>;
    case Opcode::abs: return (m.sat || m.relu) ? nullptr : &absneg<true>;
    case Opcode::min: return m.sat || m.xorsign ? nullptr : &minmax<false>;
    case Opcode::max: return m.sat || m.xorsign ? nullptr : &minmax<true>;
    // .approx: computed in double and rounded once (well inside the PTX bounds).
    case Opcode::ex2: return m.approx && m.rnd == Rnd::none && !m.sat && !m.relu ? &arith<Ex2, 1> : nullptr;
    case Opcode::tanh: return m.approx && m.rnd == Rnd::none && !m.ftz && !m.sat && !m.relu ? &arith<Tanh, 1> : nullptr;
    default: return nullptr;
  }
}

}  // namespace relgpu::func::detail
