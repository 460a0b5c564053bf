#include "app/stats.h"

#include <fstream>
#include <iomanip>

#include "common/error.h"

namespace relgpu::app {

using config::json;

// Adds every number in `part` into `total`, recursing into objects, so that
// per-launch detail (op-class counts, ...) sums into run totals.
static void sum_into(json& total, const json& part) {
  for (auto it = part.begin(); it != part.end(); ++it) {
    if (it->is_object()) {
      if (!total.contains(it.key())) total[it.key()] = json::object();
      sum_into(total[it.key()], *it);
    } else if (it->is_number_integer()) {
      total[it.key()] = total.value(it.key(), int64_t(0)) + it->get<int64_t>();
    } else if (it->is_number_float()) {
      total[it.key()] = total.value(it.key(), 0.0) + it->get<double>();
    }
  }
}

json run_stats(const RunInfo& r, const runtime::Device& dev, const config::Config& cfg) {
  json s = json::object();
  s["workload"] = r.workload;
  s["size"] = r.size;
  s["mode"] = r.mode;
  s["seed"] = r.seed;
  uint64_t thread_insn = 0, warp_insn = 0;
  json launches = json::array(), detail = json::object();
  for (auto& l : dev.launches()) {
    thread_insn += l.thread_insn;
    warp_insn += l.warp_insn;
    json j = json::object();
    j["kernel"] = l.kernel;
    j["grid"] = {l.grid.x, l.grid.y, l.grid.z};
    j["block"] = {l.block.x, l.block.y, l.block.z};
    j["dyn_shmem"] = l.dyn_shmem;
    j["gpu_sim_insn"] = l.thread_insn;
    j["gpu_warp_insn"] = l.warp_insn;
    if (!l.detail.is_null()) j["detail"] = l.detail;
    launches.push_back(j);
    if (l.detail.is_object()) sum_into(detail, l.detail);
  }
  s["kernel_launches"] = dev.launches().size();
  s["gpu_sim_insn"] = thread_insn;
  s["gpu_warp_insn"] = warp_insn;
  for (auto it = detail.begin(); it != detail.end(); ++it) s[it.key()] = *it;
  s["output_check"] = r.pass ? "pass" : "fail";
  s["output_message"] = r.check_message;
  s["launches"] = launches;
  s["host"] = {{"wall_s", r.wall_s},
               {"sim_rate_thread_insn_per_s", r.wall_s > 0 ? thread_insn / r.wall_s : 0.0}};
  // Top-level copies of the host rates, under the names the issue and
  // GPGPU-Sim users look for.
  s["wall_s"] = r.wall_s;
  s["sim_rate_thread_insn_per_s"] = s["host"]["sim_rate_thread_insn_per_s"];
  s["config"] = cfg.effective();
  s["config_sources"] = cfg.sources();
  return s;
}

void write_json(const std::string& path, const json& j) {
  std::ofstream f(path);
  if (!f) throw InputError(path + ": cannot write stats file");
  f << j.dump(2) << "\n";
  if (!f) throw InputError(path + ": error while writing stats file");
}

static std::string group(uint64_t v) {
  std::string s = std::to_string(v), out;
  int n = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (n && n % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return out;
}

void print_summary(std::ostream& os, const RunInfo& r, const json& s, const std::string& log) {
  os << "relgpu run " << r.workload << "  (size " << r.size << ", mode " << r.mode << ", seed " << r.seed << ")\n";
  if (!log.empty()) os << "  " << log << (log.back() == '\n' ? "" : "\n");
  os << "  kernel launches   " << s["kernel_launches"].get<uint64_t>() << "\n";
  os << "  thread insns      " << group(s["gpu_sim_insn"].get<uint64_t>()) << "   (warp insns "
     << group(s["gpu_warp_insn"].get<uint64_t>()) << ")\n";
  os << std::fixed << std::setprecision(3) << "  wall time         " << r.wall_s << " s   ("
     << std::setprecision(1) << s["sim_rate_thread_insn_per_s"].get<double>() / 1e6 << " M thread-insn/s)\n";
  os << "  output check      " << (r.pass ? "PASS" : "FAIL") << "   " << r.check_message << "\n";
}

}  // namespace relgpu::app
