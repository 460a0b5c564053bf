// Which global allocations one launch read and wrote, filled by the executor
// (functional memory() and the timing model's global_lanes()) when the
// launch context carries one. The CPU-side checkpoint runtime
// (runtime/resilience.h) classes a kernel's buffers from it: read only = input,
// written only = output, both = input/output (atomics are both).
#pragma once
#include <cstdint>
#include <vector>

#include "func/memory.h"

namespace relgpu::func {

struct AccessLog {
  struct Use {
    const Allocation* alloc = nullptr;
    bool read = false, written = false;
    // The first and last store (address, bytes): error injection corrupts what the launch stored.
    uint64_t first_store = 0, last_store = 0;
    uint32_t first_bytes = 0, last_bytes = 0;
  };
  std::vector<Use> uses;  // one per allocation touched, in first-touch order

  void clear() { uses.clear(), last_ = SIZE_MAX; }
  // Called per global lane; the common case (same allocation as the last lane) is one compare.
  void note(const Allocation* a, uint64_t addr, uint32_t bytes, bool read, bool write) {
    if (last_ >= uses.size() || uses[last_].alloc != a) find(a);
    Use& u = uses[last_];
    u.read |= read;
    if (write) {
      if (!u.written) u.first_store = addr, u.first_bytes = bytes;
      u.written = true;
      u.last_store = addr, u.last_bytes = bytes;
    }
  }

 private:
  void find(const Allocation* a) {
    for (last_ = 0; last_ < uses.size(); ++last_)
      if (uses[last_].alloc == a) return;
    uses.push_back(Use{a});
  }
  size_t last_ = SIZE_MAX;
};

}  // namespace relgpu::func
