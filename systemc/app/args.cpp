// Shared pieces of the command line (app/args.h).
#include "app/args.h"

namespace relgpu::app {

uint64_t parse_u64(const std::string& s, const std::string& what) {
  try {
    size_t pos = 0;
    if (s.empty() || s[0] == '-') throw 0;
    uint64_t v = std::stoull(s, &pos, 0);
    if (pos != s.size()) throw 0;
    return v;
  } catch (...) {
    throw InputError(what + ": expected a non-negative integer, got '" + s + "'");
  }
}

}  // namespace relgpu::app
