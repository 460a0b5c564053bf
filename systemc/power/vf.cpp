#include "power/vf.h"

#include <cmath>

namespace relgpu::power {

VfModel::VfModel(const config::Config& cfg)
    : vth(cfg.get(vf_keys::kVth)), alpha(cfg.get(vf_keys::kAlpha)), fo4_ps(cfg.get(vf_keys::kFo4Ps)),
      stages(cfg.get(vf_keys::kStages)), dibl(cfg.get(vf_keys::kDibl)), n(cfg.get(vf_keys::kSlopeN)),
      vt(1.380649e-23 * cfg.get(vf_keys::kTempK) / 1.602176634e-19) {}

double VfModel::fmax_mhz(double v) const {
  if (v <= vth) return 0.0;
  auto g = [&](double x) { return x / std::pow(x - vth, alpha); };
  double t_ps = stages * fo4_ps * g(v) / g(1.0);
  return 1e6 / t_ps;
}

double VfModel::leakage_scale(double v) const { return v * std::exp(dibl * (v - 1.0) / (n * vt)); }

}  // namespace relgpu::power
