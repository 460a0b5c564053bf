// The instruction hook point: a mechanism that sees each warp instruction as
// it issues (decode), as it reads its operands (dispatch) and around its
// writeback, and may mark it scalar at issue: a scalar instruction then holds
// its functional unit one cycle instead of its initiation interval. Uniform
// vector detection (sm/uniform_unit.h) is one. The SM calls it from
// issue_warp, dispatch and complete (core_pipe.cpp) and at warp exit.
#pragma once
#include <cstdint>

#include "common/config.h"

namespace relgpu::sm {

struct Inst;

class InstHook {
 public:
  virtual ~InstHook() = default;
  virtual void begin_launch() {}
  // `in` was fetched and decoded; true: it runs as a scalar.
  virtual bool issued(const Inst& in) = 0;
  virtual bool one_cycle() const { return false; }  // scalar instructions hold their unit one cycle
  virtual void dispatched(const Inst& /*in*/, uint64_t /*now*/) {}  // it read its operands
  virtual void writing(const Inst& /*in*/) {}                      // its results are about to be written
  virtual void written(const Inst& /*in*/, uint64_t /*now*/) {}     // ... and were
  virtual void warp_exited(unsigned /*ws*/, uint64_t /*now*/) {}
  virtual const char* stats_key() const = 0;  // its entry in the SM's stats
  virtual config::json stats() const = 0;
};

}  // namespace relgpu::sm
