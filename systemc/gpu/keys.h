// GPU-level configuration keys: SM count, SM clocks, the runaway guard and
// when the L2 is flushed.
// The SM and memory keys live beside their components (sm/, mem/).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"

namespace relgpu::gpu {

inline const config::Key<int64_t> kNumSms{
    "gpu.num_sms", 15, "SMs", "streaming multiprocessors (GTX480: 15)", 1, 1024};
inline const config::Key<double> kSmClockMhz{
    "gpu.sm_clock_mhz", 700.0, "MHz",
    "nominal SM clock; gpu_sim_cycle and ipc count cycles of this clock (GTX480: 700)", 1.0, 1.0e5};
inline const config::Key<std::string> kSmClockList{
    "gpu.sm_clock_mhz_list", "", "MHz",
    "per-SM clocks (process variation), comma separated, one per SM; empty = every SM at gpu.sm_clock_mhz"};
inline const config::Key<int64_t> kMaxCycles{
    "gpu.max_cycles", 2'000'000'000, "cycles",
    "runaway guard: a launch stops with an error past this many gpu.sm_clock_mhz cycles", 1, 9.2e15};
// Read by Gpu (gpu.cpp) and TimingEngine::finish.
inline const config::Key<std::string> kL2Flush{
    "l2.flush", "end", "",
    "when the L2's dirty lines are flushed to DRAM; the flush is timed (each line written back through its "
    "DRAM controller, in l2.flush_writebacks and the dram stats) and counted in the cycles of the launch it "
    "ends, whose l2_flush section gives its lines and cycles. 'end': once, after the last kernel (when the "
    "program is done with the device), the L2 keeping its dirty lines from kernel to kernel, written back "
    "when evicted; as GPGPU-Sim, whose -gpgpu_flush_l2_cache defaults to 0 (and whose flush is untimed), "
    "every kernel but the last is timed without a flush. 'kernel': after every kernel",
    {"end", "kernel"}};

// One clock in integer kHz, so that edge times in ps are exact: cycle k
// starts at floor(k * 1e9 / khz) ps from time 0 (no drift over long runs).
struct Clock {
  uint64_t khz = 700000;
  uint64_t edge_ps(uint64_t k) const { return uint64_t((unsigned __int128)k * 1'000'000'000u / khz); }
  // First cycle whose edge is at or after t_ps.
  uint64_t cycle_at_or_after(uint64_t t_ps) const {
    uint64_t k = uint64_t((unsigned __int128)t_ps * khz / 1'000'000'000u);
    while (edge_ps(k) < t_ps) ++k;
    return k;
  }
};

Clock clock_from_mhz(double mhz);
// The clock of each SM: gpu.sm_clock_mhz x its RF's relative frequency if
// pv.sm_clock is not 'nominal' (reliability/rf_delay.h), else
// gpu.sm_clock_mhz_list if given, else gpu.sm_clock_mhz.
// Throws InputError naming the key on a malformed or wrong-length list.
std::vector<Clock> sm_clocks(const config::Config& cfg);

}  // namespace relgpu::gpu
