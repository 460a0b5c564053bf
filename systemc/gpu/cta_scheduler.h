// The CTA (thread block) scheduler: hands the grid's CTAs, in CTA-id order
// (x fastest), to the SMs that have room, round-robin over SMs.
//
// Choices where GPGPU-Sim differs or the papers are silent: a CTA is placed
// as soon as an SM can take it (no one-CTA-per-SM-per-cycle launch limit),
// and one CTA at a time goes to the next SM after the last one served, so a
// grid spreads evenly (CTA i on SM i at launch when every SM has room).
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/device.h"
#include "sm/sm_core.h"

namespace relgpu::gpu {

class CtaScheduler {
 public:
  void start(runtime::Dim3 grid, const sm::CtaShape& shape);
  // Places CTAs while some SM accepts one; appends the SMs that got any
  // to `served` (each at most once).
  void dispatch(const std::vector<sm::SmCore*>& sms, std::vector<unsigned>& served);
  void finished(unsigned n) { finished_ += n; }
  bool all_dispatched() const { return next_ >= total_; }
  bool all_finished() const { return finished_ >= total_; }
  uint64_t total() const { return total_; }
  uint64_t dispatched() const { return next_; }
  uint64_t finished_count() const { return finished_; }

 private:
  runtime::Dim3 grid_;
  sm::CtaShape shape_;
  uint64_t total_ = 0, next_ = 0, finished_ = 0;
  unsigned rr_ = 0;  // SM to try first
};

}  // namespace relgpu::gpu
