// How many CTAs of one shape an SM holds at once: the rule Core::can_accept
// applies to an empty SM (CTA slots, threads, warps, shared memory, and
// register-file rows of rf.* geometry). Header-only, so the functional
// engine (which runs as many CTAs at once as the timing model would) and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor use the same rule.
#pragma once
#include <algorithm>
#include <cstdint>

#include "common/config.h"
#include "sm/keys.h"
#include "sm/sm_core.h"

namespace relgpu::sm {

inline uint64_t resident_ctas(const config::Config& cfg, const CtaShape& s) {
  const uint64_t warp = 32;
  uint64_t threads = std::max<uint64_t>(s.threads, 1), nw = (threads + warp - 1) / warp;
  uint64_t max_threads = uint64_t(cfg.get(kMaxThreads));
  uint64_t by_threads = max_threads / threads;
  uint64_t by_warps = ((max_threads + warp - 1) / warp) / nw;
  uint64_t by_ctas = uint64_t(cfg.get(kMaxCtas));
  uint64_t by_shared = s.shared_bytes ? uint64_t(cfg.get(kSharedBytes)) / s.shared_bytes : by_ctas;
  // A warp register spans 1024 / rf.entry_bits banks; each warp takes
  // ceil(regs / groups) rows of every bank group (Core::begin_launch).
  uint64_t span = std::max<uint64_t>(1, 1024 / uint64_t(cfg.get(kRfEntryBits)));
  uint64_t groups = std::max<uint64_t>(1, uint64_t(cfg.get(kRfBanks)) / span);
  uint64_t rows = std::max<uint64_t>(1, (std::max<uint32_t>(s.regs_per_thread, 1) + groups - 1) / groups);
  uint64_t by_regs = (uint64_t(cfg.get(kRfEntries)) / rows) / nw;
  return std::min({by_threads, by_warps, by_ctas, by_shared, by_regs});
}

}  // namespace relgpu::sm
