// The inside of one SM as plain C++ (no sc_signals): the SystemC wrapper in
// gpu/ calls cycle() once per SM clock from one clocked process and moves
// memory requests between MemPort and the TLM socket.
//
// Contract between sm/ (implements SmCore) and gpu/ (drives it):
// - begin_launch() before the first CTA of a kernel; CTAs arrive with
//   add_cta() whenever can_accept() says the SM has room (threads, CTA slots,
//   registers, shared memory); finished CTAs are reported by take_finished().
// - cycle(now) advances the pipeline by one SM cycle (stages in reverse
//   order). It may call MemPort::send for global-memory line requests.
// - A memory response is handed back with on_response() (any time between
//   cycles); the SM finishes the access (fills registers from the line data,
//   releases the scoreboard) in its next cycle.
// - next_active_cycle() tells the wrapper how far it may skip when nothing
//   can happen before a memory response (idle-cycle skipping).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "common/config.h"
#include "func/exec.h"
#include "mem/request.h"
#include "sm/activity.h"

namespace relgpu::sm {

// One outstanding line request of the SM. The payload fields follow
// mem/request.h: `addr` is line-aligned, `data` holds the line (read
// response) or the bytes to write (with `byte_enable`).
struct LineRequest {
  mem::MemExt ext;
  uint64_t not_before = 0;  // SM cycle it may leave (after the L1 access latency)
  uint64_t addr = 0;
  bool write = false;
  uint8_t data[mem::kLineBytes] = {};
  uint8_t byte_enable[mem::kLineBytes] = {};
};

class MemPort {
 public:
  virtual ~MemPort() = default;
  // Offers a request to the interconnect; false = not accepted this cycle
  // (back pressure), try again later. On success the port owns `r` until it
  // returns it through SmCore::on_response.
  virtual bool send(std::unique_ptr<LineRequest>& r) = 0;
};

// The CTA scheduler's side of the global smoother (gpu/global_smoother.h):
// every report period the SM sends its active-warp count over the CTA-done
// channel; the answer is how many cycles it must hold issue (0: none).
class ActiveWarpSink {
 public:
  virtual ~ActiveWarpSink() = default;
  virtual unsigned report(unsigned sm, uint64_t cycle, unsigned active_warps) = 0;
};

struct CtaShape {
  uint32_t threads = 0;         // threads per CTA
  uint32_t regs_per_thread = 0; // Function::regs_used()
  uint64_t shared_bytes = 0;    // static + dynamic
};

class SmCore {
 public:
  virtual ~SmCore() = default;
  virtual void begin_launch(const func::LaunchCtx& ctx) = 0;
  virtual bool can_accept(const CtaShape& s) const = 0;
  // How many CTAs of shape s an empty SM holds in this launch and which
  // resource sets that (the launch record's "occupancy"; after begin_launch).
  virtual config::json occupancy(const CtaShape& s) const = 0;
  virtual void add_cta(const uint32_t ctaid[3]) = 0;
  // CTAs finished since the last call (for the CTA scheduler).
  virtual unsigned take_finished() = 0;
  virtual bool idle() const = 0;  // no resident CTA and nothing in flight
  virtual void cycle(uint64_t now) = 0;
  virtual void on_response(std::unique_ptr<LineRequest> r) = 0;
  // The earliest cycle > now at which cycle() can do anything without a
  // memory response arriving first; UINT64_MAX if only a response can wake it.
  virtual uint64_t next_active_cycle(uint64_t now) const = 0;
  virtual void add_observer(ActivityObserver* o) = 0;
  // Where the special registers %smid, %clock64, ... of this SM's warps come
  // from (func/exec.h); kept across launches. nullptr: functional stand-ins.
  virtual void set_machine(const func::MachineRegs* m) = 0;
  // The global smoother: report active warps to `sink` every `period` cycles
  // of this SM (cycles that are multiples of it) and hold issue as it says.
  virtual void set_warp_sink(ActiveWarpSink* sink, unsigned period) = 0;
  // Per-kernel stats (reset by begin_launch), as JSON for the stats file.
  virtual config::json stats() const = 0;
  // The highest clock its register file makes at its supply (power/vf.h).
  virtual double rf_fmax_mhz() const = 0;
  // Its register file's supply (Vnom = 1) and entry width, for the power model.
  virtual double rf_vdd() const = 0;
  virtual unsigned rf_entry_bits() const = 0;
};

// The SM of this project (sm/core.cpp).
std::unique_ptr<SmCore> make_sm(unsigned sm_id, const config::Config& cfg, MemPort& port);

}  // namespace relgpu::sm
