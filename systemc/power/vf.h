// Supply voltage -> speed and leakage of the undervolted register file
// (GR-Guard, Tan Ch6: "frequency vs Vdd from a 50-stage FO4 inverter chain in
// HSPICE at 28 nm"; only the RF is undervolted).
//
// Speed: the alpha-power law (Sakurai and Newton, IEEE JSSC 25(2), 1990):
// gate delay ~ V / (V - Vth)^alpha. The chain's delay at V is
//   t(V) = stages x fo4 x [V / (V - Vth)^alpha] / [Vnom / (Vnom - Vth)^alpha]
// and the RF's highest clock is 1 / t(V). Vth = 0.35 V is the thesis's
// V_thNOM (Table 6.1); alpha = 1.3 and the 28 nm FO4 delay of 10 ps at 1 V
// are our estimates (alpha 1.2-1.4 for short-channel devices, Sakurai and
// Newton; FO4 ~ 360 ps per um of drawn gate length, the rule of thumb in
// Horowitz et al., "Scaling, power, and the future of CMOS", IEDM 2005):
// not the thesis's HSPICE numbers, which it does not print. 50 stages of
// 10 ps allow 2 GHz at 1 V, so both baselines (700 MHz and 1.4 GHz) run.
//
// Leakage: subthreshold current with drain-induced barrier lowering (Roy et
// al., "Leakage current mechanisms and leakage reduction techniques in
// deep-submicrometer CMOS circuits", Proc. IEEE 91(2), 2003):
//   I_leak(V) ~ exp(eta V / (n vT)),  P_leak(V) = P_leak(Vnom) (V / Vnom) exp(eta (V - Vnom) / (n vT))
// with eta the DIBL coefficient, n the subthreshold slope factor and
// vT = kT/q at power.temperature_k. eta = 0 is the plain P ~ V rule.
#pragma once
#include "common/config.h"

namespace relgpu::power {

namespace vf_keys {
using D = config::Key<double>;
inline const D kVth{"vf.vth", 0.35, "V", "threshold voltage of the alpha-power law (Tan Table 6.1 V_thNOM)", 0, 2};
inline const D kAlpha{"vf.alpha", 1.3, "",
                      "velocity-saturation index of the alpha-power law (our estimate; Sakurai-Newton 1990: "
                      "1.2-1.4 for short channels)", 1, 2};
inline const D kFo4Ps{"vf.fo4_ps", 10.0, "ps",
                      "FO4 inverter delay at Vnom = 1 V, 28 nm (our estimate: ~360 ps per um of gate length, "
                      "Horowitz et al. IEDM 2005)", 0.1, 1e4};
inline const D kStages{"vf.chain_stages", 50, "stages",
                       "FO4 stages per RF cycle (Tan Ch6: a 50-stage FO4 chain)", 1, 1e4};
inline const D kDibl{"power.dibl", 0.15, "V/V",
                     "DIBL coefficient of subthreshold leakage (our estimate for 28-32 nm bulk; 0 = leakage power "
                     "proportional to V)", 0, 1};
inline const D kSlopeN{"power.subthreshold_n", 1.5, "", "subthreshold slope factor n (Roy et al. 2003)", 1, 3};
inline const D kTempK{"power.temperature_k", 358.0, "K", "junction temperature for vT = kT/q (85 C)", 200, 500};
}  // namespace vf_keys

struct VfModel {
  explicit VfModel(const config::Config& cfg);
  double vth, alpha, fo4_ps, stages, dibl, n, vt;
  // Highest clock of a path of `stages` FO4 at supply v (normalised, Vnom = 1).
  double fmax_mhz(double v) const;
  // Leakage power at v over leakage power at Vnom = 1.
  double leakage_scale(double v) const;
};

}  // namespace relgpu::power
