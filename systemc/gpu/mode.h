// Which engine runs a Device's launches. Declared once here and used by
// `relgpu run`, the CUDA runtime library (`relgpu exec`) and the tests.
#pragma once
#include <string>
#include <vector>

#include "common/config.h"
#include "runtime/device.h"

namespace relgpu::gpu {

inline const config::Key<std::string> kMode{
    "sim.mode", "timing", "",
    "simulation mode: 'timing' runs the cycle-level SystemC model (gpu/), 'functional' executes "
    "instructions exactly, without timing",
    std::vector<std::string>{"timing", "functional"}};

// Installs the engine `sim.mode` names (a Device starts with the functional one).
void use_configured_engine(runtime::Device& dev, const config::Config& cfg);

}  // namespace relgpu::gpu
