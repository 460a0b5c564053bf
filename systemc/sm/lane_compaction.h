// Lane compaction for hybrid banks (spec 002 §5): "we compact the active
// threads of programmatic-value dependent branches into the left-most
// portion during kernel launch time, so that they are mapped to the fast
// sub-bank portion of the hybrid RF bank". The paper cites SIMD lane
// permutation (Rhu and Erez, ISCA 2013) and says no more; our reading:
//  - at each CTA's launch every warp gets one thread-to-slot permutation,
//    fixed for the warp's life, so every register of a thread sits in the
//    same slot of the warp register and no value has to move (slots 0-15 are
//    the sub-bank on lanes 0-15, slots 16-31 the other);
//  - the branches it can serve are those whose condition the launch can
//    evaluate per thread (ptx::Function::lane_branches: computed from the
//    thread and CTA ids, immediates and kernel parameters). Each is evaluated
//    here by the functional executor on a private copy of the CTA;
//  - a warp follows the branch path with at most 16 threads that has the
//    most instructions (ties: the first branch, the taken path): its threads
//    go to slots 0.., in lane order, the others after them, in lane order.
//    A path of threads 0..k-1 gives the identity.
// Branches on loaded data, or on loop variables, change their threads at run
// time: no launch-time permutation can follow them, and they are not served.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "func/exec.h"

namespace relgpu::sm {

using LanePerm = std::array<uint8_t, 32>;  // slot of lane l

class LaneCompaction {
 public:
  LaneCompaction();
  ~LaneCompaction();
  // A new launch: its kernel's lane branches, evaluated per CTA by plan().
  void begin_launch(const func::LaunchCtx& ctx);
  // The permutation of each warp of CTA `ctaid`, in the CTA's warp order.
  std::vector<LanePerm> plan(const uint32_t ctaid[3]);
  // Branches of this launch's kernel a launch can evaluate (of those the
  // analysis found), and warps given a permutation other than the identity.
  unsigned branches() const { return unsigned(branches_.size()); }
  uint64_t permuted_warps() const { return permuted_; }
  uint64_t planned_warps() const { return planned_; }

  // The compaction of `active` (at most 16 lanes): its lanes to slots
  // 0.., in order, then the others.
  static LanePerm compact(uint32_t active);

 private:
  func::LaunchCtx ctx_;
  func::FlatRegs regs_;
  std::unique_ptr<func::Executor> ex_;
  func::Cta cta_;
  std::vector<const ptx::Function::LaneBranch*> branches_;
  uint64_t permuted_ = 0, planned_ = 0;
};

}  // namespace relgpu::sm
