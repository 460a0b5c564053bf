// Per-function static analyses over the parsed IR. analyse(m) fills, for
// every function with a body:
//   Function::blocks, InstrInfo::block   basic blocks and successors
//   InstrInfo::ipdom                     reconvergence point of each branch
//   InstrInfo::dead, dead_mask           last uses of source registers
//   Function::def_uses                   static def-use chains
//   Function::regs_allocator, phys_reg   register allocation
//   InstrInfo::tainted_branch, Function::tainted_regs, Function::programmatic_regs
//
// Operand roles. Destinations are ops[0] (a register or vector) of every
// opcode that writes one, plus pair_dst; st/red/bar/bra/call/ret/... write no
// register. Sources are, in order: the registers of the remaining operands
// left to right (a vector's elements in order, an address's base register),
// then the guard predicate. dead[0] and dead[1] are the first two of these
// sources, so for `add %r1, %r2, %r3` they are %r2 and %r3, and for
// `st.global [%rd1], %r5` they are %rd1 and %r5. The carry flag (.cc) is not
// a register and is not tracked.
#pragma once
#include <vector>

#include "ptx/ir.h"

namespace relgpu::ptx {

void analyse(Module& m);
void analyse(Function& f);

// Registers an instruction reads / writes, in the order described above.
void instr_uses(const Instr& in, std::vector<int32_t>& out);
void instr_defs(const Instr& in, std::vector<int32_t>& out);
bool writes_dst(Opcode op);  // ops[0] is a destination

// The pieces analyse() runs, exposed for tests.
void build_cfg(Function& f);          // blocks, InstrInfo::block, InstrInfo::ipdom
void analyse_liveness(Function& f);   // dead bits, def_uses
void allocate_registers(Function& f); // regs_allocator, phys_reg
void analyse_taint(Function& f);      // tainted_branch, tainted_regs, programmatic_regs, lane_* (needs build_cfg)

}  // namespace relgpu::ptx
