// The chip power model (GPUWattch-style, Leng thesis Eq. 3.1/3.6):
//   P = sum_i E_i x events_i / T  +  sum_c P_leak,c(V)  +  P_const
// SM side: an ActivityObserver on every SM counts, per cycle, the warp
// instructions issued by class, RF bank-entry reads and writes, operand
// collectors held, L1D, shared, constant and instruction-cache accesses,
// and cycles with or without resident warps (pipeline / idle-SM power).
// Memory side: the launch's counters (crossbar flits, DRAM requests,
// activates, precharges, bytes, refreshes by time) and the L2 account of
// power/l2_energy.h (LoSCache gating included). The RF and GR-Guard's
// patching unit are the accounts of power/rf_energy.h (undervolting and
// patch accesses included), so those studies' energies are parts of this
// chip total. Keys and sources: power/chip_keys.h.
//
// Dynamic energy scales with (Vdd/Vnom)^2 and is per event, so a clock
// change moves dynamic power (events per second) and not dynamic energy;
// leakage and constant power are per second, so their energy follows the
// run's simulated time.
//
// The per-SM trace (power.trace) has one row per SM per window of
// power.trace_interval of that SM's cycles: the SM's dynamic energy by
// component, its leakage (SM logic + RF) and average power. A launch ends
// each SM's open window, so rows never straddle launches; the rows' energy
// sums to the stats' sm_dynamic_nj / sm_leakage_nj. An SM's launch runs
// from the first edge at or after its start to the first at or after its
// end, plus the edge at the end itself if the SM ran it (the cycle that
// finished the kernel): one cycle more than the SM's kernel_cycles then.
#pragma once
#include <cstdint>
#include <fstream>
#include <memory>
#include <vector>

#include "common/config.h"
#include "gpu/keys.h"
#include "sm/activity.h"

namespace relgpu::power {

class ChipPower final : public sm::ActivityObserver {
 public:
  enum Ev : unsigned { int_, fp, sfu, ldst, rf_read, rf_write, oc, l1d, shared, const_, icache, active, idle, kEvents };
  static const char* const kEvName[kEvents];
  struct SmSide {
    gpu::Clock clock;
    double rf_vdd = 1.0;       // the RF's supply (Vnom = 1)
    unsigned rf_entry_bits = 128;
  };
  ChipPower(const config::Config& cfg, std::vector<SmSide> sms, unsigned channels);
  ~ChipPower() override;

  void on_cycle(const sm::Activity& a, uint64_t skipped) override;
  // One SM's energies at its supplies, for the PDN (power/pdn.h): the
  // dynamic energy (nJ) of the cycle `a` reports, of a cycle it skips
  // (warps resident or not), and its leakage (W, SM logic + RF).
  double cycle_nj(const sm::Activity& a) const;
  double idle_cycle_nj(unsigned sm, bool resident) const { return sms_[sm].e[resident ? active : idle]; }
  double leakage_w(unsigned sm) const { return sms_[sm].leak_w; }
  // A launch starts at start_ps: per-launch counts restart.
  void begin_launch(uint64_t start_ps);
  // Accounts every SM up to end_ps (idle tail included), ends the trace
  // rows and returns the "power" section; `d` is the launch's stats
  // (energy, l2_energy, dram, icnt). May be called again with a later
  // end_ps (the L2 flush extends a launch): then it covers both.
  config::json launch_stats(const config::json& d, uint64_t start_ps, uint64_t end_ps);

 private:
  struct Sm {
    SmSide side;
    double e[kEvents];           // nJ per event at this SM's supplies
    double leak_w = 0;           // SM logic + RF at their supplies
    uint64_t first = 0;          // the launch's first accounted cycle
    uint64_t next = 0;           // first cycle not yet accounted
    bool resident = false;       // warps resident in the last accounted cycle
    uint64_t win_start = 0, win_end = 0;
    uint64_t win[kEvents] = {}, tot[kEvents] = {};
    // The last counted cycle's events: cycle_nj reuses them when the PDN
    // (an observer added after this one) asks for the same cycle.
    uint64_t last_cycle = ~uint64_t(0), last[kEvents] = {};
  };
  void span(Sm& s, uint64_t from, uint64_t to);  // cycles with no events
  void roll(Sm& s, uint64_t c);                  // close the window, open the one holding cycle c
  void close(Sm& s);                             // close the window, none opened
  double dynamic_nj(const Sm& s, const uint64_t* n) const;
  static void count(const sm::Activity& a, uint64_t* n);  // adds one cycle's events
  void write_row(const Sm& s, unsigned id);

  std::vector<Sm> sms_;
  unsigned channels_;
  uint64_t interval_;
  double v2_, leak_scale_;
  double constant_w_, flit_nj_, mc_nj_, l2_access_nj_, mc_w_, act_nj_, pre_nj_, rd_nj_, wr_nj_, ref_nj_, trefi_s_;
  double leak_icnt_w_, leak_mc_w_, leak_sm_w_;
  std::unique_ptr<std::ofstream> trace_;
};

// Average powers (W) beside the energies of a "power" section, from its
// time_ps: after per-launch stats and again after the run's sum.
void derive_power(config::json& p);

}  // namespace relgpu::power
