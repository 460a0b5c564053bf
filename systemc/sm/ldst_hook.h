// The LD/ST-unit hook point: a mechanism beside the SM's LD/ST unit that
// sees each global memory instruction as it starts, tags the L2-bound
// requests it makes, may send packets of its own to the L2 partitions
// through the SM's miss queue, and may ask every scheduler for strict issue
// priority for one CTA's warps (an arbitration hook). LoSCache's prediction
// table (sm/loscache_unit.h) is one. The SM calls it from its CTA
// bookkeeping (core.cpp), its schedulers (core_pipe.cpp) and its LD/ST unit
// (core_ldst.cpp); what travels with a request is mem::MemExt's los_* part.
#pragma once
#include <cstdint>

#include "common/config.h"
#include "mem/request.h"

namespace relgpu::sm {

class LdstHook {
 public:
  // A global memory instruction starting in the LD/ST unit this cycle.
  struct Start {
    const void* function = nullptr;  // identifies the function (ptx::Function)
    int32_t pc = 0;
    uint64_t line = 0;               // the instruction's first line
    unsigned cta_slot = 0;
  };
  // What its L2-bound requests carry.
  struct Tag {
    uint8_t pred = 0, naive = 0;
    int16_t entry = -1;
    bool predict = false;
    void apply(mem::MemExt& e) const {
      e.los_pred = pred;
      e.los_naive = naive;
      e.los_entry = entry;
      e.los_predict = predict;
    }
  };
  // A packet of the hook's own for the partition owning `line`; its answer
  // comes back through answered().
  struct Packet {
    bool valid = false;
    uint64_t line = 0;
    int16_t entry = 0;
  };

  virtual ~LdstHook() = default;
  virtual void begin_launch() {}
  virtual void cta_added(unsigned /*cta_slot*/) {}
  virtual void cta_finished(unsigned /*cta_slot*/) {}
  // Arbitration: while prioritising(), the warps of the CTAs for which
  // prioritised() holds issue first in every scheduler.
  virtual bool prioritising() const { return false; }
  virtual bool prioritised(unsigned /*cta_slot*/) const { return false; }
  // One LD/ST cycle: `start` or null; `room`: the miss queue takes a packet
  // this cycle. Returns start's tag; sets `out` to send a packet.
  virtual Tag cycle(const Start* start, bool room, Packet& out) = 0;
  virtual void request_sent(unsigned /*cta_slot*/) {}      // a data request of the CTA left for the L2
  virtual void response(const mem::MemExt& /*ext*/) {}     // an L2 response to a data request
  virtual void answered(const mem::MemExt& /*ext*/) {}     // the answer to one of its packets
  virtual bool outstanding() const { return false; }       // packets unanswered: the SM is not idle
  virtual bool wants_cycle() const { return false; }       // work of its own: keep the SM ticking
  virtual const char* stats_key() const = 0;
  virtual config::json stats() const = 0;
};

}  // namespace relgpu::sm
