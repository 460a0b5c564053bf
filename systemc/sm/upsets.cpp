#include "sm/upsets.h"

#include <cmath>

#include "sm/regfile.h"

namespace relgpu::sm {

Upsets::Upsets(unsigned sm, const config::Config& cfg, RegisterFile& rf, SmRegs& regs)
    : rf_(rf), regs_(regs), mean_(1e6 / cfg.get(kUpsetRate)),
      rng_(uint64_t(cfg.get(kUpsetSeed)) * 0x9e3779b97f4a7c15ull + sm) {
  next_ = gap();
}

uint64_t Upsets::gap() {
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  return uint64_t(std::max(1.0, std::ceil(-std::log1p(-u) * mean_)));
}

void Upsets::on_cycle(const Activity&, uint64_t skipped) {
  cycle_ += 1 + skipped;
  while (next_ <= cycle_) {
    const unsigned bank = unsigned(rng_() % rf_.banks()), row = unsigned(rng_() % rf_.entries()),
                   bit = unsigned(rng_() % rf_.entry_bits());
    switch (regs_.upset(bank, row, bit)) {
      case SmRegs::Strike::flipped: ++st_.flipped; break;
      case SmRegs::Strike::immune: ++st_.immune; break;
      case SmRegs::Strike::unowned: ++st_.unowned; break;
    }
    next_ += gap();
  }
}

config::json Upsets::stats() const {
  return {{"flipped", st_.flipped}, {"immune", st_.immune}, {"unowned", st_.unowned}};
}

}  // namespace relgpu::sm
