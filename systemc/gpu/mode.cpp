#include "gpu/mode.h"

#include <memory>

#include "gpu/timing_engine.h"

namespace relgpu::gpu {

void use_configured_engine(runtime::Device& dev, const config::Config& cfg) {
  if (cfg.get(kMode) == "timing") dev.set_engine(std::make_unique<TimingEngine>(cfg, dev.memory()));
}

}  // namespace relgpu::gpu
