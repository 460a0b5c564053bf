// Operand roles, basic blocks and immediate post-dominators.
#include "ptx/analysis.h"

#include <algorithm>

namespace relgpu::ptx {

bool writes_dst(Opcode op) {
  switch (op) {
    case Opcode::st: case Opcode::red: case Opcode::bar: case Opcode::barrier: case Opcode::bra:
    case Opcode::call: case Opcode::ret: case Opcode::exit: case Opcode::trap: case Opcode::brkpt:
    case Opcode::membar: case Opcode::fence: case Opcode::prefetch: case Opcode::prefetchu:
    case Opcode::nanosleep: case Opcode::pmevent:
      return false;
    default:
      return true;
  }
}

static void regs_of(const Operand& o, std::vector<int32_t>& out) {
  switch (o.kind) {
    case Operand::Kind::reg:
    case Operand::Kind::addr:
      if (o.reg >= 0) out.push_back(o.reg);
      break;
    case Operand::Kind::vec:
      for (int32_t r : o.vregs)
        if (r >= 0) out.push_back(r);
      break;
    default:
      break;
  }
}

void instr_uses(const Instr& in, std::vector<int32_t>& out) {
  out.clear();
  size_t first = writes_dst(in.op) ? 1 : 0;
  if (in.op == Opcode::call) first = in.ops.size();  // params pass through memory
  for (size_t i = first; i < in.ops.size(); ++i) regs_of(in.ops[i], out);
  if (in.guard >= 0) out.push_back(in.guard);
}

void instr_defs(const Instr& in, std::vector<int32_t>& out) {
  out.clear();
  if (writes_dst(in.op) && !in.ops.empty() && in.ops[0].kind != Operand::Kind::addr) regs_of(in.ops[0], out);
  if (in.pair_dst >= 0) out.push_back(in.pair_dst);
}

static bool is_exit(const Instr& in) { return in.op == Opcode::ret || in.op == Opcode::exit || in.op == Opcode::trap; }

void build_cfg(Function& f) {
  const int32_t n = int32_t(f.instrs.size());
  f.blocks.clear();
  if (n == 0) return;
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (int32_t i = 0; i < n; ++i) {
    const Instr& in = f.instrs[i];
    if (in.op == Opcode::bra && !in.ops.empty()) {
      int64_t t = in.ops[0].imm;
      if (t >= 0 && t <= n) leader[t] = 1;
      leader[i + 1] = 1;
    } else if (is_exit(in)) {
      leader[i + 1] = 1;
    }
  }
  std::vector<int32_t> block_of(n + 1, -1);
  for (int32_t i = 0; i < n; ++i) {
    if (leader[i]) f.blocks.push_back({i, i, {}});
    f.blocks.back().last = i;
    block_of[i] = int32_t(f.blocks.size() - 1);
    f.instrs[i].info.block = block_of[i];
  }
  const int32_t nb = int32_t(f.blocks.size());
  const int32_t exit_b = nb;  // virtual exit block
  block_of[n] = exit_b;       // a label at the very end, or falling off the end
  for (Function::Block& b : f.blocks) {
    const Instr& in = f.instrs[b.last];
    bool guarded = in.guard >= 0;
    if (in.op == Opcode::bra && !in.ops.empty()) {  // undecoded (rejected later): falls through
      b.succ.push_back(block_of[in.ops[0].imm]);
      if (guarded) b.succ.push_back(block_of[b.last + 1]);
    } else if (is_exit(in)) {
      b.succ.push_back(exit_b);
      if (guarded) b.succ.push_back(block_of[b.last + 1]);
    } else {
      b.succ.push_back(block_of[b.last + 1]);
    }
    std::sort(b.succ.begin(), b.succ.end());
    b.succ.erase(std::unique(b.succ.begin(), b.succ.end()), b.succ.end());
  }
  // Post-dominators (Cooper, Harvey, Kennedy) on the reverse CFG rooted at
  // the virtual exit. Blocks that cannot reach an exit (infinite loops) get
  // the exit as their post-dominator: threads there reconverge only at the end.
  std::vector<std::vector<int32_t>> preds(nb + 1);
  for (int32_t b = 0; b < nb; ++b)
    for (int32_t s : f.blocks[b].succ) preds[s].push_back(b);
  std::vector<int32_t> order, po(nb + 1, -1);
  {
    std::vector<std::pair<int32_t, size_t>> stack{{exit_b, 0}};
    std::vector<char> seen(nb + 1, 0);
    seen[exit_b] = 1;
    while (!stack.empty()) {
      auto& [x, k] = stack.back();
      if (k < preds[x].size()) {
        int32_t p = preds[x][k++];
        if (!seen[p]) { seen[p] = 1; stack.push_back({p, 0}); }
      } else {
        po[x] = int32_t(order.size());
        order.push_back(x);
        stack.pop_back();
      }
    }
  }
  std::vector<int32_t> ipdom(nb + 1, -1);
  ipdom[exit_b] = exit_b;
  auto intersect = [&](int32_t a, int32_t b) {
    while (a != b) {
      while (po[a] < po[b]) a = ipdom[a];
      while (po[b] < po[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      int32_t b = *it;
      if (b == exit_b) continue;
      int32_t nd = -1;
      for (int32_t s : f.blocks[b].succ) {
        if (ipdom[s] < 0) continue;
        nd = nd < 0 ? s : intersect(s, nd);
      }
      if (nd >= 0 && ipdom[b] != nd) { ipdom[b] = nd; changed = true; }
    }
  }
  for (int32_t b = 0; b < nb; ++b) {
    if (ipdom[b] < 0) ipdom[b] = exit_b;
    Instr& in = f.instrs[f.blocks[b].last];
    if ((in.op == Opcode::bra && !in.ops.empty()) || (is_exit(in) && in.guard >= 0))
      in.info.ipdom = ipdom[b] == exit_b ? n : f.blocks[ipdom[b]].first;
  }
}

void analyse(Function& f) {
  if (!f.defined) return;
  build_cfg(f);
  analyse_liveness(f);
  allocate_registers(f);
  analyse_taint(f);
}

void analyse(Module& m) {
  for (auto& f : m.functions) analyse(*f);
}

}  // namespace relgpu::ptx
