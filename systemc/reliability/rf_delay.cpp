#include "reliability/rf_delay.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.h"
#include "reliability/keys.h"
#include "reliability/shared_cache.h"

namespace relgpu::reliability {

// The one fitted constant: the supply in the alpha-power law, with Vth0 =
// 0.35 V. Fitted to one number, the paper's mean baseline frequency of 0.60
// of no PV at sigma 1:1, on the paper's RF and floorplan rf_block, in 0.01 V
// steps over 100 chips (seeds 1000-1099): 0.84 V gives 0.599, 0.85 V 0.605
// (0.83 V: 0.590 on 20 chips). The 32-nm node's nominal 0.9 V (ITRS, high
// performance) would give about 0.63. Everything else in
// docs/results/rf_delay_calibration.md is a prediction with this constant.
const double RfDelay::kVdd = 0.84;

Scheme parse_scheme(const std::string& text, const std::string& key) {
  if (text == "baseline") return Scheme::kBaseline;
  if (text == "vl_rf") return Scheme::kVlRf;
  if (text == "vl_rv") return Scheme::kVlRv;
  if (text == "vl_sb") return Scheme::kVlSb;
  throw InputError("config key '" + key + "' = \"" + text + "\" must be one of 'baseline', 'vl_rf', 'vl_rv', 'vl_sb'");
}

RfGeometry paper_rf_geometry() {
  RfGeometry g;
  g.sms = 15, g.banks = 16, g.rows = 64, g.entry_bits = 1024;
  return g;
}

double SbDelays::f(Scheme s) const {
  switch (s) {
    case Scheme::kBaseline: return f_base;
    case Scheme::kVlRf: return f_vlrf;
    case Scheme::kVlRv: return f_vlrv;
    case Scheme::kVlSb: return f_vlsb;
  }
  return f_base;
}

unsigned SbDelays::slow_banks() const {
  unsigned n = 0;
  for (size_t b = 0; 2 * b + 1 < slow.size(); ++b) n += slow[2 * b] || slow[2 * b + 1];
  return n;
}

double RfDelay::cell_delay(double dvth, double dleff, double vdd) {
  const double ov = vdd - Variation::kVthNom;
  // Overdrive stays positive: |dVth| <= 8.3 sigma (the draws' range) + the
  // field's few sigma, well under 0.5 V.
  return (1 + dleff) * std::pow(ov / (ov - dvth), Variation::kAlpha);
}

namespace {

// The n_fast-th fastest of `d` (a copy: nth_element reorders it).
double kth_fastest(std::vector<double> d) {
  const unsigned k = std::max(1u, RfDelay::fast_count(d.size()));
  std::nth_element(d.begin(), d.begin() + (k - 1), d.end());
  return d[k - 1];
}

// Clock period of a variable-latency scheme: the n_fast-th fastest unit, but
// no shorter than half the slowest cell (2 cycles must fit every access).
double vl_period(const std::vector<double>& d, double dmax) { return std::max(kth_fastest(d), dmax / 2); }

}  // namespace

std::shared_ptr<const RfDelay> RfDelay::shared(const config::Config& cfg, const RfGeometry& g) {
  const std::string k = std::to_string(cfg.get(kChipSeed)) + '|' + cfg.get(kSigmaRatio) + '|' + cfg.get(kFloorplan) +
                        '|' + std::to_string(g.sms) + ',' + std::to_string(g.banks) + ',' + std::to_string(g.rows) +
                        ',' + std::to_string(g.entry_bits);
  return shared_by_key<RfDelay>(k, [&] { return std::make_shared<const RfDelay>(cfg, g); });
}

RfDelay::RfDelay(const config::Config& cfg, const RfGeometry& g)
    : RfDelay(uint64_t(cfg.get(kChipSeed)), parse_sigma_ratio(cfg.get(kSigmaRatio), kSigmaRatio.name), g,
              parse_floorplan(cfg.get(kFloorplan), kFloorplan.name)) {}

namespace {
// Adds (v, l) to a Pareto front kept sorted by dvth descending (so dleff
// ascending): dominated iff some point has dvth >= v and dleff >= l.
void add_to_front(std::vector<CellPv>& f, float v, float l) {
  size_t i = 0;
  while (i < f.size() && f[i].dvth >= v) ++i;  // f[0, i): dvth >= v
  if (i > 0 && f[i - 1].dleff >= l) return;
  // Drop the points the new one dominates: dvth <= v and dleff <= l.
  size_t j = i;
  while (j < f.size() && f[j].dleff <= l) ++j;
  f.erase(f.begin() + i, f.begin() + j);
  f.insert(f.begin() + i, CellPv{v, l});
}
}  // namespace

RfDelay::RfDelay(uint64_t seed, SigmaSplit split, const RfGeometry& g, Floorplan fp, double vdd, bool keep_fronts)
    : g_(g) {
  const unsigned bits = g.entry_bits, rows = g.rows, regs = bits / 32, nsb = 2 * g.banks;
  const unsigned entries = g.banks * rows;
  // Two sub-banks of whole 32-bit registers per bank; arrays of rows / 2
  // entries (VL-RV: as many arrays as sub-banks).
  if (bits % 64 || rows % 2)
    throw InputError("RF delay model: rf.entry_bits = " + std::to_string(bits) + " and rf.entries_per_bank = " +
                     std::to_string(rows) + " must be a multiple of 64 and even");
  Variation var(seed, split, g, fp);
  std::vector<float> dvth(g.cells_per_sm()), dleff(g.cells_per_sm());
  std::vector<double> reg(size_t(entries) * regs), entry(entries);
  for (unsigned s = 0; s < g.sms; ++s) {
    var.read_vth_leff(s, dvth.data(), dleff.data());
    SbDelays d;
    d.sb.assign(nsb, 0.0);
    d.half.assign(size_t(nsb) * rows, 0.0);
    if (keep_fronts) d.front.assign(nsb, {});
    for (unsigned e = 0; e < entries; ++e) {
      const unsigned b = e / rows, r = e % rows;
      double emax = 0;
      for (unsigned l = 0; l < regs; ++l) {
        size_t c = (size_t(e) * bits) + l * 32;
        double m = 0;
        for (unsigned i = 0; i < 32; ++i) m = std::max(m, cell_delay(dvth[c + i], dleff[c + i], vdd));
        reg[size_t(e) * regs + l] = m;
        const unsigned sb = 2 * b + l / (regs / 2);
        if (keep_fronts)
          for (unsigned i = 0; i < 32; ++i) add_to_front(d.front[sb], dvth[c + i], dleff[c + i]);
        double& h = d.half[size_t(sb) * rows + r];
        h = std::max(h, m);
        emax = std::max(emax, m);
      }
      entry[e] = emax;
    }
    for (unsigned sb = 0; sb < nsb; ++sb)
      d.sb[sb] = *std::max_element(d.half.begin() + size_t(sb) * rows, d.half.begin() + size_t(sb + 1) * rows);
    const double dmax = *std::max_element(d.sb.begin(), d.sb.end());
    auto [lo, hi] = std::minmax_element(reg.begin(), reg.end());
    d.reg_min = *lo, d.reg_max = *hi;
    // VL-RV arrays: nsb runs of consecutive entries (32 RVs of one bank).
    std::vector<double> arr(nsb, 0.0);
    for (unsigned e = 0; e < entries; ++e) arr[e / (entries / nsb)] = std::max(arr[e / (entries / nsb)], entry[e]);
    // VL-SB: rank sbs fastest first, lower id first on a tie.
    std::vector<unsigned> rank(nsb);
    std::iota(rank.begin(), rank.end(), 0u);
    std::stable_sort(rank.begin(), rank.end(), [&](unsigned a, unsigned b) { return d.sb[a] < d.sb[b]; });
    d.slow.assign(nsb, false);
    for (unsigned i = RfDelay::fast_count(nsb); i < nsb; ++i) d.slow[rank[i]] = true;
    d.f_base = 1 / dmax;
    // VL-RF: registers slower than the n_fast-th take 2 cycles (ties stay fast).
    const double reg_k = kth_fastest(reg);
    d.f_vlrf = 1 / std::max(reg_k, dmax / 2);
    d.reg_slow.resize(reg.size());
    for (size_t i = 0; i < reg.size(); ++i) d.reg_slow[i] = reg[i] > reg_k;
    d.f_vlrv = 1 / vl_period(arr, dmax);
    d.f_vlsb = 1 / vl_period(d.sb, dmax);
    sm_.push_back(std::move(d));
  }
}

double RfDelay::chip_f(Scheme s) const {
  double sum = 0;
  for (const auto& d : sm_) sum += d.f(s);
  return sum / double(sm_.size());
}

}  // namespace relgpu::reliability
