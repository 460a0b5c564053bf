#include "gpu/keys.h"

#include <cmath>
#include <sstream>

#include "common/error.h"
#include "reliability/keys.h"
#include "reliability/rf_delay.h"
#include "sm/keys.h"

namespace relgpu::gpu {

Clock clock_from_mhz(double mhz) {
  Clock c;
  c.khz = uint64_t(std::llround(mhz * 1000.0));
  if (c.khz == 0) c.khz = 1;
  return c;
}

std::vector<Clock> sm_clocks(const config::Config& cfg) {
  size_t n = size_t(cfg.get(kNumSms));
  std::string list = cfg.get(kSmClockList);
  const std::string pv = cfg.get(reliability::kSmClock);
  if (pv != "nominal") {
    if (!list.empty())
      throw InputError("config keys '" + reliability::kSmClock.name + "' and '" + kSmClockList.name +
                       "' are both set; each sets the per-SM clocks, set only one");
    reliability::Scheme scheme = reliability::parse_scheme(pv, reliability::kSmClock.name);
    // This chip's RF delay over the RF geometry the SMs are built with.
    reliability::RfGeometry g;
    g.sms = unsigned(n), g.banks = unsigned(cfg.get(sm::kRfBanks));
    g.rows = unsigned(cfg.get(sm::kRfEntries)), g.entry_bits = unsigned(cfg.get(sm::kRfEntryBits));
    reliability::RfDelay rf(cfg, g);
    std::vector<Clock> out;
    for (unsigned s = 0; s < n; ++s) out.push_back(clock_from_mhz(cfg.get(kSmClockMhz) * rf.sm(s).f(scheme)));
    return out;
  }
  if (list.empty()) return std::vector<Clock>(n, clock_from_mhz(cfg.get(kSmClockMhz)));
  std::string origin;
  for (auto& f : cfg.sources()) origin += (origin.empty() ? " (in " : ", ") + f;
  if (!origin.empty()) origin += ")";
  std::vector<Clock> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    double mhz = 0;
    try {
      mhz = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    while (used < item.size() && item[used] == ' ') ++used;
    if (!used || used != item.size() || !(mhz >= 1.0 && mhz <= 1.0e5))
      throw InputError("config key " + kSmClockList.name + origin + ": '" + item +
                       "' is not a clock in MHz between 1 and 100000");
    out.push_back(clock_from_mhz(mhz));
  }
  if (out.size() != n)
    throw InputError("config key " + kSmClockList.name + origin + ": " + std::to_string(out.size()) +
                     " clocks given, but gpu.num_sms is " + std::to_string(n));
  return out;
}

}  // namespace relgpu::gpu
