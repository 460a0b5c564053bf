#include "power/pdn_circuit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

PdnCircuit::PdnCircuit(const PdnParams& p, double step_s) : h_(step_s), n_(kGrid + 2) {
  const int K = int(kGrid), P = int(kGrid) + 1;
  // Plain resistors first (no history): the grid.
  for (unsigned r = 0; r < kSide; ++r)
    for (unsigned c = 0; c < kSide; ++c) {
      const int i = int(r * kSide + c);
      if (c + 1 < kSide) add(i, i + 1, p.grid_r, 0, 0);
      if (r + 1 < kSide) add(i, i + int(kSide), p.grid_r, 0, 0);
    }
  resistors_ = br_.size();
  bumps_ = br_.size();
  caps_ = bumps_ + kGrid;
  // Each node's share of the bumps: kGrid/bumps bumps' impedance in series.
  const double share = double(kGrid) / p.bumps;
  for (int i = 0; i < K; ++i) add(i, K, p.bump_r * share, p.bump_l * share, 0);  // [bumps_, +kGrid)
  for (int i = 0; i < K; ++i) add(i, kGnd, p.grid_esr, 0, p.grid_c);             // [caps_, +kGrid)
  add(K, P, p.pkg_r, p.pkg_l, 0);
  add(K, kGnd, p.pkg_esr, p.pkg_esl, p.pkg_c);
  add(P, kVrm, p.pcb_r, p.pcb_l, 0);
  add(P, kGnd, p.pcb_esr, 0, p.pcb_c);
  std::vector<unsigned> first(n_);
  for (unsigned i = 0; i < n_; ++i) first[i] = i;
  for (const Branch& b : br_)
    if (b.a >= 0 && b.b >= 0) {
      unsigned lo = unsigned(std::min(b.a, b.b)), hi = unsigned(std::max(b.a, b.b));
      first[hi] = std::min(first[hi], lo);
    }
  tr_.init(n_, first);
  dc_.init(n_, first);
  stamp(tr_, false);
  stamp(dc_, true);
  tr_.factor();
  dc_.factor();
  tr_.transpose_band();
  dc_.transpose_band();
  rhs_.resize(n_ + kSide);  // solve() reads kSide past the grid
}

// The conductance matrix: trapezoidal companions, or DC (L short, C open).
void PdnCircuit::stamp(Envelope& m, bool dc) const {
  for (const Branch& b : br_) {
    double g = b.g;
    if (dc) {
      if (b.c > 0) continue;
      if (b.r <= 0) throw std::invalid_argument("pdn: a series branch without resistance has no DC solution");
      g = 1 / b.r;
    }
    if (b.a >= 0) m.at(unsigned(b.a), unsigned(b.a)) += g;
    if (b.b >= 0) {
      m.at(unsigned(b.b), unsigned(b.b)) += g;
      m.at(unsigned(std::max(b.a, b.b)), unsigned(std::min(b.a, b.b))) -= g;
    }
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

// Rows of the grid's band (kSide below the diagonal) take a fixed-length
// loop the compiler unrolls; the rest (the package node's dense row) the
// general one. About 2k multiply-adds each way.
void PdnCircuit::Envelope::solve(double* __restrict b) const {
  const unsigned n = unsigned(first.size());
  for (unsigned i = 0; i < n; ++i) {
    const double* __restrict row = x.data() + start[i] - first[i];
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // partial sums: a reduction is not reordered otherwise
    unsigned k = first[i];
    if (i - k == kSide && !f1.empty()) {
      // The two newest terms last, pre-scaled by 1/diagonal: the chain from
      // one row to the next is then a multiply and a subtract (latency, not
      // arithmetic, bounds a triangular solve this narrow).
      for (unsigned m = 0; m < kSide - 4; m += 4) {
        s0 += row[k + m] * b[k + m];
        s1 += row[k + m + 1] * b[k + m + 1];
        s2 += row[k + m + 2] * b[k + m + 2];
        s3 += row[k + m + 3] * b[k + m + 3];
      }
      s0 += row[i - 4] * b[i - 4];
      s1 += row[i - 3] * b[i - 3];
      const double c = (b[i] - ((s0 + s1) + (s2 + s3))) * inv[i];
      b[i] = (c - f2[i] * b[i - 2]) - f1[i] * b[i - 1];
      continue;
    } else {
      for (; k + 4 <= i; k += 4) {
        s0 += row[k] * b[k];
        s1 += row[k + 1] * b[k + 1];
        s2 += row[k + 2] * b[k + 2];
        s3 += row[k + 3] * b[k + 3];
      }
      for (; k < i; ++k) s0 += row[k] * b[k];
    }
    b[i] = (b[i] - ((s0 + s1) + (s2 + s3))) * inv[i];
  }
  if (tb.empty()) {  // the general back substitution, by columns
    for (unsigned i = n; i-- > 0;) {
      const double* row = x.data() + start[i] - first[i];
      const double xi = b[i] * inv[i];
      b[i] = xi;
      for (unsigned m = first[i]; m < i; ++m) b[m] -= row[m] * xi;
    }
    return;
  }
  // The grid's band by rows of L^T (tb: kSide per node, zero past the
  // grid; tk: the package node's column), so each is a dot product.
  const unsigned g = kGrid;
  for (unsigned i = n; i-- > g;) {
    const double* row = x.data() + start[i] - first[i];
    const double xi = b[i] * inv[i];
    b[i] = xi;
    for (unsigned m = std::max(first[i], g); m < i; ++m) b[m] -= row[m] * xi;
  }
  const double xk = b[g];
  for (unsigned i = g; i-- > 0;) {
    const double* __restrict t = tb.data() + size_t(i) * kSide;
    const double* __restrict y = b + i + 1;
    double s0 = tk[i] * xk, s1 = 0, s2 = 0, s3 = 0;
    for (unsigned m = 4; m < kSide; m += 4) {  // y[0], y[1]: the newest, last (as above)
      s0 += t[m] * y[m];
      s1 += t[m + 1] * y[m + 1];
      s2 += t[m + 2] * y[m + 2];
      s3 += t[m + 3] * y[m + 3];
    }
    s2 += t[2] * y[2];
    s3 += t[3] * y[3];
    const double c = (b[i] - ((s0 + s1) + (s2 + s3))) * inv[i];
    b[i] = (c - g2[i] * y[1]) - g1[i] * y[0];
  }
}

// The transposed band for solve(): only for the grid-then-package order.
void PdnCircuit::Envelope::transpose_band() {
  tb.assign(size_t(kGrid) * kSide, 0.0);
  tk.assign(kGrid, 0.0);
  for (unsigned i = 0; i < kGrid; ++i)
    for (unsigned m = 1; m <= kSide && i + m < kGrid; ++m)
      if (i >= first[i + m]) tb[size_t(i) * kSide + m - 1] = at(i + m, i);
  for (unsigned i = first[kGrid]; i < kGrid; ++i) tk[i] = at(kGrid, i);
  // solve()'s newest two terms of each band row, divided by the diagonal.
  const unsigned n = unsigned(first.size());
  f1.assign(n, 0.0), f2.assign(n, 0.0), g1.assign(kGrid, 0.0), g2.assign(kGrid, 0.0);
  for (unsigned i = 0; i < n; ++i)
    if (i - first[i] == kSide) f1[i] = at(i, i - 1) * inv[i], f2[i] = at(i, i - 2) * inv[i];
  for (unsigned i = 0; i < kGrid; ++i) {
    g1[i] = tb[size_t(i) * kSide] * inv[i];
    g2[i] = tb[size_t(i) * kSide + 1] * inv[i];
  }
}

PdnCircuit::State PdnCircuit::dc(const double* load, double vrm) const {
  State s;
  s.v.assign(n_ + kSide, 0.0);  // solve()'s slack
  for (unsigned i = 0; i < kGrid; ++i) s.v[i] = -load[i];
  for (const Branch& b : br_)
    if (b.c == 0 && b.b == kVrm) s.v[unsigned(b.a)] += vrm / b.r;
  dc_.solve(s.v.data());
  s.v.resize(n_);
  s.i.assign(br_.size(), 0.0);
  s.vc.assign(br_.size(), 0.0);
  for (size_t k = 0; k < br_.size(); ++k) {
    const Branch& b = br_[k];
    const double vab = s.v[unsigned(b.a)] - (b.b >= 0 ? s.v[unsigned(b.b)] : b.b == kVrm ? vrm : 0.0);
    if (b.c > 0) s.vc[k] = vab;
    else s.i[k] = vab / b.r;
  }
  return s;
}

void PdnCircuit::step(State& s, const double* load, double vrm) const {
  // Each branch's history current J (i_{n+1} = g v_{n+1} + J) goes into the
  // right-hand side and, until the update, into s.i; s.vc takes its
  // capacitor's half-step h/2C i_n now and h/2C i_{n+1} after the solve.
  // The bumps and the die capacitors are alike: loops of their own.
  double* __restrict r = rhs_.data();
  const double* __restrict v = s.v.data();
  double* __restrict ib = s.i.data() + bumps_;
  double* __restrict ic = s.i.data() + caps_;
  double* __restrict vc = s.vc.data() + caps_;
  const Branch &bb = br_[bumps_], &cb = br_[caps_];
  const double vk = v[kGrid];
  double jk = 0;
  for (unsigned i = 0; i < kGrid; ++i) {
    const double jb = bb.g * (v[i] - vk - bb.k * ib[i]);
    const double jc = cb.g * (v[i] - cb.k * ic[i] - 2 * vc[i]);
    r[i] = -load[i] - jb - jc;
    jk += jb;
    ib[i] = jb;
    vc[i] += cb.hc * ic[i];
    ic[i] = jc;
  }
  r[kGrid] = jk;
  r[kGrid + 1] = 0;
  for (size_t k = caps_ + kGrid; k < br_.size(); ++k) {
    const Branch& b = br_[k];
    const double vb = b.b >= 0 ? v[b.b] : b.b == kVrm ? vrm : 0.0;
    const double j = b.g * (v[b.a] - vb - b.k * s.i[k] - 2 * s.vc[k]);
    r[b.a] -= j;
    if (b.b >= 0) r[b.b] += j;
    else if (b.b == kVrm) r[b.a] += b.g * vrm;
    s.vc[k] += b.hc * s.i[k];
    s.i[k] = j;
  }
  tr_.solve(r);
  std::copy(r, r + n_, s.v.begin());
  const double vk1 = v[kGrid];
  for (unsigned i = 0; i < kGrid; ++i) {
    ib[i] += bb.g * (v[i] - vk1);
    ic[i] += cb.g * v[i];
    vc[i] += cb.hc * ic[i];
  }
  for (size_t k = caps_ + kGrid; k < br_.size(); ++k) {
    const Branch& b = br_[k];
    const double vb = b.b >= 0 ? v[b.b] : b.b == kVrm ? vrm : 0.0;
    const double i = b.g * (v[b.a] - vb) + s.i[k];
    s.vc[k] += b.hc * i;
    s.i[k] = i;
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
