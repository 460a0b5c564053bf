// Per-cycle activity of one SM, published once per SM cycle to observers.
// The power model, the droop predictor, aging stress and statistics
// subscribe here; nobody reaches into the SM's internals.
#pragma once
#include <cstdint>
#include <vector>

namespace relgpu::sm {

enum class IssueClass : uint8_t { INT, FP, SFU, LDST, count_ };

struct Activity {
  uint32_t sm = 0;
  uint64_t cycle = 0;                 // this SM's cycle number
  uint8_t issued[size_t(IssueClass::count_)] = {};  // warp instructions issued, by class
  uint32_t active_warps = 0;          // warps resident and not finished
  std::vector<uint8_t> rf_reads;      // per bank
  std::vector<uint8_t> rf_writes;     // per bank
  uint16_t rf_bank_conflicts = 0;
  uint16_t oc_allocated = 0;          // operand collectors in use
  uint16_t l1_accesses = 0, l1_misses = 0, shared_accesses = 0;
  uint16_t const_accesses = 0;        // constant/param warp accesses (ccache lines when modelled)
  uint16_t icache_accesses = 0;       // instruction fetches
  uint16_t mem_requests = 0;          // requests sent to the interconnect
};

class ActivityObserver {
 public:
  virtual ~ActivityObserver() = default;
  // Called once per SM cycle, also for cycles the SM skips while idle
  // (skipped cycles are reported as one call with `skipped` > 0 and an
  // Activity of all zeros, so observers can account idle time cheaply).
  virtual void on_cycle(const Activity& a, uint64_t skipped) = 0;
};

// What an operand read tells GR-Guard's patching unit about its register
// (sm/grguard.h): kDies = a compiler dead bit on a non-divergent read (the
// unit marks the WRG dead); the others say why a read does not: the
// compiler's last use but divergent, a last use on an operand without a
// dead bit (grguard.dead_bits=two: the third and later), or not a last use
// by the compiler's static liveness (read again on some path).
enum class ReadMark : uint8_t { kDies, kDivergent, kLaterOperand, kCompilerLive };

// Warp-register accesses of the RF, by where the register lives (bank group,
// row): an operand read when the arbitrator grants it, a result when it is
// written back (all its parts in), and each register of a warp that exited
// with nothing in flight (GR-Guard's exit deaths, grguard.exit_deaths).
// Called only for registers in the banks.
class RfAccessObserver {
 public:
  virtual ~RfAccessObserver() = default;
  virtual void rf_read(unsigned group, unsigned row, uint64_t cycle, ReadMark mark) = 0;
  virtual void rf_write(unsigned group, unsigned row, uint64_t cycle) = 0;
  virtual void rf_exit(unsigned group, unsigned row, uint64_t cycle) = 0;
};

}  // namespace relgpu::sm
