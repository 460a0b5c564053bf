// Thread-ID taint: which registers (and so which branches) depend on the
// thread's identity.
#include <algorithm>

#include "ptx/analysis.h"

namespace relgpu::ptx {

// Sources of taint: %tid and %ctaid (as specified), plus %laneid and the
// %lanemask_* registers, which differ per thread just as %tid does.
static bool id_sreg(Sreg s) {
  switch (s) {
    case Sreg::tid: case Sreg::ctaid: case Sreg::laneid: case Sreg::lanemask_eq: case Sreg::lanemask_le:
    case Sreg::lanemask_lt: case Sreg::lanemask_ge: case Sreg::lanemask_gt:
      return true;
    default:
      return false;
  }
}

// Flow-insensitive data flow to a fixed point: a register written by an
// instruction that reads an ID special register or a tainted register
// (the guard included) is tainted. Memory is not tracked: a value stored by a
// tainted thread and loaded back is tainted only through the load's address.
void analyse_taint(Function& f) {
  const size_t nr = f.regs.size(), n = f.instrs.size();
  std::vector<char> taint(nr, 0);
  std::vector<int32_t> uses, defs;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Instr& in : f.instrs) {
      bool t = false;
      for (const Operand& o : in.ops)
        if (o.kind == Operand::Kind::sreg && id_sreg(o.sreg)) t = true;
      instr_uses(in, uses);
      for (int32_t u : uses) t = t || taint[u];
      if (!t) continue;
      instr_defs(in, defs);
      for (int32_t d : defs)
        if (!taint[d]) { taint[d] = 1; changed = true; }
    }
  }
  std::vector<char> in_region(nr, 0);
  const size_t nb = f.blocks.size();
  for (size_t i = 0; i < n; ++i) {
    Instr& in = f.instrs[i];
    in.info.tainted_branch = in.op == Opcode::bra && in.guard >= 0 && taint[in.guard];
    if (!in.info.tainted_branch) continue;
    // The region: blocks reachable from the branch before its reconvergence point.
    int32_t stop = in.info.ipdom;
    std::vector<char> seen(nb, 0);
    std::vector<int32_t> work;
    for (int32_t s : f.blocks[in.info.block].succ)
      if (size_t(s) < nb) work.push_back(s);
    while (!work.empty()) {
      int32_t b = work.back();
      work.pop_back();
      if (seen[b] || f.blocks[b].first == stop) continue;
      seen[b] = 1;
      for (int32_t x = f.blocks[b].first; x <= f.blocks[b].last; ++x) {
        instr_uses(f.instrs[x], uses);
        instr_defs(f.instrs[x], defs);
        for (int32_t r : uses) in_region[r] = 1;
        for (int32_t r : defs) in_region[r] = 1;
      }
      for (int32_t s : f.blocks[b].succ)
        if (size_t(s) < nb) work.push_back(s);
    }
  }
  f.tainted_regs.clear();
  for (size_t r = 0; r < nr; ++r)
    if (in_region[r]) f.tainted_regs.push_back(int32_t(r));
}

}  // namespace relgpu::ptx
