// Integer arithmetic, carry chains, shifts and bit instructions, against
// hand-computed values.
#include "alu_test_util.h"

using namespace alut;
using relgpu::ptx::MulMode;
using relgpu::ptx::PrmtMode;
using relgpu::ptx::ShfMode;

namespace {
Instr mm(Opcode op, Type t, MulMode m) { Instr in = I(op, t); in.m.mul = m; return in; }
Instr cc(Instr in) { in.m.cc = true; return in; }
}  // namespace

TEST(AluInt, AddSubWrapAndSat) {
  EXPECT_EQ(d1(I(Opcode::add, Type::s32), {0x7FFFFFFF, 1}), 0x80000000u);
  EXPECT_EQ(d1(I(Opcode::add, Type::u16), {0xFFFF, 2}), 1u);
  EXPECT_EQ(d1(I(Opcode::sub, Type::u64), {0, 1}), ~0ull);
  EXPECT_EQ(d1(I(Opcode::add, Type::s16), {uint64_t(-1), uint64_t(-1)}), 0xFFFEu);  // stored zero-extended
  EXPECT_EQ(d1(sat(I(Opcode::add, Type::s32)), {0x7FFFFFFF, 1}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(sat(I(Opcode::add, Type::s32)), {0x80000000, 0xFFFFFFFF}), 0x80000000u);
  EXPECT_EQ(d1(sat(I(Opcode::sub, Type::s32)), {0x80000000, 1}), 0x80000000u);
  EXPECT_EQ(d1(sat(I(Opcode::sub, Type::s32)), {0x7FFFFFFF, 0xFFFFFFFF}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(sat(I(Opcode::add, Type::s32)), {5, 0xFFFFFFFD}), 2u);
}

TEST(AluInt, MulModes) {
  EXPECT_EQ(d1(mm(Opcode::mul, Type::u32, MulMode::hi), {0xFFFFFFFF, 0xFFFFFFFF}), 0xFFFFFFFEu);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::s32, MulMode::hi), {0xFFFFFFFF, 0xFFFFFFFF}), 0u);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::s32, MulMode::hi), {0x80000000, 0x80000000}), 0x40000000u);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::s32, MulMode::hi), {0xFFFFFFFF, 1}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::s32, MulMode::wide), {uint64_t(-2), 3}), 0xFFFFFFFFFFFFFFFAull);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::u32, MulMode::wide), {0xFFFFFFFF, 0xFFFFFFFF}), 0xFFFFFFFE00000001ull);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::u16, MulMode::wide), {0xFFFF, 0xFFFF}), 0xFFFE0001u);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::s16, MulMode::wide), {0xFFFF, 0x0002}), 0xFFFFFFFEu);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::u16, MulMode::lo), {0xFFFF, 0xFFFF}), 1u);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::u64, MulMode::hi), {1ull << 63, 4}), 2u);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::s64, MulMode::hi), {~0ull, 1}), ~0ull);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::u64, MulMode::hi), {~0ull, ~0ull}), ~0ull - 1);
  EXPECT_EQ(d1(mm(Opcode::mul, Type::s64, MulMode::lo), {3, uint64_t(-5)}), uint64_t(-15));
}

TEST(AluInt, MadModes) {
  EXPECT_EQ(d1(mm(Opcode::mad, Type::s32, MulMode::lo), {3, 4, 5}), 17u);
  EXPECT_EQ(d1(mm(Opcode::mad, Type::u32, MulMode::hi), {0xFFFFFFFF, 0xFFFFFFFF, 3}), 0x00000001u);
  EXPECT_EQ(d1(mm(Opcode::mad, Type::s32, MulMode::wide), {uint64_t(-1), uint64_t(-1), 1ull << 40}), (1ull << 40) + 1);
  Instr hs = sat(mm(Opcode::mad, Type::s32, MulMode::hi));
  EXPECT_EQ(d1(hs, {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(mm(Opcode::mad, Type::s32, MulMode::hi), {0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF}), 0xBFFFFFFEu);
  EXPECT_EQ(d1(hs, {0x80000000, 0x7FFFFFFF, 0x80000000}), 0x80000000u);
}

TEST(AluInt, Mul24Sad) {
  EXPECT_EQ(d1(mm(Opcode::mul24, Type::u32, MulMode::lo), {0x01000001, 2}), 2u);
  EXPECT_EQ(d1(mm(Opcode::mul24, Type::u32, MulMode::hi), {0xFFFFFF, 0xFFFFFF}), 0xFFFFFE00u);
  EXPECT_EQ(d1(mm(Opcode::mul24, Type::s32, MulMode::lo), {0x800000, 2}), 0xFF000000u);
  EXPECT_EQ(d1(mm(Opcode::mad24, Type::u32, MulMode::lo), {3, 5, 7}), 22u);
  EXPECT_EQ(d1(I(Opcode::sad, Type::u32), {3, 10, 100}), 107u);
  EXPECT_EQ(d1(I(Opcode::sad, Type::s32), {uint64_t(-5), 5, 0}), 10u);
  EXPECT_EQ(d1(I(Opcode::sad, Type::u32), {0, 0xFFFFFFFF, 1}), 0u);  // 1 + 0xFFFFFFFF wraps
}

TEST(AluInt, DivRemIncludingZero) {
  EXPECT_EQ(d1(I(Opcode::div, Type::u32), {7, 0}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::rem, Type::u32), {7, 0}), 7u);
  EXPECT_EQ(d1(I(Opcode::div, Type::s32), {7, 0}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::rem, Type::s32), {uint64_t(-7), 0}), 0xFFFFFFF9u);
  EXPECT_EQ(d1(I(Opcode::div, Type::u64), {7, 0}), ~0ull);
  EXPECT_EQ(d1(I(Opcode::div, Type::s16), {7, 0}), 0xFFFFu);
  EXPECT_EQ(d1(I(Opcode::div, Type::s32), {0x80000000, 0xFFFFFFFF}), 0x80000000u);
  EXPECT_EQ(d1(I(Opcode::rem, Type::s32), {0x80000000, 0xFFFFFFFF}), 0u);
  EXPECT_EQ(d1(I(Opcode::div, Type::s64), {1ull << 63, ~0ull}), 1ull << 63);
  EXPECT_EQ(d1(I(Opcode::div, Type::s32), {uint64_t(-7), 2}), 0xFFFFFFFDu);
  EXPECT_EQ(d1(I(Opcode::rem, Type::s32), {uint64_t(-7), 2}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::div, Type::u32), {0xFFFFFFFF, 2}), 0x7FFFFFFFu);
}

TEST(AluInt, AbsNegMinMax) {
  EXPECT_EQ(d1(I(Opcode::abs, Type::s32), {0x80000000}), 0x80000000u);
  EXPECT_EQ(d1(I(Opcode::abs, Type::s16), {0xFFFB}), 5u);
  EXPECT_EQ(d1(I(Opcode::neg, Type::s16), {0x8000}), 0x8000u);
  EXPECT_EQ(d1(I(Opcode::neg, Type::s64), {1}), ~0ull);
  EXPECT_EQ(d1(I(Opcode::min, Type::s32), {0xFFFFFFFF, 1}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::min, Type::u32), {0xFFFFFFFF, 1}), 1u);
  EXPECT_EQ(d1(I(Opcode::max, Type::s16), {0x8000, 0x7FFF}), 0x7FFFu);
  EXPECT_EQ(d1(I(Opcode::max, Type::u64), {~0ull, 1}), ~0ull);
  Instr relu = I(Opcode::max, Type::s32);
  relu.m.relu = true;
  EXPECT_EQ(d1(relu, {uint64_t(-5), uint64_t(-3)}), 0u);
  EXPECT_EQ(d1(relu, {3, 5}), 5u);
}

TEST(AluInt, CarryChain) {
  R r = run(cc(I(Opcode::add, Type::u32)), {0xFFFFFFFF, 1});
  EXPECT_EQ(r.d, 0u);
  EXPECT_EQ(r.carry, 1u);
  r = run(cc(I(Opcode::add, Type::u32)), {0xFFFFFFFE, 1});
  EXPECT_EQ(r.carry, 0u);
  EXPECT_EQ(run(I(Opcode::addc, Type::u32), {1, 0}, 1).d, 2u);  // high word of 0x1_FFFFFFFF + 1
  r = run(cc(I(Opcode::addc, Type::u32)), {0xFFFFFFFF, 0}, 1);
  EXPECT_EQ(r.d, 0u);
  EXPECT_EQ(r.carry, 1u);
  r = run(cc(I(Opcode::sub, Type::u32)), {0, 1});
  EXPECT_EQ(r.d, 0xFFFFFFFFu);
  EXPECT_EQ(r.carry, 1u);  // borrow
  r = run(cc(I(Opcode::sub, Type::u32)), {5, 5});
  EXPECT_EQ(r.carry, 0u);
  EXPECT_EQ(run(I(Opcode::subc, Type::u32), {5, 3}, 1).d, 1u);
  r = run(cc(I(Opcode::subc, Type::u32)), {3, 3}, 1);
  EXPECT_EQ(r.d, 0xFFFFFFFFu);
  EXPECT_EQ(r.carry, 1u);
  r = run(cc(I(Opcode::add, Type::u64)), {~0ull, 1});
  EXPECT_EQ(r.d, 0u);
  EXPECT_EQ(r.carry, 1u);
  r = run(cc(mm(Opcode::mad, Type::u32, MulMode::lo)), {0xFFFFFFFF, 1, 1});
  EXPECT_EQ(r.d, 0u);
  EXPECT_EQ(r.carry, 1u);
  r = run(cc(mm(Opcode::madc, Type::u32, MulMode::hi)), {0xFFFFFFFF, 0xFFFFFFFF, 1}, 1);
  EXPECT_EQ(r.d, 0u);  // 0xFFFFFFFE + 1 + 1
  EXPECT_EQ(r.carry, 1u);
  EXPECT_EQ(run(mm(Opcode::madc, Type::u32, MulMode::lo), {2, 3, 4}, 1).d, 11u);
}

TEST(AluBits, Shifts) {
  const Instr shl = I(Opcode::shl, Type::b32), shru = I(Opcode::shr, Type::u32), shrs = I(Opcode::shr, Type::s32);
  EXPECT_EQ(d1(shl, {0x12345678, 0}), 0x12345678u);
  EXPECT_EQ(d1(shl, {3, 31}), 0x80000000u);
  for (uint64_t n : {32ull, 33ull, 255ull, 0xFFFFFFFFull}) {
    EXPECT_EQ(d1(shl, {0xFFFFFFFF, n}), 0u) << n;
    EXPECT_EQ(d1(shru, {0xFFFFFFFF, n}), 0u) << n;
    EXPECT_EQ(d1(shrs, {0x80000000, n}), 0xFFFFFFFFu) << n;
    EXPECT_EQ(d1(shrs, {0x7FFFFFFF, n}), 0u) << n;
  }
  EXPECT_EQ(d1(shrs, {0x80000000, 31}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(shrs, {0x80000000, 4}), 0xF8000000u);
  EXPECT_EQ(d1(shru, {0x80000000, 31}), 1u);
  EXPECT_EQ(d1(I(Opcode::shl, Type::b64), {1, 63}), 1ull << 63);
  EXPECT_EQ(d1(I(Opcode::shl, Type::b64), {1, 64}), 0u);
  EXPECT_EQ(d1(I(Opcode::shr, Type::s64), {1ull << 63, 64}), ~0ull);
  EXPECT_EQ(d1(I(Opcode::shl, Type::b16), {1, 15}), 0x8000u);
  EXPECT_EQ(d1(I(Opcode::shl, Type::b16), {1, 16}), 0u);
  EXPECT_EQ(d1(I(Opcode::shr, Type::s16), {0x8000, 20}), 0xFFFFu);
}

TEST(AluBits, FunnelShift) {
  auto shf = [](ShfMode m) { Instr in = I(Opcode::shf, Type::b32); in.m.shf = m; return in; };
  EXPECT_EQ(d1(shf(ShfMode::l_wrap), {0x80000000, 1, 1}), 3u);
  EXPECT_EQ(d1(shf(ShfMode::l_wrap), {0x80000000, 1, 33}), 3u);
  EXPECT_EQ(d1(shf(ShfMode::l_clamp), {0x80000000, 1, 40}), 0x80000000u);
  EXPECT_EQ(d1(shf(ShfMode::l_clamp), {0x80000000, 1, 0}), 1u);
  EXPECT_EQ(d1(shf(ShfMode::r_clamp), {0x12345678, 0x9ABCDEF0, 4}), 0x01234567u);
  EXPECT_EQ(d1(shf(ShfMode::r_wrap), {0x12345678, 0x9ABCDEF0, 36}), 0x01234567u);
  EXPECT_EQ(d1(shf(ShfMode::r_clamp), {0x12345678, 0x9ABCDEF0, 32}), 0x9ABCDEF0u);
  EXPECT_EQ(d1(shf(ShfMode::r_clamp), {0x12345678, 0x9ABCDEF0, 255}), 0x9ABCDEF0u);
}

TEST(AluBits, CountFindReverse) {
  EXPECT_EQ(d1(I(Opcode::popc, Type::b32), {0xFFFFFFFF}), 32u);
  EXPECT_EQ(d1(I(Opcode::popc, Type::b64), {~0ull}), 64u);
  EXPECT_EQ(d1(I(Opcode::popc, Type::b32), {0xF0F0}), 8u);
  EXPECT_EQ(d1(I(Opcode::clz, Type::b32), {0}), 32u);
  EXPECT_EQ(d1(I(Opcode::clz, Type::b32), {1}), 31u);
  EXPECT_EQ(d1(I(Opcode::clz, Type::b64), {1}), 63u);
  EXPECT_EQ(d1(I(Opcode::clz, Type::b64), {0}), 64u);
  const Instr bu = I(Opcode::bfind, Type::u32), bs = I(Opcode::bfind, Type::s32);
  Instr sa = bu;
  sa.m.shiftamt = true;
  EXPECT_EQ(d1(bu, {0}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(bu, {0x80000000}), 31u);
  EXPECT_EQ(d1(sa, {0x80000000}), 0u);
  EXPECT_EQ(d1(sa, {1}), 31u);
  EXPECT_EQ(d1(sa, {0}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(bs, {0xFFFFFFFF}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(bs, {0xFFFF0000}), 15u);
  EXPECT_EQ(d1(bs, {0x7FFFFFFF}), 30u);
  EXPECT_EQ(d1(I(Opcode::bfind, Type::u64), {1ull << 40}), 40u);
  EXPECT_EQ(d1(I(Opcode::brev, Type::b32), {1}), 0x80000000u);
  EXPECT_EQ(d1(I(Opcode::brev, Type::b32), {0x12345678}), 0x1E6A2C48u);
  EXPECT_EQ(d1(I(Opcode::brev, Type::b64), {1}), 1ull << 63);
}

TEST(AluBits, BitFieldExtractInsert) {
  const Instr eu = I(Opcode::bfe, Type::u32), es = I(Opcode::bfe, Type::s32);
  EXPECT_EQ(d1(eu, {0x12345678, 4, 8}), 0x67u);
  EXPECT_EQ(d1(eu, {0x12345678, 0x104, 8}), 0x67u);  // only bits 7..0 of pos count
  EXPECT_EQ(d1(es, {0xF0, 4, 4}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(es, {0x70, 4, 4}), 7u);
  EXPECT_EQ(d1(es, {0xF0, 4, 0}), 0u);
  EXPECT_EQ(d1(eu, {0xFFFFFFFF, 40, 4}), 0u);
  EXPECT_EQ(d1(es, {0x80000000, 40, 5}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(es, {0x80000000, 28, 8}), 0xFFFFFFF8u);
  EXPECT_EQ(d1(eu, {0x80000000, 28, 8}), 8u);
  EXPECT_EQ(d1(eu, {0x12345678, 0, 255}), 0x12345678u);
  EXPECT_EQ(d1(I(Opcode::bfe, Type::s64), {0x8000000000ull, 36, 4}), 0xFFFFFFFFFFFFFFF8ull);
  const Instr bi = I(Opcode::bfi, Type::b32);
  EXPECT_EQ(d1(bi, {0xFF, 0x12345678, 8, 8}), 0x1234FF78u);
  EXPECT_EQ(d1(bi, {0xFF, 0x12345678, 8, 0}), 0x12345678u);
  EXPECT_EQ(d1(bi, {0xFF, 0x12345678, 32, 8}), 0x12345678u);
  EXPECT_EQ(d1(bi, {0xFF, 0x12345678, 28, 8}), 0xF2345678u);
  EXPECT_EQ(d1(I(Opcode::bfi, Type::b64), {1, 0, 63, 1}), 1ull << 63);
}

TEST(AluBits, Permute) {
  auto p = [](PrmtMode m) { Instr in = I(Opcode::prmt, Type::b32); in.m.prmt = m; return in; };
  const uint64_t a = 0x33221100, b = 0x77665544;
  EXPECT_EQ(d1(p(PrmtMode::none), {a, b, 0x3210}), 0x33221100u);
  EXPECT_EQ(d1(p(PrmtMode::none), {a, b, 0x7654}), 0x77665544u);
  EXPECT_EQ(d1(p(PrmtMode::none), {a, b, 0x0741}), 0x00774411u);
  EXPECT_EQ(d1(p(PrmtMode::none), {0xF0, 0, 0x0008}), 0xF0F0F0FFu);
  EXPECT_EQ(d1(p(PrmtMode::f4e), {a, b, 1}), 0x44332211u);
  EXPECT_EQ(d1(p(PrmtMode::b4e), {a, b, 0}), 0x55667700u);
  EXPECT_EQ(d1(p(PrmtMode::rc8), {a, b, 2}), 0x22222222u);
  EXPECT_EQ(d1(p(PrmtMode::ecl), {a, b, 2}), 0x33222222u);
  EXPECT_EQ(d1(p(PrmtMode::ecr), {a, b, 1}), 0x11111100u);
  EXPECT_EQ(d1(p(PrmtMode::rc16), {a, b, 1}), 0x33223322u);
}

TEST(AluBits, LogicLop3Masks) {
  const Instr l3 = with_ops(I(Opcode::lop3, Type::b32), 5);
  const uint64_t a = 0xF0F0F0F0, b = 0xCCCCCCCC, c = 0xAAAAAAAA;
  EXPECT_EQ(d1(l3, {a, b, c, 0x96}), 0x96969696u);
  EXPECT_EQ(d1(l3, {a, b, c, 0xE8}), 0xE8E8E8E8u);
  EXPECT_EQ(d1(l3, {0x12345678, 0xFFFFFFFF, 0, 0xC0}), 0x12345678u);  // a & b
  EXPECT_EQ(d1(l3, {a, b, c, 0}), 0u);
  EXPECT_EQ(d1(l3, {a, b, c, 0xFF}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::and_, Type::pred), {1, 0}), 0u);
  EXPECT_EQ(d1(I(Opcode::or_, Type::pred), {1, 0}), 1u);
  EXPECT_EQ(d1(I(Opcode::xor_, Type::pred), {1, 1}), 0u);
  EXPECT_EQ(d1(I(Opcode::not_, Type::pred), {1}), 0u);
  EXPECT_EQ(d1(I(Opcode::xor_, Type::b16), {0xFFFF, 0x0F0F}), 0xF0F0u);
  EXPECT_EQ(d1(I(Opcode::not_, Type::b16), {0}), 0xFFFFu);
  EXPECT_EQ(d1(I(Opcode::not_, Type::b64), {0}), ~0ull);
  EXPECT_EQ(d1(I(Opcode::cnot, Type::b32), {0}), 1u);
  EXPECT_EQ(d1(I(Opcode::cnot, Type::b32), {5}), 0u);
  Instr bm = I(Opcode::bmsk, Type::b32);
  bm.m.shf = ShfMode::r_clamp;
  EXPECT_EQ(d1(bm, {4, 8}), 0xFF0u);
  EXPECT_EQ(d1(bm, {30, 8}), 0xC0000000u);
  EXPECT_EQ(d1(bm, {40, 8}), 0u);
  EXPECT_EQ(d1(bm, {0, 40}), 0xFFFFFFFFu);
  bm.m.shf = ShfMode::r_wrap;
  EXPECT_EQ(d1(bm, {36, 8}), 0xFF0u);
  Instr sz = I(Opcode::szext, Type::s32);
  sz.m.shf = ShfMode::r_clamp;
  EXPECT_EQ(d1(sz, {0x80, 8}), 0xFFFFFF80u);
  EXPECT_EQ(d1(sz, {0x7F, 8}), 0x7Fu);
  EXPECT_EQ(d1(sz, {0x80, 0}), 0u);
  EXPECT_EQ(d1(sz, {0x80000000, 40}), 0x80000000u);
  sz.m.type = Type::u32;
  EXPECT_EQ(d1(sz, {0x1FF, 8}), 0xFFu);
  sz.m.shf = ShfMode::r_wrap;
  EXPECT_EQ(d1(sz, {0x1FF, 40}), 0xFFu);
}

TEST(AluBits, DotProducts) {
  EXPECT_EQ(d1(I(Opcode::dp4a, Type::u32, Type::u32), {0x01020304, 0x01010101, 10}), 20u);
  EXPECT_EQ(d1(I(Opcode::dp4a, Type::s32, Type::s32), {0xFFFFFFFF, 0x02020202, 0}), 0xFFFFFFF8u);
  EXPECT_EQ(d1(I(Opcode::dp4a, Type::u32, Type::s32), {0xFF, 0xFF, 0}), 0xFFFFFF01u);
  EXPECT_EQ(d1(I(Opcode::dp4a, Type::u32, Type::u32), {0xFFFFFFFF, 0xFFFFFFFF, 0}), 4u * 255 * 255);
  Instr d2 = I(Opcode::dp2a, Type::s32, Type::s32);
  d2.m.mul = MulMode::lo;
  EXPECT_EQ(d1(d2, {0xFFFF0002, 0x00000305, 1}), 8u);
  d2.m.mul = MulMode::hi;
  EXPECT_EQ(d1(d2, {0xFFFF0002, 0x00000305, 1}), 1u);
  EXPECT_EQ(d1(d2, {0xFFFF0002, 0x03050000, 1}), 8u);
}

TEST(AluBits, Mov) {
  Instr mv = with_ops(I(Opcode::mov, Type::b32), 2);
  EXPECT_EQ(d1(mv, {0xFFFFFFFF12345678ull}), 0x12345678u);
  mv.m.type = Type::u16;
  EXPECT_EQ(d1(mv, {0x12345678}), 0x5678u);
  mv.m.type = Type::pred;
  EXPECT_EQ(d1(mv, {1}), 1u);
  mv.m.type = Type::f64;
  EXPECT_EQ(d1(mv, {0x3FF0000000000000ull}), 0x3FF0000000000000ull);
}

TEST(AluInt, FullWarpAndPartialMask) {
  // Every lane computes its own value; lanes outside the mask are untouched.
  uint64_t a[32], b[32], d[32];
  for (unsigned l = 0; l < 32; ++l) { a[l] = l; b[l] = 1000 * l; d[l] = kSentinel; }
  AluIn in;
  in.src[0] = a;
  in.src[1] = b;
  in.mask = 0xFFFFFFFFu;
  AluOut out;
  out.dst = d;
  relgpu::func::alu_exec(I(Opcode::add, Type::u32), in, out);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(d[l], 1001u * l);
  for (unsigned l = 0; l < 32; ++l) d[l] = kSentinel;
  in.mask = 0x80000005u;
  relgpu::func::alu_exec(I(Opcode::sub, Type::u32), in, out);
  for (unsigned l = 0; l < 32; ++l) {
    if ((in.mask >> l) & 1) { EXPECT_EQ(d[l], uint32_t(l - 1000 * l)); }
    else { EXPECT_EQ(d[l], kSentinel); }
  }
}
