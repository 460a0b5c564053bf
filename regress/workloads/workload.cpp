#include "workload.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace relgpu::wl {

static std::vector<Workload>& reg() {
  static std::vector<Workload> r;
  return r;
}

Registrar::Registrar(const char* name, const char* desc, Result (*fn)(Context&)) {
  reg().push_back({name, desc, fn});
}

const std::vector<Workload>& all() {
  static bool sorted = false;
  if (!sorted) {
    std::sort(reg().begin(), reg().end(), [](auto& a, auto& b) { return a.name < b.name; });
    sorted = true;
  }
  return reg();
}

const Workload* find(const std::string& name) {
  for (auto& w : all())
    if (w.name == name) return &w;
  return nullptr;
}

long compare_floats(const float* got, const float* want, size_t n, double rel_tol, double abs_tol, std::string& msg) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double g = got[i], w = want[i];
    double err = std::fabs(g - w);
    bool ok = err <= abs_tol + rel_tol * std::fabs(w) || (std::isnan(g) && std::isnan(w));
    if (!ok) {
      std::ostringstream s;
      s.precision(9);
      s << "mismatch at [" << i << "]: got " << g << ", want " << w << " (tolerance abs " << abs_tol << " + rel "
        << rel_tol << ")";
      msg = s.str();
      return long(i);
    }
    worst = std::max(worst, err / (abs_tol + rel_tol * std::fabs(w)));
  }
  std::ostringstream s;
  s.precision(3);
  s << n << " values within tolerance (worst " << worst << " of allowed)";
  msg = s.str();
  return -1;
}

}  // namespace relgpu::wl
