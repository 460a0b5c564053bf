#include "mem/loscache.h"

#include <algorithm>

namespace relgpu::mem {

uint64_t& PoweredTime::tail(bool fresh, const LineGen* g) {
  if (fresh || !g) return idle;
  if (!g->pred) return g->phase ? phase : g->read ? uncovered : uncovered_write;
  if (g->accesses < g->pred) return over;
  return g->accesses > g->pred ? under : exact;
}

uint64_t pc_mode_hits(const PcCounts& c) {
  uint64_t n = 0;
  for (const auto& [who, counts] : c) {
    uint64_t best = 0;
    for (const auto& [acc, k] : counts) best = std::max(best, k);
    n += best;
  }
  return n;
}

config::json loscache_l2_json(const LoscacheL2Stats& s, uint64_t line_cycles, uint64_t powered_line_cycles,
                              const PoweredTime& t) {
  config::json powered = {{"live", t.live},   {"gating", t.gating}, {"phase", t.phase}, {"uncovered", t.uncovered},
                          {"uncovered_write", t.uncovered_write},
                          {"over", t.over},   {"under", t.under},   {"exact", t.exact},
                          {"idle", t.idle}};
  return {{"powered", std::move(powered)},
          {"counted_accesses", s.counted},     {"predicted_accesses", s.predicted},
          {"gatings", s.gatings},              {"gate_writebacks", s.gate_writebacks},
          {"gated_hits", s.gated_hits},        {"mispredicts", s.mispredicts},
          {"bypass_reads", s.bypass_reads},    {"bypass_writes", s.bypass_writes},
          {"wakeups", s.wakeups},              {"queries", s.queries},
          {"generations", s.generations},      {"generations_predicted", s.gen_predicted},
          {"exact_adaptive", s.exact_adaptive}, {"exact_naive", s.exact_naive},
          {"exact_pc_mode", s.exact_pc_mode},
          {"under_predicted", s.under},        {"over_predicted", s.over},
          {"under_predicted_bypassed", s.under_bypassed},
          {"line_cycles", line_cycles},        {"powered_line_cycles", powered_line_cycles}};
}

static double num(const config::json& o, const char* k) {
  return o.is_object() && o.contains(k) && o[k].is_number() ? o[k].get<double>() : -1;
}

void derive_loscache(config::json& los) {
  if (!los.is_object()) return;
  auto ratio = [&](const char* out, double a, double b) {
    if (a >= 0 && b >= 0) los[out] = b > 0 ? a / b : 0.0;
  };
  if (los.contains("l2")) {
    const config::json l2 = los["l2"];  // a copy: inserting into los moves its members
    double n = num(l2, "generations_predicted");
    ratio("accuracy_adaptive", num(l2, "exact_adaptive"), n);
    ratio("accuracy_naive", num(l2, "exact_naive"), n);
    ratio("accuracy_pc_mode", num(l2, "exact_pc_mode"), n);
    ratio("powered_fraction", num(l2, "powered_line_cycles"), num(l2, "line_cycles"));
  }
  if (los.contains("icnt")) {
    // Extra bytes the count queries add to what the rest of the traffic moved.
    const config::json ic = los["icnt"];
    double q = num(ic, "query_bytes"), t = num(ic, "total_bytes");
    if (q >= 0 && t >= 0) ratio("icnt_traffic_increase", q, t - q);
  }
}

}  // namespace relgpu::mem
