#include "blocks/instance.h"

#include <algorithm>
#include <sstream>
#include <systemc>
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
    "run the C++ model and the Verilated RTL side by side, for the blocks in sim.rtl or every block "
    "if it is empty, and stop at the first output mismatch (relgpu run --rtl-check)"};
const config::Key<std::string> kTraceRtl{
    "sim.trace_rtl", "", "",
    "FST waveform file of the Verilated RTL blocks (relgpu run --trace-rtl); one file per instance, "
    "FILE.fst -> FILE.sm<N>.<block>.fst; '' = off"};

std::map<std::string, CheckTally>& check_tally() {
  static std::map<std::string, CheckTally> t;
  return t;
}

Impl impl_for(const config::Config& cfg, const char* block) {
  std::stringstream ss(cfg.get(kRtl));
  std::string item;
  bool hit = false, listed = false;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    listed = true;
    if (item == "all" || item == block) hit = true;
    else if (std::find(kBlocks.begin(), kBlocks.end(), item) == kBlocks.end()) {
      std::string near = config::nearest(item, kBlocks);
      throw InputError("sim.rtl: unknown block '" + item + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                       "; blocks: patching_unit, bank_org_table, droop_predictor, loscache_table, all");
    }
  }
  // --rtl-check alone checks every block; with --rtl, the listed ones.
  if (cfg.get(kRtlCheck) && (hit || !listed)) return Impl::check;
  return hit ? Impl::rtl : Impl::cpp;
}

void check_rtl_keys(const config::Config& cfg) {
  bool any = false;
  for (auto& b : kBlocks) any = impl_for(cfg, b.c_str()) != Impl::cpp || any;  // also rejects unknown names
  if (!cfg.get(kTraceRtl).empty() && !any)
    throw InputError("sim.trace_rtl (--trace-rtl) needs RTL blocks: set sim.rtl (--rtl BLOCKS|all) or "
                     "sim.rtl_check (--rtl-check)");
}

std::string trace_path(const Site& site, const char* block) {
  std::string f = site.cfg ? site.cfg->get(kTraceRtl) : "";
  if (f.empty()) return f;
  const std::string ext = ".fst";
  if (f.size() >= ext.size() && f.compare(f.size() - ext.size(), ext.size(), ext) == 0) f.resize(f.size() - ext.size());
  return f + ".sm" + std::to_string(site.sm) + "." + block + ext;
}

uint64_t sim_time_ps() { return uint64_t(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_PS)); }

std::string mismatch_report(const Site& site, const char* block, uint64_t cycle, uint64_t since_reset,
                            const std::string& inputs, const std::string& outputs) {
  std::ostringstream r;
  r << "--rtl-check: the RTL and the C++ model of " << block << " differ in SM " << site.sm << " at SystemC time "
    << sc_core::sc_time_stamp().to_string();
  if (site.cycle) r << ", SM cycle " << *site.cycle;
  r << ", block cycle " << cycle << " (" << since_reset << " since reset)\n"
    << "  inputs:\n" << inputs << "  outputs:\n" << outputs;
  return r.str();
}

}  // namespace relgpu::blocks
