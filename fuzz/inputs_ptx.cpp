// Arbitrary text as a PTX module: what `relgpu ptx-info` does (parse,
// analyses, the info text, validation) and, when that passes,
// Device::load_module as `relgpu exec` loads a program's module (module
// variables allocated and initialised, within cudart.global_mem_bytes).
#include <string>

#include "common/config.h"
#include "common/error.h"
#include "cudart/keys.h"
#include "func/exec.h"
#include "inputs.h"
#include "ptx/analysis.h"
#include "ptx/info.h"
#include "ptx/parser.h"
#include "ptx/validate.h"
#include "runtime/device.h"

namespace relgpu::fuzz {

void ptx_input(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  static const config::Config cfg;
  try {
    auto m = ptx::parse(text, "fuzz.ptx");
    ptx::analyse(*m);
    (void)ptx::info(*m);
    ptx::validate(*m, func::implemented);
  } catch (const InputError&) {
    return;
  }
  try {
    runtime::Device dev(cfg);
    dev.set_memory_capacity(uint64_t(cfg.get(cudart::kGlobalMemBytes)), cudart::kGlobalMemBytes.name);
    (void)dev.load_module(text, "fuzz.ptx");
  } catch (const InputError&) {
  }
}

}  // namespace relgpu::fuzz
