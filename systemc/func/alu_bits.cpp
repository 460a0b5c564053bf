// Bit and logic instructions: and or xor not cnot lop3 (also on .pred),
// shl shr shf, popc clz bfind brev bfe bfi prmt bmsk szext, dp4a dp2a, and
// register/immediate mov.
#include "func/alu_lanes.h"

namespace relgpu::func::detail {
namespace {

using ptx::Instr;
using ptx::Opcode;
using ptx::Type;

template <unsigned W> constexpr uint64_t kMask = W >= 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1;

// Bitwise ops on W-bit values (W = 1 for predicates, which are 0/1).
struct And { static uint64_t f(uint64_t x, uint64_t y) { return x & y; } };
struct Or { static uint64_t f(uint64_t x, uint64_t y) { return x | y; } };
struct Xor { static uint64_t f(uint64_t x, uint64_t y) { return x ^ y; } };
template <unsigned W, class Op>
void bitw2(const Instr&, const AluIn& a, AluOut& o) {
  const uint64_t *x = a.src[0], *y = a.src[1];
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = Op::f(x[l], y[l]) & kMask<W>; });
}
template <unsigned W>
void not_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = ~a.src[0][l] & kMask<W>; });
}
template <unsigned W>
void cnot_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = (a.src[0][l] & kMask<W>) == 0; });
}
template <unsigned W>
void mov_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = a.src[0][l] & kMask<W>; });
}

// lop3.b32 d, a, b, c, immLut: bit i of immLut is the result for the input
// bits (a,b,c) = (i>>2, i>>1, i) & 1, i.e. F(0xF0, 0xCC, 0xAA) = immLut.
void lop3_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint32_t x = uint32_t(a.src[0][l]), y = uint32_t(a.src[1][l]), z = uint32_t(a.src[2][l]);
    const uint32_t lut = uint32_t(a.src[3][l]) & 0xFF;
    uint32_t r = 0;
    for (unsigned i = 0; i < 8; ++i)
      if ((lut >> i) & 1) r |= ((i & 4) ? x : ~x) & ((i & 2) ? y : ~y) & ((i & 1) ? z : ~z);
    o.dst[l] = r;
  });
}

// Shifts: the amount is read as u32 and clamped (amounts >= width give 0 for
// shl and shr.u/.b, sign fill for shr.s).
template <class T>
void shl_k(const Instr&, const AluIn& a, AluOut& o) {
  constexpr unsigned W = sizeof(T) * 8;
  for_lanes(a.mask, [&](unsigned l) {
    const uint32_t n = uint32_t(a.src[1][l]);
    o.dst[l] = n >= W ? 0 : zext(T(T(a.src[0][l]) << n));
  });
}
template <class T>
void shr_k(const Instr&, const AluIn& a, AluOut& o) {
  constexpr unsigned W = sizeof(T) * 8;
  for_lanes(a.mask, [&](unsigned l) {
    const uint32_t n = uint32_t(a.src[1][l]);
    const T x = T(a.src[0][l]);
    if (n < W) o.dst[l] = zext(T(x >> n));
    else o.dst[l] = std::is_signed_v<T> ? zext(T(x >> (W - 1))) : 0;
  });
}

// shf.{l,r}.{clamp,wrap}.b32 d, a, b, c: funnel shift of the 64-bit b:a.
template <bool LEFT, bool WRAP>
void shf_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint32_t c = uint32_t(a.src[2][l]);
    const unsigned n = WRAP ? (c & 31) : (c > 32 ? 32 : c);
    const uint64_t v = (uint64_t(uint32_t(a.src[1][l])) << 32) | uint32_t(a.src[0][l]);
    o.dst[l] = LEFT ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
  });
}

template <unsigned W>
void popc_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) { o.dst[l] = unsigned(__builtin_popcountll(a.src[0][l] & kMask<W>)); });
}
template <unsigned W>
void clz_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint64_t x = a.src[0][l] & kMask<W>;
    o.dst[l] = x == 0 ? W : unsigned(__builtin_clzll(x)) - (64 - W);
  });
}
// bfind: position of the most significant 1 (unsigned) or of the most
// significant bit that differs from the sign (signed); 0xFFFFFFFF if none.
// .shiftamt returns W-1-position instead.
template <class T, bool SHIFTAMT>
void bfind_k(const Instr&, const AluIn& a, AluOut& o) {
  constexpr unsigned W = sizeof(T) * 8;
  for_lanes(a.mask, [&](unsigned l) {
    T x = T(a.src[0][l]);
    if (std::is_signed_v<T> && x < 0) x = T(~x);
    const uint64_t u = uint64_t(std::make_unsigned_t<T>(x));
    if (u == 0) { o.dst[l] = 0xFFFFFFFFu; return; }
    const unsigned pos = 63 - unsigned(__builtin_clzll(u));
    o.dst[l] = SHIFTAMT ? (W - 1 - pos) : pos;
  });
}
template <unsigned W>
void brev_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    uint64_t x = a.src[0][l], r = 0;
    for (unsigned i = 0; i < W; ++i) r |= ((x >> i) & 1) << (W - 1 - i);
    o.dst[l] = r;
  });
}
// bfe d, a, b(pos), c(len): pos and len are bits 7..0 of b and c. Bits past
// the field (or past the register) are the sign bit a[min(pos+len-1, msb)]
// for signed types (0 if len == 0), else 0.
template <class T>
void bfe_k(const Instr&, const AluIn& a, AluOut& o) {
  constexpr unsigned W = sizeof(T) * 8;
  for_lanes(a.mask, [&](unsigned l) {
    const uint64_t x = a.src[0][l] & kMask<W>;
    const unsigned pos = unsigned(a.src[1][l] & 0xFF), len = unsigned(a.src[2][l] & 0xFF);
    const unsigned n = pos >= W ? 0 : (len < W - pos ? len : W - pos);
    const uint64_t fmask = n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
    uint64_t r = n ? (x >> pos) & fmask : 0;
    if (std::is_signed_v<T> && len != 0) {
      const unsigned sb = pos + len - 1 < W - 1 ? pos + len - 1 : W - 1;
      if ((x >> sb) & 1) r |= ~fmask;
    }
    o.dst[l] = r & kMask<W>;
  });
}
// bfi f, a, b, c(pos), d(len): insert a's low len bits into b at pos.
template <unsigned W>
void bfi_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint64_t x = a.src[0][l], y = a.src[1][l] & kMask<W>;
    const unsigned pos = unsigned(a.src[2][l] & 0xFF), len = unsigned(a.src[3][l] & 0xFF);
    const unsigned n = pos >= W ? 0 : (len < W - pos ? len : W - pos);
    if (n == 0) { o.dst[l] = y; return; }
    const uint64_t fm = (n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1) << pos;
    o.dst[l] = ((y & ~fm) | ((x << pos) & fm)) & kMask<W>;
  });
}

// prmt.b32{.mode} d, a, b, c: picks bytes of the 64-bit {b, a} (a = bytes
// 0..3). Default mode: nibble i of c selects byte i (bit 3 = replicate the
// byte's sign). Other modes use c[1:0] and the PTX ISA's fixed tables.
template <ptx::PrmtMode M>
void prmt_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint64_t v = (uint64_t(uint32_t(a.src[1][l])) << 32) | uint32_t(a.src[0][l]);
    const uint32_t c = uint32_t(a.src[2][l]);
    const unsigned s = c & 3;
    uint32_t r = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel = 0;
      bool sign = false;
      switch (M) {
        case ptx::PrmtMode::none: sel = (c >> (4 * i)) & 7; sign = (c >> (4 * i + 3)) & 1; break;
        case ptx::PrmtMode::f4e: sel = (s + i) & 7; break;
        case ptx::PrmtMode::b4e: sel = (s - i) & 7; break;
        case ptx::PrmtMode::rc8: sel = s; break;
        case ptx::PrmtMode::ecl: sel = i > s ? i : s; break;
        case ptx::PrmtMode::ecr: sel = i < s ? i : s; break;
        case ptx::PrmtMode::rc16: sel = (s & 1) * 2 + (i & 1); break;
      }
      uint32_t byte = uint32_t(v >> (8 * sel)) & 0xFF;
      if (sign) byte = (byte & 0x80) ? 0xFF : 0;
      r |= byte << (8 * i);
    }
    o.dst[l] = r;
  });
}

// bmsk.{clamp,wrap}.b32 d, a(pos), b(len): len ones starting at bit pos.
// .clamp limits pos and len to 32; .wrap takes them modulo 32.
template <bool WRAP>
void bmsk_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    uint32_t pos = uint32_t(a.src[0][l]), len = uint32_t(a.src[1][l]);
    if (WRAP) { pos &= 31; len &= 31; } else { pos = pos > 32 ? 32 : pos; len = len > 32 ? 32 : len; }
    o.dst[l] = uint32_t((((uint64_t(1) << len) - 1) << pos));
  });
}
// szext.{clamp,wrap}.{u32,s32} d, a, b: keep a's low N bits (N = b clamped to
// 32 or b mod 32) and sign- or zero-extend from bit N-1; N = 0 gives 0.
template <bool WRAP, bool SIGNED>
void szext_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    uint32_t n = uint32_t(a.src[1][l]);
    n = WRAP ? (n & 31) : (n > 32 ? 32 : n);
    const uint32_t x = uint32_t(a.src[0][l]);
    if (n == 0) { o.dst[l] = 0; return; }
    if (n == 32) { o.dst[l] = x; return; }
    const uint32_t v = x & ((1u << n) - 1);
    o.dst[l] = (SIGNED && ((v >> (n - 1)) & 1)) ? (v | ~((1u << n) - 1)) : v;
  });
}

// dp4a.atype.btype d, a, b, c: c + sum of the four byte products (bytes
// signed per their type); dp2a.{lo,hi}: c + the two 16-bit halves of a times
// bytes 0,1 (.lo) or 2,3 (.hi) of b. Results wrap modulo 2^32.
template <bool S>
inline int64_t byte_of(uint32_t v, unsigned i) {
  const uint32_t b = (v >> (8 * i)) & 0xFF;
  return S ? int64_t(int8_t(b)) : int64_t(b);
}
template <bool AS, bool BS>
void dp4a_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint32_t x = uint32_t(a.src[0][l]), y = uint32_t(a.src[1][l]);
    int64_t s = int64_t(uint32_t(a.src[2][l]));
    for (unsigned i = 0; i < 4; ++i) s += byte_of<AS>(x, i) * byte_of<BS>(y, i);
    o.dst[l] = uint32_t(uint64_t(s));
  });
}
template <bool AS, bool BS, bool HI>
void dp2a_k(const Instr&, const AluIn& a, AluOut& o) {
  for_lanes(a.mask, [&](unsigned l) {
    const uint32_t x = uint32_t(a.src[0][l]), y = uint32_t(a.src[1][l]);
    int64_t s = int64_t(uint32_t(a.src[2][l]));
    for (unsigned i = 0; i < 2; ++i) {
      const uint32_t h = (x >> (16 * i)) & 0xFFFF;
      const int64_t hv = AS ? int64_t(int16_t(h)) : int64_t(h);
      s += hv * byte_of<BS>(y, i + (HI ? 2 : 0));
    }
    o.dst[l] = uint32_t(uint64_t(s));
  });
}

// ---- selection --------------------------------------------------------------
bool is_b(Type t) { return t == Type::b16 || t == Type::b32 || t == Type::b64; }

template <template <unsigned> class K>
Kern by_width(Type t, bool pred_ok) {
  switch (ptx::type_bits(t)) {
    case 1: return pred_ok ? K<1>::k : nullptr;
    case 16: return K<16>::k;
    case 32: return K<32>::k;
    case 64: return K<64>::k;
    default: return nullptr;
  }
}
template <unsigned W> struct KAnd { static constexpr Kern k = &bitw2<W, And>; };
template <unsigned W> struct KOr { static constexpr Kern k = &bitw2<W, Or>; };
template <unsigned W> struct KXor { static constexpr Kern k = &bitw2<W, Xor>; };
template <unsigned W> struct KNot { static constexpr Kern k = &not_k<W>; };
template <unsigned W> struct KCnot { static constexpr Kern k = &cnot_k<W>; };

Kern select_shift(const Instr& in) {
  const Type t = in.m.type;
  if (in.op == Opcode::shl) {
    switch (t) {
      case Type::b16: return &shl_k<uint16_t>;
      case Type::b32: return &shl_k<uint32_t>;
      case Type::b64: return &shl_k<uint64_t>;
      default: return nullptr;
    }
  }
  switch (t) {
    case Type::b16: case Type::u16: return &shr_k<uint16_t>;
    case Type::b32: case Type::u32: return &shr_k<uint32_t>;
    case Type::b64: case Type::u64: return &shr_k<uint64_t>;
    case Type::s16: return &shr_k<int16_t>;
    case Type::s32: return &shr_k<int32_t>;
    case Type::s64: return &shr_k<int64_t>;
    default: return nullptr;
  }
}

Kern select_mov(const Instr& in) {
  // Only register/immediate to register; special registers, symbols and
  // vector pack/unpack are the engine's.
  if (in.ops.size() != 2 || in.ops[0].kind != ptx::Operand::Kind::reg) return nullptr;
  const auto k = in.ops[1].kind;
  if (k != ptx::Operand::Kind::reg && k != ptx::Operand::Kind::imm) return nullptr;
  switch (ptx::type_bits(in.m.type)) {
    case 1: return &mov_k<1>;
    case 8: return &mov_k<8>;
    case 16: return &mov_k<16>;
    case 32: return &mov_k<32>;
    case 64: return &mov_k<64>;
    default: return nullptr;
  }
}

Kern select_prmt(ptx::PrmtMode m) {
  using P = ptx::PrmtMode;
  switch (m) {
    case P::none: return &prmt_k<P::none>;
    case P::f4e: return &prmt_k<P::f4e>;
    case P::b4e: return &prmt_k<P::b4e>;
    case P::rc8: return &prmt_k<P::rc8>;
    case P::ecl: return &prmt_k<P::ecl>;
    case P::ecr: return &prmt_k<P::ecr>;
    case P::rc16: return &prmt_k<P::rc16>;
  }
  return nullptr;
}

bool int_signed(Type t) { return t == Type::s32; }
bool int_u32(Type t) { return t == Type::u32 || t == Type::s32; }

template <bool AS>
Kern dp_pick(const Instr& in, bool bs) {
  if (in.op == Opcode::dp4a) return bs ? &dp4a_k<AS, true> : &dp4a_k<AS, false>;
  const bool hi = in.m.mul == ptx::MulMode::hi;
  if (in.m.mul != ptx::MulMode::hi && in.m.mul != ptx::MulMode::lo) return nullptr;
  if (bs) return hi ? &dp2a_k<AS, true, true> : &dp2a_k<AS, true, false>;
  return hi ? &dp2a_k<AS, false, true> : &dp2a_k<AS, false, false>;
}

}  // namespace

Kern select_bits(const Instr& in) {
  const auto& m = in.m;
  const Type t = m.type;
  using SM = ptx::ShfMode;
  switch (in.op) {
    case Opcode::and_: return (is_b(t) || t == Type::pred) ? by_width<KAnd>(t, true) : nullptr;
    case Opcode::or_: return (is_b(t) || t == Type::pred) ? by_width<KOr>(t, true) : nullptr;
    case Opcode::xor_: return (is_b(t) || t == Type::pred) ? by_width<KXor>(t, true) : nullptr;
    case Opcode::not_: return (is_b(t) || t == Type::pred) ? by_width<KNot>(t, true) : nullptr;
    case Opcode::cnot: return is_b(t) ? by_width<KCnot>(t, false) : nullptr;
    case Opcode::lop3: return t == Type::b32 && in.ops.size() == 5 ? &lop3_k : nullptr;
    case Opcode::shl: case Opcode::shr: return select_shift(in);
    case Opcode::shf:
      if (t != Type::b32) return nullptr;
      switch (m.shf) {
        case SM::l_clamp: return &shf_k<true, false>;
        case SM::l_wrap: return &shf_k<true, true>;
        case SM::r_clamp: return &shf_k<false, false>;
        case SM::r_wrap: return &shf_k<false, true>;
        default: return nullptr;
      }
    case Opcode::popc:
      return t == Type::b32 ? &popc_k<32> : t == Type::b64 ? &popc_k<64> : nullptr;
    case Opcode::clz:
      return t == Type::b32 ? &clz_k<32> : t == Type::b64 ? &clz_k<64> : nullptr;
    case Opcode::brev:
      return t == Type::b32 ? &brev_k<32> : t == Type::b64 ? &brev_k<64> : nullptr;
    case Opcode::bfind:
      switch (t) {
        case Type::u32: return m.shiftamt ? &bfind_k<uint32_t, true> : &bfind_k<uint32_t, false>;
        case Type::s32: return m.shiftamt ? &bfind_k<int32_t, true> : &bfind_k<int32_t, false>;
        case Type::u64: return m.shiftamt ? &bfind_k<uint64_t, true> : &bfind_k<uint64_t, false>;
        case Type::s64: return m.shiftamt ? &bfind_k<int64_t, true> : &bfind_k<int64_t, false>;
        default: return nullptr;
      }
    case Opcode::bfe:
      switch (t) {
        case Type::u32: return &bfe_k<uint32_t>;
        case Type::s32: return &bfe_k<int32_t>;
        case Type::u64: return &bfe_k<uint64_t>;
        case Type::s64: return &bfe_k<int64_t>;
        default: return nullptr;
      }
    case Opcode::bfi:
      return t == Type::b32 ? &bfi_k<32> : t == Type::b64 ? &bfi_k<64> : nullptr;
    case Opcode::prmt: return t == Type::b32 ? select_prmt(m.prmt) : nullptr;
    case Opcode::bmsk:
      if (t != Type::b32) return nullptr;
      if (m.shf == SM::r_clamp || m.shf == SM::l_clamp) return &bmsk_k<false>;
      if (m.shf == SM::r_wrap || m.shf == SM::l_wrap) return &bmsk_k<true>;
      return nullptr;
    case Opcode::szext: {
      if (t != Type::u32 && t != Type::s32) return nullptr;
      const bool s = t == Type::s32;
      if (m.shf == SM::r_clamp || m.shf == SM::l_clamp) return s ? &szext_k<false, true> : &szext_k<false, false>;
      if (m.shf == SM::r_wrap || m.shf == SM::l_wrap) return s ? &szext_k<true, true> : &szext_k<true, false>;
      return nullptr;
    }
    case Opcode::dp4a:
    case Opcode::dp2a:
      // type = the first type suffix (a), type2 = the second (b).
      if (!int_u32(t) || !int_u32(m.type2)) return nullptr;
      return int_signed(t) ? dp_pick<true>(in, int_signed(m.type2)) : dp_pick<false>(in, int_signed(m.type2));
    case Opcode::mov:
      return select_mov(in);
    default:
      return nullptr;
  }
}

}  // namespace relgpu::func::detail
