// The PDN model in the loop (GPUVolt, Leng thesis §3.4, §4.2-4.3): each SM's
// per-cycle current drives the circuit of power/pdn_circuit.h, which gives
// every SM's supply each step; droop statistics per launch ("pdn").
//
// Currents: an SM's cycle draws its dynamic energy from the chip power
// model (ChipPower::cycle_nj: the same per-event energies, not a copy) over
// the cycle's time, plus its leakage as DC, divided by Vnom (power.vdd):
// the load is a current source, not a resistor, so the network stays linear
// (the thesis's superposition, §4.2, needs that). The SM's current is
// spread evenly over its 6 grid nodes. Cycles an SM skips draw its idle
// energy (pipeline with warps resident, idle-SM without), as in the power
// model. pdn.current_window > 1 (an ablation) smooths each SM's dynamic
// current by a moving mean over that many steps. The un-core (L2, NoC,
// memory controllers) is on its own PDN in the thesis (§4.6); its regions
// here draw pdn.uncore_a each (default 0).
//
// Time: the solver steps at pdn.step_mhz (one nominal cycle). A cycle's
// energy goes into the steps its time overlaps, in proportion, so SMs on
// different clocks are placed correctly. Every report advances the solver
// to the reporting SM's time: by then every SM's earlier cycles have run
// (SystemC time), and an SM that reported nothing is idle or skipping, so
// its cycles up to that time are filled with its idle energy (its later
// report of those skipped cycles is then already accounted).
//
// Droop = (Vnom - V) / Vnom at an SM's lowest node, IR drop included. The
// split (§4.3.2): a low-pass filter of each SM's droop trace (2-pole
// Butterworth at pdn.split_cutoff_mhz) is the second-order part (with the
// DC IR drop), the residual the first-order part. Emergencies: steps whose
// worst SM droop exceeds pdn.emergency_pct; each run of such steps is one
// event, classified at its peak as first- or second-order dominant (that
// part > 60% of the droop, §4.3.2) or balanced. With pdn.attribution, each
// SM's current is also solved alone (superposition, §4.3.3) to split the
// droop at each SM's lowest node into what the SM itself, its 2x2 cluster
// and all SMs cause.
//
// max_mean_ir_drop_pct: the worst SM's droop under the launch's mean
// currents (the DC solution), i.e. the IR-drop share of the droop.
// Stats keys starting "max_" combine across launches by maximum
// (gpu::add_json), the counts by sum.
#pragma once
#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <vector>

#include "common/config.h"
#include "gpu/keys.h"
#include "power/chip_power.h"
#include "power/pdn_circuit.h"
#include "sm/activity.h"

namespace relgpu::power {

PdnParams pdn_params(const config::Config& cfg);

class Pdn final : public sm::ActivityObserver {
 public:
  // Throws InputError for more SMs than the floorplan's 16 sites.
  Pdn(const config::Config& cfg, const ChipPower& power, std::vector<gpu::Clock> clocks);
  ~Pdn() override;

  void on_cycle(const sm::Activity& a, uint64_t skipped) override;
  void begin_launch(uint64_t start_ps);
  // Solves up to end_ps and returns the "pdn" section since begin_launch;
  // may be called again with a later end_ps (then it covers both).
  config::json launch_stats(uint64_t end_ps);

 private:
  struct Filter {  // 2-pole Butterworth low-pass, one per droop trace
    double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    bool primed = false;
  };
  struct Sm {
    gpu::Clock clock;
    std::array<unsigned, PdnCircuit::kSiteNodes> nodes;  // its grid nodes (the per-step loops' copy)
    uint64_t next = 0, next_ps = 0;  // first cycle not yet placed, its start
    bool resident = false;
    double leak_w = 0;
    Filter lp, lp_own, lp_cluster;
    double max_droop = 0, max_first = 0, max_second = 0;
    uint64_t emergency_steps = 0;
    double win_min = 0;  // trace window's lowest voltage
    double drawn_nj = 0;  // this launch's energy (dynamic + leakage)
    std::vector<double> recent;  // pdn.current_window: the last steps' dynamic currents (A), a ring
    double recent_sum = 0;
  };
  double filter(Filter& f, double x) const;
  void place(unsigned sm, uint64_t t0, uint64_t t1, double nj);  // energy over [t0, t1) ps
  void fill(Sm& s, unsigned id, uint64_t to_cycle);              // idle cycles [next, to_cycle)
  void advance(uint64_t t_ps);                                    // solve the steps ending by t_ps
  void solve_step();
  void close_event();
  void write_row();

  const ChipPower& power_;
  std::vector<Sm> sms_;
  PdnCircuit circuit_;
  PdnCircuit::State state_;
  std::vector<PdnCircuit::State> own_;  // pdn.attribution: each SM's current alone, VRM at 0
  gpu::Clock step_;
  uint64_t k0_ = 0;                     // next step to solve
  uint64_t step_start_ps_ = 0, step_end_ps_ = 0;  // its start and end
  std::vector<double> ring_;            // nJ per SM per step from k0_, ring_cap_ steps per SM
  uint64_t ring_cap_ = 64;             // a power of two (indices by mask)
  std::vector<double> load_m_;          // a step's grid-node currents in modal form
  double vnom_, uncore_a_, emergency_, b0_, b1_, b2_, a1_, a2_;
  // Per-launch statistics.
  uint64_t steps_ = 0, emergency_steps_ = 0, events_ = 0, dominant_[3] = {};
  double max_droop_ = 0, max_first_ = 0, max_second_ = 0, launch_ps_ = 0;
  double max_attr_[2][3] = {};          // [first, second][sm, cluster, all]
  bool in_event_ = false;
  double ev_peak_ = 0, ev_first_ = 0, ev_second_ = 0;
  // Voltage trace (pdn.trace).
  std::unique_ptr<std::ofstream> trace_;
  uint64_t trace_interval_ = 0, win_first_ = 0;
  std::vector<double> node_min_;        // pdn.trace_nodes: each grid node's lowest voltage in the window
};

}  // namespace relgpu::power
