#include "gpu/payload_pool.h"

namespace relgpu::gpu {

// Every payload of the pool is an Entry.
static PayloadPool::Entry& entry_of(tlm::tlm_generic_payload& gp) { return static_cast<PayloadPool::Entry&>(gp); }

PayloadPool::~PayloadPool() {
  // Extensions point into requests we own: detach before the payloads die.
  for (auto& e : all_) e->clear_extension<mem::MemExt>();
}

tlm::tlm_generic_payload& PayloadPool::wrap(std::unique_ptr<sm::LineRequest> r) {
  Entry* e;
  if (free_.empty()) {
    all_.push_back(std::make_unique<Entry>());
    e = all_.back().get();
    e->set_mm(this);
  } else {
    e = free_.back();
    free_.pop_back();
  }
  tlm::tlm_generic_payload& gp = *e;
  bool to_memory = r->ext.kind != mem::Kind::read;  // writes and atomics carry data to the L2
  gp.set_command(to_memory ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(r->addr);
  gp.set_data_ptr(r->data);
  gp.set_data_length(mem::kLineBytes);
  gp.set_streaming_width(mem::kLineBytes);
  gp.set_byte_enable_ptr(to_memory ? r->byte_enable : nullptr);
  gp.set_byte_enable_length(to_memory ? mem::kLineBytes : 0);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  gp.set_extension(&r->ext);
  e->req = std::move(r);
  gp.acquire();
  return gp;
}

std::unique_ptr<sm::LineRequest> PayloadPool::unwrap(tlm::tlm_generic_payload& gp) {
  Entry& e = entry_of(gp);
  gp.clear_extension<mem::MemExt>();
  gp.set_data_ptr(nullptr);
  gp.set_byte_enable_ptr(nullptr);
  return std::move(e.req);
}

void PayloadPool::free(tlm::tlm_generic_payload* gp) {
  Entry& e = entry_of(*gp);
  gp->clear_extension<mem::MemExt>();
  e.req.reset();
  free_.push_back(&e);
}

}  // namespace relgpu::gpu
