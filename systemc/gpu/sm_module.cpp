#include "gpu/sm_module.h"

#include <algorithm>

#include "common/error.h"

namespace relgpu::gpu {

using sc_core::SC_PS;
using sc_core::SC_ZERO_TIME;
using sc_core::sc_time;

SmModule::SmModule(sc_core::sc_module_name name, unsigned id, Clock clock, const config::Config& cfg, SmHost& host)
    : sc_module(name),
      socket("socket"),
      id_(id),
      nsms_(unsigned(cfg.get(kNumSms))),
      clock_(clock),
      host_(host),
      core_(sm::make_sm(id, cfg, *this)),
      peq_(this, &SmModule::on_peq) {
  socket.bind(*this);
  core_->set_machine(this);
  SC_HAS_PROCESS(SmModule);
  SC_THREAD(run);
}

void SmModule::wait_for_cycle(uint64_t k) {
  uint64_t t = clock_.edge_ps(k), now = now_ps();
  if (t > now) wait(sc_time(double(t - now), SC_PS));
}

void SmModule::run() {
  for (;;) {
    while (core_->idle()) {
      host_.sm_idle(id_);
      wait(wake_);
    }
    uint64_t now = std::max(next_cycle_, clock_.cycle_at_or_after(now_ps()));
    wait_for_cycle(now);
    for (;;) {
      try {
        cycle_ = now;
        core_->cycle(now);
      } catch (...) {
        // A kernel error (out-of-bounds access, runaway, ...) stops this SM
        // for good; the engine turns it into the launch's KernelError.
        host_.sm_failed(id_, std::current_exception());
        for (;;) wait(never_);
      }
      ++n_.ticked;
      if (unsigned done = core_->take_finished()) host_.ctas_finished(id_, done);
      if (core_->idle()) break;
      uint64_t next = core_->next_active_cycle(now);
      if (next > now + 1) {
        // Nothing to do before `next` unless memory answers or a CTA arrives.
        if (next == UINT64_MAX) wait(wake_);
        else wait(sc_time(double(clock_.edge_ps(next) - now_ps()), SC_PS), wake_);
        next = std::max(now + 1, clock_.cycle_at_or_after(now_ps()));
        n_.skipped += next - now - 1;
      } else {
        next = now + 1;
      }
      now = next;
      wait_for_cycle(now);
    }
    next_cycle_ = now + 1;
  }
}

bool SmModule::send(std::unique_ptr<sm::LineRequest>& r) {
  // Base protocol: one open request phase per socket; the SM retries later.
  if (open_req_) {
    ++n_.rejected;
    return false;
  }
  r->ext.sm = id_;
  tlm::tlm_generic_payload& gp = pool_.wrap(std::move(r));
  ++n_.requests;
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = SC_ZERO_TIME;
  switch (socket->nb_transport_fw(gp, ph, d)) {
    case tlm::TLM_ACCEPTED:
      open_req_ = &gp;
      break;
    case tlm::TLM_UPDATED:
      if (ph == tlm::BEGIN_RESP) {
        respond(gp, d);
        tlm::tlm_phase end = tlm::END_RESP;
        sc_time z = SC_ZERO_TIME;
        socket->nb_transport_fw(gp, end, z);
      } else if (ph != tlm::END_REQ) {
        throw std::logic_error("SM " + std::to_string(id_) + ": target answered BEGIN_REQ with an unexpected phase");
      }
      break;
    case tlm::TLM_COMPLETED:
      respond(gp, d);
      break;
  }
  return true;
}

tlm::tlm_sync_enum SmModule::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  if (ph == tlm::END_REQ) {
    if (open_req_ == &gp) open_req_ = nullptr;
    wake_.notify(d);  // the core may have a request waiting to go out
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (open_req_ == &gp) open_req_ = nullptr;  // BEGIN_RESP implies END_REQ
    respond(gp, d);
    return tlm::TLM_COMPLETED;
  }
  throw std::logic_error("SM " + std::to_string(id_) + ": unexpected phase on the backward path");
}

void SmModule::respond(tlm::tlm_generic_payload& gp, const sc_time& d) {
  if (d == SC_ZERO_TIME) deliver(gp);
  else peq_.notify(gp, tlm::BEGIN_RESP, d);
}

void SmModule::on_peq(tlm::tlm_generic_payload& gp, const tlm::tlm_phase&) { deliver(gp); }

void SmModule::deliver(tlm::tlm_generic_payload& gp) {
  if (gp.is_response_error()) {
    std::string what = "SM " + std::to_string(id_) + ": memory system answered " + gp.get_response_string() +
                       " for line 0x" + func::hex(gp.get_address());
    host_.sm_failed(id_, std::make_exception_ptr(KernelError(what)));
  }
  std::unique_ptr<sm::LineRequest> r = PayloadPool::unwrap(gp);
  gp.release();
  uint64_t now = clock_.cycle_at_or_after(now_ps());
  if (now > r->ext.issue_cycle) n_.latency_sum += now - r->ext.issue_cycle;
  core_->on_response(std::move(r));
  wake_.notify(SC_ZERO_TIME);
}

}  // namespace relgpu::gpu
