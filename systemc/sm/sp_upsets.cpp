#include "sm/sp_upsets.h"

#include <algorithm>
#include <cmath>

namespace relgpu::sm {

SpUpsets::SpUpsets(unsigned sm, unsigned units, const config::Config& cfg)
    : units_(units), mean_(1e6 / cfg.get(kSpUpsetRate)),
      rng_(uint64_t(cfg.get(kSpUpsetSeed)) * 0xbf58476d1ce4e5b9ull + sm) {
  next_ = gap();
}

uint64_t SpUpsets::gap() {
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  return uint64_t(std::max(1.0, std::ceil(-std::log1p(-u) * mean_)));
}

bool SpUpsets::next_before(uint64_t now, Strike& s) {
  if (next_ >= now) return false;
  s.cycle = next_;
  ++strikes_;
  s.unit = unsigned(rng_() % units_);
  s.lane = unsigned(rng_() % 32);
  s.bit = unsigned(rng_() % 32);
  next_ += gap();
  return true;
}

config::json SpUpsets::stats() const {
  return {{"strikes", strikes_}, {"idle_unit", hits_[idle_unit]}, {"idle_lane", hits_[idle_lane]}, {"original", hits_[original]},
          {"copy", hits_[copy]},
          {"no_result", hits_[no_result]}, {"original_unprotected", unprotected_}};
}

}  // namespace relgpu::sm
