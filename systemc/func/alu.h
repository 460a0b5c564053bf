// Lane-level semantics of every PTX instruction that computes a value from
// register/immediate sources without touching memory or control flow:
// integer, floating point, conversion, bit and logic, compare/select,
// predicate logic. One place for "what an instruction computes"; the SIMT
// engine (warp.cpp) reads operands, calls alu_exec, and writes results back.
//
// Value convention (shared with the engine and the register file):
// - a register slot is a uint64_t per lane holding the value in its low bits,
//   zero-extended (a .b32 register never has bits 32..63 set; a predicate is 0/1);
// - a source is read as the instruction type's low bits (sign-extended where
//   the type is signed); a result is truncated to the instruction's type and
//   stored zero-extended;
// - f32 values are IEEE binary32 bit patterns, f64 binary64, f16/bf16 their
//   16-bit patterns;
// - immediates arrive already broadcast into a src array by the engine:
//   integer literals sign-extended; 0f literals as f32 bits; 0d literals as
//   f64 bits (the engine converts a 0d literal used by an f32 instruction).
#pragma once
#include <cstdint>

#include "ptx/ir.h"

namespace relgpu::func {

constexpr unsigned kWarpSize = 32;

struct AluIn {
  const uint64_t* src[4] = {nullptr, nullptr, nullptr, nullptr};  // src[i][lane], operand i after the destination(s)
  uint32_t mask = 0;     // lanes to compute (SIMT mask AND guard)
  uint32_t carry = 0;    // CC.CF per lane, for addc/subc/madc
};

struct AluOut {
  uint64_t* dst = nullptr;       // dst[lane] (written for lanes in mask only)
  uint64_t* dst2 = nullptr;      // second destination (setp p|q), or nullptr
  uint32_t carry = 0;            // CC.CF per lane after .cc instructions
};

// True for the instructions (opcode + modifiers + types) alu_exec computes.
bool alu_supports(const ptx::Instr& in);
void alu_exec(const ptx::Instr& in, const AluIn& a, AluOut& o);

}  // namespace relgpu::func
