// Test helper for func_* tests: parses PTX, runs kernels on FuncEngine
// without the runtime Device (which lives in a later library).
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/error.h"
#include "func/engine.h"
#include "ptx/analysis.h"
#include "ptx/validate.h"
#include "ptx/parser.h"

namespace relgpu::func::test {

struct Rig {
  config::Config cfg;
  GlobalMemory mem;
  std::unique_ptr<ptx::Module> mod;
  std::ostringstream out;
  runtime::LaunchRecord rec;

  void load(const std::string& text) {
    mod = ptx::parse(text, "test.ptx");
    ptx::analyse(*mod);
    ptx::validate(*mod, implemented);
    std::vector<uint64_t> addrs(mod->globals.size(), 0);
    for (size_t i = 0; i < mod->globals.size(); ++i) {
      const ptx::Symbol& g = mod->globals[i];
      if (g.space != ptx::Space::global && g.space != ptx::Space::const_) continue;
      addrs[i] = mem.alloc(g.size, g.space == ptx::Space::const_ ? Allocation::Kind::const_var
                                                                 : Allocation::Kind::global_var, g.name);
      if (!g.init.empty()) mem.write(addrs[i], g.init.data(), g.init.size(), "init");
    }
    mem.set_module_symbols(mod.get(), addrs);
  }
  uint64_t global(const std::string& name) {
    for (size_t i = 0; i < mod->globals.size(); ++i)
      if (mod->globals[i].name == name) return mem.module_symbol(mod.get(), int32_t(i));
    throw std::runtime_error("no global " + name);
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    uint64_t p = mem.alloc(v.size() * sizeof(T), Allocation::Kind::heap, "");
    mem.write(p, v.data(), v.size() * sizeof(T), "upload");
    return p;
  }
  template <class T>
  std::vector<T> download(uint64_t p, size_t n) {
    std::vector<T> v(n);
    mem.read(v.data(), p, n * sizeof(T), "download");
    return v;
  }
  // Each argument is passed as the low bytes of a uint64_t.
  void run(const std::string& kernel, runtime::Dim3 grid, runtime::Dim3 block, std::vector<uint64_t> args,
           uint64_t dyn = 0) {
    const ptx::Function* k = mod->find(kernel);
    ASSERT_NE(k, nullptr) << kernel;
    std::vector<uint8_t> params(k->param_bytes, 0);
    ASSERT_EQ(args.size(), k->params.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const ptx::Symbol& s = k->symbols[k->params[i]];
      std::memcpy(params.data() + s.offset, &args[i], std::min<uint64_t>(s.size, 8));
    }
    FuncEngine eng(cfg, mem, &out);
    rec = runtime::LaunchRecord{};
    eng.launch(*mod, *k, grid, block, dyn, params, rec);
  }
};

// Runs `fn` and returns the KernelError message ("" if none was thrown).
template <class F>
std::string kernel_error(F&& fn) {
  try {
    fn();
  } catch (const KernelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace relgpu::func::test
