// f32/f64 arithmetic: every rounding mode against known IEEE results,
// ftz/sat, NaN rules, and the .approx error bounds of the PTX ISA.
#include "alu_test_util.h"

using namespace alut;

namespace {
const uint64_t kThird32[] = {0x3EAAAAABu, 0x3EAAAAAAu, 0x3EAAAAAAu, 0x3EAAAAABu};  // rn rz rm rp
const Rnd kModes[] = {Rnd::rn, Rnd::rz, Rnd::rm, Rnd::rp};
const uint64_t kOne = 0x3F800000u, kThree = 0x40400000u, kTwo = 0x40000000u, kMax = 0x7F7FFFFFu;
const uint64_t kInf = 0x7F800000u, kNInf = 0xFF800000u;

// Relative error of an f32 result against a reference.
double rel(uint64_t got, double ref) { return std::fabs((double(toF(got)) - ref) / ref); }
}  // namespace

TEST(AluFloat, DivideEveryRoundingMode) {
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d1(rnd(I(Opcode::div, Type::f32), kModes[i]), {kOne, kThree}), kThird32[i]) << i;
    EXPECT_EQ(d1(rnd(I(Opcode::rcp, Type::f32), kModes[i]), {kThree}), kThird32[i]) << i;
  }
  const uint64_t neg[] = {0xBEAAAAABu, 0xBEAAAAAAu, 0xBEAAAAABu, 0xBEAAAAAAu};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(d1(rnd(I(Opcode::div, Type::f32), kModes[i]), {0xBF800000u, kThree}), neg[i]) << i;
  const uint64_t third64[] = {0x3FD5555555555555ull, 0x3FD5555555555555ull, 0x3FD5555555555555ull, 0x3FD5555555555556ull};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d1(rnd(I(Opcode::div, Type::f64), kModes[i]), {D(1.0), D(3.0)}), third64[i]) << i;
    EXPECT_EQ(d1(rnd(I(Opcode::rcp, Type::f64), kModes[i]), {D(3.0)}), third64[i]) << i;
  }
  // The host rounding mode is restored after a directed instruction.
  EXPECT_EQ(d1(I(Opcode::add, Type::f32), {kOne, 0x33800000u}), kOne);  // 1 + 2^-24 ties to even
}

TEST(AluFloat, SqrtEveryRoundingMode) {
  const uint64_t s32[] = {0x3FB504F3u, 0x3FB504F3u, 0x3FB504F3u, 0x3FB504F4u};
  const uint64_t s64[] = {0x3FF6A09E667F3BCDull, 0x3FF6A09E667F3BCCull, 0x3FF6A09E667F3BCCull, 0x3FF6A09E667F3BCDull};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d1(rnd(I(Opcode::sqrt, Type::f32), kModes[i]), {kTwo}), s32[i]) << i;
    EXPECT_EQ(d1(rnd(I(Opcode::sqrt, Type::f64), kModes[i]), {D(2.0)}), s64[i]) << i;
  }
  EXPECT_EQ(d1(rnd(I(Opcode::sqrt, Type::f32), Rnd::rn), {0x80000000u}), 0x80000000u);  // sqrt(-0) = -0
  EXPECT_EQ(d1(rnd(I(Opcode::sqrt, Type::f32), Rnd::rn), {0xBF800000u}), 0x7FFFFFFFu);
}

TEST(AluFloat, AddMulOverflowAndTies) {
  const uint64_t ov[] = {kInf, kMax, kMax, kInf};
  const uint64_t nov[] = {kNInf, 0xFF7FFFFFu, kNInf, 0xFF7FFFFFu};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d1(rnd(I(Opcode::add, Type::f32), kModes[i]), {kMax, kMax}), ov[i]) << i;
    EXPECT_EQ(d1(rnd(I(Opcode::mul, Type::f32), kModes[i]), {kMax, 0xC0000000u}), nov[i]) << i;
  }
  const uint64_t tie[] = {kOne, kOne, kOne, 0x3F800001u};  // 1 + 2^-24
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d1(rnd(I(Opcode::add, Type::f32), kModes[i]), {kOne, 0x33800000u}), tie[i]) << i;
  EXPECT_EQ(d1(rnd(I(Opcode::sub, Type::f32), Rnd::rm), {kOne, kOne}), 0x80000000u);  // x - x = -0 when rounding down
  EXPECT_EQ(d1(rnd(I(Opcode::sub, Type::f32), Rnd::rn), {kOne, kOne}), 0u);
  EXPECT_EQ(d1(rnd(I(Opcode::add, Type::f64), Rnd::rz), {D(1e308), D(1e308)}), 0x7FEFFFFFFFFFFFFFull);
  EXPECT_EQ(d1(rnd(I(Opcode::add, Type::f64), Rnd::rn), {D(1e308), D(1e308)}), 0x7FF0000000000000ull);
  EXPECT_EQ(d1(rnd(I(Opcode::add, Type::f64), Rnd::rp), {D(1.0), D(0x1p-60)}), 0x3FF0000000000001ull);
}

TEST(AluFloat, FusedMultiplyAdd) {
  // (1+2^-23)^2 - (1+2^-22) = 2^-46 exactly; an unfused mul+add gives 0.
  const uint64_t a = 0x3F800001u, c = 0xBF800002u;
  EXPECT_EQ(d1(rnd(I(Opcode::fma, Type::f32), Rnd::rn), {a, a, c}), 0x28800000u);
  EXPECT_EQ(d1(rnd(I(Opcode::mad, Type::f32), Rnd::rn), {a, a, c}), 0x28800000u);
  EXPECT_EQ(d1(rnd(I(Opcode::mul, Type::f32), Rnd::rn), {a, a}), 0x3F800002u);
  EXPECT_EQ(d1(rnd(I(Opcode::fma, Type::f64), Rnd::rn), {D(1 + 0x1p-52), D(1 + 0x1p-52), D(-(1 + 0x1p-51))}),
            0x3970000000000000ull);
  // 1 * 1 + 2^-30 in each mode.
  const uint64_t r[] = {kOne, kOne, kOne, 0x3F800001u};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d1(rnd(I(Opcode::fma, Type::f32), kModes[i]), {kOne, kOne, 0x30800000u}), r[i]);
  EXPECT_EQ(d1(rnd(I(Opcode::fma, Type::f32), Rnd::rm), {kOne, kOne, 0xB0800000u}), 0x3F7FFFFFu);
}

TEST(AluFloat, SubnormalsAndFtz) {
  // 2^-100 * 2^-30 = 2^-130, a subnormal (0x00080000).
  const Instr mul = rnd(I(Opcode::mul, Type::f32), Rnd::rn);
  EXPECT_EQ(d1(mul, {0x0D800000u, 0x30800000u}), 0x00080000u);
  EXPECT_EQ(d1(ftz(mul), {0x0D800000u, 0x30800000u}), 0u);
  EXPECT_EQ(d1(ftz(mul), {0x8D800000u, 0x30800000u}), 0x80000000u);  // sign kept
  const Instr add = I(Opcode::add, Type::f32);
  EXPECT_EQ(d1(add, {1, 0}), 1u);
  EXPECT_EQ(d1(ftz(add), {1, 0}), 0u);
  EXPECT_EQ(d1(ftz(add), {0x80000001u, 0x80000000u}), 0x80000000u);
  EXPECT_EQ(d1(ftz(add), {0x00800000u, 0}), 0x00800000u);  // smallest normal is kept
  // Denormal results in each mode without ftz: 2^-149 / 2.
  const uint64_t half_min[] = {0u, 0u, 0u, 1u};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(d1(rnd(I(Opcode::mul, Type::f32), kModes[i]), {1, 0x3F000000u}), half_min[i]);
  EXPECT_EQ(d1(rnd(I(Opcode::mul, Type::f32), Rnd::rn), {3, 0x3F000000u}), 2u);  // 1.5 ulp ties to even
}

TEST(AluFloat, SaturateAndCanonicalNaN) {
  const Instr add = sat(I(Opcode::add, Type::f32));
  EXPECT_EQ(d1(add, {0x3F400000u, 0x3F000000u}), kOne);
  EXPECT_EQ(d1(add, {0xC0000000u, 0}), 0u);
  EXPECT_EQ(d1(add, {0x7FC00001u, 0}), 0u);
  EXPECT_EQ(d1(add, {0x80000000u, 0x80000000u}), 0u);
  EXPECT_EQ(d1(add, {0x3E800000u, 0}), 0x3E800000u);
  EXPECT_EQ(d1(I(Opcode::add, Type::f32), {kInf, kNInf}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::add, Type::f32), {0x7FC00001u, kOne}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::mul, Type::f32), {0, kInf}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(I(Opcode::add, Type::f64), {0x7FF8000000000001ull, D(1)}), 0x7FFFFFFFFFFFFFFFull);
  EXPECT_EQ(d1(rnd(I(Opcode::div, Type::f32), Rnd::rn), {0, 0}), 0x7FFFFFFFu);
}

TEST(AluFloat, MinMaxAbsNegCopysign) {
  const Instr mn = I(Opcode::min, Type::f32), mx = I(Opcode::max, Type::f32);
  EXPECT_EQ(d1(mn, {0x7FC00000u, kOne}), kOne);
  EXPECT_EQ(d1(mx, {kOne, 0xFFC00000u}), kOne);
  EXPECT_EQ(d1(mn, {0x7FC00000u, 0x7FC00001u}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(mn, {0, 0x80000000u}), 0x80000000u);
  EXPECT_EQ(d1(mn, {0x80000000u, 0}), 0x80000000u);
  EXPECT_EQ(d1(mx, {0x80000000u, 0}), 0u);
  EXPECT_EQ(d1(mx, {kNInf, kOne}), kOne);
  Instr mnn = mn;
  mnn.m.nan = true;
  EXPECT_EQ(d1(mnn, {kOne, 0x7FC00000u}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(mnn, {kOne, kTwo}), kOne);
  EXPECT_EQ(d1(ftz(mn), {0x80000001u, 0}), 0x80000000u);  // -denormal flushes to -0, which is smaller
  EXPECT_EQ(d1(I(Opcode::min, Type::f64), {D(-0.0), D(0.0)}), D(-0.0));
  EXPECT_EQ(d1(I(Opcode::max, Type::f64), {D(NAN), D(2.0)}), D(2.0));
  EXPECT_EQ(d1(I(Opcode::abs, Type::f32), {0xBF800000u}), kOne);
  EXPECT_EQ(d1(I(Opcode::neg, Type::f32), {0}), 0x80000000u);
  EXPECT_EQ(d1(ftz(I(Opcode::abs, Type::f32)), {0x80000001u}), 0u);
  EXPECT_EQ(d1(I(Opcode::neg, Type::f64), {D(2.0)}), D(-2.0));
  EXPECT_EQ(d1(I(Opcode::copysign, Type::f32), {0x80000000u, kTwo}), 0xC0000000u);
  EXPECT_EQ(d1(I(Opcode::copysign, Type::f64), {D(1.0), D(-3.0)}), D(3.0));
}

TEST(AluFloat, ApproxWithinPtxBounds) {
  const Instr sn = approx(I(Opcode::sin, Type::f32)), cs = approx(I(Opcode::cos, Type::f32));
  // Absolute error <= 2^-20.5 in [-pi, pi].
  const double b_sin = std::pow(2.0, -20.5);
  EXPECT_LE(std::fabs(toF(d1(sn, {F(1.0f)})) - 0.8414709848078965), b_sin);
  EXPECT_LE(std::fabs(toF(d1(sn, {F(-2.5f)})) - -0.5984721441039565), b_sin);
  EXPECT_LE(std::fabs(toF(d1(cs, {F(1.0f)})) - 0.5403023058681398), b_sin);
  EXPECT_LE(std::fabs(toF(d1(ftz(cs), {F(3.0f)})) - -0.9899924966004454), b_sin);
  EXPECT_EQ(d1(sn, {kInf}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(sn, {0x80000000u}), 0x80000000u);
  // ex2: 2 ulp; lg2: absolute 2^-22 here; tanh: relative 2^-11; rsqrt 2^-22.9.
  const Instr ex = approx(I(Opcode::ex2, Type::f32)), lg = approx(I(Opcode::lg2, Type::f32));
  EXPECT_LE(rel(d1(ex, {F(0.5f)}), 1.4142135623730951), std::pow(2.0, -22));
  EXPECT_LE(rel(d1(ex, {F(-3.3f)}), 0.10153154954452945), std::pow(2.0, -21));  // -3.3f is not -3.3: slack
  EXPECT_EQ(d1(ex, {kNInf}), 0u);
  EXPECT_EQ(d1(ex, {kInf}), kInf);
  EXPECT_EQ(d1(ex, {F(10.0f)}), F(1024.0f));
  EXPECT_LE(std::fabs(toF(d1(lg, {F(3.0f)})) - 1.584962500721156), std::pow(2.0, -22));
  EXPECT_LE(std::fabs(toF(d1(lg, {F(0.7f)})) - -0.5145731728297583), std::pow(2.0, -21));
  EXPECT_EQ(d1(lg, {0}), kNInf);
  EXPECT_EQ(d1(lg, {0xBF800000u}), 0x7FFFFFFFu);
  EXPECT_EQ(d1(lg, {kInf}), kInf);
  EXPECT_EQ(d1(ftz(lg), {1}), kNInf);  // denormal flushed to 0
  EXPECT_EQ(d1(lg, {1}), F(-149.0f));
  const Instr th = approx(I(Opcode::tanh, Type::f32));
  EXPECT_LE(rel(d1(th, {F(0.5f)}), 0.46211715726000974), std::pow(2.0, -11));
  EXPECT_LE(rel(d1(th, {F(-2.0f)}), -0.9640275800758169), std::pow(2.0, -11));
  EXPECT_EQ(d1(th, {kInf}), kOne);
  const Instr rs = approx(I(Opcode::rsqrt, Type::f32));
  EXPECT_LE(rel(d1(rs, {kThree}), 0.5773502691896258), std::pow(2.0, -22.9));
  EXPECT_EQ(d1(rs, {0x80000000u}), kNInf);
  EXPECT_EQ(d1(rs, {0}), kInf);
  EXPECT_EQ(d1(rs, {kInf}), 0u);
  EXPECT_LE(rel(d1(approx(I(Opcode::rcp, Type::f32)), {kThree}), 1.0 / 3), std::pow(2.0, -23));
  EXPECT_LE(rel(d1(approx(I(Opcode::sqrt, Type::f32)), {kTwo}), 1.4142135623730951), std::pow(2.0, -23));
  Instr r64 = ftz(approx(I(Opcode::rcp, Type::f64)));
  EXPECT_EQ(d1(r64, {D(4.0)}), D(0.25));
  EXPECT_EQ(d1(r64, {1}), 0x7FF0000000000000ull);  // denormal input flushed: 1/+0 = +inf
}

TEST(AluFloat, DivApproxAndFull) {
  const Instr da = approx(I(Opcode::div, Type::f32));
  EXPECT_LE(rel(d1(da, {kOne, kThree}), 1.0 / 3), std::pow(2.0, -22));  // 2 ulp
  EXPECT_EQ(d1(da, {kOne, 0x7F000000u}), 0u);                          // |b| = 2^127 > 2^126
  EXPECT_EQ(d1(da, {kInf, 0x7F000000u}), 0x7FFFFFFFu);
  Instr df = I(Opcode::div, Type::f32);
  df.m.full = true;
  EXPECT_LE(rel(d1(df, {kOne, kThree}), 1.0 / 3), std::pow(2.0, -22));
  EXPECT_EQ(d1(df, {kOne, 0x7F000000u}), 0x00400000u);  // full range: 2^-127 (subnormal)
}
