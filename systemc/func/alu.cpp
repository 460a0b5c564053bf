// Dispatch: one switch on the opcode picks the family selector, which picks
// a kernel specialised for (type, modifiers); the kernel loops over lanes.
#include "func/alu.h"

#include <string>

#include "common/error.h"
#include "func/alu_lanes.h"

namespace relgpu::func {

namespace {

using detail::Kern;
using ptx::Opcode;
using ptx::Type;

bool is_half(Type t) { return t == Type::f16 || t == Type::f16x2 || t == Type::bf16 || t == Type::bf16x2; }

Kern select(const ptx::Instr& in) {
  // Modifiers the parser could not model change the meaning: never compute.
  if (!in.m.unknown.empty() || in.undecoded) return nullptr;
  switch (in.op) {
    case Opcode::add: case Opcode::sub: case Opcode::mul: case Opcode::mad: case Opcode::fma:
    case Opcode::abs: case Opcode::neg: case Opcode::min: case Opcode::max:
      if (is_half(in.m.type)) return detail::select_half(in);
      if (ptx::type_is_float(in.m.type)) return detail::select_float(in);
      return detail::select_int(in);
    case Opcode::ex2: case Opcode::tanh:
      if (is_half(in.m.type)) return detail::select_half(in);
      return detail::select_float(in);
    case Opcode::addc: case Opcode::subc: case Opcode::madc: case Opcode::mul24: case Opcode::mad24:
    case Opcode::sad: case Opcode::rem:
      return detail::select_int(in);
    case Opcode::div:
      return ptx::type_is_float(in.m.type) ? detail::select_float(in) : detail::select_int(in);
    case Opcode::rcp: case Opcode::sqrt: case Opcode::rsqrt: case Opcode::sin: case Opcode::cos:
    case Opcode::lg2: case Opcode::copysign:
      return detail::select_float(in);
    case Opcode::popc: case Opcode::clz: case Opcode::bfind: case Opcode::brev: case Opcode::bfe:
    case Opcode::bfi: case Opcode::prmt: case Opcode::shf: case Opcode::shl: case Opcode::shr:
    case Opcode::and_: case Opcode::or_: case Opcode::xor_: case Opcode::not_: case Opcode::cnot:
    case Opcode::lop3: case Opcode::bmsk: case Opcode::szext: case Opcode::dp4a: case Opcode::dp2a:
    case Opcode::mov:
      return detail::select_bits(in);
    case Opcode::setp: case Opcode::set: case Opcode::selp: case Opcode::slct: case Opcode::testp:
      return detail::select_cmp(in);
    case Opcode::cvt:
      return detail::select_cvt(in);
    default:
      return nullptr;
  }
}

}  // namespace

bool alu_supports(const ptx::Instr& in) { return select(in) != nullptr; }

void alu_exec(const ptx::Instr& in, const AluIn& a, AluOut& o) {
  Kern k = select(in);
  if (!k) {
    // The loader rejects what alu_supports refuses; reaching here means an
    // instruction bypassed that check.
    throw KernelError("line " + std::to_string(in.line) + ":" + std::to_string(in.col) +
                      ": the ALU does not compute '" + in.text + "' (" + ptx::opcode_name(in.op) + ")");
  }
  k(in, a, o);
}

}  // namespace relgpu::func
