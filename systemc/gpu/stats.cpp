#include "gpu/stats.h"

#include <utility>

#include "mem/loscache.h"
#include "power/chip_power.h"
#include "power/l2_energy.h"
#include "sm/argo.h"
#include "sm/less_unit.h"
#include "sm/rise.h"
#include "sm/uniform_unit.h"

namespace relgpu::gpu {

using config::json;

void add_json(json& total, const json& part) {
  if (part.is_number_integer() && (total.is_null() || total.is_number_integer())) {
    total = (total.is_null() ? int64_t(0) : total.get<int64_t>()) + part.get<int64_t>();
  } else if (part.is_number()) {
    total = (total.is_number() ? total.get<double>() : 0.0) + part.get<double>();
  } else if (part.is_object()) {
    if (!total.is_object()) total = json::object();
    for (auto it = part.begin(); it != part.end(); ++it) {
      json& t = total[it.key()];
      // Maxima ("max_..." keys, e.g. the PDN's worst droop) combine by maximum.
      if (it.key().rfind("max_", 0) == 0 && it->is_number() && (t.is_null() || t.is_number()))
        t = t.is_null() ? *it : json(std::max(t.get<double>(), it->get<double>()));
      else
        add_json(t, *it);
    }
  } else if (part.is_array()) {
    if (!total.is_array()) total = json::array();
    for (size_t i = 0; i < part.size(); ++i) {
      if (i >= total.size()) total.push_back(json());
      add_json(total[i], part[i]);
    }
  } else if (total.is_null()) {
    total = part;
  }
}

json sub_json(const json& after, const json& before) {
  if (after.is_number_integer() && before.is_number_integer())
    return after.get<int64_t>() - before.get<int64_t>();
  if (after.is_object() && before.is_object()) {
    json out = json::object();
    for (auto it = after.begin(); it != after.end(); ++it)
      out[it.key()] = before.contains(it.key()) ? sub_json(*it, before[it.key()]) : *it;
    return out;
  }
  if (after.is_array() && before.is_array()) {
    json out = json::array();
    for (size_t i = 0; i < after.size(); ++i) out.push_back(i < before.size() ? sub_json(after[i], before[i]) : after[i]);
    return out;
  }
  return after;
}

static double num(const json& o, const char* k) {
  if (!o.is_object() || !o.contains(k) || !o[k].is_number()) return -1;
  return o[k].get<double>();
}

// o[out] = o[a] / o[b] when both exist (0 when b is 0).
static void ratio(json& o, const char* out, const char* a, const char* b, double scale = 1.0) {
  double x = num(o, a), y = num(o, b);
  if (x < 0 || y < 0) return;
  o[out] = y > 0 ? x / y * scale : 0.0;
}

// Ratios of one SM's stats (or of their sum).
static void derive_sm(json& s) {
  ratio(s, "ipc", "thread_insn", "cycles");
  ratio(s, "warp_ipc", "warp_insn", "cycles");
  ratio(s, "mem_latency_avg", "mem_latency_sum", "icnt_requests");
  ratio(s, "occupancy", "resident_warp_cycles", "warp_slot_cycles");
  if (s.contains("oc") && s["oc"].is_object() && num(s["oc"], "busy_sum") >= 0) {
    double c = num(s, "cycles");
    s["oc"]["avg_occupied"] = c > 0 ? num(s["oc"], "busy_sum") / c : 0.0;
  }
  if (s.contains("l1d") && s["l1d"].is_object()) {
    ratio(s["l1d"], "hit_rate", "hits", "accesses");
    ratio(s["l1d"], "miss_rate", "misses", "accesses");
  }
  // ---- RF faults (sm/core.cpp): per-map values from the summed counters ----
  if (s.contains("rf_faults") && s["rf_faults"].is_object()) {
    ratio(s["rf_faults"], "vdd", "vdd_sum", "maps");
    ratio(s["rf_faults"], "rf_fmax_mhz", "rf_fmax_mhz_sum", "maps");
    ratio(s["rf_faults"], "cell_failure_rate", "faulty_cells", "cells");
    ratio(s["rf_faults"], "faulty_entry_rate", "faulty_entries", "entries");
  }
}

static void derive_dram(json& m, double time_ps) {
  double hits = num(m, "row_hits"), misses = num(m, "row_misses");
  if (hits >= 0 && misses >= 0) m["row_hit_rate"] = hits + misses > 0 ? hits / (hits + misses) : 0.0;
  ratio(m, "bandwidth_util", "busy_cycles", "cycles");
  double rd = num(m, "bytes_read"), wr = num(m, "bytes_written");
  if (rd >= 0 && wr >= 0 && time_ps >= 0) m["bandwidth_gbytes_per_s"] = time_ps > 0 ? (rd + wr) / time_ps * 1e3 : 0.0;
}

// GR-Guard (sm/grguard.h): the access mix as fractions, the L1D miss rate
// (the spill way takes L1 capacity) and the RF energy beside its counters.
static void derive_grguard(json& d) {
  json& g = d["grguard"];
  // Shares of each class, per access (WRG) and per entry.
  for (auto [from, to] : {std::pair{"accesses", "access_mix"}, std::pair{"entry_accesses", "entry_mix"}}) {
    if (!g.contains(from) || !g[from].is_object()) continue;
    const json acc = g[from];  // a copy: adding keys to g may move its members
    double n = 0;
    for (auto& v : acc) n += v.get<double>();
    json mix = json::object();
    for (auto it = acc.begin(); it != acc.end(); ++it) mix[it.key()] = n > 0 ? it->get<double>() / n : 0.0;
    g[to] = std::move(mix);
  }
  if (d.contains("sm_total") && d["sm_total"].contains("l1d")) {
    const json& l1 = d["sm_total"]["l1d"];
    double a = num(l1, "accesses"), m = num(l1, "misses");
    if (a >= 0 && m >= 0) g["l1d_miss_rate"] = a > 0 ? m / a : 0.0;
  }
  if (d.contains("energy") && d["energy"].contains("rf"))
    for (const char* k : {"dynamic_nj", "leakage_nj", "total_nj"})
      if (d["energy"]["rf"].contains(k)) g["rf_energy"][k] = d["energy"]["rf"][k];
}

// Register dead time (sm/dead_time.h): the paper's dead share of residency
// (closed intervals; with the launch-end tails beside it) and the per-cycle
// shares of RF entries.
static void derive_dead_time(json& t) {
  ratio(t, "dead_share", "dead_cycles", "residency_cycles");
  ratio(t, "known_dead_share", "known_dead_cycles", "dead_cycles");  // dead-bit coverage
  double d = num(t, "dead_cycles") + num(t, "tail_dead_cycles"),
         r = num(t, "residency_cycles") + num(t, "tail_residency_cycles");
  if (r > 0) t["dead_share_with_tails"] = d / r;
  ratio(t, "live_entry_share", "live_entry_cycles", "entry_cycles");
  ratio(t, "dead_entry_share", "dead_entry_cycles", "entry_cycles");
  auto fault_shares = [](json& o) {  // the run's own map, and each overlay's (at_rate)
    ratio(o, "dead_good_share", "dead_good_entry_cycles", "entry_cycles");
    ratio(o, "live_faulty_share", "live_faulty_entry_cycles", "entry_cycles");
    ratio(o, "faulty_entry_share", "faulty_entry_cycles", "entry_cycles");
    ratio(o, "known_dead_good_share", "known_dead_good_entry_cycles", "entry_cycles");
  };
  fault_shares(t);
  if (t.contains("at_rate") && t["at_rate"].is_object())
    for (auto& o : t["at_rate"]) fault_shares(o);
  if (t.contains("live_entry_share") && t.contains("dead_entry_share"))
    t["unwritten_entry_share"] = 1.0 - t["live_entry_share"].get<double>() - t["dead_entry_share"].get<double>();
}

void derive_ratios(json& d) {
  if (!d.is_object()) return;
  if (d.contains("dead_time") && d["dead_time"].is_object()) derive_dead_time(d["dead_time"]);
  // ---- L2 energy and LoSCache (power/l2_energy.h, mem/loscache.h) ----
  if (d.contains("l2_energy")) power::derive_l2_energy(d["l2_energy"]);
  if (d.contains("loscache")) {
    mem::derive_loscache(d["loscache"]);
    if (d.contains("l2_energy")) d["loscache"]["l2_energy"] = d["l2_energy"];
  }
  if (d.contains("l2_life") && d["l2_life"].is_object()) {  // mem/l2_life.h
    json& l = d["l2_life"];
    double lc = num(l, "line_cycles"), live = num(l, "live_line_cycles"), g = num(l, "generations");
    if (lc > 0 && live >= 0) l["dead_fraction"] = 1.0 - live / lc;
    if (g > 0 && l.contains("rereference"))
      for (const char* k : {"zero", "once", "more"}) l["rereference_fraction"][k] = num(l["rereference"], k) / g;
    ratio(l, "inter_cta_fraction", "chunks_inter_cta", "chunks");
    if (d.contains("l2_energy")) {
      double all = num(d["l2_energy"], "all_powered_total_nj"), ideal = num(l, "ideal_gating_total_nj");
      if (all > 0 && ideal >= 0) l["ideal_gating_energy_ratio"] = ideal / all;
    }
  }
  // ---- end L2 energy and LoSCache ----
  if (d.contains("grguard") && d["grguard"].is_object()) derive_grguard(d);
  if (d.contains("uniform") && d["uniform"].is_object())  // sm/uniform_unit.h
    sm::derive_uniform(d["uniform"], num(d.value("sm_total", json::object()), "thread_insn"));
  if (d.contains("less") && d["less"].is_object())  // sm/less_unit.h
    sm::derive_less(d["less"], num(d, "sim_time_ps") * 1e-12);
  if (d.contains("rise") && d["rise"].is_object()) sm::derive_rise(d["rise"]);  // sm/rise.h
  if (d.contains("power")) power::derive_power(d["power"]);
  ratio(d, "ipc", "gpu_sim_insn", "gpu_sim_cycle");
  if (d.contains("sms") && d["sms"].is_array())
    for (auto& s : d["sms"]) derive_sm(s);
  if (d.contains("sm_total")) derive_sm(d["sm_total"]);
  sm::derive_argo(d);  // RF utilization, duty, leakage and aging (sm/argo.h)
  if (d.contains("l2") && d["l2"].is_object()) {
    ratio(d["l2"], "hit_rate", "hits", "accesses");
    ratio(d["l2"], "miss_rate", "misses", "accesses");
  }
  double t = num(d, "sim_time_ps");
  if (d.contains("dram") && d["dram"].is_object()) derive_dram(d["dram"], t);
  if (d.contains("partitions") && d["partitions"].is_array())
    for (auto& p : d["partitions"]) {
      if (p.contains("l2")) ratio(p["l2"], "hit_rate", "hits", "accesses");
      if (p.contains("dram")) derive_dram(p["dram"], t);
    }
}

void add_host_rates(config::json& s, double wall_s) {
  double insn = s.value("gpu_sim_insn", 0.0);
  s["host"]["wall_s"] = wall_s;
  s["host"]["sim_rate_thread_insn_per_s"] = wall_s > 0 ? insn / wall_s : 0.0;
  if (s.contains("gpu_sim_cycle")) {
    // Timing mode: GPGPU-Sim's simulation rate in cycles, and how much
    // slower than the silicon the model runs (wall time / simulated time).
    double cycles = s["gpu_sim_cycle"].get<double>(), sim_s = s.value("sim_time_ps", 0.0) * 1e-12;
    s["host"]["sim_rate_cycle_per_s"] = wall_s > 0 ? cycles / wall_s : 0.0;
    s["host"]["silicon_slowdown"] = sim_s > 0 ? wall_s / sim_s : 0.0;
  }
  // Top-level copies, under the names GPGPU-Sim users look for.
  s["wall_s"] = wall_s;
  for (const char* k : {"sim_rate_thread_insn_per_s", "sim_rate_cycle_per_s", "silicon_slowdown"})
    if (s["host"].contains(k)) s[k] = s["host"][k];
}

}  // namespace relgpu::gpu
