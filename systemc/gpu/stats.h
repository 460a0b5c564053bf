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
void add_json(config::json& total, const config::json& part);
// after - before for integer counters (recursing like add_json); other
// values are taken from `after`. For components whose stats() are
// cumulative over the process.
config::json sub_json(const config::json& after, const config::json& before);
// Recomputes every ratio this model reports from the counters beside it
// (see stats.cpp for the list). Safe on any object: missing inputs skip.
void derive_ratios(config::json& d);

}  // namespace relgpu::gpu
