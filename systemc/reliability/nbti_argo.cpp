#include "reliability/nbti_argo.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace relgpu::reliability {

namespace {
// Constants of [5]/[6] (ARGO: "defined in [5]"): xi1, xi2 (dimensionless),
// Ea (eV), T0 (s/nm^2); n = 1/6 (ARGO §4).
constexpr double kXi1 = 0.9, kXi2 = 0.5, kEa = 0.49, kT0 = 1e-8, kN = 1.0 / 6.0;
constexpr double kBoltzmannEv = 8.617333e-5;
constexpr double kSecondsPerYear = 365.25 * 24 * 3600;

// 1 - beta^(1/2n), computed without cancellation: beta is within ~1e-4 of 1
// over years of stress.
double one_minus_root(double beta) { return -std::expm1(std::log(beta) / (2 * kN)); }
}  // namespace

const NbtiTech& nbti_tech(int node_nm) {
  // PTM bulk model cards, pmos toxe (our reading; ARGO uses PTM 45/65 nm
  // bulk but gives no device parameters).
  static const NbtiTech k45{"45nm", 1.30}, k65{"65nm", 1.95};
  if (node_nm == 45) return k45;
  if (node_nm == 65) return k65;
  throw std::invalid_argument("NBTI model: node " + std::to_string(node_nm) + " nm not modelled (45 or 65)");
}

double nbti_c(double temp_c) { return std::exp(-kEa / (kBoltzmannEv * (temp_c + 273.15))) / kT0; }

// At alpha = 1 the periodic form is (Kv^2 T_clk)^n / (1 - beta1^(1/2n))^(2n),
// beta1 = 1 - 2 xi1 te / (2 tox + sqrt(C t)). For t >> T_clk, 1 - beta1^(1/2n)
// ~ (1/2n) 2 xi1 te / sqrt(C t), so it equals (Kv sqrt t)^(2n) when
// sqrt(C T_clk) = 2 xi1 te / (2n) = 6 xi1 te.
double nbti_dc_matched_period(const NbtiTech& tech, double temp_c) {
  double s = 2 * kXi1 * tech.tox_nm / (2 * kN);
  return s * s / nbti_c(temp_c);
}

double nbti_ratio(double alpha, const NbtiTech& tech, const NbtiPoint& at, double t_clk) {
  if (!(alpha >= 0 && alpha <= 1)) throw std::invalid_argument("NBTI model: duty outside [0, 1]");
  if (alpha == 0) return 0;
  if (t_clk <= 0) return std::pow(alpha, kN);
  const double c = nbti_c(at.temp_c), t = at.years * kSecondsPerYear;
  const double den = 2 * tech.tox_nm + std::sqrt(c * t);
  auto dvth = [&](double a) {  // up to the Kv factor
    double beta = 1 - (2 * kXi1 * tech.tox_nm + std::sqrt(kXi2 * c * (1 - a) * t_clk)) / den;
    return std::pow(std::sqrt(a * t_clk) / one_minus_root(beta), 2 * kN);
  };
  return dvth(alpha) / dvth(1);
}

}  // namespace relgpu::reliability
