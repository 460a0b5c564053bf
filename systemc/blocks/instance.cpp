#include "blocks/instance.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "common/error.h"

namespace relgpu::blocks {

namespace {
const std::vector<std::string> kBlocks{"patching_unit", "bank_org_table", "droop_predictor", "loscache_table"};
}  // namespace

const config::Key<std::string> kRtl{
    "sim.rtl", "", "",
    "blocks run as Verilated RTL instead of their C++ models: a comma-separated list of "
    "patching_unit, bank_org_table, droop_predictor, loscache_table, or 'all' (relgpu run --rtl)"};
const config::Key<bool> kRtlCheck{
    "sim.rtl_check", false, "",
    "run the C++ model and the Verilated RTL of every block side by side and stop at the first "
    "output mismatch (relgpu run --rtl-check)"};

Impl impl_for(const config::Config& cfg, const char* block) {
  if (cfg.get(kRtlCheck)) return Impl::check;
  std::string list = cfg.get(kRtl);
  std::stringstream ss(list);
  std::string item;
  bool hit = false;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if (item == "all" || item == block) hit = true;
    else if (std::find(kBlocks.begin(), kBlocks.end(), item) == kBlocks.end()) {
      std::string near = config::nearest(item, kBlocks);
      throw InputError("sim.rtl: unknown block '" + item + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                       "; blocks: patching_unit, bank_org_table, droop_predictor, loscache_table, all");
    }
  }
  return hit ? Impl::rtl : Impl::cpp;
}

}  // namespace relgpu::blocks
