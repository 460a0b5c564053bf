// Register-file aging over a chip's life under the three bank organisations
// of Tan et al., TPDS 2016 (Sec. 4; spec 002 §6-§7), from each SM's sub-bank
// delays under PV (rf_delay.h, with fronts) and a stress profile measured by
// a timing run: the share of cycles each vb is accessed.
//
// Stress (the paper says only "stress and recovery cycles from the
// simulator"): a sub-bank is under stress in the cycles it is accessed, a
// slow access counting 2 cycles, every entry of it alike; recovery the rest.
// vb k's duty applies to both of its sub-banks. The profile's vb index is
// what the timing run saw: the physical bank for the baseline (no BOT), the
// speed rank for PV-opt and NBTI-opt (RF-BRO writes the BOT fastest first,
// and renaming hands out vbs in that order), which is what makes one run's
// profile valid for every chip.
//   baseline: sb 2b, 2b+1 = bank b; clock = the slowest cell, aged.
//   pv_opt:   the power-on BOT pairs the sbs by PV delay, fastest first, for
//             life; clock = max(slowest sb of vbs 0-10, d_max / 2), aged.
//   nbti_opt: kernel-level re-organisation from the sub-bank sensors: at the
//             start of each of `epochs` equal slices of the life the sbs are
//             sorted by their aged delay and paired again; clock = max(the
//             22nd fastest sb, d_max / 2) after the last one.
// Guardband = aged clock period / period at time 0 - 1 (spec 002 §7's
// formalisation; for the opts time 0 is the PV-only VL-SB clock).
#pragma once
#include <string>
#include <vector>

#include "reliability/nbti.h"
#include "reliability/rf_delay.h"

namespace relgpu::reliability {

enum class Org { kBaseline, kPvOpt, kNbtiOpt };
const char* org_name(Org o);

struct AgingParams {
  Nbti nbti{Nbti::kKv};
  double years = 7;
  unsigned epochs = 14;  // nbti_opt re-organisations over the life
  double vdd = RfDelay::kVdd;
};

struct SmAging {
  double t0 = 1, t = 1;  // clock period (no PV = 1) at time 0 and at the end
  double f() const { return 1 / t; }
  double guardband() const { return t / t0 - 1; }
};

// One SM: d must hold fronts; vb_duty has d.sb.size() / 2 entries in [0, 1].
SmAging age_sm(const SbDelays& d, const std::vector<double>& vb_duty, Org org, const AgingParams& p);

}  // namespace relgpu::reliability
