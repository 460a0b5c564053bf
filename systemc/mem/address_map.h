// Global address -> (memory partition, partition-local address).
//
// Interleaving: the global address space is cut into chunks of
// `mem.interleave_bytes` (a multiple of the 128-B line); chunk k belongs to
// partition k % P. Inside a partition the chunks it owns are packed
// back to back into a dense local address space:
//   chunk     = addr / G
//   partition = chunk % P
//   local     = (chunk / P) * G + addr % G
// GTX480 default: G = 256 B (GPGPU-Sim's `dramid@8`: the channel id starts at
// address bit 8), P = 6. P need not be a power of two. The L2 indexes its sets
// and the DRAM controller picks bank/row from the local address, so every
// set and bank of a partition is used whatever P is.
#pragma once
#include <cstdint>

#include "common/config.h"
#include "common/error.h"
#include "mem/request.h"

namespace relgpu::mem {

inline const config::Key<int64_t> kNumPartitions{
    "mem.num_partitions", 6, "partitions",
    "memory partitions (channels), each an L2 slice + DRAM controller (GTX480 Table 6.1: 6 channels)", 1, 64};
inline const config::Key<int64_t> kInterleaveBytes{
    "mem.interleave_bytes", 256, "bytes",
    "address interleave granularity across partitions, a power-of-two multiple of the 128-B line "
    "(GPGPU-Sim GTX480 -gpgpu_mem_addr_mapping dramid@8 = 256 B)", 128, 1 << 20};

class AddressMap {
 public:
  AddressMap(unsigned partitions, uint64_t interleave) : parts_(partitions), gran_(interleave) {
    if (parts_ == 0) throw InputError("mem.num_partitions must be at least 1");
    if (gran_ < kLineBytes || (gran_ & (gran_ - 1)) != 0)
      throw InputError("mem.interleave_bytes = " + std::to_string(gran_) +
                       " must be a power of two and at least the 128-byte line");
    shift_ = 0;
    while ((uint64_t(1) << shift_) < gran_) ++shift_;
  }
  explicit AddressMap(const config::Config& cfg)
      : AddressMap(unsigned(cfg.get(kNumPartitions)), uint64_t(cfg.get(kInterleaveBytes))) {}

  unsigned partitions() const { return parts_; }
  uint64_t interleave() const { return gran_; }
  unsigned partition(uint64_t addr) const { return unsigned((addr >> shift_) % parts_); }
  uint64_t local(uint64_t addr) const {
    return ((addr >> shift_) / parts_ << shift_) | (addr & (gran_ - 1));
  }
  // Inverse of (partition, local), for tests and debug output.
  uint64_t global(unsigned part, uint64_t local) const {
    return (((local >> shift_) * parts_ + part) << shift_) | (local & (gran_ - 1));
  }

 private:
  unsigned parts_;
  uint64_t gran_;
  unsigned shift_ = 0;
};

}  // namespace relgpu::mem
