// Value lifetime for LESS (Tan dissertation §4.2.1): which registers hold a
// value that may live more than `threshold` instructions.
#include <algorithm>

#include "ptx/analysis.h"

namespace relgpu::ptx {

namespace {

// Instructions that may run right after instruction i (none after ret/exit).
void successors(const Function& f, int32_t i, std::vector<int32_t>& out) {
  out.clear();
  const Function::Block& b = f.blocks[size_t(f.instrs[size_t(i)].info.block)];
  if (i < b.last) {
    out.push_back(i + 1);
    return;
  }
  for (int32_t s : b.succ)
    if (size_t(s) < f.blocks.size()) out.push_back(f.blocks[size_t(s)].first);
}

bool reads(const Instr& x, int32_t r, std::vector<int32_t>& tmp) {
  instr_uses(x, tmp);
  return std::find(tmp.begin(), tmp.end(), r) != tmp.end();
}
bool kills(const Instr& x, int32_t r, std::vector<int32_t>& tmp) {  // a guarded write may not happen
  if (x.guard >= 0) return false;
  instr_defs(x, tmp);
  return std::find(tmp.begin(), tmp.end(), r) != tmp.end();
}

// Is there a path from the write of r at instruction `at` to a read of that
// value (no unconditional rewrite of r before it) more than `threshold`
// instructions long? Levels 1..threshold+1 breadth first (a node may sit on
// several levels), then plain reachability from level threshold+1.
bool long_lived(const Function& f, int32_t at, int32_t r, unsigned threshold) {
  const size_t n = f.instrs.size();
  std::vector<int32_t> level{at}, next, succ, tmp;
  std::vector<char> on(n, 0);
  for (unsigned d = 1; d <= threshold + 1 && !level.empty(); ++d) {
    next.clear();
    for (int32_t i : level) {
      if (d > 1 && kills(f.instrs[size_t(i)], r, tmp)) continue;  // the value ends here
      successors(f, i, succ);
      for (int32_t s : succ)
        if (!on[size_t(s)]) on[size_t(s)] = 1, next.push_back(s);
    }
    for (int32_t s : next) on[size_t(s)] = 0;
    if (d == threshold + 1)
      for (int32_t s : next)
        if (reads(f.instrs[size_t(s)], r, tmp)) return true;
    level.swap(next);
  }
  // Any read reachable from the last level is further away still.
  std::vector<char> seen(n, 0);
  std::vector<int32_t> stack;
  for (int32_t s : level) {
    if (kills(f.instrs[size_t(s)], r, tmp)) continue;
    seen[size_t(s)] = 1, stack.push_back(s);
  }
  while (!stack.empty()) {
    int32_t i = stack.back();
    stack.pop_back();
    successors(f, i, succ);
    for (int32_t s : succ) {
      if (seen[size_t(s)]) continue;
      seen[size_t(s)] = 1;
      if (reads(f.instrs[size_t(s)], r, tmp)) return true;
      if (!kills(f.instrs[size_t(s)], r, tmp)) stack.push_back(s);
    }
  }
  return false;
}

}  // namespace

std::vector<uint8_t> long_lived_regs(const Function& f, unsigned threshold) {
  std::vector<uint8_t> out(f.regs.size(), 0);
  if (f.blocks.empty()) return out;
  std::vector<int32_t> defs;
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    instr_defs(f.instrs[i], defs);
    for (int32_t r : defs)
      if (!out[size_t(r)] && f.regs[size_t(r)].type != Type::pred && long_lived(f, int32_t(i), r, threshold))
        out[size_t(r)] = 1;
  }
  return out;
}

void split_namespaces(Function& f, unsigned threshold) {
  if (f.instrs.empty()) return;
  const std::vector<uint8_t> cls = long_lived_regs(f, threshold);
  f.less_sram_regs = allocate_registers(f, &cls);
  if (f.regs_ptxas) f.regs_ptxas = std::max(f.regs_ptxas, f.regs_allocator);
}

}  // namespace relgpu::ptx
