// `relgpu list`, `relgpu ptx-info`, `relgpu config`.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/args.h"
#include "common/config.h"
#include "ptx/analysis.h"
#include "ptx/info.h"
#include "ptx/parser.h"
#include "ptx/ptxas.h"
#include "ptx/validate.h"
#include "func/exec.h"
#include "workload.h"

namespace relgpu::app {

int cmd_list(Args& a) {
  while (!a.done()) {
    std::string arg = a.next();
    if (arg == "-h" || arg == "--help") {
      std::cout << "usage: relgpu list\n\nPrints every workload, one per line: the name (first column, for scripts), "
                   "then a short description.\n";
      return 0;
    }
    a.unknown(arg);
  }
  size_t width = 0;
  for (auto& w : wl::all()) width = std::max(width, w.name.size());
  for (auto& w : wl::all()) std::cout << std::left << std::setw(int(width) + 2) << w.name << w.description << "\n";
  return 0;
}

// Markdown table of ptxas's and our allocator's registers per thread for
// every kernel of every shipped workload (docs/registers.md holds its output).
static void register_table(std::ostream& o) {
  std::string version;
  o << "| workload | kernel | ptxas | relgpu allocator | used | outside the banks | of them constant operands |\n"
       "|---|---|---:|---:|---:|---:|---:|\n";
  for (const wl::Workload& w : wl::all()) {
    auto mod = ptx::parse(wl::ptx_text(w.name), wl::ptx_path(w.name));
    ptx::analyse(*mod);
    std::vector<uint32_t> plain;  // before ptx::fit_to_ptxas numbers the constant operands last
    for (auto& f : mod->functions) plain.push_back(f->regs_allocator);
    const ptx::PtxasInfo& info = wl::ptxas_info(w.name);
    ptx::apply(*mod, info);
    version = info.version + ", " + info.arch;
    for (size_t i = 0; i < mod->functions.size(); ++i) {
      const ptx::Function& f = *mod->functions[i];
      if (!f.is_entry) continue;
      const ptx::Outside out = ptx::registers_outside(f);
      o << "| " << w.name << " | `" << f.name << "` | " << (f.regs_ptxas ? std::to_string(f.regs_ptxas) : "?")
        << " | " << plain[i] << " | " << f.regs_used() << " | " << out.regs << " | " << out.constant << " |\n";
    }
  }
  o << "\nptxas: " << version << " (from the workloads' `.ptxinfo` files).\n";
}

int cmd_ptx_info(Args& a) {
  std::string file, ptxas_setting = "auto";
  bool table = false;
  while (!a.done()) {
    std::string opt = a.next_opt();
    if (opt == "-h" || opt == "--help") {
      std::cout << "usage: relgpu ptx-info [--ptxas auto|off|PATH] FILE.ptx\n"
                   "       relgpu ptx-info --table\n\n"
                   "Parses and analyses a PTX file (as nvcc -ptx emits it) and prints, per kernel and function:\n"
                   "parameters, registers per thread (relgpu's allocator, ptxas's and the count the SM allocates),\n"
                   "shared/local bytes, basic blocks with successors, the reconvergence point (immediate\n"
                   "post-dominator) of each branch, and per instruction the two GR-Guard dead bits (first two\n"
                   "source registers dead after the instruction).\n\n"
                   "  --ptxas auto|off|PATH  ptxas for the registers (default auto: PATH, $CUDA_HOME/bin,\n"
                   "                         /usr/local/cuda/bin; results cached in ~/.cache/relgpu/ptxas)\n"
                   "  --table                a markdown table of ptxas's and the allocator's registers per\n"
                   "                         thread for every kernel of every shipped workload (docs/registers.md)\n";
      return 0;
    }
    if (opt == "--ptxas") ptxas_setting = a.optval(opt);
    else if (opt == "--table") table = true;
    else if (opt.rfind("-", 0) == 0) a.unknown(opt);
    else if (!file.empty()) throw InputError("ptx-info: one file at a time (got '" + file + "' and '" + opt + "')");
    else file = opt;
  }
  if (table) {
    if (!file.empty()) throw InputError("ptx-info: --table takes no FILE (it covers the shipped workloads)");
    register_table(std::cout);
    return 0;
  }
  if (file.empty()) throw InputError("ptx-info: missing FILE.ptx (see `relgpu ptx-info --help`)");
  std::ifstream f(file);
  if (!f) throw InputError(file + ": cannot open");
  std::stringstream ss;
  ss << f.rdbuf();
  auto mod = ptx::parse(ss.str(), file);
  ptx::analyse(*mod);
  std::string why;
  std::string ptxas = ptx::find_ptxas(ptxas_setting, why);
  std::optional<ptx::PtxasInfo> info;
  if (!ptxas.empty()) info = ptx::run_ptxas(ptxas, ss.str(), ptx::default_cache_dir(), why);
  if (info) ptx::apply(*mod, *info);
  std::cout << (info ? "ptxas: " + info->version + ", " + info->arch : "ptxas: not used (" + why + ")") << "\n";
  std::cout << ptx::info(*mod);
  // Inspection still works for kernels relgpu cannot run; say so, as a load would.
  try {
    ptx::validate(*mod, func::implemented);
  } catch (const InputError& e) {
    std::cout << "\nnote: this module cannot run on relgpu: " << e.what() << "\n";
  }
  return 0;
}

int cmd_config(Args& a) {
  bool explain = false;
  std::string prefix;
  while (!a.done()) {
    std::string arg = a.next();
    if (arg == "-h" || arg == "--help") {
      std::cout << "usage: relgpu config --explain [PREFIX]\n\n"
                   "Lists every configuration key (or those starting with PREFIX) with its type, default,\n"
                   "unit, allowed range and a one-line description. Keys are set in a JSON config file\n"
                   "(--config FILE; nested objects or dotted keys) or with --set key=value.\n";
      return 0;
    }
    if (arg == "--explain") explain = true;
    else if (arg.rfind("-", 0) == 0) a.unknown(arg);
    else prefix = arg;
  }
  if (!explain) throw InputError("config: nothing to do; try `relgpu config --explain`");
  std::string text = config::explain(prefix);
  if (text.empty()) throw InputError("config: no key starts with '" + prefix + "'");
  std::cout << text;
  return 0;
}

}  // namespace relgpu::app
