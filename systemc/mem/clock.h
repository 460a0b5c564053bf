// A clock domain without an sc_clock: modules compute cycle numbers from
// sc_time_stamp() and notify their own event for the next cycle they have
// work in, so an idle module costs nothing (no per-cycle wake-ups).
#pragma once
#include <cstdint>

#include <systemc>

namespace relgpu::mem {

class ClockDomain {
 public:
  explicit ClockDomain(double mhz) : period_(sc_core::sc_time(1.0 / mhz, sc_core::SC_US).value()) {
    if (period_ == 0) period_ = 1;
  }
  uint64_t period() const { return period_; }  // in SystemC time-resolution units
  // The cycle whose edge is at or before now.
  uint64_t now() const { return sc_core::sc_time_stamp().value() / period_; }
  // The first edge strictly after now + delay: where an arrival is handled,
  // independent of delta-cycle order.
  uint64_t after(const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME) const {
    return (sc_core::sc_time_stamp() + delay).value() / period_ + 1;
  }
  // The first edge at or after an absolute time in resolution units.
  uint64_t ceil_of(uint64_t time_value) const { return (time_value + period_ - 1) / period_; }
  uint64_t time_of(uint64_t cycle) const { return cycle * period_; }
  // Notifies ev at the edge of `cycle` (now if that edge has passed).
  void notify_at(sc_core::sc_event& ev, uint64_t cycle) const {
    uint64_t t = cycle * period_, n = sc_core::sc_time_stamp().value();
    ev.notify(sc_core::sc_time::from_value(t > n ? t - n : 0));
  }

 private:
  uint64_t period_;
};

}  // namespace relgpu::mem
