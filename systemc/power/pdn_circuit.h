// The power-delivery network as an RLC circuit (GPUVolt, Leng thesis §3.4):
//
//   VRM --Rpcb,Lpcb-- P --Rpkg,Lpkg-- K ==bumps (R,L each)== 144 grid nodes
//                     |               |                      | Cdie each,
//                  ESR+Cpcb      ESR+ESL+Cpkg                | Rgrid between
//                     |               |                      | neighbours
//                    gnd             gnd                    gnd
//
// The die is a 12x12 grid (node = row*12 + col). Floorplan (thesis §3.4:
// SM 2x3 nodes, L2/NoC/MC 4x6; GF100 has 16 SM sites in 4 clusters of 4,
// the GTX 480 uses 15, so site 15 is present but draws nothing):
//
//        col 0  1  2  3  4  5  6  7  8  9 10 11
//   row 0,1   [ S0   ][ S1   ][ S2   ][ S3   ]
//   row 2,3   [ S4   ][ S5   ][ S6   ][ S7   ]
//   row 4-7   [ L2/NoC/MC A  ][ L2/NoC/MC B  ]
//   row 8,9   [ S8   ][ S9   ][ S10  ][ S11  ]
//   row 10,11 [ S12  ][ S13  ][ S14  ][ S15  ]
//
// Clusters of 4 adjacent SMs (thesis §4.3.3, 1-based "cores 1, 2, 5, 6"): the 2x2
// blocks {0,1,4,5}, {2,3,6,7}, {8,9,12,13}, {10,11,14,15}.
//
// Elements: every element is a series R-L-C branch between two nodes (or a
// node and ground / the VRM), integrated with the trapezoidal rule at a
// fixed step h: each branch is a conductance plus a history current.
//
// Time stepping in modal form: the grid's elements are uniform (every node
// has the same bump, the same die capacitor, the same resistor to each
// neighbour), so the 2-D DCT-II, the eigenbasis of the free-edged grid's
// Laplacian, turns the 144 coupled grid nodes into 144 independent modes.
// Only the uniform mode couples to the package node K, so each step is a
// 3x3 solve (uniform mode, K, P) plus one division per mode: no sparse
// solve, no dependency chain. The transforms use the DCT's even/odd
// symmetry (two 6x6 products per 12-point transform). The DC solution and
// the AC impedance stay nodal (envelope Cholesky, dense complex solve): they
// run rarely and check the modal form (systemc/tests/power_pdn_test.cpp also checks
// it against a dense nodal stepper).
#pragma once
#include <complex>
#include <cstdint>
#include <vector>

namespace relgpu::power {

struct PdnParams {  // SI units; the values: power/pdn_keys.h (pdn_params in power/pdn.h)
  double pcb_r, pcb_l, pcb_c, pcb_esr;
  double pkg_r, pkg_l, pkg_c, pkg_esr, pkg_esl;
  double bump_r, bump_l, bumps;
  double grid_c, grid_esr, grid_r;
};

class PdnCircuit {
 public:
  static constexpr unsigned kSide = 12, kGrid = kSide * kSide, kSites = 16, kSiteNodes = 6, kClusters = 4;
  static constexpr unsigned kRegions = 2, kRegionNodes = 24;
  // Grid nodes of SM site s (6) and of un-core region r (24).
  static const std::vector<unsigned>& site_nodes(unsigned s);
  static const std::vector<unsigned>& region_nodes(unsigned r);
  static unsigned cluster_of(unsigned site);

  // The circuit's state. Several states share one circuit.
  struct State {
    std::vector<double> v;               // node voltages: kGrid grid nodes (as of the last step() or
                                         // voltages()), then K and P (always current)
    std::vector<double> vm, ib, ic, vc;  // the grid in modal form (kGrid each): voltage, bump current,
                                         // die capacitor current and voltage
    std::vector<double> i, vcp;          // the package branches: current, capacitor voltage
  };

  PdnCircuit(const PdnParams& p, double step_s);

  // The steady state (inductors shorted, capacitors open) under constant
  // grid-node currents `load` (A drawn to ground, kGrid of them) with the
  // VRM at vrm volts.
  State dc(const double* load, double vrm) const;
  // One step: `load` is each grid node's current over the step (A); every
  // node voltage is current afterwards.
  void step(State& s, const double* load, double vrm) const;
  // The same in modal form: `load_m` is to_modal() of the loads. Only the
  // modal state, K and P move; voltages() gives the grid nodes.
  void step_modal(State& s, const double* load_m, double vrm) const;
  // Grid-node quantities (kGrid, row-major) to modal form and back. With
  // sites_only, voltages() fills only the SM sites' rows (0-3, 8-11).
  static void to_modal(const double* node, double* modal);
  // to_modal() of the loads that draw site_a[s] (A) evenly over SM site s's
  // nodes and region_a[r] over un-core region r's: the floorplan's blocks are
  // separable, so this takes about a third of the general transform's
  // instructions.
  static void sites_to_modal(const double* site_a, const double* region_a, double* modal);
  static void voltages(State& s, bool sites_only = false);
  // Small-signal impedance (Ohm) at f_hz seen by a current drawn from the
  // given grid nodes in equal shares: the mean voltage over those nodes
  // per ampere. Exact AC analysis of the same circuit (no time stepping).
  std::complex<double> impedance(double f_hz, const std::vector<unsigned>& nodes) const;

  unsigned unknowns() const { return n_; }
  double step_s() const { return h_; }

 private:
  // A branch from node a to node b (b: kGnd or kVrm); c = 0: no capacitor.
  struct Branch {
    int a, b;
    double r, l, c;
    double g = 0, k = 0, hc = 0;  // 1/Z_eq, history coefficient, h/2C
  };
  static constexpr int kGnd = -1, kVrm = -2;
  void add(int a, int b, double r, double l, double c);
  struct Envelope {  // symmetric positive definite, lower envelope by rows (the DC solve)
    std::vector<unsigned> first;
    std::vector<size_t> start;  // row i's entries [first[i], i] at start[i]
    std::vector<double> x, inv;  // entries; 1 / diagonal
    void init(unsigned n, const std::vector<unsigned>& first);
    double& at(unsigned i, unsigned j) { return x[start[i] + (j - first[i])]; }
    void factor();
    void solve(double* b) const;
  };

  double h_;
  unsigned n_ = 0;  // grid nodes, then K, then P
  std::vector<Branch> br_;
  size_t bumps_ = 0, caps_ = 0, pkg_ = 0;  // kGrid bumps (node -> K), kGrid die capacitors (node -> ground),
                                           // then the package branches
  Envelope dc_;
  std::vector<double> inv_g_;  // modal form: 1 / each mode's conductance (the uniform mode's: unused)
  double m3_[3][3] = {};       // the inverse of the (uniform mode, K, P) block
};

}  // namespace relgpu::power
