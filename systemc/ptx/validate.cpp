#include "ptx/validate.h"

#include <algorithm>

#include "common/error.h"

namespace relgpu::ptx {

// The mnemonic as written: the instruction text without guard and operands.
static std::string mnemonic(const Instr& in) {
  std::string t = in.text;
  if (!t.empty() && t[0] == '@') {
    size_t sp = t.find(' ');
    t = sp == std::string::npos ? "" : t.substr(sp + 1);
  }
  size_t sp = t.find_first_of(" \t");
  return sp == std::string::npos ? t : t.substr(0, sp);
}

void validate(const Module& m, const std::function<bool(const Instr&)>& implemented) {
  struct Bad { uint32_t line, col; std::string msg; };
  std::vector<Bad> bad;
  for (auto& f : m.functions)
    for (const Instr& in : f->instrs)
      if (in.undecoded || !in.m.unknown.empty() || !implemented(in)) {
        std::string why = in.undecoded && in.m.unknown.empty() ? "" : "";
        if (!in.m.unknown.empty()) why = " (modifier " + in.m.unknown + " is not modelled)";
        bad.push_back({in.line, in.col, "unsupported PTX instruction '" + mnemonic(in) + "'" + why});
        break;  // the first in this function; the earliest overall is reported
      }
  if (!bad.empty()) {
    auto b = std::min_element(bad.begin(), bad.end(),
                              [](const Bad& x, const Bad& y) { return x.line != y.line ? x.line < y.line : x.col < y.col; });
    throw InputError(at(m.file, b->line, b->col, b->msg));
  }
  // Recursion: a cycle in the call graph (DFS colouring).
  const size_t nf = m.functions.size();
  std::vector<int> colour(nf, 0);  // 0 new, 1 on stack, 2 done
  std::function<void(size_t)> dfs = [&](size_t k) {
    colour[k] = 1;
    for (const Instr& in : m.functions[k]->instrs) {
      if (in.op != Opcode::call || in.ops.size() != 3 || in.ops[1].sym < 0) continue;
      size_t c = size_t(in.ops[1].sym);
      if (colour[c] == 1)
        throw InputError(at(m.file, in.line, in.col,
                            "recursion is not supported: '" + m.functions[k]->name + "' calls '" + m.functions[c]->name +
                                "', which is already on the call chain"));
      if (colour[c] == 0) dfs(c);
    }
    colour[k] = 2;
  };
  for (size_t k = 0; k < nf; ++k)
    if (colour[k] == 0) dfs(k);
}

}  // namespace relgpu::ptx
