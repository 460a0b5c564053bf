// Which engine runs a Device's launches. Declared once here and used by
// `relgpu run`, the CUDA runtime library (`relgpu exec`) and the tests.
#pragma once
#include <string>
#include <vector>

#include "common/config.h"
#include "runtime/device.h"

namespace relgpu::gpu {

inline const std::vector<std::string> kModes{"timing", "functional"};
inline const config::Key<std::string> kMode{
    "sim.mode", "timing", "",
    "simulation mode: 'timing' runs the cycle-level SystemC model (gpu/), 'functional' executes "
    "instructions exactly, without timing",
    kModes};

// The `--mode VALUE` option of `relgpu CMD` as a sim.mode setting; an
// InputError names the option and the valid values for anything else.
std::string mode_option(const std::string& cmd, const std::string& value);

// Installs the engine `sim.mode` names (a Device starts with the functional one).
void use_configured_engine(runtime::Device& dev, const config::Config& cfg);

}  // namespace relgpu::gpu
