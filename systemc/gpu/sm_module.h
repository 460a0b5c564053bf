// One SM as a SystemC module: a single thread, clocked by the SM's own
// clock, calls SmCore::cycle() once per cycle; when the core says nothing
// can happen before a memory response (next_active_cycle), the thread sleeps
// until that cycle or until a response or a new CTA wakes it, and the
// skipped cycles cost nothing. The module is the core's MemPort and turns
// its LineRequests into AT TLM-2.0 transactions (mem/request.h).
#pragma once
#include <cstdint>
#include <exception>
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>

#include "gpu/keys.h"
#include "gpu/payload_pool.h"
#include "sm/sm_core.h"

namespace relgpu::gpu {

// What the SM tells the GPU top (implemented by Gpu).
class SmHost {
 public:
  virtual ~SmHost() = default;
  virtual void ctas_finished(unsigned sm, unsigned n) = 0;
  virtual void sm_idle(unsigned sm) = 0;
  virtual void sm_failed(unsigned sm, std::exception_ptr e) = 0;
};

// Also the machine behind the special registers of its warps: %smid is the
// SM's index, %nsmid gpu.num_sms, %clock/%clock64 the SM's own cycle counter
// (edges of its clock since the simulation began, so it keeps counting across
// launches), %globaltimer the simulated time in ns at that edge.
class SmModule final : public sc_core::sc_module,
                       public sm::MemPort,
                       public tlm::tlm_bw_transport_if<>,
                       public func::MachineRegs {
 public:
  tlm::tlm_initiator_socket<> socket;

  SmModule(sc_core::sc_module_name name, unsigned id, Clock clock, const config::Config& cfg, SmHost& host);

  sm::SmCore& core() { return *core_; }
  const Clock& clock() const { return clock_; }
  unsigned id() const { return id_; }
  // A CTA was added (or the kernel starts): wake the thread if it sleeps.
  void kick() { wake_.notify(sc_core::SC_ZERO_TIME); }
  // Per-launch counters of this wrapper (the core keeps its own).
  struct Counters {
    uint64_t ticked = 0;        // cycles in which cycle() ran
    uint64_t skipped = 0;       // cycles skipped while waiting on memory
    uint64_t requests = 0;      // transactions sent
    uint64_t rejected = 0;      // send() refused (request phase still open)
    uint64_t latency_sum = 0;   // SM cycles from issue_cycle to response, summed
  };
  const Counters& counters() const { return n_; }
  void reset_counters() { n_ = Counters{}; }

  // sm::MemPort
  bool send(std::unique_ptr<sm::LineRequest>& r) override;
  // tlm_bw_transport_if
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) override;
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
  // func::MachineRegs
  uint32_t smid() const override { return id_; }
  uint32_t nsmid() const override { return nsms_; }
  uint64_t clock64() const override { return cycle_; }
  uint64_t globaltimer_ns() const override { return clock_.edge_ps(cycle_) / 1000; }

 private:
  void run();
  void wait_for_cycle(uint64_t k);
  uint64_t now_ps() const { return sc_core::sc_time_stamp().value(); }
  void respond(tlm::tlm_generic_payload& gp, const sc_core::sc_time& d);
  void on_peq(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph);
  void deliver(tlm::tlm_generic_payload& gp);

  unsigned id_, nsms_;
  Clock clock_;
  uint64_t cycle_ = 0;          // the cycle the core is in (or last ran)
  SmHost& host_;
  std::unique_ptr<sm::SmCore> core_;
  PayloadPool pool_;
  tlm::tlm_generic_payload* open_req_ = nullptr;  // BEGIN_REQ sent, END_REQ not yet seen
  tlm_utils::peq_with_cb_and_phase<SmModule> peq_;
  sc_core::sc_event wake_;
  sc_core::sc_event never_;     // never notified: a failed SM stops here
  uint64_t next_cycle_ = 0;     // cycles before this one have run
  Counters n_;
};

}  // namespace relgpu::gpu
