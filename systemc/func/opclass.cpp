#include "func/opclass.h"

namespace relgpu::func {

using ptx::Opcode;
using ptx::Space;
using ptx::Type;

const char* opclass_name(OpClass c) {
  static const char* const n[] = {"INT", "FP32", "FP64", "SFU", "LDST_GLOBAL", "LDST_SHARED", "LDST_LOCAL",
                                  "LDST_CONST_PARAM", "ATOMIC", "BRANCH", "BARRIER", "OTHER"};
  return unsigned(c) < unsigned(OpClass::count_) ? n[unsigned(c)] : "?";
}

static OpClass ldst(Space s) {
  switch (s) {
    case Space::shared: return OpClass::LDST_SHARED;
    case Space::local: return OpClass::LDST_LOCAL;
    case Space::param: case Space::const_: return OpClass::LDST_CONST_PARAM;
    default: return OpClass::LDST_GLOBAL;
  }
}

OpClass classify(const ptx::Instr& in) {
  switch (in.op) {
    case Opcode::ld: case Opcode::ldu: case Opcode::st: return ldst(in.m.space);
    case Opcode::atom: case Opcode::red: return OpClass::ATOMIC;
    case Opcode::bra: case Opcode::brx: case Opcode::call: case Opcode::ret: case Opcode::exit:
      return OpClass::BRANCH;
    case Opcode::bar: case Opcode::barrier: case Opcode::membar: case Opcode::fence: return OpClass::BARRIER;
    // Special-function unit: transcendental approximations.
    case Opcode::sin: case Opcode::cos: case Opcode::ex2: case Opcode::lg2: case Opcode::rsqrt:
    case Opcode::tanh:
      return in.m.type == Type::f64 ? OpClass::FP64 : OpClass::SFU;
    case Opcode::rcp: case Opcode::sqrt:
      if (in.m.type == Type::f64) return OpClass::FP64;
      return in.m.approx ? OpClass::SFU : OpClass::FP32;
    case Opcode::mov: case Opcode::nanosleep: case Opcode::pmevent: case Opcode::prefetch:
    case Opcode::prefetchu: case Opcode::trap: case Opcode::brkpt: case Opcode::activemask:
    case Opcode::vote: case Opcode::shfl: case Opcode::match: case Opcode::redux:
      return OpClass::OTHER;
    case Opcode::cvt: {
      bool f64 = in.m.type == Type::f64 || in.m.type2 == Type::f64;
      bool fl = ptx::type_is_float(in.m.type) || ptx::type_is_float(in.m.type2);
      return f64 ? OpClass::FP64 : fl ? OpClass::FP32 : OpClass::INT;
    }
    case Opcode::setp: case Opcode::set: case Opcode::slct: {
      Type t = in.m.type2 != Type::none && in.op != Opcode::slct ? in.m.type2 : in.m.type;
      if (in.op == Opcode::setp) t = in.m.type;
      return t == Type::f64 ? OpClass::FP64 : ptx::type_is_float(t) ? OpClass::FP32 : OpClass::INT;
    }
    default: {
      Type t = in.m.type;
      if (t == Type::f64) return OpClass::FP64;
      if (ptx::type_is_float(t)) return OpClass::FP32;
      return OpClass::INT;
    }
  }
}

}  // namespace relgpu::func
