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

int cmd_ptx_info(Args& a) {
  std::string file;
  while (!a.done()) {
    std::string arg = a.next();
    if (arg == "-h" || arg == "--help") {
      std::cout << "usage: relgpu ptx-info FILE.ptx\n\n"
                   "Parses and analyses a PTX file (as nvcc -ptx emits it) and prints, per kernel and function:\n"
                   "parameters, registers per thread, shared/local bytes, basic blocks with successors,\n"
                   "the reconvergence point (immediate post-dominator) of each branch, and per instruction\n"
                   "the two GR-Guard dead bits (first two source registers dead after the instruction).\n";
      return 0;
    }
    if (arg.rfind("-", 0) == 0) a.unknown(arg);
    if (!file.empty()) throw InputError("ptx-info: one file at a time (got '" + file + "' and '" + arg + "')");
    file = arg;
  }
  if (file.empty()) throw InputError("ptx-info: missing FILE.ptx (see `relgpu ptx-info --help`)");
  std::ifstream f(file);
  if (!f) throw InputError(file + ": cannot open");
  std::stringstream ss;
  ss << f.rdbuf();
  auto mod = ptx::parse(ss.str(), file);
  ptx::analyse(*mod);
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
