#include "power/pdn_circuit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

// x86-64: an AVX2 copy of the per-step kernels beside the baseline one, picked
// at load time. Same operations in the same order (no fma): the same bits.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RELGPU_SIMD __attribute__((target_clones("avx2", "default")))
#else
#define RELGPU_SIMD
#endif

namespace relgpu::power {

static std::vector<std::vector<unsigned>> make_sites() {
  std::vector<std::vector<unsigned>> out;
  const unsigned site_row[4] = {0, 2, 8, 10};  // the un-core band takes rows 4-7
  for (unsigned s = 0; s < PdnCircuit::kSites; ++s) {
    std::vector<unsigned> n;
    for (unsigned r = 0; r < 2; ++r)
      for (unsigned c = 0; c < 3; ++c) n.push_back((site_row[s / 4] + r) * PdnCircuit::kSide + 3 * (s % 4) + c);
    out.push_back(std::move(n));
  }
  return out;
}

static std::vector<std::vector<unsigned>> make_regions() {
  std::vector<std::vector<unsigned>> out(PdnCircuit::kRegions);
  for (unsigned g = 0; g < PdnCircuit::kRegions; ++g)
    for (unsigned r = 4; r < 8; ++r)
      for (unsigned c = 0; c < 6; ++c) out[g].push_back(r * PdnCircuit::kSide + 6 * g + c);
  return out;
}

const std::vector<unsigned>& PdnCircuit::site_nodes(unsigned s) {
  static const auto sites = make_sites();
  return sites.at(s);
}

const std::vector<unsigned>& PdnCircuit::region_nodes(unsigned r) {
  static const auto regions = make_regions();
  return regions.at(r);
}

unsigned PdnCircuit::cluster_of(unsigned s) { return (s / 8) * 2 + (s % 4) / 2; }

void PdnCircuit::add(int a, int b, double r, double l, double c) {
  Branch x{a, b, r, l, c};
  const double hc = c > 0 ? h_ / (2 * c) : 0, zl = 2 * l / h_;
  x.g = 1 / (r + zl + hc);
  x.k = r - zl + hc;
  x.hc = hc;
  br_.push_back(x);
}

// The orthonormal 12-point DCT-II, Q[f][m] = c_f cos(pi f (2m + 1) / 24), by
// its symmetry Q[f][11 - m] = (-1)^f Q[f][m]: e[j][m] = Q[2j][m] and
// o[j][m] = Q[2j + 1][m] (m < 6). A transformed index holds the even
// frequencies, then the odd ones: j < 6 is frequency 2j, 6 + j is 2j + 1.
// Both transforms work on whole rows of 12 (the loops the compiler turns
// into vector operations) and transpose between the two directions, so the
// modal index is (column frequency) x 12 + (row frequency); the modes'
// eigenvalues are symmetric in the two, and the uniform mode is index 0.
namespace {
constexpr unsigned kN = PdnCircuit::kSide, kH = kN / 2;
using Grid = double[kN][kN];
struct Dct {
  double e[kH][kH], o[kH][kH];
  double lambda[kN];  // the free-edged path's Laplacian eigenvalue per transformed index
  Dct() {
    for (unsigned j = 0; j < kH; ++j)
      for (unsigned m = 0; m < kH; ++m) {
        e[j][m] = basis(2 * j, m);
        o[j][m] = basis(2 * j + 1, m);
      }
    for (unsigned p = 0; p < kN; ++p) lambda[p] = 2 - 2 * std::cos(M_PI * freq(p) / kN);
  }
  static unsigned freq(unsigned p) { return p < kH ? 2 * p : 2 * (p - kH) + 1; }
  static double basis(unsigned f, unsigned m) {
    return std::sqrt((f == 0 ? 1.0 : 2.0) / kN) * std::cos(M_PI * f * (2 * m + 1) / (2 * kN));
  }
  // y = Q x along the first index (x's rows mixed, each column alike).
  RELGPU_SIMD void forward(const Grid& x, Grid& y) const {
    double sum[kH][kN], dif[kH][kN];
    for (unsigned r = 0; r < kH; ++r)
      for (unsigned c = 0; c < kN; ++c) sum[r][c] = x[r][c] + x[kN - 1 - r][c], dif[r][c] = x[r][c] - x[kN - 1 - r][c];
    for (unsigned j = 0; j < kH; ++j) {
      double ye[kN] = {}, yo[kN] = {};
      for (unsigned r = 0; r < kH; ++r) {
        const double fe = e[j][r], fo = o[j][r];
        for (unsigned c = 0; c < kN; ++c) ye[c] += fe * sum[r][c];
        for (unsigned c = 0; c < kN; ++c) yo[c] += fo * dif[r][c];
      }
      for (unsigned c = 0; c < kN; ++c) y[j][c] = ye[c], y[kH + j][c] = yo[c];
    }
  }
  // x = Q^T y along the first index; only rows r and 11 - r for r < pairs.
  RELGPU_SIMD void inverse(const Grid& y, Grid& x, unsigned pairs) const {
    for (unsigned r = 0; r < pairs; ++r) {
      double ev[kN] = {}, od[kN] = {};
      for (unsigned j = 0; j < kH; ++j) {
        const double fe = e[j][r], fo = o[j][r];
        for (unsigned c = 0; c < kN; ++c) ev[c] += fe * y[j][c];
        for (unsigned c = 0; c < kN; ++c) od[c] += fo * y[kH + j][c];
      }
      for (unsigned c = 0; c < kN; ++c) x[r][c] = ev[c] + od[c], x[kN - 1 - r][c] = ev[c] - od[c];
    }
  }
  static void transpose(const Grid& a, Grid& b) {
    for (unsigned r = 0; r < kN; ++r)
      for (unsigned c = 0; c < kN; ++c) b[c][r] = a[r][c];
  }
};
const Dct& dct() {
  static const Dct d;
  return d;
}
}  // namespace

PdnCircuit::PdnCircuit(const PdnParams& p, double step_s) : h_(step_s), n_(kGrid + 2) {
  const int K = int(kGrid), P = int(kGrid) + 1;
  // The grid's resistors first (no history), then the bumps, the die
  // capacitors and the package: the modal form relies on this order.
  for (unsigned r = 0; r < kSide; ++r)
    for (unsigned c = 0; c < kSide; ++c) {
      const int i = int(r * kSide + c);
      if (c + 1 < kSide) add(i, i + 1, p.grid_r, 0, 0);
      if (r + 1 < kSide) add(i, i + int(kSide), p.grid_r, 0, 0);
    }
  bumps_ = br_.size();
  caps_ = bumps_ + kGrid;
  pkg_ = caps_ + kGrid;
  // Each node's share of the bumps: kGrid/bumps bumps' impedance in series.
  const double share = double(kGrid) / p.bumps;
  for (int i = 0; i < K; ++i) add(i, K, p.bump_r * share, p.bump_l * share, 0);  // [bumps_, +kGrid)
  for (int i = 0; i < K; ++i) add(i, kGnd, p.grid_esr, 0, p.grid_c);             // [caps_, +kGrid)
  add(K, P, p.pkg_r, p.pkg_l, 0);
  add(K, kGnd, p.pkg_esr, p.pkg_esl, p.pkg_c);
  add(P, kVrm, p.pcb_r, p.pcb_l, 0);
  add(P, kGnd, p.pcb_esr, 0, p.pcb_c);
  // DC: nodal, envelope Cholesky (the grid is banded, K borders it).
  std::vector<unsigned> first(n_);
  for (unsigned i = 0; i < n_; ++i) first[i] = i;
  for (const Branch& b : br_)
    if (b.a >= 0 && b.b >= 0) {
      unsigned lo = unsigned(std::min(b.a, b.b)), hi = unsigned(std::max(b.a, b.b));
      first[hi] = std::min(first[hi], lo);
    }
  dc_.init(n_, first);
  for (const Branch& b : br_) {
    if (b.c > 0) continue;  // open at DC
    if (b.r <= 0) throw std::invalid_argument("pdn: a series branch without resistance has no DC solution");
    const double g = 1 / b.r;
    if (b.a >= 0) dc_.at(unsigned(b.a), unsigned(b.a)) += g;
    if (b.b >= 0) {
      dc_.at(unsigned(b.b), unsigned(b.b)) += g;
      dc_.at(unsigned(std::max(b.a, b.b)), unsigned(std::min(b.a, b.b))) -= g;
    }
  }
  dc_.factor();
  // Transient, modal: mode (p, q) sees the bump, the die capacitor and the
  // grid's resistors at the Laplacian eigenvalue lambda_p + lambda_q.
  const Branch &bb = br_[bumps_], &cb = br_[caps_];
  const double gr = br_[0].g;
  inv_g_.resize(kGrid);
  for (unsigned p = 0; p < kSide; ++p)
    for (unsigned q = 0; q < kSide; ++q)
      inv_g_[p * kSide + q] = 1 / (bb.g + cb.g + gr * (dct().lambda[p] + dct().lambda[q]));
  // The uniform mode (the grid's mean times kSide), K and P: the uniform
  // vector's modal weight is kSide, so its bumps couple it to K by kSide g.
  double m[3][3] = {{bb.g + cb.g, -double(kSide) * bb.g, 0}, {-double(kSide) * bb.g, double(kGrid) * bb.g, 0}, {}};
  for (size_t k = pkg_; k < br_.size(); ++k) {
    const Branch& b = br_[k];
    const int a = b.a - K + 1, c = b.b >= 0 ? b.b - K + 1 : -1;
    m[a][a] += b.g;
    if (c >= 0) m[c][c] += b.g, m[a][c] -= b.g, m[c][a] -= b.g;
  }
  // Its inverse by cofactors (symmetric positive definite, 3x3).
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(det > 0)) throw std::invalid_argument("pdn: the circuit matrix is not positive definite");
  for (unsigned i = 0; i < 3; ++i)
    for (unsigned j = 0; j < 3; ++j) {
      const unsigned r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
      m3_[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
    }
}

void PdnCircuit::Envelope::init(unsigned n, const std::vector<unsigned>& f) {
  first = f;
  start.assign(n + 1, 0);
  for (unsigned i = 0; i < n; ++i) start[i + 1] = start[i] + (i - first[i] + 1);
  x.assign(start[n], 0.0);
}

void PdnCircuit::Envelope::factor() {
  const unsigned n = unsigned(first.size());
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = first[i]; j <= i; ++j) {
      double s = at(i, j);
      for (unsigned k = std::max(first[i], first[j]); k < j; ++k) s -= at(i, k) * at(j, k);
      if (j < i) {
        at(i, j) = s / at(j, j);
      } else {
        if (!(s > 0)) throw std::invalid_argument("pdn: the circuit matrix is not positive definite");
        at(i, i) = std::sqrt(s);
      }
    }
  inv.resize(n);
  for (unsigned i = 0; i < n; ++i) inv[i] = 1 / at(i, i);
}

void PdnCircuit::Envelope::solve(double* b) const {
  const unsigned n = unsigned(first.size());
  for (unsigned i = 0; i < n; ++i) {
    const double* row = x.data() + start[i] - first[i];
    double s = b[i];
    for (unsigned k = first[i]; k < i; ++k) s -= row[k] * b[k];
    b[i] = s * inv[i];
  }
  for (unsigned i = n; i-- > 0;) {
    const double* row = x.data() + start[i] - first[i];
    const double xi = b[i] * inv[i];
    b[i] = xi;
    for (unsigned m = first[i]; m < i; ++m) b[m] -= row[m] * xi;
  }
}

PdnCircuit::State PdnCircuit::dc(const double* load, double vrm) const {
  State s;
  s.v.assign(n_, 0.0);
  for (unsigned i = 0; i < kGrid; ++i) s.v[i] = -load[i];
  for (const Branch& b : br_)
    if (b.c == 0 && b.b == kVrm) s.v[unsigned(b.a)] += vrm / b.r;
  dc_.solve(s.v.data());
  // Inductors carry vab / r, capacitors hold vab and carry nothing.
  std::vector<double> ib(kGrid);
  for (unsigned i = 0; i < kGrid; ++i) ib[i] = (s.v[i] - s.v[kGrid]) / br_[bumps_ + i].r;
  s.vm.resize(kGrid), s.ib.resize(kGrid), s.vc.resize(kGrid);
  s.ic.assign(kGrid, 0.0);
  to_modal(s.v.data(), s.vm.data());
  to_modal(ib.data(), s.ib.data());
  s.vc = s.vm;
  s.i.assign(br_.size() - pkg_, 0.0);
  s.vcp.assign(br_.size() - pkg_, 0.0);
  for (size_t k = pkg_; k < br_.size(); ++k) {
    const Branch& b = br_[k];
    const double vab = s.v[unsigned(b.a)] - (b.b >= 0 ? s.v[unsigned(b.b)] : b.b == kVrm ? vrm : 0.0);
    if (b.c > 0) s.vcp[k - pkg_] = vab;
    else s.i[k - pkg_] = vab / b.r;
  }
  return s;
}

void PdnCircuit::to_modal(const double* x, double* y) {
  Grid a, b;
  dct().forward(*reinterpret_cast<const Grid*>(x), a);  // down the columns
  Dct::transpose(a, b);
  dct().forward(b, *reinterpret_cast<Grid*>(y));  // then along the rows
}

// The floorplan's row bands (SM rows 0-1, 2-3, the un-core's 4-7, SM rows
// 8-9, 10-11) and column bands (3 wide), each band's indicator transformed.
namespace {
constexpr unsigned kRowBands = 5, kColBands = 4;
struct Bands {
  double row[kRowBands][kN], col[kColBands][kN];
  Bands() {
    const unsigned first[kRowBands + 1] = {0, 2, 4, 8, 10, 12};
    Grid x = {}, a, b;
    for (unsigned k = 0; k < kRowBands; ++k) {  // down the columns: column 0 holds the indicator
      for (unsigned r = 0; r < kN; ++r) x[r][0] = r >= first[k] && r < first[k + 1];
      dct().forward(x, a);
      for (unsigned p = 0; p < kN; ++p) row[k][p] = a[p][0];
    }
    for (unsigned l = 0; l < kColBands; ++l) {
      for (unsigned r = 0; r < kN; ++r) x[r][0] = r / 3 == l;
      dct().forward(x, b);
      for (unsigned q = 0; q < kN; ++q) col[l][q] = b[q][0];
    }
  }
};
const Bands& bands() {
  static const Bands b;
  return b;
}
}  // namespace

RELGPU_SIMD void PdnCircuit::sites_to_modal(const double* site_a, const double* region_a, double* y) {
  // Current per node of each (row band, column band) block.
  static_assert(kSites == 16 && kSiteNodes == 6 && kRegions == 2 && kRegionNodes == 24, "the floorplan's bands");
  const unsigned site_band[4] = {0, 1, 3, 4};
  double a[kRowBands][kColBands] = {};
  for (unsigned s = 0; s < kSites; ++s) a[site_band[s / 4]][s % 4] = site_a[s] / kSiteNodes;
  for (unsigned g = 0; g < kRegions; ++g) a[2][2 * g] = a[2][2 * g + 1] = region_a[g] / kRegionNodes;
  // modal[q][p] = sum over blocks of col[l][q] a[k][l] row[k][p].
  const Bands& bd = bands();
  double m[kColBands][kN] = {};
  for (unsigned l = 0; l < kColBands; ++l)
    for (unsigned k = 0; k < kRowBands; ++k)
      for (unsigned p = 0; p < kN; ++p) m[l][p] += a[k][l] * bd.row[k][p];
  for (unsigned q = 0; q < kN; ++q) {
    double out[kN] = {};
    for (unsigned l = 0; l < kColBands; ++l)
      for (unsigned p = 0; p < kN; ++p) out[p] += bd.col[l][q] * m[l][p];
    for (unsigned p = 0; p < kN; ++p) y[q * kN + p] = out[p];
  }
}

void PdnCircuit::voltages(State& s, bool sites_only) {
  // Rows r and 11 - r come out together; the SM sites hold rows 0-3 and 8-11.
  Grid a, b;
  dct().inverse(*reinterpret_cast<const Grid*>(s.vm.data()), a, kH);
  Dct::transpose(a, b);
  dct().inverse(b, *reinterpret_cast<Grid*>(s.v.data()), sites_only ? 4 : kH);
}

void PdnCircuit::step(State& s, const double* load, double vrm) const {
  double lm[kGrid];
  to_modal(load, lm);
  step_modal(s, lm, vrm);
  voltages(s);
}

RELGPU_SIMD void PdnCircuit::step_modal(State& s, const double* __restrict lm, double vrm) const {
  // Each branch's history current J (i_{n+1} = g v_{n+1} + J); a capacitor's
  // voltage takes h/2C i_n before the solve and h/2C i_{n+1} after.
  const Branch &bb = br_[bumps_], &cb = br_[caps_];
  double* __restrict vm = s.vm.data();
  double* __restrict ib = s.ib.data();
  double* __restrict ic = s.ic.data();
  double* __restrict vc = s.vc.data();
  const double* __restrict ig = inv_g_.data();
  const double vk = s.v[kGrid], side = kSide;
  // The uniform mode's histories (it is solved with the package below).
  const double jb0 = bb.g * (vm[0] - side * vk - bb.k * ib[0]);
  const double jc0 = cb.g * (vm[0] - cb.k * ic[0] - 2 * vc[0]);
  const double vc0 = vc[0] + cb.hc * ic[0];
  const double gb = bb.g, kb = bb.k, gc = cb.g, kc = cb.k, hc = cb.hc;
  for (unsigned m = 0; m < kGrid; ++m) {  // every mode on its own (the uniform one is redone below)
    const double jb = gb * (vm[m] - kb * ib[m]);
    const double jc = gc * (vm[m] - kc * ic[m] - 2 * vc[m]);
    const double v = (-lm[m] - jb - jc) * ig[m];
    const double icn = jc + gc * v;
    vc[m] = (vc[m] + hc * ic[m]) + hc * icn;
    ib[m] = jb + gb * v;
    ic[m] = icn;
    vm[m] = v;
  }
  // The uniform mode, K and P: their 3x3 block.
  double r[3] = {-lm[0] - jb0 - jc0, side * jb0, 0};
  auto volt = [&](int node) { return node >= 0 ? s.v[unsigned(node)] : node == kVrm ? vrm : 0.0; };
  for (size_t k = pkg_; k < br_.size(); ++k) {
    const Branch& b = br_[k];
    double &i = s.i[k - pkg_], &c = s.vcp[k - pkg_];
    const double j = b.g * (volt(b.a) - volt(b.b) - b.k * i - 2 * c);
    const int a = b.a - int(kGrid) + 1;
    r[a] -= j;
    if (b.b >= 0) r[b.b - int(kGrid) + 1] += j;
    else if (b.b == kVrm) r[a] += b.g * vrm;
    c += b.hc * i;
    i = j;
  }
  double x[3];
  for (unsigned i = 0; i < 3; ++i) x[i] = m3_[i][0] * r[0] + m3_[i][1] * r[1] + m3_[i][2] * r[2];
  vm[0] = x[0];
  ib[0] = jb0 + bb.g * (x[0] - side * x[1]);
  ic[0] = jc0 + cb.g * x[0];
  vc[0] = vc0 + cb.hc * ic[0];
  s.v[kGrid] = x[1], s.v[kGrid + 1] = x[2];
  for (size_t k = pkg_; k < br_.size(); ++k) {
    const Branch& b = br_[k];
    double &i = s.i[k - pkg_], &c = s.vcp[k - pkg_];
    i += b.g * (volt(b.a) - volt(b.b));
    c += b.hc * i;
  }
}

std::complex<double> PdnCircuit::impedance(double f_hz, const std::vector<unsigned>& nodes) const {
  using C = std::complex<double>;
  const unsigned n = n_;
  std::vector<C> y(size_t(n) * n, C(0)), b(n, C(0));
  const C jw(0, 2 * M_PI * f_hz);
  for (const Branch& x : br_) {
    const C g = 1.0 / (x.r + jw * x.l + (x.c > 0 ? 1.0 / (jw * x.c) : C(0)));
    y[size_t(x.a) * n + unsigned(x.a)] += g;
    if (x.b >= 0) {
      y[size_t(x.b) * n + unsigned(x.b)] += g;
      y[size_t(x.a) * n + unsigned(x.b)] -= g;
      y[size_t(x.b) * n + unsigned(x.a)] -= g;
    }
  }
  for (unsigned i : nodes) b[i] -= 1.0 / double(nodes.size());
  // Gaussian elimination with partial pivoting (n ~ 150: a few ms).
  for (unsigned c = 0; c < n; ++c) {
    unsigned p = c;
    for (unsigned r = c + 1; r < n; ++r)
      if (std::abs(y[size_t(r) * n + c]) > std::abs(y[size_t(p) * n + c])) p = r;
    if (p != c) {
      for (unsigned k = 0; k < n; ++k) std::swap(y[size_t(c) * n + k], y[size_t(p) * n + k]);
      std::swap(b[c], b[p]);
    }
    const C d = y[size_t(c) * n + c];
    for (unsigned r = c + 1; r < n; ++r) {
      const C f = y[size_t(r) * n + c] / d;
      if (f == C(0)) continue;
      for (unsigned k = c; k < n; ++k) y[size_t(r) * n + k] -= f * y[size_t(c) * n + k];
      b[r] -= f * b[c];
    }
  }
  for (unsigned c = n; c-- > 0;) {
    C s = b[c];
    for (unsigned k = c + 1; k < n; ++k) s -= y[size_t(c) * n + k] * b[k];
    b[c] = s / y[size_t(c) * n + c];
  }
  C z(0);
  for (unsigned i : nodes) z -= b[i];
  return z / double(nodes.size());
}

}  // namespace relgpu::power
