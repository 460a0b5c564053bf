// Which PTX registers SASS needs no register for, and an allocation that
// numbers them last (fit_to_ptxas).
#include "ptx/analysis.h"

namespace relgpu::ptx {

namespace {

// A source SASS encodes in the instruction itself: an immediate, a symbol's
// address, or %ntid / %nctaid (constant bank 0 on sm_75).
bool constant_source(const Operand& o, const std::vector<uint8_t>& k) {
  switch (o.kind) {
    case Operand::Kind::imm: case Operand::Kind::sym: return true;
    case Operand::Kind::sreg: return o.sreg == Sreg::ntid || o.sreg == Sreg::nctaid;
    case Operand::Kind::reg: return k[size_t(o.reg)] != 0;
    default: return false;
  }
}

}  // namespace

std::vector<uint8_t> constant_operand_regs(const Function& f) {
  std::vector<uint8_t> k(f.regs.size(), 0);
  std::vector<int32_t> defs;
  for (const Instr& x : f.instrs) {  // a register no instruction writes holds nothing
    instr_defs(x, defs);
    for (int32_t d : defs) k[size_t(d)] = f.regs[size_t(d)].type != Type::pred;
  }
  // Start from every written register and clear any one write disproves, to
  // a fixed point: copies of copies of a parameter stay in.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Instr& x : f.instrs) {
      instr_defs(x, defs);
      if (defs.empty()) continue;
      bool c = x.op == Opcode::ld && x.m.space == Space::param && x.guard < 0;
      if ((x.op == Opcode::mov || x.op == Opcode::cvta || x.op == Opcode::cvt) && x.ops.size() == 2 && x.guard < 0)
        c = constant_source(x.ops[1], k);
      if (c && x.op == Opcode::cvt && (type_is_float(x.m.type) || type_is_float(x.m.type2))) c = false;  // a conversion SASS computes
      for (int32_t d : defs)
        if (!c && k[size_t(d)]) k[size_t(d)] = 0, changed = true;
    }
  }
  return k;
}

Outside registers_outside(const Function& f) {
  Outside o;
  if (f.regs_allocator <= f.regs_used()) return o;
  const std::vector<uint8_t> konst = constant_operand_regs(f);
  std::vector<uint8_t> seen(f.regs_allocator, 0);
  for (size_t r = 0; r < f.regs.size() && r < f.phys_reg.size(); ++r) {
    if (f.phys_reg[r] < 0) continue;
    for (unsigned k = 0; k < reg_words(f.regs[r].type); ++k)
      if (const unsigned p = unsigned(f.phys_reg[r]) + k; p >= f.regs_used() && p < seen.size() && !seen[p]++) {
        ++o.regs;
        o.constant += konst[r];
      }
  }
  return o;
}

void fit_to_ptxas(Function& f) {
  if (!f.regs_ptxas || f.regs_allocator <= f.regs_ptxas) return;
  const std::vector<uint8_t> cls = constant_operand_regs(f);
  allocate_registers(f, &cls);
}

}  // namespace relgpu::ptx
