#include "reliability/variation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "common/error.h"

namespace relgpu::reliability {

// The one fitted constant: the write margin above VthNOM of a cell without
// variation. Fitted to one number, the paper's mean Vdd drop at 1% cell
// failure at sigma 4:1, 188 mV (Fig. 6.2), on the default GTX480 geometry and
// floorplan (rf_block), in 5 mV steps over 100 chips: 0.095 V gives 188.6 mV,
// 0.100 V 187.3, 0.105 V 186.0 (the drop depends weakly on it). Every other
// calibration point (the 1:4 and 1:1 drops, the faulty-entry fractions,
// sm_tiles) is a prediction of the model with this constant, not a fit
// (docs/results/pv_calibration.md).
const double Variation::kWriteMargin = 0.095;

namespace {

// splitmix64 (Steele et al., OOPSLA 2014): output `i` of the stream keyed by
// `key` is mix(key + (i+1) * golden). Counter based, so every cell's draws
// are independent of the order cells are generated in.
inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
inline uint64_t draw(uint64_t key, uint64_t i) { return mix(key + (i + 1) * kGolden); }
// Uniform in (0, 1) from the top 53 bits.
inline double uniform(uint64_t h) { return (double(h >> 11) + 0.5) * 0x1.0p-53; }

// Inverse standard normal CDF, P. J. Acklam's rational approximation
// (relative error < 1.2e-9 over (0, 1), tails included).
double inv_normal(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  constexpr double lo = 0.02425, hi = 1 - lo;
  if (p < lo) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > hi) {
    double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// Lower Cholesky factor of the lattice covariance, per SM count and
// floorplan (the field's geometry depends on nothing else). Cached: every
// chip of a run shares it.
const std::vector<double>& cholesky(unsigned sms, Floorplan fp) {
  static std::mutex m;
  static std::map<std::pair<unsigned, Floorplan>, std::unique_ptr<std::vector<double>>> cache;
  std::lock_guard<std::mutex> lock(m);
  auto& slot = cache[{sms, fp}];
  if (slot) return *slot;
  RfGeometry g;
  g.sms = sms;
  std::vector<double> pts = lattice_points(g, fp);
  size_t n = pts.size() / 2;
  std::vector<double> L(n * n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) {
      double dx = pts[2 * i] - pts[2 * j], dy = pts[2 * i + 1] - pts[2 * j + 1];
      double s = spherical_rho(std::sqrt(dx * dx + dy * dy), Variation::kPhi);
      for (size_t k = 0; k < j; ++k) s -= L[i * n + k] * L[j * n + k];
      // 1e-9 on the diagonal: the lattice is fine enough that neighbouring
      // points are nearly collinear in covariance (and with rf_block,
      // neighbouring RFs share their edge points); keeps the factor real.
      L[i * n + j] = i == j ? std::sqrt(std::max(s + 1e-9, 1e-12)) : s / L[j * n + j];
    }
  slot = std::make_unique<std::vector<double>>(std::move(L));
  return *slot;
}

unsigned tiles_per_side(unsigned sms) {
  unsigned s = 1;
  while (s * s < sms) ++s;
  return s;
}

}  // namespace

double spherical_rho(double r, double phi) {
  if (r >= phi) return 0.0;
  double x = r / phi;
  return 1 - 1.5 * x + 0.5 * x * x * x;
}

std::vector<double> lattice_points(const RfGeometry& g, Floorplan fp) {
  unsigned side = tiles_per_side(g.sms);
  // sm_tiles: tiles of 1/side of the die, the RF centred in its tile.
  // rf_block: tiles of kBlockSide/side, the RF filling its tile, the block at
  // the die's centre (where on the die does not matter: the field is
  // stationary).
  if (fp == Floorplan::kRfPoint) return std::vector<double>(size_t(g.sms) * Variation::kLattice * Variation::kLattice * 2, 0.5);
  bool block = fp == Floorplan::kRfBlock;
  const double bs = block ? Variation::kBlockSide : 1.0;
  double tile = bs / side, rf = block ? tile : tile * Variation::kRfSide, org = (1.0 - bs) / 2;
  unsigned k = Variation::kLattice;
  std::vector<double> pts;
  pts.reserve(size_t(g.sms) * k * k * 2);
  for (unsigned s = 0; s < g.sms; ++s) {
    double x0 = org + (s % side) * tile + (tile - rf) / 2, y0 = org + (s / side) * tile + (tile - rf) / 2;
    for (unsigned j = 0; j < k; ++j)
      for (unsigned i = 0; i < k; ++i) {
        pts.push_back(x0 + rf * i / (k - 1));
        pts.push_back(y0 + rf * j / (k - 1));
      }
  }
  return pts;
}

Floorplan parse_floorplan(const std::string& text, const std::string& key) {
  if (text == "rf_block") return Floorplan::kRfBlock;
  if (text == "sm_tiles") return Floorplan::kSmTiles;
  if (text == "rf_point") return Floorplan::kRfPoint;
  throw InputError("config key '" + key + "' = \"" + text + "\" must be one of 'rf_block', 'sm_tiles', 'rf_point'");
}

const char* floorplan_name(Floorplan fp) {
  return fp == Floorplan::kRfBlock ? "rf_block" : fp == Floorplan::kSmTiles ? "sm_tiles" : "rf_point";
}

SigmaSplit parse_sigma_ratio(const std::string& text, const std::string& key) {
  double a = 0, b = 0;
  if (text == "1:4") a = 1, b = 4;
  else if (text == "1:1") a = 1, b = 1;
  else if (text == "4:1") a = 4, b = 1;
  else
    throw InputError("config key '" + key + "' = \"" + text + "\" must be one of '1:4', '1:1', '4:1' "
                     "(sigma_rand:sigma_sys)");
  double n = std::sqrt(a * a + b * b);
  return {a / n, b / n};
}

Variation::Variation(uint64_t seed, SigmaSplit split, const RfGeometry& g, Floorplan fp)
    : g_(g), seed_(seed), split_(split) {
  if (g.sms == 0 || g.banks == 0 || g.rows == 0 || g.entry_bits == 0)
    throw InputError("process variation: empty register file geometry");
  // Bank columns: the power of two that makes the cell array closest to square.
  bank_cols_ = 1;
  auto aspect = [&](unsigned c) {
    double w = double(c) * g.entry_bits, h = double((g.banks + c - 1) / c) * g.rows;
    return std::fabs(std::log(w / h));
  };
  for (unsigned c = 2; c <= g.banks; c *= 2)
    if (aspect(c) < aspect(bank_cols_)) bank_cols_ = c;
  size_t n = size_t(g.sms) * kLattice * kLattice;
  std::vector<double> z(n);
  uint64_t fk = mix(seed_ ^ 0x5157u);
  for (size_t i = 0; i < n; ++i) z[i] = inv_normal(uniform(draw(fk, i)));
  // rf_point: every lattice point at one place, so the field is one draw
  // (the covariance is all ones; no factor needed).
  if (fp == Floorplan::kRfPoint) {
    field_.assign(n, z[0]);
    return;
  }
  const std::vector<double>& L = cholesky(g.sms, fp);
  field_.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    double s = 0;
    for (size_t k = 0; k <= i; ++k) s += L[i * n + k] * z[k];
    field_[i] = s;
  }
}

uint64_t Variation::key(unsigned sm, unsigned mode) const {
  return mix(seed_ * 0x2545F4914F6CDD1Dull + (uint64_t(sm) << 8 | mode) + 0x1234567ull);
}

bool Variation::stuck_value(unsigned sm, uint64_t cell) const { return draw(key(sm, 2), cell) & 1; }

// Calls f(cell, field) for every cell of SM sm's RF in cell order, with the
// systematic field (unit variance) bilinearly interpolated at the cell.
template <class F>
void Variation::each_cell(unsigned sm, F&& f) const {
  const unsigned k = kLattice, bits = g_.entry_bits, rows = g_.rows;
  const unsigned width = bank_cols_ * bits, height = (g_.banks + bank_cols_ - 1) / bank_cols_ * rows;
  const double* fl = field_.data() + size_t(sm) * k * k;
  // Column weights of the bilinear interpolation (same for every row).
  std::vector<unsigned> ci(width);
  std::vector<double> ct(width);
  for (unsigned x = 0; x < width; ++x) {
    double fx = (x + 0.5) / width * (k - 1);
    ci[x] = std::min(unsigned(fx), k - 2);
    ct[x] = fx - ci[x];
  }
  for (unsigned b = 0; b < g_.banks; ++b)
    for (unsigned r = 0; r < rows; ++r) {
      unsigned y = (b / bank_cols_) * rows + r, xb = (b % bank_cols_) * bits;
      double fy = (y + 0.5) / height * (k - 1);
      unsigned j = std::min(unsigned(fy), k - 2);
      double ty = fy - j;
      const double* r0 = fl + j * k;
      const double* r1 = r0 + k;
      uint64_t cell = (uint64_t(b) * rows + r) * bits;
      for (unsigned i = 0; i < bits; ++i, ++cell) {
        unsigned x = xb + i, c = ci[x];
        double t = ct[x];
        double s0 = r0[c] + t * (r0[c + 1] - r0[c]), s1 = r1[c] + t * (r1[c + 1] - r1[c]);
        f(cell, s0 + ty * (s1 - s0));
      }
    }
}

void Variation::vmin_codes(unsigned sm, Code* out) const {
  const double vw0 = kVthNom + kWriteMargin, cl = kWriteMargin / kAlpha;
  const double sv = kVthSigma * kVthNom, sl = kLeffSigma;
  const double kr = std::sqrt(sv * sv + cl * cl * sl * sl), ks = sv + cl * sl;
  const double rw = split_.rand * kr, rh = split_.rand * kr * std::sqrt(2.0), qs = split_.sys * ks;
  // Hold is drawn only where it can matter: with uh <= u3 its z is <= 3.
  const double u3 = 0.99865010196837, hold_cap = kHold0 + 3 * rh;
  const uint64_t kw = key(sm, 0), kh = key(sm, 1);
  each_cell(sm, [&](uint64_t cell, double field) {
    double sys = qs * field;
    double v = vw0 + rw * inv_normal(uniform(draw(kw, cell))) + sys;
    double uh = uniform(draw(kh, cell));
    if (uh > u3 || hold_cap + sys > v) v = std::max(v, kHold0 + rh * inv_normal(uh) + sys);
    double q = std::ceil(v / kStep);
    out[cell] = Code(std::clamp(q, 0.0, 65535.0));
  });
}

void Variation::read_vth_leff(unsigned sm, float* dvth, float* dleff) const {
  const double sv = kVthSigma * kVthNom, sl = kLeffSigma;
  const uint64_t kv = key(sm, 3), kl = key(sm, 4);
  each_cell(sm, [&](uint64_t cell, double field) {
    double sys = split_.sys * field;
    dvth[cell] = float(sv * (sys + split_.rand * inv_normal(uniform(draw(kv, cell)))));
    dleff[cell] = float(sl * (sys + split_.rand * inv_normal(uniform(draw(kl, cell)))));
  });
}

}  // namespace relgpu::reliability
