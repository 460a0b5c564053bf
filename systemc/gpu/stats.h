// Helpers for the timing model's stats JSON.
//
// Per-kernel stats hold counters; the ratios (ipc, hit rates, bandwidth)
// are derived from the counters by derive_ratios, both per kernel and again
// after app/stats.cpp sums the kernels of a run, so a summed ratio is never
// reported.
#pragma once
#include "common/config.h"

namespace relgpu::gpu {

// total += part: numbers add, objects recurse, arrays add element-wise
// (growing `total` as needed); strings and booleans are copied if absent.
// Numbers under keys starting "max_" take the maximum instead.
void add_json(config::json& total, const config::json& part);
// after - before for integer counters (recursing like add_json); other
// values are taken from `after`. For components whose stats() are
// cumulative over the process.
config::json sub_json(const config::json& after, const config::json& before);
// Recomputes every ratio this model reports from the counters beside it
// (see stats.cpp for the list). Safe on any object: missing inputs skip.
void derive_ratios(config::json& d);
// Host-measured rates of a run that took wall_s seconds, under "host" and
// copied to the top level: sim_rate_thread_insn_per_s from gpu_sim_insn and,
// in timing mode (gpu_sim_cycle present), sim_rate_cycle_per_s and
// silicon_slowdown (wall time / sim_time_ps). Used by `relgpu run` and exec.
void add_host_rates(config::json& s, double wall_s);

}  // namespace relgpu::gpu
