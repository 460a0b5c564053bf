// A small pool of tlm_generic_payloads for one initiator. Each payload
// carries one sm::LineRequest: data_ptr and byte_enable_ptr point into the
// request, and the request's own MemExt is the payload's extension, so
// nothing is copied on the way to the L2 and back.
#pragma once
#include <memory>
#include <vector>

#include <tlm>

#include "sm/sm_core.h"

namespace relgpu::gpu {

class PayloadPool final : public tlm::tlm_mm_interface {
 public:
  struct Entry : tlm::tlm_generic_payload {
    std::unique_ptr<sm::LineRequest> req;
  };

  ~PayloadPool() override;
  // Takes the request, returns its payload with one reference held.
  tlm::tlm_generic_payload& wrap(std::unique_ptr<sm::LineRequest> r);
  // The request back (when its response arrives); the payload stays
  // referenced until every holder calls release().
  static std::unique_ptr<sm::LineRequest> unwrap(tlm::tlm_generic_payload& gp);
  void free(tlm::tlm_generic_payload* gp) override;
  size_t in_use() const { return all_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<Entry>> all_;
  std::vector<Entry*> free_;
};

}  // namespace relgpu::gpu
