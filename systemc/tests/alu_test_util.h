// Helpers for the ALU tests: build an Instr, run it on one lane (checking
// that no other lane is written) or on a full warp.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "func/alu.h"

namespace alut {

using relgpu::func::AluIn;
using relgpu::func::AluOut;
using relgpu::ptx::Instr;
using relgpu::ptx::Opcode;
using relgpu::ptx::Type;
using relgpu::ptx::Rnd;
using relgpu::ptx::Cmp;

inline Instr I(Opcode op, Type t, Type t2 = Type::none) {
  Instr in;
  in.op = op;
  in.m.type = t;
  in.m.type2 = t2;
  in.text = relgpu::ptx::opcode_name(op);
  return in;
}
// Gives an instruction n register operands (mov, lop3, cvt x2 check them).
inline Instr with_ops(Instr in, unsigned n) {
  in.ops.resize(n);
  for (auto& o : in.ops) { o.kind = relgpu::ptx::Operand::Kind::reg; o.reg = 0; }
  return in;
}

struct R {
  uint64_t d = 0, d2 = 0;
  uint32_t carry = 0;
};
constexpr uint64_t kSentinel = 0xDEADBEEFCAFEF00Dull;

// Runs `in` on lane 7 only; sources are broadcast to every lane.
inline R run(const Instr& in, std::initializer_list<uint64_t> src, uint32_t carry_in = 0, bool pair = false) {
  constexpr unsigned L = 7;
  static uint64_t s[4][32];
  uint64_t d[32], d2[32];
  unsigned i = 0;
  for (uint64_t v : src) { for (auto& x : s[i]) x = v; ++i; }
  for (unsigned l = 0; l < 32; ++l) d[l] = d2[l] = kSentinel;
  AluIn a;
  for (unsigned k = 0; k < 4; ++k) a.src[k] = s[k];
  a.mask = 1u << L;
  a.carry = carry_in ? (1u << L) | 0x1u : 0x1u;  // lane 0 carries 1 outside the mask
  AluOut o;
  o.dst = d;
  o.dst2 = pair ? d2 : nullptr;
  relgpu::func::alu_exec(in, a, o);
  for (unsigned l = 0; l < 32; ++l)
    if (l != L) { EXPECT_EQ(d[l], kSentinel) << "lane " << l << " written"; }
  R r;
  r.d = d[L];
  r.d2 = d2[L];
  r.carry = (o.carry >> L) & 1;
  if (in.m.cc) { EXPECT_EQ(o.carry & 1u, 1u) << "carry of a lane outside the mask changed"; }
  return r;
}
inline uint64_t d1(const Instr& in, std::initializer_list<uint64_t> src) { return run(in, src).d; }

inline uint64_t F(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline uint64_t D(double f) { uint64_t u; std::memcpy(&u, &f, 8); return u; }
inline float toF(uint64_t v) { uint32_t u = uint32_t(v); float f; std::memcpy(&f, &u, 4); return f; }
inline double toD(uint64_t v) { double f; std::memcpy(&f, &v, 8); return f; }
inline Instr rnd(Instr in, Rnd r) { in.m.rnd = r; return in; }
inline Instr ftz(Instr in) { in.m.ftz = true; return in; }
inline Instr sat(Instr in) { in.m.sat = true; return in; }
inline Instr approx(Instr in) { in.m.approx = true; return in; }

}  // namespace alut
