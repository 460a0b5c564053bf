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

// Blocks reachable from `from` without passing the block that starts at `stop`.
static std::vector<char> region(const Function& f, const std::vector<int32_t>& from, int32_t stop) {
  const size_t nb = f.blocks.size();
  std::vector<char> seen(nb, 0);
  std::vector<int32_t> work;
  for (int32_t s : from)
    if (size_t(s) < nb) work.push_back(s);
  while (!work.empty()) {
    int32_t b = work.back();
    work.pop_back();
    if (seen[b] || f.blocks[b].first == stop) continue;
    seen[b] = 1;
    for (int32_t s : f.blocks[b].succ)
      if (size_t(s) < nb) work.push_back(s);
  }
  return seen;
}

static uint32_t region_len(const Function& f, int32_t from, int32_t stop) {
  uint32_t n = 0;
  std::vector<char> seen = region(f, {from}, stop);
  for (size_t b = 0; b < seen.size(); ++b)
    if (seen[b]) n += uint32_t(f.blocks[b].last - f.blocks[b].first + 1);
  return n;
}

// Special registers fixed for a thread from launch on.
static bool launch_sreg(Sreg s) {
  return s == Sreg::tid || s == Sreg::ntid || s == Sreg::ctaid || s == Sreg::nctaid || s == Sreg::laneid;
}

// The instructions computing register `guard` at launch, or false when one
// of them reads memory other than a kernel parameter, a special register
// that changes, or a register written more than once (a loop variable).
static bool launch_slice(const Function& f, const std::vector<int32_t>& def_at, int32_t guard, int32_t before,
                         std::vector<int32_t>& slice) {
  constexpr size_t kMaxSlice = 64;
  std::vector<int32_t> work{guard}, uses;
  std::vector<char> done(f.regs.size(), 0);
  slice.clear();
  while (!work.empty()) {
    const int32_t r = work.back();
    work.pop_back();
    if (done[r]) continue;
    done[r] = 1;
    const int32_t i = def_at[r];
    if (i < 0 || i >= before || slice.size() == kMaxSlice) return false;
    const Instr& in = f.instrs[i];
    if (!writes_dst(in.op) || in.op == Opcode::atom || in.op == Opcode::call) return false;
    for (const Operand& o : in.ops) {
      if (o.kind == Operand::Kind::sreg && !launch_sreg(o.sreg)) return false;
      if (o.kind == Operand::Kind::addr && !(in.op == Opcode::ld && in.m.space == Space::param && o.reg < 0))
        return false;
      if (o.kind == Operand::Kind::sym) return false;
    }
    if (in.op == Opcode::ld && in.m.space != Space::param) return false;
    slice.push_back(i);
    instr_uses(in, uses);
    for (int32_t u : uses) work.push_back(u);
  }
  std::sort(slice.begin(), slice.end());
  slice.erase(std::unique(slice.begin(), slice.end()), slice.end());
  return true;
}

// Registers read or written in the blocks marked in `seen`.
static void mark_regs(const Function& f, const std::vector<char>& seen, std::vector<char>& in_region) {
  std::vector<int32_t> uses, defs;
  for (size_t b = 0; b < seen.size(); ++b) {
    if (!seen[b]) continue;
    for (int32_t x = f.blocks[b].first; x <= f.blocks[b].last; ++x) {
      instr_uses(f.instrs[x], uses);
      instr_defs(f.instrs[x], defs);
      for (int32_t r : uses) in_region[r] = 1;
      for (int32_t r : defs) in_region[r] = 1;
    }
  }
}

static std::vector<int32_t> marked(const std::vector<char>& in_region) {
  std::vector<int32_t> out;
  for (size_t r = 0; r < in_region.size(); ++r)
    if (in_region[r]) out.push_back(int32_t(r));
  return out;
}

// Function::lane_branches and lane_regs: the tainted branches a launch can
// evaluate, and the registers used under them.
static void find_lane_branches(Function& f) {
  f.lane_branches.clear();
  std::vector<char> in_region(f.regs.size(), 0);
  std::vector<int32_t> def_at(f.regs.size(), -1), defs;  // -2: written more than once
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    instr_defs(f.instrs[i], defs);
    for (int32_t d : defs) def_at[d] = def_at[d] == -1 ? int32_t(i) : -2;
  }
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const Instr& in = f.instrs[i];
    if (!in.info.tainted_branch) continue;
    Function::LaneBranch lb;
    lb.at = int32_t(i);
    if (!launch_slice(f, def_at, in.guard, lb.at, lb.slice)) continue;
    const Function::Block& b = f.blocks[in.info.block];
    for (int32_t s : b.succ) {
      if (size_t(s) >= f.blocks.size()) continue;
      const bool taken = in.ops.size() == 1 && in.ops[0].kind == Operand::Kind::label &&
                         f.blocks[s].first == int32_t(in.ops[0].imm) && f.blocks[s].first != lb.at + 1;
      (taken ? lb.taken_len : lb.fall_len) = region_len(f, s, in.info.ipdom);
    }
    mark_regs(f, region(f, b.succ, in.info.ipdom), in_region);
    f.lane_branches.push_back(std::move(lb));
  }
  f.lane_regs = marked(in_region);
}

// Instructions whose value comes from memory.
static bool reads_memory(Opcode op) {
  switch (op) {
    case Opcode::ld: case Opcode::ldu: case Opcode::atom: case Opcode::tex: case Opcode::tld4: case Opcode::suld:
    case Opcode::ldmatrix:
      return true;
    default:
      return false;
  }
}

// Flow-insensitive data flow to a fixed point: a register written by an
// instruction that reads an ID special register or a tainted register
// (the guard included) is tainted. Memory is not tracked: a value stored by a
// tainted thread and loaded back is tainted only through the load's address,
// and only with `through_loads` (false: only arithmetic on the ids taints).
static std::vector<char> taint_of(const Function& f, bool through_loads) {
  std::vector<char> taint(f.regs.size(), 0);
  std::vector<int32_t> uses, defs;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Instr& in : f.instrs) {
      if (!through_loads && reads_memory(in.op)) continue;
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
  return taint;
}

// Registers used between each branch on a tainted guard and its
// reconvergence point (the blocks reachable from the branch before it).
static std::vector<int32_t> regs_under(const Function& f, const std::vector<char>& taint) {
  std::vector<char> in_region(f.regs.size(), 0);
  for (const Instr& in : f.instrs)
    if (in.op == Opcode::bra && in.guard >= 0 && taint[in.guard])
      mark_regs(f, region(f, f.blocks[in.info.block].succ, in.info.ipdom), in_region);
  return marked(in_region);
}

void analyse_taint(Function& f) {
  const std::vector<char> taint = taint_of(f, true);
  for (Instr& in : f.instrs) in.info.tainted_branch = in.op == Opcode::bra && in.guard >= 0 && taint[in.guard];
  f.tainted_regs = regs_under(f, taint);
  f.programmatic_regs = regs_under(f, taint_of(f, false));
  find_lane_branches(f);
}

}  // namespace relgpu::ptx
