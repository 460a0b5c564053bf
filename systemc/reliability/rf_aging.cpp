#include "reliability/rf_aging.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace relgpu::reliability {

const char* org_name(Org o) {
  switch (o) {
    case Org::kBaseline: return "baseline";
    case Org::kPvOpt: return "pv_opt";
    case Org::kNbtiOpt: return "nbti_opt";
  }
  return "?";
}

namespace {

struct Sm {
  const SbDelays& d;
  const AgingParams& p;
  double life;  // seconds

  // Sub-bank sb's delay after `t` seconds, `ts` of them under stress.
  double delay(unsigned sb, double ts, double t) const {
    double m = 0;
    for (const CellPv& c : d.front[sb])
      m = std::max(m, RfDelay::cell_delay(p.nbti.dvth(c.dvth, ts, t), c.dleff, p.vdd));
    return m;
  }
  std::vector<double> delays(const std::vector<double>& ts, double t) const {
    std::vector<double> dl(ts.size());
    for (unsigned s = 0; s < ts.size(); ++s) dl[s] = t > 0 ? delay(s, ts[s], t) : d.sb[s];
    return dl;
  }
};

// Sub-banks fastest first, the lower id first on a tie (as the BOT's sorter).
std::vector<unsigned> rank(const std::vector<double>& dl) {
  std::vector<unsigned> o(dl.size());
  std::iota(o.begin(), o.end(), 0u);
  std::stable_sort(o.begin(), o.end(), [&](unsigned a, unsigned b) { return dl[a] < dl[b]; });
  return o;
}

// A variable-latency clock: the slowest sb of the fast vbs (pairs 0 ..
// n_fast / 2 - 1 of `order`), no shorter than half the slowest sb.
double vl_period(const std::vector<double>& dl, const std::vector<unsigned>& order) {
  const unsigned nfast = RfDelay::fast_count(dl.size());
  double m = 0;
  for (unsigned i = 0; i < nfast; ++i) m = std::max(m, dl[order[i]]);
  return std::max(m, *std::max_element(dl.begin(), dl.end()) / 2);
}

}  // namespace

SmAging age_sm(const SbDelays& d, const std::vector<double>& vb_duty, Org org, const AgingParams& p) {
  const unsigned nsb = unsigned(d.sb.size());
  if (d.front.size() != nsb) throw std::logic_error("age_sm: the sub-bank delays were built without fronts");
  if (vb_duty.size() * 2 != nsb) throw std::logic_error("age_sm: one duty per vb needed");
  const Sm sm{d, p, p.years * Nbti::kSecondsPerYear};
  std::vector<double> ts(nsb, 0.0);
  SmAging r;
  if (org == Org::kBaseline) {
    for (unsigned s = 0; s < nsb; ++s) ts[s] = vb_duty[s / 2] * sm.life;
    r.t0 = *std::max_element(d.sb.begin(), d.sb.end());
    const auto dl = sm.delays(ts, sm.life);
    r.t = *std::max_element(dl.begin(), dl.end());
    return r;
  }
  std::vector<unsigned> order = rank(d.sb);
  r.t0 = vl_period(d.sb, order);
  // PV-opt keeps the test-time pairing: stress is linear in time, one step.
  const unsigned epochs = org == Org::kNbtiOpt ? std::max(1u, p.epochs) : 1;
  for (unsigned e = 0; e < epochs; ++e) {
    const double t = sm.life * e / epochs;
    if (org == Org::kNbtiOpt && e > 0) order = rank(sm.delays(ts, t));
    for (unsigned k = 0; k < nsb; ++k) ts[order[k]] += vb_duty[k / 2] * sm.life / epochs;
  }
  const auto dl = sm.delays(ts, sm.life);
  if (org == Org::kNbtiOpt) order = rank(dl);
  r.t = vl_period(dl, order);
  return r;
}

}  // namespace relgpu::reliability
