// After all functions are parsed: callees, and the param, local and shared
// layouts (the choices are described in ptx/parser.h).
#include <algorithm>
#include <functional>
#include <set>

#include "ptx/parser_impl.h"

namespace relgpu::ptx::detail {

static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

void Parser::finish() {
  Module& m = *m_;
  // Callees.
  for (const CallFix& c : call_fixes_) {
    auto it = m.function_index.find(c.name);
    if (it == m.function_index.end()) throw InputError(at(file_, c.line, c.col, "call to undeclared function '" + c.name + "'"));
    Function& callee = *m.functions[it->second];
    if (callee.is_entry) throw InputError(at(file_, c.line, c.col, "cannot call kernel '" + c.name + "'"));
    Operand& o = c.f->instrs[c.instr].ops[1];
    o.sym = it->second;
    const Instr& in = c.f->instrs[c.instr];
    if (in.ops[0].vregs.size() != callee.rets.size() || in.ops[2].vregs.size() != callee.params.size())
      throw InputError(at(file_, c.line, c.col,
                          "call to '" + c.name + "' passes " + std::to_string(in.ops[2].vregs.size()) + " arguments and " +
                              std::to_string(in.ops[0].vregs.size()) + " return values; it takes " +
                              std::to_string(callee.params.size()) + " and " + std::to_string(callee.rets.size())));
  }
  // Params (then return params, for a .func) and the local frame.
  for (auto& fp : m.functions) {
    Function& f = *fp;
    uint64_t off = 0;
    for (int32_t i : f.params) {
      Symbol& s = f.symbols[i];
      off = align_up(off, s.align);
      s.offset = off;
      off += s.size;
    }
    for (int32_t i : f.rets) {
      Symbol& s = f.symbols[i];
      off = align_up(off, s.align);
      s.offset = off;
      off += s.size;
    }
    f.param_bytes = off;
    uint64_t loc = 0;
    for (Symbol& s : f.symbols) {
      if (s.space != Space::local || s.module_sym >= 0) continue;
      loc = align_up(loc, s.align);
      s.offset = loc;
      loc += s.size;
    }
    f.local_bytes = loc;
  }
  // Shared: the module-wide area holds module-scope static .shared and the
  // .shared of .func bodies (hoisted into Module::globals so that every
  // kernel calling the .func agrees on the offset).
  for (auto& fp : m.functions) {
    Function& f = *fp;
    if (f.is_entry) continue;
    for (size_t i = 0; i < f.symbols.size(); ++i) {
      Symbol& s = f.symbols[i];
      if (s.space != Space::shared || s.module_sym >= 0) continue;
      Symbol g = s;
      g.name = f.name + "::" + s.name;  // not visible to other functions by name
      m.globals.push_back(g);
      global_line_.push_back(f.line);
      s.module_sym = int32_t(m.globals.size() - 1);
    }
  }
  uint64_t common = 0;
  for (Symbol& g : m.globals) {
    if (g.space != Space::shared || g.extern_) continue;
    common = align_up(common, g.align);
    g.offset = common;
    common += g.size;
  }
  // Transitive callees of each function.
  const size_t nf = m.functions.size();
  std::vector<std::vector<int32_t>> callees(nf);
  for (size_t i = 0; i < nf; ++i)
    for (const Instr& in : m.functions[i]->instrs)
      if (in.op == Opcode::call && in.ops.size() == 3 && in.ops[1].sym >= 0) callees[i].push_back(in.ops[1].sym);
  auto reach = [&](size_t k) {
    std::vector<char> seen(nf, 0);
    std::vector<int32_t> stack{int32_t(k)}, out;
    seen[k] = 1;
    while (!stack.empty()) {
      int32_t x = stack.back();
      stack.pop_back();
      out.push_back(x);
      for (int32_t c : callees[x])
        if (!seen[c]) { seen[c] = 1; stack.push_back(c); }
    }
    return out;
  };
  // dyn offset a .func inherits: -1 unset, -2 conflicting.
  std::vector<int64_t> func_dyn(nf, -1);
  for (size_t k = 0; k < nf; ++k) {
    Function& kf = *m.functions[k];
    if (!kf.is_entry) continue;
    std::vector<int32_t> fs = reach(k);
    bool uses_common = false, uses_dyn = false;
    uint32_t dyn_align = 16;
    for (int32_t fi : fs)
      for (const Symbol& s : m.functions[fi]->symbols) {
        if (s.space != Space::shared || s.module_sym < 0) continue;
        if (s.extern_) { uses_dyn = true; dyn_align = std::max(dyn_align, s.align); }
        else uses_common = true;
      }
    uint64_t off = uses_common ? common : 0;
    for (Symbol& s : kf.symbols) {
      if (s.space != Space::shared || s.module_sym >= 0) continue;
      off = align_up(off, s.align);
      s.offset = off;
      off += s.size;
    }
    kf.shared_bytes = off;
    // Dynamic shared memory starts after the static area, 16-byte aligned
    // (what CUDA guarantees for extern __shared__ arrays).
    kf.dyn_shared_offset = align_up(off, dyn_align);
    for (int32_t fi : fs) {
      if (fi == int32_t(k)) continue;
      int64_t& d = func_dyn[fi];
      if (uses_dyn) d = (d == -1 || d == int64_t(kf.dyn_shared_offset)) ? int64_t(kf.dyn_shared_offset) : -2;
    }
  }
  for (size_t k = 0; k < nf; ++k) {
    Function& f = *m.functions[k];
    for (Symbol& s : f.symbols) {
      if (s.space != Space::shared || s.module_sym < 0) continue;
      if (!s.extern_) { s.offset = m.globals[s.module_sym].offset; continue; }
      if (f.is_entry) { s.offset = f.dyn_shared_offset; continue; }
      if (func_dyn[k] == -2)
        throw InputError(at(file_, f.line, 1,
                            "function '" + f.name + "' uses dynamic shared array '" + s.name +
                                "' and is called from kernels whose static shared sizes differ; not supported"));
      s.offset = func_dyn[k] < 0 ? 0 : uint64_t(func_dyn[k]);
      f.dyn_shared_offset = s.offset;
    }
  }
}

}  // namespace relgpu::ptx::detail
