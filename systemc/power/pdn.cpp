#include "power/pdn.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "power/chip_keys.h"
#include "power/pdn_keys.h"

namespace relgpu::power {

using config::json;

PdnParams pdn_params(const config::Config& cfg) {
  using namespace pdn_keys;
  PdnParams p;
  p.pcb_r = cfg.get(kPcbR) * 1e-3, p.pcb_l = cfg.get(kPcbL) * 1e-12;
  p.pcb_c = cfg.get(kPcbC) * 1e-6, p.pcb_esr = cfg.get(kPcbEsr) * 1e-3;
  p.pkg_r = cfg.get(kPkgR) * 1e-3, p.pkg_l = cfg.get(kPkgL) * 1e-12, p.pkg_c = cfg.get(kPkgC) * 1e-6;
  p.pkg_esr = cfg.get(kPkgEsr) * 1e-3, p.pkg_esl = cfg.get(kPkgEsl) * 1e-12;
  p.bump_r = cfg.get(kBumpR) * 1e-3, p.bump_l = cfg.get(kBumpL) * 1e-12, p.bumps = double(cfg.get(kBumps));
  p.grid_c = cfg.get(kGridC) * 1e-9, p.grid_esr = cfg.get(kGridEsr) * 1e-3, p.grid_r = cfg.get(kGridR) * 1e-3;
  return p;
}

static gpu::Clock step_clock(const config::Config& cfg) {
  return gpu::Clock{uint64_t(std::llround(cfg.get(pdn_keys::kStepMhz) * 1000))};
}

Pdn::Pdn(const config::Config& cfg, const ChipPower& power, std::vector<gpu::Clock> clocks)
    : power_(power),
      circuit_(pdn_params(cfg), 1e-6 / cfg.get(pdn_keys::kStepMhz)),
      step_(step_clock(cfg)),
      vnom_(cfg.get(chip_keys::kVdd)),
      uncore_a_(cfg.get(pdn_keys::kUncoreA)),
      emergency_(cfg.get(pdn_keys::kEmergencyPct)) {
  if (clocks.size() > PdnCircuit::kSites)
    throw InputError("pdn.enable: the PDN floorplan has " + std::to_string(PdnCircuit::kSites) +
                     " SM sites (power/pdn_circuit.h), gpu.num_sms is " + std::to_string(clocks.size()));
  for (unsigned i = 0; i < clocks.size(); ++i) {
    Sm s;
    s.clock = clocks[i];
    s.leak_w = power.leakage_w(i);
    std::copy_n(PdnCircuit::site_nodes(i).begin(), PdnCircuit::kSiteNodes, s.nodes.begin());
    // The window starts full of the idle current, the steady state below.
    const double idle_a = power.idle_cycle_nj(i, false) * 1e-9 * double(clocks[i].khz) * 1e3 / vnom_;
    s.recent.assign(size_t(cfg.get(pdn_keys::kCurrentWindow)), idle_a);
    s.recent_sum = idle_a * double(s.recent.size());
    sms_.push_back(s);
  }
  // The low-pass filter of the first/second-order split (bilinear, prewarped).
  const double k = std::tan(M_PI * cfg.get(pdn_keys::kSplitMhz) / cfg.get(pdn_keys::kStepMhz));
  if (!(k > 0) || cfg.get(pdn_keys::kSplitMhz) >= cfg.get(pdn_keys::kStepMhz) / 2)
    throw InputError("pdn.split_cutoff_mhz: must be below half of pdn.step_mhz (" +
                     std::to_string(cfg.get(pdn_keys::kStepMhz) / 2) + " MHz)");
  const double n = 1 / (1 + M_SQRT2 * k + k * k);
  b0_ = k * k * n, b1_ = 2 * b0_, b2_ = b0_, a1_ = 2 * (k * k - 1) * n, a2_ = (1 - M_SQRT2 * k + k * k) * n;
  ring_.assign(sms_.size() * ring_cap_, 0.0);
  load_m_.assign(PdnCircuit::kGrid, 0.0);
  std::vector<double> load(PdnCircuit::kGrid, 0.0), part(PdnCircuit::kGrid, 0.0);
  // Start in the steady state of every SM idle (no warps): no launch-start
  // transient from a circuit that was never loaded.
  for (unsigned i = 0; i < sms_.size(); ++i) {
    const double a = (power.idle_cycle_nj(i, false) * 1e-9 * double(clocks[i].khz) * 1e3 + sms_[i].leak_w) / vnom_;
    for (unsigned nd : PdnCircuit::site_nodes(i)) load[nd] += a / PdnCircuit::kSiteNodes;
  }
  for (unsigned r = 0; r < PdnCircuit::kRegions; ++r)
    for (unsigned nd : PdnCircuit::region_nodes(r)) load[nd] += uncore_a_ / PdnCircuit::kRegionNodes;
  state_ = circuit_.dc(load.data(), vnom_);
  if (cfg.get(pdn_keys::kAttribution))
    for (unsigned i = 0; i < sms_.size(); ++i) {
      std::fill(part.begin(), part.end(), 0.0);
      for (unsigned nd : sms_[i].nodes) part[nd] = load[nd];
      own_.push_back(circuit_.dc(part.data(), 0.0));
    }
  step_end_ps_ = step_.edge_ps(1);
  const std::string path = cfg.get(pdn_keys::kTrace);
  trace_interval_ = uint64_t(cfg.get(pdn_keys::kTraceInterval));
  if (!path.empty()) {
    trace_ = std::make_unique<std::ofstream>(path, std::ios::trunc);
    if (!*trace_) throw InputError(path + ": cannot open the voltage trace file (pdn.trace / --voltage-trace)");
    *trace_ << "first_step,start_ps,end_ps";
    for (unsigned i = 0; i < sms_.size(); ++i) *trace_ << ",sm" << i << "_v";
    if (cfg.get(pdn_keys::kTraceNodes)) {
      node_min_.assign(PdnCircuit::kGrid, vnom_);
      for (unsigned nd = 0; nd < PdnCircuit::kGrid; ++nd) *trace_ << ",n" << nd;
    }
    *trace_ << "\n";
    for (Sm& s : sms_) s.win_min = vnom_;
  } else if (cfg.get(pdn_keys::kTraceNodes)) {
    throw InputError("config key 'pdn.trace_nodes' needs a voltage trace (pdn.trace / --voltage-trace FILE)");
  }
}

Pdn::~Pdn() = default;

inline double Pdn::filter(Filter& f, double x) const {
  if (!f.primed) f.x1 = f.x2 = f.y1 = f.y2 = x, f.primed = true;
  const double y = b0_ * x + b1_ * f.x1 + b2_ * f.x2 - a1_ * f.y1 - a2_ * f.y2;
  f.x2 = f.x1, f.x1 = x, f.y2 = f.y1, f.y1 = y;
  return y;
}

void Pdn::on_cycle(const sm::Activity& a, uint64_t skipped) {
  Sm& s = sms_[a.sm];
  if (skipped) {
    fill(s, a.sm, a.cycle + 1 + skipped);
    return;
  }
  if (a.cycle < s.next) return;  // placed already as idle (see the header)
  fill(s, a.sm, a.cycle);
  const uint64_t t0 = a.cycle == s.next ? s.next_ps : s.clock.edge_ps(a.cycle);
  const uint64_t t1 = s.clock.edge_ps(a.cycle + 1);
  advance(t0);
  place(a.sm, t0, t1, power_.cycle_nj(a));
  s.resident = a.active_warps > 0;
  s.next = a.cycle + 1, s.next_ps = t1;
}

void Pdn::fill(Sm& s, unsigned id, uint64_t to) {
  if (to <= s.next) return;
  const uint64_t t1 = s.clock.edge_ps(to);
  place(id, s.next_ps, t1, power_.idle_cycle_nj(id, s.resident) * double(to - s.next));
  s.next = to, s.next_ps = t1;
}

void Pdn::place(unsigned sm, uint64_t t0, uint64_t t1, double nj) {
  if (t1 <= t0) return;
  // The step holding t0; most often the one being filled.
  uint64_t k = t0 >= step_start_ps_ && t0 < step_end_ps_ ? k0_ : step_.cycle_at_or_after(t0 + 1) - 1;
  if (k < k0_) k = k0_, t0 = std::max(t0, step_.edge_ps(k0_));  // late: into the next step to solve
  const double per_ps = nj / double(t1 - t0);
  for (uint64_t t = t0; t < t1; ++k) {
    if (k - k0_ >= ring_cap_) {  // a slow SM clock spans many steps: widen the ring
      std::vector<double> wide(sms_.size() * ring_cap_ * 2, 0.0);
      for (unsigned i = 0; i < sms_.size(); ++i)
        for (uint64_t j = k0_; j < k0_ + ring_cap_; ++j)
          wide[i * ring_cap_ * 2 + j % (ring_cap_ * 2)] = ring_[i * ring_cap_ + j % ring_cap_];
      ring_.swap(wide);
      ring_cap_ *= 2;
    }
    const uint64_t end = std::min(t1, k == k0_ ? step_end_ps_ : step_.edge_ps(k + 1));
    ring_[sm * ring_cap_ + (k & (ring_cap_ - 1))] += per_ps * double(end - t);
    t = end;
  }
}

void Pdn::advance(uint64_t t) {
  if (t < step_end_ps_) return;
  for (unsigned i = 0; i < sms_.size(); ++i)
    if (sms_[i].next_ps < t) fill(sms_[i], i, sms_[i].clock.cycle_at_or_after(t));
  while (step_end_ps_ <= t) solve_step();
}

void Pdn::solve_step() {
  const double dt = double(step_end_ps_ - step_start_ps_);  // ps
  double site_a[PdnCircuit::kSites] = {}, region_a[PdnCircuit::kRegions];
  for (unsigned i = 0; i < sms_.size(); ++i) {
    double& e = ring_[i * ring_cap_ + (k0_ & (ring_cap_ - 1))];
    Sm& s = sms_[i];
    double dyn = e / dt * 1e3 / vnom_;  // nJ/ps = 1e3 W
    if (s.recent.size() > 1) {  // pdn.current_window: the mean of the last steps
      double& old = s.recent[k0_ % s.recent.size()];
      s.recent_sum += dyn - old;
      old = dyn;
      dyn = s.recent_sum / double(s.recent.size());
    }
    site_a[i] = dyn + s.leak_w / vnom_;
    s.drawn_nj += e + s.leak_w * dt * 1e-3;
    e = 0;
  }
  std::fill(std::begin(region_a), std::end(region_a), uncore_a_);
  // The rows without SM sites matter only to the node trace.
  const bool sites_only = node_min_.empty();
  PdnCircuit::sites_to_modal(site_a, region_a, load_m_.data());
  circuit_.step_modal(state_, load_m_.data(), vnom_);
  PdnCircuit::voltages(state_, sites_only);
  for (unsigned i = 0; i < own_.size(); ++i) {
    double one[PdnCircuit::kSites] = {}, none[PdnCircuit::kRegions] = {};
    one[i] = site_a[i];
    PdnCircuit::sites_to_modal(one, none, load_m_.data());
    circuit_.step_modal(own_[i], load_m_.data(), 0.0);
    PdnCircuit::voltages(own_[i], true);
  }
  ++steps_;
  for (unsigned nd = 0; nd < node_min_.size(); ++nd) node_min_[nd] = std::min(node_min_[nd], state_.v[nd]);
  double worst = 0, worst_first = 0, worst_second = 0;
  for (unsigned i = 0; i < sms_.size(); ++i) {
    Sm& s = sms_[i];
    const double* vs = state_.v.data();
    unsigned low = s.nodes[0];
    for (unsigned k = 1; k < PdnCircuit::kSiteNodes; ++k)
      if (vs[s.nodes[k]] < vs[low]) low = s.nodes[k];
    const double v = vs[low], d = (vnom_ - v) / vnom_ * 100;
    const double second = filter(s.lp, d), first = d - second;
    s.max_droop = std::max(s.max_droop, d);
    s.max_first = std::max(s.max_first, first);
    s.max_second = std::max(s.max_second, second);
    if (d > emergency_) ++s.emergency_steps;
    if (d > worst) worst = d, worst_first = first, worst_second = second;
    if (trace_) s.win_min = std::min(s.win_min, v);
    if (!own_.empty()) {  // what the SM, its cluster and all SMs cause at its lowest node
      double own = 0, cluster = 0;
      for (unsigned j = 0; j < own_.size(); ++j) {
        const double c = -own_[j].v[low] / vnom_ * 100;
        if (j == i) own = c;
        if (PdnCircuit::cluster_of(j) == PdnCircuit::cluster_of(i)) cluster += c;
      }
      const double parts[3][2] = {{own, filter(s.lp_own, own)}, {cluster, filter(s.lp_cluster, cluster)}, {d, second}};
      for (unsigned c = 0; c < 3; ++c) {
        max_attr_[0][c] = std::max(max_attr_[0][c], parts[c][0] - parts[c][1]);
        max_attr_[1][c] = std::max(max_attr_[1][c], parts[c][1]);
      }
    }
  }
  max_droop_ = std::max(max_droop_, worst);
  max_first_ = std::max(max_first_, worst_first);
  max_second_ = std::max(max_second_, worst_second);
  if (worst > emergency_) {
    ++emergency_steps_;
    if (!in_event_) in_event_ = true, ev_peak_ = 0;
    if (worst > ev_peak_) ev_peak_ = worst, ev_first_ = worst_first, ev_second_ = worst_second;
  } else {
    close_event();
  }
  launch_ps_ += dt;
  ++k0_;
  step_start_ps_ = step_end_ps_;
  step_end_ps_ = step_.edge_ps(k0_ + 1);
  if (trace_ && (k0_ - win_first_) >= trace_interval_) write_row();
}

void Pdn::close_event() {
  if (!in_event_) return;
  in_event_ = false;
  ++events_;
  // Dominant: that order's part is over 60% of the droop (thesis §4.3.2).
  ++dominant_[ev_first_ > 0.6 * ev_peak_ ? 0 : ev_second_ > 0.6 * ev_peak_ ? 1 : 2];
}

void Pdn::write_row() {
  *trace_ << win_first_ << "," << step_.edge_ps(win_first_) << "," << step_.edge_ps(k0_);
  for (Sm& s : sms_) *trace_ << "," << s.win_min, s.win_min = vnom_;
  for (double& v : node_min_) *trace_ << "," << v, v = vnom_;
  *trace_ << "\n";
  win_first_ = k0_;
}

void Pdn::begin_launch(uint64_t start_ps) {
  advance(start_ps);
  steps_ = emergency_steps_ = events_ = 0;
  launch_ps_ = 0;
  std::fill(std::begin(dominant_), std::end(dominant_), 0);
  max_droop_ = max_first_ = max_second_ = 0;
  for (auto& m : max_attr_) std::fill(std::begin(m), std::end(m), 0.0);
  for (Sm& s : sms_) s.max_droop = s.max_first = s.max_second = s.drawn_nj = 0, s.emergency_steps = 0;
}

json Pdn::launch_stats(uint64_t end_ps) {
  advance(end_ps);
  close_event();
  if (trace_) trace_->flush();
  // The IR drop of the launch's mean currents (DC solution): how much of
  // the droop a steady load would cause.
  double drawn = 0, ir = 0;
  std::vector<double> mean(PdnCircuit::kGrid, 0.0);
  for (unsigned i = 0; i < sms_.size(); ++i) {
    drawn += sms_[i].drawn_nj;
    const double a = launch_ps_ > 0 ? sms_[i].drawn_nj / launch_ps_ * 1e3 / vnom_ : 0.0;
    for (unsigned nd : PdnCircuit::site_nodes(i)) mean[nd] = a / PdnCircuit::kSiteNodes;
  }
  for (unsigned r = 0; r < PdnCircuit::kRegions; ++r)
    for (unsigned nd : PdnCircuit::region_nodes(r)) mean[nd] = uncore_a_ / PdnCircuit::kRegionNodes;
  if (launch_ps_ > 0) {
    const PdnCircuit::State dc = circuit_.dc(mean.data(), vnom_);
    for (unsigned i = 0; i < sms_.size(); ++i)
      for (unsigned nd : PdnCircuit::site_nodes(i)) ir = std::max(ir, (vnom_ - dc.v[nd]) / vnom_ * 100);
  }
  json sms = json::array();
  for (const Sm& s : sms_)
    sms.push_back({{"max_droop_pct", s.max_droop},
                   {"max_first_order_pct", s.max_first},
                   {"max_second_order_pct", s.max_second},
                   {"emergency_steps", s.emergency_steps}});
  json p = {{"steps", steps_},
            {"sm_energy_nj", drawn},  // what the SMs drew from the PDN: the power model's SM energy
            {"max_mean_ir_drop_pct", ir},
            {"max_droop_pct", max_droop_},
            {"max_first_order_pct", max_first_},
            {"max_second_order_pct", max_second_},
            {"emergency_steps", emergency_steps_},
            {"emergency_events", events_},
            {"emergencies_by_order",
             {{"first_order", dominant_[0]}, {"second_order", dominant_[1]}, {"balanced", dominant_[2]}}},
            {"sms", std::move(sms)}};
  if (!own_.empty()) {
    const char* order[2] = {"first_order", "second_order"};
    const char* scope[3] = {"max_sm_pct", "max_cluster_pct", "max_all_pct"};
    for (unsigned o = 0; o < 2; ++o)
      for (unsigned c = 0; c < 3; ++c) p["attribution"][order[o]][scope[c]] = max_attr_[o][c];
  }
  return p;
}

}  // namespace relgpu::power
