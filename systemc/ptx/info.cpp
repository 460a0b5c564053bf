#include "ptx/info.h"

#include <cstdarg>
#include <cstdio>
#include <map>
#include <sstream>

#include "ptx/analysis.h"

namespace relgpu::ptx {

namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

std::string sym_line(const Symbol& s) {
  std::string r = fmt("%-28s .%-6s .%-5s size %-6llu align %-3u", s.name.c_str(), space_name(s.space),
                      type_name(s.type), (unsigned long long)s.size, s.align);
  if (s.extern_) r += " extern (dynamic)";
  if (!s.init.empty()) r += " initialised";
  if (!s.relocs.empty()) r += fmt(" (%zu address%s)", s.relocs.size(), s.relocs.size() == 1 ? "" : "es");
  return r;
}

void function_info(std::ostringstream& o, const Module& m, const Function& f) {
  o << (f.is_entry ? "kernel " : "function ") << f.name << "  (line " << f.line << ")";
  if (!f.defined) {
    o << "  declared only, no body\n\n";
    return;
  }
  o << "\n";
  auto params = [&](const char* title, const std::vector<int32_t>& v) {
    if (v.empty()) return;
    o << "  " << title << ":\n";
    for (int32_t i : v) {
      const Symbol& s = f.symbols[i];
      o << fmt("    %-40s offset %-4llu size %-4llu align %u\n", s.name.c_str(), (unsigned long long)s.offset,
               (unsigned long long)s.size, s.align);
    }
  };
  o << "  param bytes: " << f.param_bytes << "\n";
  params("params", f.params);
  params("return params", f.rets);
  std::map<std::string, unsigned> by_type;
  for (const Reg& r : f.regs) by_type[type_name(r.type)]++;
  o << "  registers declared: " << f.regs.size() << " (";
  bool first = true;
  for (auto& [t, c] : by_type) { o << (first ? "" : ", ") << "." << t << " " << c; first = false; }
  o << ")\n";
  // 32-bit registers, predicates not counted; the SM allocates regs_used() (ir.h).
  o << "  registers per thread: allocator " << f.regs_allocator;
  if (f.is_entry)
    o << ", ptxas " << (f.regs_ptxas ? std::to_string(f.regs_ptxas) : std::string("unknown")) << ", used "
      << f.regs_used();
  o << "\n";
  if (const Outside out = registers_outside(f); f.is_entry && f.regs_ptxas && out.regs)
    o << "  outside the register banks (at or above ptxas's count): " << out.regs << " registers, " << out.constant
      << " of them holding only constant operands\n";
  o << "  shared: " << f.shared_bytes << " bytes static";
  if (f.is_entry) o << ", dynamic shared at offset " << f.dyn_shared_offset;
  o << "\n  local: " << f.local_bytes << " bytes per thread\n";
  if (f.maxntid[0]) o << fmt("  .maxntid %u, %u, %u\n", f.maxntid[0], f.maxntid[1], f.maxntid[2]);
  if (f.reqntid[0]) o << fmt("  .reqntid %u, %u, %u\n", f.reqntid[0], f.reqntid[1], f.reqntid[2]);
  if (f.minnctapersm) o << "  .minnctapersm " << f.minnctapersm << "\n";
  if (f.maxnreg) o << "  .maxnreg " << f.maxnreg << "\n";
  bool any_sym = false;
  for (const Symbol& s : f.symbols) {
    if (s.space == Space::param && s.module_sym < 0) continue;
    if (!any_sym) o << "  variables:\n";
    any_sym = true;
    o << "    " << sym_line(s) << fmt(" offset %llu", (unsigned long long)s.offset)
      << (s.module_sym >= 0 ? "  (module scope)" : "") << "\n";
  }
  const int32_t n = int32_t(f.instrs.size());
  o << "  basic blocks (" << f.blocks.size() << "; successor 'exit' is the function exit):\n";
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    const auto& bl = f.blocks[b];
    o << fmt("    B%-4zu [%d..%d]  ->", b, bl.first, bl.last);
    for (int32_t s : bl.succ) o << (size_t(s) >= f.blocks.size() ? std::string(" exit") : fmt(" B%d", s));
    o << "\n";
  }
  bool any_br = false;
  for (int32_t i = 0; i < n; ++i) {
    const Instr& in = f.instrs[i];
    if (in.info.ipdom < 0) continue;
    if (!any_br) o << "  branches (reconvergence point = immediate post-dominator):\n";
    any_br = true;
    std::string at = in.info.ipdom >= n ? "function exit" : fmt("instruction %d (B%d)", in.info.ipdom, f.instrs[in.info.ipdom].info.block);
    o << fmt("    %5d  %-40s reconverge at %s%s\n", i, in.text.c_str(), at.c_str(),
             in.info.tainted_branch ? "  [thread-dependent]" : "");
  }
  for (const Function::LaneBranch& lb : f.lane_branches)
    o << fmt("    %5d  evaluable at launch from %zu instructions; paths: taken %u, fall-through %u instructions\n", lb.at,
             lb.slice.size(), lb.taken_len, lb.fall_len);
  if (!f.tainted_regs.empty()) {
    o << "  registers used under thread-dependent branches (" << f.tainted_regs.size() << "):";
    for (size_t k = 0; k < f.tainted_regs.size(); ++k) o << (k % 12 ? " " : "\n    ") << f.regs[f.tainted_regs[k]].name;
    o << "\n  of them under branches on the ids by arithmetic alone, no loaded value (" << f.programmatic_regs.size()
      << "; bot.hybrid_regs=programmatic), under branches a launch can evaluate (" << f.lane_regs.size() << ")\n";
  }
  o << "  instructions (dead=XY: X for source 0, Y for source 1; 1 = last read of that register):\n";
  o << "      idx   line  blk  dead  text\n";
  std::map<int32_t, std::string> label_at;
  for (auto& [name, idx] : f.labels) label_at[idx] += name + ":";
  for (int32_t i = 0; i < n; ++i) {
    const Instr& in = f.instrs[i];
    auto l = label_at.find(i);
    if (l != label_at.end()) o << "                            " << l->second << "\n";
    o << fmt("    %5d  %5u  %3d  %d%d    %s%s\n", i, in.line, in.info.block, int(in.info.dead[0]), int(in.info.dead[1]),
             in.text.c_str(), in.undecoded ? "   <- not decoded (unsupported)" : "");
  }
  auto l = label_at.find(n);
  if (l != label_at.end()) o << "                            " << l->second << "\n";
  o << "\n";
  (void)m;
}

}  // namespace

std::string info(const Module& m) {
  std::ostringstream o;
  o << "module " << m.file << "  (PTX " << m.version << ", " << m.target << ", " << m.address_size << "-bit addresses)\n";
  if (!m.globals.empty()) {
    o << "module variables:\n";
    for (const Symbol& s : m.globals) {
      o << "  " << sym_line(s);
      if (s.space == Space::shared && !s.extern_) o << fmt(" offset %llu", (unsigned long long)s.offset);
      o << "\n";
    }
  }
  o << "\n";
  for (auto& f : m.functions) function_info(o, m, *f);
  return o.str();
}

}  // namespace relgpu::ptx
