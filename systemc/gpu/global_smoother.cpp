#include "gpu/global_smoother.h"

#include <algorithm>

#include "common/error.h"

namespace relgpu::gpu {

GlobalSmoother::GlobalSmoother(const config::Config& cfg, std::vector<Clock> clocks, Clock ref)
    : clocks_(std::move(clocks)) {
  using namespace smoothing_keys;
  period_ = unsigned(cfg.get(kPeriod));
  threshold_ = unsigned(cfg.get(kThreshold));
  delay_ = unsigned(cfg.get(kDelay));
  window_ps_ = ref.edge_ps(uint64_t(cfg.get(kWindow)));
  cooldown_ps_ = ref.edge_ps(uint64_t(cfg.get(kCooldown)));
  if (threshold_ >= clocks_.size())
    throw InputError(kThreshold.name + " = " + std::to_string(threshold_) + ": more than that many of the " +
                     std::to_string(clocks_.size()) + " SMs (gpu.num_sms) can never rise; the smoother would never act");
  begin_launch();
}

void GlobalSmoother::begin_launch() {
  zero_.assign(clocks_.size(), 1);
  rises_.clear();
  episode_ = false;
  episode_end_ = armed_at_ = 0;
  st_ = Stats{};
}

unsigned GlobalSmoother::report(unsigned sm, uint64_t cycle, unsigned active_warps) {
  ++st_.reports;
  const bool was_zero = zero_.at(sm);
  zero_[sm] = active_warps == 0;
  if (!was_zero || active_warps == 0) return 0;
  ++st_.rises;
  const uint64_t t = clocks_[sm].edge_ps(cycle);
  if (episode_ && t < episode_end_) {  // a later riser of the window
    ++st_.held_sms;
    st_.held_sm_cycles += delay_;
    return delay_;
  }
  episode_ = false;
  // The window holds rises in (t - window, t], one per SM.
  rises_.erase(std::remove_if(rises_.begin(), rises_.end(),
                              [&](const auto& r) { return r.second == sm || r.first + window_ps_ <= t; }),
               rises_.end());
  rises_.push_back({t, sm});
  if (rises_.size() <= threshold_ || t < armed_at_) return 0;
  ++st_.triggers;
  episode_ = true;
  episode_end_ = t + window_ps_;
  armed_at_ = t + cooldown_ps_;
  rises_.clear();
  ++st_.held_sms;
  st_.held_sm_cycles += delay_;
  return delay_;
}

config::json GlobalSmoother::stats() const {
  config::json j;
  j["reports"] = st_.reports;
  j["rises"] = st_.rises;
  j["triggers"] = st_.triggers;
  j["held_sms"] = st_.held_sms;
  j["held_sm_cycles"] = st_.held_sm_cycles;
  return j;
}

}  // namespace relgpu::gpu
