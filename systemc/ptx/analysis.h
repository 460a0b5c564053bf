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
// regs_allocator, phys_reg. With `cls` (per register, 0 or 1), registers of
// class 0 and class 1 never share a physical register: class 0 takes
// [0, k), class 1 the registers above; returns k (-1 without `cls`).
int32_t allocate_registers(Function& f, const std::vector<uint8_t>* cls = nullptr);
void analyse_taint(Function& f);      // tainted_branch, tainted_regs, programmatic_regs, lane_* (needs build_cfg)

// Per register, 1 if SASS would need no register for it: every write is an
// unguarded ld.param, or a mov / cvta / integer cvt of an immediate, a
// symbol's address, %ntid, %nctaid or another such register. SASS reads
// kernel parameters and %ntid / %nctaid from constant bank 0 and encodes
// immediates and addresses in the instruction. Predicates: 0.
std::vector<uint8_t> constant_operand_regs(const Function& f);
// When our allocation needs more registers than ptxas's count (regs_ptxas
// set, regs_allocator above it), allocates again with the constant-operand
// registers numbered above all others, so the physical registers at or
// above ptxas's count, which the SM keeps outside its banks, are those
// first (sm/regfile.h). Otherwise leaves the allocation as it is.
void fit_to_ptxas(Function& f);
// The 32-bit physical registers at or above regs_used() that hold a value
// (the SM keeps them outside its banks), and how many of them belong to
// constant-operand registers.
struct Outside { unsigned regs = 0, constant = 0; };
Outside registers_outside(const Function& f);

// LESS's lifetime analysis (Tan dissertation §4.2.1): per register, 1 if a
// value written to it may be read more than `threshold` instructions later
// on some path (a read inside a loop the value outlives counts: the path
// goes round). Predicates are never long lived (they have no RF register).
// Instructions of called functions are not counted. Needs build_cfg.
std::vector<uint8_t> long_lived_regs(const Function& f, unsigned threshold);
// LESS's two register namespaces (§4.2.1): re-allocates f's registers with
// the short-lived ones (SRAM) first and the long-lived ones (STT-RAM) above
// Function::less_sram_regs. A ptxas count below the new total is raised to it
// (the compiler passes both counts at launch; no register spills).
void split_namespaces(Function& f, unsigned threshold);

}  // namespace relgpu::ptx
