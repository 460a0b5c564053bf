#include "sm/lane_compaction.h"

#include <stdexcept>

namespace relgpu::sm {

LaneCompaction::LaneCompaction() = default;
LaneCompaction::~LaneCompaction() = default;

LanePerm LaneCompaction::compact(uint32_t active) {
  if (__builtin_popcount(active) > 16) throw std::logic_error("lane compaction of more than 16 lanes");
  LanePerm p{};
  uint8_t next = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (active >> l & 1) p[l] = next++;
  for (unsigned l = 0; l < 32; ++l)
    if (!(active >> l & 1)) p[l] = next++;
  return p;
}

void LaneCompaction::begin_launch(const func::LaunchCtx& ctx) {
  ctx_ = ctx;
  ctx_.access = nullptr;
  ctx_.max_warp_insn = UINT64_MAX;
  ex_ = std::make_unique<func::Executor>(ctx_, regs_);
  branches_.clear();
  permuted_ = planned_ = 0;
  // Only what the executor computes from registers alone, and ld.param.
  const func::Code& code = ex_->code(ctx.kernel);
  for (const ptx::Function::LaneBranch& b : ctx.kernel->lane_branches) {
    bool ok = true;
    for (int32_t i : b.slice) {
      const func::DInstr& d = code.ins[size_t(i)];
      ok = ok && (d.xk == func::XK::alu || d.xk == func::XK::mov || d.xk == func::XK::pack ||
                  d.xk == func::XK::unpack || (d.xk == func::XK::ld && d.space == ptx::Space::param));
    }
    if (ok) branches_.push_back(&b);
  }
}

std::vector<LanePerm> LaneCompaction::plan(const uint32_t ctaid[3]) {
  if (!ex_) throw std::logic_error("lane compaction: plan() before begin_launch()");
  ex_->init_cta(cta_, ctaid, 0);
  std::vector<LanePerm> perms;
  for (func::Warp& w : cta_.warps) {
    // The path to compact: at most 16 threads, the most instructions.
    uint32_t best = 0, best_len = 0;
    for (const ptx::Function::LaneBranch* b : branches_) {
      // Runs the slice, then the branch itself, with every thread active.
      func::InFlight f;
      for (size_t k = 0; k <= b->slice.size(); ++k) {
        const int32_t pc = k < b->slice.size() ? b->slice[k] : b->at;
        w.frames.back().stack.assign(1, func::SimtEntry{pc, -1, w.valid});
        ex_->fetch(cta_, w, f);
        ex_->read_operands(cta_, w, f);
        ex_->execute(cta_, w, f);
        if (f.d->xk == func::XK::ld) ex_->memory(cta_, w, f);
        ex_->writeback(cta_, w, f);
      }
      const uint32_t paths[2] = {f.taken, w.valid & ~f.taken};
      const uint32_t lens[2] = {b->taken_len, b->fall_len};
      for (int k = 0; k < 2; ++k)
        if (paths[k] && __builtin_popcount(paths[k]) <= 16 && lens[k] > best_len) best = paths[k], best_len = lens[k];
    }
    perms.push_back(compact(best));
    bool identity = true;
    for (unsigned l = 0; l < 32; ++l) identity = identity && perms.back()[l] == l;
    permuted_ += !identity;
    ++planned_;
  }
  return perms;
}

}  // namespace relgpu::sm
