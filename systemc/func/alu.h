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
// - a predicate source (selp/setp/set c operand, and/or/xor/not on .pred)
//   arrives as 0/1 with any `!` already applied by the engine;
// - mov: alu_supports is true only for register/immediate to register.
//
// Operand and modifier conventions the ALU relies on (see ptx/ir.h Mods):
// - two-type instructions: m.type is the first type suffix, m.type2 the
//   second (cvt.f32.s32: f32, s32; set.lt.u32.f32; slct.f32.s32;
//   dp4a.u32.s32: atype u32, btype s32);
// - dp2a.lo/.hi in m.mul; bmsk/szext .clamp/.wrap in m.shf (r_clamp/r_wrap);
//   testp's class in m.testp; lop3's immLut is src[3];
// - setp with p|q writes dst (p) and dst2 (q = complement result combined
//   with c); for .f16x2/.bf16x2, p is the low halves' result, q the high's;
// - .cc instructions set AluOut::carry for the lanes in mask and copy
//   AluIn::carry for the others; instructions without .cc leave it alone.
//   For sub.cc/subc the flag is the borrow, as the PTX ISA defines it.
//
// Results the PTX ISA leaves open (our choices): integer x/0 = all ones
// (signed too), x%0 = x; NaN results are canonical (f32 0x7FFFFFFF, f64
// 0x7FFFFFFFFFFFFFFF, f16/bf16 0x7FFF) except for the sign-bit operations
// abs/neg/copysign/mov/selp, which keep payloads; .ftz flushes after
// rounding; .sat maps NaN and -0 to +0; .approx operations are computed in
// double precision and rounded once (within the documented bounds, not
// bit-identical to NVIDIA's hardware tables).
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
// False for memory, control flow and cross-lane instructions, for modifier
// combinations PTX does not define, and whenever Mods::unknown is non-empty.
bool alu_supports(const ptx::Instr& in);
// Computes `in` for the lanes in a.mask. Throws KernelError for an
// instruction alu_supports refuses (the loader should have rejected it).
void alu_exec(const ptx::Instr& in, const AluIn& a, AluOut& o);

}  // namespace relgpu::func
