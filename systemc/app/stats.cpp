#include "app/stats.h"

#include <algorithm>
#include <fstream>
#include <iomanip>

#include "common/error.h"
#include "gpu/stats.h"

namespace relgpu::app {

using config::json;

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
    config::json regs = runtime::register_stats(l);
    for (auto it = regs.begin(); it != regs.end(); ++it) j[it.key()] = *it;
    j["gpu_sim_insn"] = l.thread_insn;
    j["gpu_warp_insn"] = l.warp_insn;
    if (l.replay) j["replay"] = true;  // a relaunch by the checkpoint runtime's recovery
    if (!l.detail.is_null() && r.launch_detail) j["detail"] = l.detail;
    launches.push_back(j);
    // Per-launch counters (op classes, timing stats, per-SM and per-bank
    // arrays element-wise) sum into run totals; ratios are derived below.
    if (l.detail.is_object()) gpu::add_json(detail, l.detail);
  }
  s["kernel_launches"] = dev.launches().size();
  s["gpu_sim_insn"] = thread_insn;
  s["gpu_warp_insn"] = warp_insn;
  for (auto it = detail.begin(); it != detail.end(); ++it) s[it.key()] = *it;
  gpu::derive_ratios(s);  // ipc, hit rates, bandwidth of the whole run
  if (json res = dev.resilience_stats(); !res.is_null()) s["resilience"] = res;  // runtime/resilience.h
  s["output_check"] = r.pass ? "pass" : "fail";
  s["output_message"] = r.check_message;
  s["launches"] = launches;
  gpu::add_host_rates(s, r.wall_s);
  s["config"] = cfg.effective();
  s["config_sources"] = cfg.sources();
  return s;
}

void write_json(const std::string& path, const json& j, bool compact) {
  std::ofstream f(path);
  if (!f) throw InputError(path + ": cannot write stats file");
  f << (compact ? j.dump() : j.dump(2)) << "\n";
  if (!f) throw InputError(path + ": error while writing stats file");
}

std::string grouped(uint64_t v) {
  std::string s = std::to_string(v), out;
  int n = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (n && n % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return out;
}

// Each kernel's CTAs per SM at its first launch (runtime/device.h "occupancy"),
// with GPGPU-Sim's register rule beside it where whole RF rows cost CTAs.
static void print_occupancy(std::ostream& os, const json& s) {
  if (!s.contains("launches")) return;
  std::vector<std::string> seen;
  for (const json& l : s["launches"]) {
    if (!l.contains("occupancy") || !l.contains("kernel")) continue;
    const std::string k = l["kernel"].get<std::string>();
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    seen.push_back(k);
    const json& o = l["occupancy"];
    const uint64_t n = o["ctas_per_sm"].get<uint64_t>(), by_count = o["ctas_by_register_count"].get<uint64_t>();
    const std::string lim = o["limited_by"].get<std::string>();
    const char* what = lim == "rf_rows" ? "RF rows" : lim == "ctas" ? "CTA slots" : lim == "shared" ? "shared memory"
                                                                                                : "threads";
    os << "  " << std::left << std::setw(18) << (seen.size() == 1 ? "CTAs per SM" : "") << std::right << k << ": " << n
       << " (" << what;
    if (lim == "rf_rows")
      os << ", " << o["rf_rows_per_warp"].get<uint64_t>() << " a warp"
         << (by_count > n ? "; GPGPU-Sim's rule, registers rounded to 4, allows " + std::to_string(by_count) : "");
    os << ")\n";
  }
}

void print_summary(std::ostream& os, const RunInfo& r, const json& s, const std::string& log) {
  os << "relgpu run " << r.workload << "  (size " << r.size << ", mode " << r.mode << ", seed " << r.seed << ")\n";
  if (!log.empty()) os << "  " << log << (log.back() == '\n' ? "" : "\n");
  os << "  kernel launches   " << s["kernel_launches"].get<uint64_t>() << "\n";
  os << "  thread insns      " << grouped(s["gpu_sim_insn"].get<uint64_t>()) << "   (warp insns "
     << grouped(s["gpu_warp_insn"].get<uint64_t>()) << ")\n";
  os << std::fixed << std::setprecision(3) << "  wall time         " << r.wall_s << " s   ("
     << std::setprecision(1) << s["sim_rate_thread_insn_per_s"].get<double>() / 1e6 << " M thread-insn/s)\n";
  if (s.contains("gpu_sim_cycle")) {
    os << "  gpu_sim_cycle     " << grouped(s["gpu_sim_cycle"].get<uint64_t>()) << "   (ipc " << std::setprecision(2)
       << s.value("ipc", 0.0) << ", " << std::setprecision(3) << s.value("sim_rate_cycle_per_s", 0.0) / 1e3
       << " k cycles/s, silicon slowdown " << std::setprecision(0) << s.value("silicon_slowdown", 0.0) << "x)\n";
    auto rate = [&](const char* what, const json* o, const char* key) {
      if (o && o->is_object() && o->contains(key))
        os << "  " << std::left << std::setw(18) << what << std::right << std::setprecision(1)
           << 100.0 * (*o)[key].get<double>() << " %\n";
    };
    const json* l1 = s.contains("sm_total") && s["sm_total"].contains("l1d") ? &s["sm_total"]["l1d"] : nullptr;
    rate("L1D hit rate", l1, "hit_rate");
    rate("L2 hit rate", s.contains("l2") ? &s["l2"] : nullptr, "hit_rate");
    rate("DRAM row hits", s.contains("dram") ? &s["dram"] : nullptr, "row_hit_rate");
    print_occupancy(os, s);
    if (s.contains("power") && s["power"].contains("total_w")) {  // power/chip_power.h
      const json& p = s["power"];
      os << "  average power     " << std::setprecision(1) << p["total_w"].get<double>() << " W   (dynamic "
         << p["dynamic_w"].get<double>() << ", leakage " << p["leakage_w"].get<double>() << ", constant "
         << p["constant_w"].get<double>() << ")\n";
    }
    if (s.contains("pdn") && s["pdn"].contains("max_droop_pct")) {  // power/pdn.h
      const json& p = s["pdn"];
      os << "  worst droop       " << std::setprecision(2) << p["max_droop_pct"].get<double>()
         << " % of Vnom   (first-order " << p["max_first_order_pct"].get<double>() << ", second-order "
         << p["max_second_order_pct"].get<double>() << "; " << p["emergency_events"].get<uint64_t>()
         << " emergencies)\n";
    }
  }
  os << "  output check      " << (r.pass ? "PASS" : "FAIL") << "   " << r.check_message << "\n";
}

// One CSV cell: the value at a '/'-separated path, empty if absent.
static std::string cell(const json& s, const std::string& path) {
  const json* j = &s;
  size_t a = 0;
  while (a <= path.size()) {
    size_t b = path.find('/', a);
    if (b == std::string::npos) b = path.size();
    std::string k = path.substr(a, b - a);
    if (!j->is_object() || !j->contains(k)) return "";
    j = &(*j)[k];
    a = b + 1;
  }
  if (j->is_string()) {
    std::string v = j->get<std::string>(), q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  return j->dump();
}

void append_csv(const std::string& path, const json& s, const std::string& config_file) {
  static const char* kCols[] = {"workload", "size", "mode", "seed", "kernel_launches", "gpu_sim_insn",
                                "gpu_warp_insn", "gpu_sim_cycle", "ipc", "sm_total/l1d/hit_rate", "l2/hit_rate",
                                "dram/row_hit_rate", "dram/bandwidth_gbytes_per_s", "output_check", "wall_s",
                                "sim_rate_thread_insn_per_s", "sim_rate_cycle_per_s"};
  bool fresh;
  {
    std::ifstream in(path);
    fresh = !in || in.peek() == std::ifstream::traits_type::eof();
  }
  std::ofstream f(path, std::ios::app);
  if (!f) throw InputError(path + ": cannot append to CSV file");
  if (fresh) {
    f << "config";
    for (const char* c : kCols) f << "," << c;
    f << "\n";
  }
  f << cell(json{{"c", config_file}}, "c");
  for (const char* c : kCols) f << "," << cell(s, c);
  f << "\n";
  if (!f) throw InputError(path + ": error while writing CSV file");
}

}  // namespace relgpu::app
