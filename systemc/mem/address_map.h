// Global address -> (memory channel, channel-local address) and L2 slice.
//
// Interleaving: the global address space is cut into chunks of
// `mem.interleave_bytes` (a multiple of the 128-B line); chunk k belongs to
// channel k % P. Inside a channel the chunks it owns are packed back to back
// into a dense local address space, which the DRAM controller maps to
// bank/row:
//   chunk   = addr / G
//   channel = chunk % P
//   local   = (chunk / P) * G + addr % G
// Each channel has S L2 slices (GPGPU-Sim's sub-partitions), each with its
// own interconnect port; consecutive local chunks alternate between them:
//   slice   = channel * S + (chunk / P) % S      (the interconnect's port)
//   slice-local = (chunk / P / S) * G + addr % G (the slice's set index)
// GTX480 default: G = 256 B (GPGPU-Sim's `dramid@8`: the channel id starts at
// address bit 8), P = 6, S = 2 (the sub-partition is the low bank bit, local
// bit 8). P need not be a power of two; every set and bank is used whatever
// P is. "Partition" below means a slice.
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
inline const config::Key<int64_t> kSubPartitions{
    "mem.sub_partitions", 2, "slices",
    "L2 slices per channel, each with its own interconnect port, tag pipeline and MSHRs, sharing the "
    "channel's DRAM controller (GPGPU-Sim GTX480 -gpgpu_n_sub_partition_per_mchannel 2)", 1, 16};

class AddressMap {
 public:
  AddressMap(unsigned channels, uint64_t interleave, unsigned subs = 1)
      : parts_(channels), subs_(subs), gran_(interleave) {
    if (parts_ == 0) throw InputError("mem.num_partitions must be at least 1");
    if (subs_ == 0) throw InputError("mem.sub_partitions must be at least 1");
    if (gran_ < kLineBytes || (gran_ & (gran_ - 1)) != 0)
      throw InputError("mem.interleave_bytes = " + std::to_string(gran_) +
                       " must be a power of two and at least the 128-byte line");
    shift_ = 0;
    while ((uint64_t(1) << shift_) < gran_) ++shift_;
  }
  explicit AddressMap(const config::Config& cfg)
      : AddressMap(unsigned(cfg.get(kNumPartitions)), uint64_t(cfg.get(kInterleaveBytes)),
                   unsigned(cfg.get(kSubPartitions))) {}

  // L2 slices (interconnect ports), channels, slices per channel.
  unsigned partitions() const { return parts_ * subs_; }
  unsigned channels() const { return parts_; }
  unsigned subs() const { return subs_; }
  uint64_t interleave() const { return gran_; }
  unsigned channel(uint64_t addr) const { return unsigned((addr >> shift_) % parts_); }
  unsigned partition(uint64_t addr) const {
    uint64_t c = addr >> shift_;
    return unsigned(c % parts_) * subs_ + unsigned(c / parts_ % subs_);
  }
  // Channel-local address (DRAM bank/row).
  uint64_t local(uint64_t addr) const {
    return ((addr >> shift_) / parts_ << shift_) | (addr & (gran_ - 1));
  }
  // Slice-local address (L2 set index).
  uint64_t slice_local(uint64_t addr) const {
    return ((addr >> shift_) / parts_ / subs_ << shift_) | (addr & (gran_ - 1));
  }
  // Inverse of (channel, local), for tests and debug output.
  uint64_t global(unsigned part, uint64_t local) const {
    return (((local >> shift_) * parts_ + part) << shift_) | (local & (gran_ - 1));
  }

 private:
  unsigned parts_, subs_;
  uint64_t gran_;
  unsigned shift_ = 0;
};

}  // namespace relgpu::mem
