// Shared pieces of the command line (app/args.h).
#include "app/args.h"

#include <cstdio>

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

std::string hash_hex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bit
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

}  // namespace relgpu::app
