// The issue-stage hook point: a mechanism that sees each cycle's issue
// candidates (the schedulers' picks, by class) and the register-file traffic
// planned for the cycle, and may narrow them in the same cycle: fewer picks
// issue (the others stay ready and retry), or no operand collector reads a
// bank. The local droop predictor (sm/droop_unit.h) is one. The SM calls it
// once per cycle after its schedulers pick (Core::gate_issue,
// core_smoothing.cpp); skipped idle cycles are not called.
#pragma once
#include <cstdint>
#include <string>

#include "common/config.h"
#include "sm/activity.h"

namespace relgpu::sm {

class IssueGate {
 public:
  struct Demand {
    uint32_t issue[size_t(IssueClass::count_)] = {};  // the picks, by class
    unsigned rf_reads = 0;   // 1024-bit operand reads the bank arbiter would grant
    unsigned rf_writes = 0;  // 1024-bit writebacks done this cycle
  };
  struct Limit {
    unsigned width = ~0u;  // picks that may issue, in scheduler order
    bool rf_reads = true;  // false: no operand-collector bank read this cycle
  };
  virtual ~IssueGate() = default;
  virtual void begin_launch() {}
  virtual Limit cycle(uint64_t now, const Demand& d) = 0;
  virtual void deferred(unsigned /*picks*/) {}  // picks the width left out this cycle
  virtual const char* stats_key() const = 0;    // its entry in the SM's stats
  virtual config::json stats() const = 0;
};

}  // namespace relgpu::sm
