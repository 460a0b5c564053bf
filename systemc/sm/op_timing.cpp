#include "sm/op_timing.h"

namespace relgpu::sm {

namespace {
enum Col { kAdd, kMax, kMul, kMad, kDiv };
// SM2_GTX480: "ADD,MAX,MUL,MAD,DIV" latency / initiation interval.
constexpr OpTiming kInt[] = {{4, 1}, {13, 2}, {4, 2}, {5, 1}, {145, 8}};
constexpr OpTiming kFp[] = {{4, 1}, {13, 2}, {4, 1}, {5, 1}, {39, 4}};
constexpr OpTiming kDp[] = {{8, 8}, {19, 16}, {8, 8}, {8, 8}, {330, 130}};
constexpr OpTiming kSfu{8, 8};    // -ptx_opcode_latency_sfu / _initiation_sfu defaults
constexpr OpTiming kShfl{32, 4};  // SHFL column of the int table (4.0)

OpTiming by_type(const ptx::Instr& in, Col c) {
  if (in.m.type == ptx::Type::f64) return kDp[c];
  if (in.m.type == ptx::Type::f32) return kFp[c];
  return kInt[c];
}
}  // namespace

OpTiming gpgpusim_op_timing(const ptx::Instr& in) {
  using ptx::Opcode;
  switch (in.op) {
    case Opcode::add: case Opcode::addc: case Opcode::sub: case Opcode::subc: return by_type(in, kAdd);
    case Opcode::min: case Opcode::max: return by_type(in, kMax);
    case Opcode::mul: return by_type(in, kMul);
    case Opcode::mad: case Opcode::madc: return by_type(in, kMad);
    case Opcode::div: return by_type(in, kDiv);
    case Opcode::sqrt: case Opcode::sin: case Opcode::cos: case Opcode::ex2: case Opcode::lg2:
    case Opcode::rsqrt: case Opcode::rcp:
      return kSfu;
    case Opcode::shfl: return kShfl;
    default: return {};  // ALU_OP
  }
}

}  // namespace relgpu::sm
