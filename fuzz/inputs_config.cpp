// A config file as `relgpu run --config FILE` and `relgpu exec --config FILE`
// read it, then the checks they make before building the GPU. Input: the
// file's text, optionally followed by a NUL and --set assignments one per
// line (as `relgpu exec` hands them to the runtime).
#include <sstream>
#include <string>

#include "blocks/bank_org_table/bank_org_table.h"
#include "blocks/droop_predictor/droop_predictor.h"
#include "blocks/instance.h"
#include "blocks/loscache_table/loscache_table.h"
#include "blocks/patching_unit/patching_unit.h"
#include "common/config.h"
#include "common/error.h"
#include "cudart/keys.h"
#include "gpu/keys.h"
#include "inputs.h"
#include "reliability/chip.h"

namespace relgpu::fuzz {

void config_input(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  try {
    config::Config cfg;
    cfg.load_json_text(in.substr(0, nul), "fuzz.json");
    if (nul != std::string::npos) {
      std::istringstream sets(in.substr(nul + 1));
      for (std::string line; std::getline(sets, line);) cfg.set(line);
    }
    blocks::check_rtl_keys(cfg);
    (void)gpu::sm_clocks(cfg);
    (void)reliability::operating_point(cfg);
    // Each block's parameters, checked as the SMs read them.
    (void)blocks::PatchingUnitParams::from(cfg);
    (void)blocks::BankOrgTableParams::from(cfg);
    (void)blocks::LoscacheTableParams::from(cfg);
    (void)blocks::DroopPredictorParams::from(cfg);
    (void)cfg.effective().dump();
  } catch (const InputError&) {
  }
}

}  // namespace relgpu::fuzz
