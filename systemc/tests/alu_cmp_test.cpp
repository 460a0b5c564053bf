// setp/set/selp/slct/testp, which instructions the ALU claims, and the cost
// of a warp-wide add/fma.
#include <chrono>
#include <cstdio>

#include "alu_test_util.h"

using namespace alut;
using relgpu::ptx::BoolOp;
using relgpu::ptx::TestpOp;

namespace {
Instr setp(Type t, Cmp c, BoolOp b = BoolOp::none) {
  Instr in = I(Opcode::setp, t);
  in.m.cmp = c;
  in.m.bop = b;
  return in;
}
const uint64_t kNaN = 0x7FC00000u, kOne = 0x3F800000u, kTwo = 0x40000000u;
}  // namespace

TEST(AluCmp, IntegerCompares) {
  EXPECT_EQ(d1(setp(Type::s32, Cmp::lt), {0xFFFFFFFF, 0}), 1u);
  EXPECT_EQ(d1(setp(Type::u32, Cmp::lt), {0xFFFFFFFF, 0}), 0u);
  EXPECT_EQ(d1(setp(Type::b32, Cmp::lt), {0xFFFFFFFF, 0}), 0u);  // .b compares unsigned
  EXPECT_EQ(d1(setp(Type::s32, Cmp::lo), {0xFFFFFFFF, 0}), 0u);  // lo is unsigned
  EXPECT_EQ(d1(setp(Type::u32, Cmp::hs), {5, 5}), 1u);
  EXPECT_EQ(d1(setp(Type::u32, Cmp::hi), {5, 5}), 0u);
  EXPECT_EQ(d1(setp(Type::s16, Cmp::ge), {0x8000, 0x7FFF}), 0u);
  EXPECT_EQ(d1(setp(Type::s64, Cmp::gt), {1, ~0ull}), 1u);
  EXPECT_EQ(d1(setp(Type::u64, Cmp::ne), {1, 1}), 0u);
  EXPECT_EQ(d1(setp(Type::s32, Cmp::eq), {0x1FFFFFFFFull, 0xFFFFFFFF}), 1u);  // only the low 32 bits count
}

TEST(AluCmp, FloatOrderedUnordered) {
  struct Case { Cmp c; uint64_t lt, eq, nan; };  // results for (1,2), (2,2), (NaN,2)
  const Case cases[] = {
      {Cmp::eq, 0, 1, 0},  {Cmp::ne, 1, 0, 0},  {Cmp::lt, 1, 0, 0},  {Cmp::le, 1, 1, 0},
      {Cmp::gt, 0, 0, 0},  {Cmp::ge, 0, 1, 0},  {Cmp::equ, 0, 1, 1}, {Cmp::neu, 1, 0, 1},
      {Cmp::ltu, 1, 0, 1}, {Cmp::leu, 1, 1, 1}, {Cmp::gtu, 0, 0, 1}, {Cmp::geu, 0, 1, 1},
      {Cmp::num, 1, 1, 0}, {Cmp::nan, 0, 0, 1},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(d1(setp(Type::f32, c.c), {kOne, kTwo}), c.lt) << int(c.c);
    EXPECT_EQ(d1(setp(Type::f32, c.c), {kTwo, kTwo}), c.eq) << int(c.c);
    EXPECT_EQ(d1(setp(Type::f32, c.c), {kNaN, kTwo}), c.nan) << int(c.c);
    EXPECT_EQ(d1(setp(Type::f64, c.c), {D(1), D(2)}), c.lt) << int(c.c);
    EXPECT_EQ(d1(setp(Type::f64, c.c), {D(NAN), D(2)}), c.nan) << int(c.c);
  }
  EXPECT_EQ(d1(setp(Type::f32, Cmp::eq), {0x80000000u, 0}), 1u);  // -0 == +0
  EXPECT_EQ(d1(setp(Type::f32, Cmp::lt), {0, 1}), 1u);
  Instr z = setp(Type::f32, Cmp::lt);
  z.m.ftz = true;
  EXPECT_EQ(d1(z, {0, 1}), 0u);  // denormal flushed: 0 < 0 is false
}

TEST(AluCmp, CombineAndPair) {
  // setp.lt.and.s32 p|q, a, b, c: p = (a<b) & c, q = !(a<b) & c.
  R r = run(setp(Type::s32, Cmp::lt, BoolOp::and_), {1, 2, 1}, 0, true);
  EXPECT_EQ(r.d, 1u);
  EXPECT_EQ(r.d2, 0u);
  r = run(setp(Type::s32, Cmp::lt, BoolOp::and_), {1, 2, 0}, 0, true);
  EXPECT_EQ(r.d, 0u);
  EXPECT_EQ(r.d2, 0u);
  r = run(setp(Type::s32, Cmp::lt, BoolOp::or_), {3, 2, 1}, 0, true);
  EXPECT_EQ(r.d, 1u);
  EXPECT_EQ(r.d2, 1u);
  r = run(setp(Type::s32, Cmp::lt, BoolOp::xor_), {1, 2, 1}, 0, true);
  EXPECT_EQ(r.d, 0u);
  EXPECT_EQ(r.d2, 1u);
  r = run(setp(Type::f32, Cmp::gt), {kTwo, kOne}, 0, true);
  EXPECT_EQ(r.d, 1u);
  EXPECT_EQ(r.d2, 0u);
  // f16x2: p from the low halves, q from the high halves.
  r = run(setp(Type::f16x2, Cmp::lt), {0x40003C00u, 0x3C004000u}, 0, true);  // hi 2<1 no, lo 1<2 yes
  EXPECT_EQ(r.d, 1u);
  EXPECT_EQ(r.d2, 0u);
  EXPECT_EQ(d1(setp(Type::f16, Cmp::gt), {0x4000, 0x3C00}), 1u);
  EXPECT_EQ(d1(setp(Type::f16, Cmp::nan), {0x7E00, 0x3C00}), 1u);
  EXPECT_EQ(d1(setp(Type::bf16, Cmp::lt), {0xBF80, 0x3F80}), 1u);
}

TEST(AluCmp, SetSelpSlct) {
  Instr s = I(Opcode::set, Type::u32, Type::s32);
  s.m.cmp = Cmp::lt;
  EXPECT_EQ(d1(s, {0xFFFFFFFF, 0}), 0xFFFFFFFFu);
  EXPECT_EQ(d1(s, {1, 0}), 0u);
  s.m.type = Type::f32;
  EXPECT_EQ(d1(s, {0xFFFFFFFF, 0}), kOne);
  s.m.type2 = Type::f32;
  s.m.cmp = Cmp::ltu;
  EXPECT_EQ(d1(s, {kNaN, 0}), kOne);
  s.m.bop = BoolOp::and_;
  EXPECT_EQ(d1(s, {kNaN, 0, 0}), 0u);
  Instr sx = I(Opcode::set, Type::f16x2, Type::f16x2);
  sx.m.cmp = Cmp::lt;
  EXPECT_EQ(d1(sx, {0x40003C00u, 0x3C004000u}), 0x00003C00u);
  sx.m.type = Type::u32;
  EXPECT_EQ(d1(sx, {0x40003C00u, 0x3C004000u}), 0x0000FFFFu);
  EXPECT_EQ(d1(I(Opcode::selp, Type::b32), {11, 22, 1}), 11u);
  EXPECT_EQ(d1(I(Opcode::selp, Type::f64), {D(1), D(2), 0}), D(2));
  EXPECT_EQ(d1(I(Opcode::selp, Type::u16), {0x12345, 2, 1}), 0x2345u);
  EXPECT_EQ(d1(I(Opcode::slct, Type::b32, Type::s32), {11, 22, 0}), 11u);
  EXPECT_EQ(d1(I(Opcode::slct, Type::b32, Type::s32), {11, 22, 0x80000000}), 22u);
  EXPECT_EQ(d1(I(Opcode::slct, Type::f32, Type::f32), {11, 22, 0x80000000u}), 11u);  // -0 >= 0
  EXPECT_EQ(d1(I(Opcode::slct, Type::f32, Type::f32), {11, 22, kNaN}), 22u);
  EXPECT_EQ(d1(I(Opcode::slct, Type::f32, Type::f32), {11, 22, 0x80000001u}), 22u);
  Instr sf = ftz(I(Opcode::slct, Type::f32, Type::f32));
  EXPECT_EQ(d1(sf, {11, 22, 0x80000001u}), 11u);  // -denormal flushed to -0
}

TEST(AluCmp, Testp) {
  auto tp = [](TestpOp op, Type t) { Instr in = I(Opcode::testp, t); in.m.testp = op; return in; };
  const uint64_t v32[] = {0, 1, kOne, 0x7F800000u, kNaN};  // zero, denormal, normal, inf, NaN
  const uint64_t want[6][5] = {
      {1, 1, 1, 0, 0},  // finite
      {0, 0, 0, 1, 0},  // infinite
      {1, 1, 1, 1, 0},  // number
      {0, 0, 0, 0, 1},  // notanumber
      {0, 0, 1, 0, 0},  // normal
      {0, 1, 0, 0, 0},  // subnormal
  };
  const TestpOp ops[] = {TestpOp::finite, TestpOp::infinite, TestpOp::number, TestpOp::notanumber,
                         TestpOp::normal, TestpOp::subnormal};
  for (int o = 0; o < 6; ++o)
    for (int v = 0; v < 5; ++v) EXPECT_EQ(d1(tp(ops[o], Type::f32), {v32[v]}), want[o][v]) << o << " " << v;
  EXPECT_EQ(d1(tp(TestpOp::subnormal, Type::f64), {1}), 1u);
  EXPECT_EQ(d1(tp(TestpOp::infinite, Type::f64), {0xFFF0000000000000ull}), 1u);
}

TEST(AluSupports, MemoryControlAndWarpOpsAreNotTheAlus) {
  using relgpu::func::alu_supports;
  for (Opcode op : {Opcode::ld, Opcode::st, Opcode::atom, Opcode::red, Opcode::bar, Opcode::barrier,
                    Opcode::bra, Opcode::call, Opcode::ret, Opcode::exit, Opcode::vote, Opcode::shfl,
                    Opcode::match, Opcode::redux, Opcode::activemask, Opcode::cvta, Opcode::membar, Opcode::tex})
    EXPECT_FALSE(alu_supports(I(op, Type::u32))) << relgpu::ptx::opcode_name(op);
  Instr mv = with_ops(I(Opcode::mov, Type::u32), 2);
  EXPECT_TRUE(alu_supports(mv));
  mv.ops[1].kind = relgpu::ptx::Operand::Kind::sreg;
  EXPECT_FALSE(alu_supports(mv));
  mv.ops[1].kind = relgpu::ptx::Operand::Kind::vec;
  EXPECT_FALSE(alu_supports(mv));
  mv.ops[1].kind = relgpu::ptx::Operand::Kind::sym;
  EXPECT_FALSE(alu_supports(mv));
  // Invalid combinations are refused rather than guessed.
  EXPECT_FALSE(alu_supports(I(Opcode::add, Type::pred)));
  EXPECT_FALSE(alu_supports(sat(I(Opcode::add, Type::u32))));
  EXPECT_FALSE(alu_supports(I(Opcode::div, Type::f32)));              // needs .approx/.full/.rnd
  EXPECT_FALSE(alu_supports(I(Opcode::cvt, Type::s32, Type::f32)));   // needs .rzi etc.
  EXPECT_FALSE(alu_supports(I(Opcode::testp, Type::f32)));           // no class
  Instr unk = I(Opcode::add, Type::u32);
  unk.m.unknown = ".foo";
  EXPECT_FALSE(alu_supports(unk));
}

TEST(AluSupports, EveryFamily) {
  using relgpu::func::alu_supports;
  Instr shf = I(Opcode::shf, Type::b32);
  shf.m.shf = relgpu::ptx::ShfMode::l_wrap;
  Instr setpi = setp(Type::s32, Cmp::lt), setpf = setp(Type::f32, Cmp::geu);
  Instr tp = I(Opcode::testp, Type::f64);
  tp.m.testp = TestpOp::finite;
  Instr mw = I(Opcode::mul, Type::s32);
  mw.m.mul = relgpu::ptx::MulMode::wide;
  Instr df = I(Opcode::div, Type::f32);
  df.m.full = true;
  const Instr yes[] = {
      I(Opcode::add, Type::s64), I(Opcode::sub, Type::u16), mw, I(Opcode::div, Type::u32), I(Opcode::rem, Type::s64),
      I(Opcode::abs, Type::s32), I(Opcode::min, Type::u32), I(Opcode::popc, Type::b64), I(Opcode::clz, Type::b32),
      I(Opcode::bfind, Type::s32), I(Opcode::brev, Type::b32), I(Opcode::bfe, Type::u64), I(Opcode::bfi, Type::b32),
      I(Opcode::prmt, Type::b32), shf, I(Opcode::shl, Type::b64), I(Opcode::shr, Type::s16), I(Opcode::and_, Type::b32),
      I(Opcode::xor_, Type::pred), I(Opcode::not_, Type::b16), I(Opcode::cnot, Type::b32),
      with_ops(I(Opcode::lop3, Type::b32), 5), I(Opcode::dp4a, Type::s32, Type::u32),
      rnd(I(Opcode::add, Type::f32), Rnd::rz), rnd(I(Opcode::fma, Type::f64), Rnd::rn), df,
      approx(I(Opcode::div, Type::f32)), rnd(I(Opcode::sqrt, Type::f64), Rnd::rp), approx(I(Opcode::rsqrt, Type::f32)),
      approx(I(Opcode::sin, Type::f32)), approx(I(Opcode::lg2, Type::f32)), approx(I(Opcode::ex2, Type::f32)),
      approx(I(Opcode::tanh, Type::f32)), I(Opcode::copysign, Type::f32), I(Opcode::max, Type::f64), setpi, setpf, tp,
      I(Opcode::selp, Type::f32), I(Opcode::slct, Type::u32, Type::s32), I(Opcode::add, Type::f16),
      rnd(I(Opcode::fma, Type::f16x2), Rnd::rn), I(Opcode::mul, Type::bf16), rnd(I(Opcode::cvt, Type::f16, Type::f32), Rnd::rn),
      I(Opcode::cvt, Type::f32, Type::f16), rnd(I(Opcode::cvt, Type::s64, Type::f64), Rnd::rni),
      rnd(I(Opcode::cvt, Type::f64, Type::u64), Rnd::rm), I(Opcode::cvt, Type::u8, Type::s32),
      rnd(I(Opcode::cvt, Type::f32, Type::f32), Rnd::rpi),
  };
  for (const Instr& in : yes) EXPECT_TRUE(alu_supports(in)) << relgpu::ptx::opcode_name(in.op) << "." << relgpu::ptx::type_name(in.m.type);
}

TEST(AluPerf, WarpAddAndFmaAreCheap) {
  uint64_t a[32], b[32], c[32], d[32];
  for (unsigned l = 0; l < 32; ++l) { a[l] = F(1.0f + l); b[l] = F(0.5f); c[l] = F(2.0f); }
  AluIn in;
  in.src[0] = a; in.src[1] = b; in.src[2] = c;
  in.mask = 0xFFFFFFFFu;
  AluOut out;
  out.dst = d;
  // Best of 50 batches, so that time-slicing on a loaded machine is not counted.
  auto time = [&](const Instr& ins) {
    constexpr int N = 2000;
    double best = 1e30;
    for (int rep = 0; rep < 50; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < N; ++i) relgpu::func::alu_exec(ins, in, out);
      const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / N;
      best = ns < best ? ns : best;
    }
    return best;
  };
  const double add = time(I(Opcode::add, Type::f32)), fma = time(rnd(I(Opcode::fma, Type::f32), Rnd::rn));
  const double iadd = time(I(Opcode::add, Type::s32)), fmaz = time(rnd(I(Opcode::fma, Type::f32), Rnd::rz));
  std::printf("ns per 32-lane call: add.f32 %.1f  fma.rn.f32 %.1f  add.s32 %.1f  fma.rz.f32 %.1f\n", add, fma, iadd, fmaz);
  // Unloaded, these take ~30-40 ns; the bounds are loose because test
  // machines are shared, but still catch a per-lane call or allocation.
  EXPECT_LT(add, 2000.0);
  EXPECT_LT(fma, 2000.0);
  EXPECT_LT(iadd, 2000.0);
}
