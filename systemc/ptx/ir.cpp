#include "ptx/ir.h"

namespace relgpu::ptx {

unsigned type_bits(Type t) {
  switch (t) {
    case Type::none: return 0;
    case Type::pred: return 1;
    case Type::b8: case Type::u8: case Type::s8: return 8;
    case Type::b16: case Type::u16: case Type::s16: case Type::f16: case Type::bf16: return 16;
    case Type::b32: case Type::u32: case Type::s32: case Type::f32: case Type::f16x2: case Type::bf16x2: return 32;
    case Type::b64: case Type::u64: case Type::s64: case Type::f64: return 64;
    case Type::b128: return 128;
  }
  return 0;
}

bool type_is_float(Type t) {
  switch (t) {
    case Type::f16: case Type::f16x2: case Type::bf16: case Type::bf16x2: case Type::f32: case Type::f64: return true;
    default: return false;
  }
}

bool type_is_signed(Type t) {
  return t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64;
}

const char* type_name(Type t) {
  switch (t) {
    case Type::none: return "";
    case Type::pred: return "pred";
    case Type::b8: return "b8"; case Type::b16: return "b16"; case Type::b32: return "b32";
    case Type::b64: return "b64"; case Type::b128: return "b128";
    case Type::u8: return "u8"; case Type::u16: return "u16"; case Type::u32: return "u32"; case Type::u64: return "u64";
    case Type::s8: return "s8"; case Type::s16: return "s16"; case Type::s32: return "s32"; case Type::s64: return "s64";
    case Type::f16: return "f16"; case Type::f16x2: return "f16x2"; case Type::bf16: return "bf16";
    case Type::bf16x2: return "bf16x2"; case Type::f32: return "f32"; case Type::f64: return "f64";
  }
  return "?";
}

const char* space_name(Space s) {
  switch (s) {
    case Space::none: return "";
    case Space::reg: return "reg";
    case Space::global: return "global";
    case Space::shared: return "shared";
    case Space::local: return "local";
    case Space::param: return "param";
    case Space::const_: return "const";
    case Space::generic: return "generic";
  }
  return "?";
}

const char* opcode_name(Opcode op) {
  static const char* const names[] = {
#define RELGPU_X(e, s) s,
      RELGPU_PTX_OPCODES(RELGPU_X)
#undef RELGPU_X
  };
  return op < Opcode::count_ ? names[size_t(op)] : "?";
}

unsigned Module::target_sm() const {
  if (target.rfind("sm_", 0) != 0) return 0;
  unsigned v = 0;
  for (size_t i = 3; i < target.size() && target[i] >= '0' && target[i] <= '9'; ++i) v = v * 10 + unsigned(target[i] - '0');
  return v;
}

const Function* Module::find(const std::string& name) const {
  auto it = function_index.find(name);
  return it == function_index.end() ? nullptr : functions[it->second].get();
}

}  // namespace relgpu::ptx
