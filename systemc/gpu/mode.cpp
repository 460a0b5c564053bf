#include "gpu/mode.h"

#include <memory>

#include "common/error.h"
#include "gpu/timing_engine.h"
#include "power/chip_keys.h"

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
  // The power model observes the timing model's cycles (power/chip_power.h).
  if (cfg.get(power::chip_keys::kEnable) && cfg.get(kMode) != "timing")
    throw InputError("power.enable (--power, --power-trace) needs the timing model; sim.mode is '" + cfg.get(kMode) +
                     "'");
  if (cfg.get(kMode) == "timing") dev.set_engine(std::make_unique<TimingEngine>(cfg, dev.memory()));
}

}  // namespace relgpu::gpu
