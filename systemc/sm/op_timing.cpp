#include "sm/op_timing.h"

namespace relgpu::sm {

namespace {
enum Col { kAdd, kMax, kMul, kMad, kDiv };
// SM2_GTX480 / GTX480: "ADD,MAX,MUL,MAD,DIV" latency / initiation interval.
constexpr OpTiming kInt[] = {{4, 1}, {13, 2}, {4, 2}, {5, 1}, {145, 8}};
constexpr OpTiming kFp[] = {{4, 1}, {13, 2}, {4, 1}, {5, 1}, {39, 4}};
constexpr OpTiming kDp[] = {{8, 8}, {19, 16}, {8, 8}, {8, 8}, {330, 130}};
// 4.0: -ptx_opcode_latency_sfu / _initiation_sfu defaults; 3.x: the DP MUL
// column ("using double to approximate those"). Both 8 / 8.
constexpr OpTiming kSfu{8, 8};
constexpr OpTiming kShfl{32, 4};  // 4.0's SHFL column of the int table; 3.x: ALU_OP

OpTiming by_type(const ptx::Instr& in, Col c) {
  if (in.m.type == ptx::Type::f64) return kDp[c];
  if (in.m.type == ptx::Type::f32) return kFp[c];
  return kInt[c];
}

// 3.x: integer mul / mad are SFU_OP (float ones ALU_SFU_OP, which prefer the
// SP pipeline: kept on the SP here).
OpTiming on_sfu_if_int(const ptx::Instr& in, Col c, bool v3) {
  OpTiming t = by_type(in, c);
  t.sfu = v3 && in.m.type != ptx::Type::f32 && in.m.type != ptx::Type::f64;
  return t;
}
}  // namespace

OpTiming gpgpusim_op_timing(const ptx::Instr& in, bool v3) {
  using ptx::Opcode;
  switch (in.op) {
    case Opcode::add: case Opcode::addc: case Opcode::sub: case Opcode::subc: return by_type(in, kAdd);
    case Opcode::min: case Opcode::max: return by_type(in, kMax);
    case Opcode::mul: return on_sfu_if_int(in, kMul, v3);
    case Opcode::mad: return on_sfu_if_int(in, kMad, v3);
    case Opcode::madc: return v3 ? OpTiming{} : by_type(in, kMad);
    case Opcode::div: return by_type(in, kDiv);
    case Opcode::sqrt: case Opcode::sin: case Opcode::cos: case Opcode::ex2: case Opcode::lg2:
    case Opcode::rsqrt: case Opcode::rcp:
      return kSfu;
    case Opcode::shfl: return v3 ? OpTiming{} : kShfl;
    default: return {};  // ALU_OP
  }
}

}  // namespace relgpu::sm
