#include "gpu/mode.h"

#include <memory>

#include "common/error.h"
#include "gpu/timing_engine.h"

namespace relgpu::gpu {

std::string mode_option(const std::string& cmd, const std::string& value) {
  std::string valid;
  for (const auto& c : kModes) {
    if (c == value) return kMode.name + "=" + value;
    valid += (valid.empty() ? "" : ", ") + c;
  }
  throw InputError(cmd + ": invalid --mode value '" + value + "'; valid modes: " + valid);
}

void use_configured_engine(runtime::Device& dev, const config::Config& cfg) {
  if (cfg.get(kMode) == "timing") dev.set_engine(std::make_unique<TimingEngine>(cfg, dev.memory()));
}

}  // namespace relgpu::gpu
