#include "gpu/cta_scheduler.h"

#include <algorithm>

namespace relgpu::gpu {

void CtaScheduler::start(runtime::Dim3 grid, const sm::CtaShape& shape) {
  grid_ = grid;
  shape_ = shape;
  total_ = grid.count();
  next_ = finished_ = 0;
  rr_ = 0;  // every launch starts at SM 0, so placement does not depend on earlier launches
}

void CtaScheduler::dispatch(const std::vector<sm::SmCore*>& sms, std::vector<unsigned>& served) {
  const unsigned n = unsigned(sms.size());
  unsigned misses = 0;  // consecutive SMs without room
  while (next_ < total_ && misses < n) {
    unsigned s = rr_;
    rr_ = (rr_ + 1) % n;
    if (!sms[s]->can_accept(shape_)) {
      ++misses;
      continue;
    }
    misses = 0;
    uint32_t id[3];
    id[0] = uint32_t(next_ % grid_.x);
    id[1] = uint32_t(next_ / grid_.x % grid_.y);
    id[2] = uint32_t(next_ / (uint64_t(grid_.x) * grid_.y));
    sms[s]->add_cta(id);
    ++next_;
    if (std::find(served.begin(), served.end(), s) == served.end()) served.push_back(s);
  }
}

}  // namespace relgpu::gpu
