// The hook points of a mechanism on the SM's register-file path: the unit
// that sits between the bank arbitrator and the RF banks (GR-Guard's
// patching unit, sm/grguard.h). The SM calls it at these points of its
// operand-read, dispatch and writeback stages (sm/core_pipe.cpp); what the
// mechanism may read and do in turn is Core's "register-file path" section
// (sm/core.h). Where the data itself lives is the Placement of sm/regfile.h.
#pragma once
#include <cstdint>
#include <vector>

namespace relgpu::sm {

struct Inst;

class RfPathHook {
 public:
  virtual ~RfPathHook() = default;
  virtual void begin_launch() = 0;                            // a kernel starts
  virtual void claim_read_ports(std::vector<uint8_t>& used) = 0;  // arbitration: group read ports it takes first
  virtual void granted(Inst* in, unsigned slot) = 0;          // read `slot` of `in` won its group's port
  virtual bool holds(const Inst* in) const = 0;               // dispatch waits while its operands are not all in
  virtual void dispatching(const Inst* in) = 0;               // `in` reads its operands and leaves its collector
  virtual void writeback() = 0;                               // runs the writeback stage in the SM's place
  virtual void warp_exited(unsigned ws) = 0;                  // the warp exited with nothing in flight
};

}  // namespace relgpu::sm
