// The hook points of a mechanism on the SM's register-file path, between the
// bank arbitrator and the RF banks: GR-Guard's patching unit (sm/grguard.h)
// or the bank organization table's arbitration (sm/bot_path.h); one at a
// time. The SM calls it at these points of its issue, operand-read, dispatch
// and writeback stages (sm/core.cpp, sm/core_pipe.cpp); what the mechanism
// may read and do in turn is Core's "register-file path" section
// (sm/core.h). Where the data itself lives is the Placement or BankMap of
// sm/regfile.h.
#pragma once
#include <cstdint>
#include <vector>

namespace relgpu::sm {

struct Inst;
struct StaticOp;

class RfPathHook {
 public:
  virtual ~RfPathHook() = default;
  virtual void begin_launch() {}  // a kernel starts
  // Bank arbitration, one of two ways. Either the SM arbitrates on its bank
  // groups and tells the hook (claim_read_ports first, then granted for
  // each read that won), or the hook arbitrates itself: arbitrate() runs
  // after the responses stage and operand_read() delivers its grants in the
  // operand-read stage, returning true.
  virtual void arbitrate() {}
  virtual bool operand_read() { return false; }
  virtual void claim_read_ports(std::vector<uint8_t>& /*used*/) {}  // group read ports it takes first
  virtual void granted(Inst* /*in*/, unsigned /*slot*/) {}          // read `slot` of `in` won its group's port
  virtual bool holds(const Inst* /*in*/) const { return false; }   // dispatch waits while true
  virtual void dispatching(const Inst* /*in*/) {}                 // `in` reads its operands and leaves its collector
  virtual void operands_read(const Inst* /*in*/) {}               // ... and has read them
  virtual void writeback() = 0;                                    // runs the writeback stage in the SM's place
  virtual void warp_exited(unsigned /*ws*/) {}                     // the warp exited with nothing in flight
  virtual bool wants_cycle() const { return false; }               // keep the SM ticking next cycle
  // Issue: with fast_first(), each scheduler issues a ready instruction the
  // hook calls fast before any other (FWAS), and fast_issued() counts it.
  virtual bool fast_first() const { return false; }
  virtual bool fast(unsigned /*ws*/, const StaticOp& /*op*/) const { return false; }
  virtual void fast_issued() {}
};

}  // namespace relgpu::sm
