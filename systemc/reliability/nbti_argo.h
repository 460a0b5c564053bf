// NBTI aging of an SRAM cell's PMOS from its stress duty (ARGO, Namaki-
// Shoushtari et al., §4, Eq. 1-4; the closed form and constants are those of
// the model ARGO cites as [5], Wang et al., TVLSI 2010, and [6], Bhardwaj et
// al., CICC 2006: ARGO names the constants but gives no values).
//
// In a powered 6T cell one PMOS is always under stress, whatever it stores,
// so a row's stress duty alpha is the fraction of time it is powered; a
// power-gated row recovers. Periodic stress (duty alpha, period T_clk) for a
// total time t gives (the cycle-by-cycle recursion of Eq. 3-4 in closed form)
//   dVth(t) = ( sqrt(Kv^2 alpha T_clk) / (1 - beta^(1/2n)) )^(2n)
//   beta    = 1 - (2 xi1 te + sqrt(xi2 C (1-alpha) T_clk)) / (2 tox + sqrt(C t))
//   C       = exp(-Ea / kT) / T0,  n = 1/6 (H2 diffusion, ARGO §4).
// ARGO compares allocators by the ratio dVth(alpha) / dVth(1), in which Kv
// (the field, Vdd and Vth dependence, whose device inputs the paper does
// not give) cancels. What is left depends on alpha, the node's oxide
// (te = tox), T and T_clk. ARGO reports only "insensitive to frequency
// above 100 Hz", so T_clk is a choice; two are offered (our choices):
//  - high_freq: T_clk -> 0, where the ratio is alpha^n;
//  - dc_matched: the T_clk at which the periodic form at alpha = 1 equals
//    steady DC stress (Eq. 1 with no time-0 shift, (Kv sqrt t)^(2n)), so
//    that the always-powered baseline is the same in both forms:
//    for t >> T_clk, sqrt(C T_clk) = 2 xi1 te / 2n = 6 xi1 te (nbti.cpp).
#pragma once

namespace relgpu::reliability {

struct NbtiTech {
  const char* name;
  double tox_nm;  // oxide thickness, also te (PTM bulk pmos, see nbti.cpp)
};
// The two nodes ARGO evaluates (PTM 45 nm and 65 nm bulk).
const NbtiTech& nbti_tech(int node_nm);  // 45 or 65; throws otherwise

struct NbtiPoint {
  double temp_c = 110;  // ARGO Fig. 10's hot corner
  double years = 5;     // ARGO's horizon
};

// C(T) in nm^2/s.
double nbti_c(double temp_c);
// The dc_matched stress period (s) of a node at a temperature.
double nbti_dc_matched_period(const NbtiTech& tech, double temp_c);
// dVth(alpha) / dVth(alpha = 1) for periodic stress of period t_clk (s);
// t_clk <= 0: the high-frequency limit alpha^n.
double nbti_ratio(double alpha, const NbtiTech& tech, const NbtiPoint& at, double t_clk);

}  // namespace relgpu::reliability
