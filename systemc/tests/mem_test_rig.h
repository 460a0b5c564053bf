// Test helpers for mem_* tests: a scripted TLM initiator that follows the AT
// base protocol (one open BEGIN_REQ at a time, waits for END_REQ), records
// each request's accept and response times, and can hold END_RESP back to
// create back pressure. Each test case elaborates its own small netlist.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "common/config.h"
#include "func/memory.h"
#include "mem/mem.h"

namespace relgpu::mem::test {

using sc_core::sc_time;
using sc_core::SC_NS;

struct Req {
  tlm::tlm_generic_payload gp;
  MemExt* ext = new MemExt;
  uint8_t data[kLineBytes] = {};
  uint8_t be[kLineBytes] = {};
  sc_time at;                   // earliest issue time
  sc_time sent, accepted, done;  // BEGIN_REQ, END_REQ, BEGIN_RESP times
  bool finished = false;
  Req(Kind k, uint64_t addr) {
    ext->kind = k;
    gp.set_extension(ext);  // freed with the payload
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(kLineBytes);
    gp.set_streaming_width(kLineBytes);
    gp.set_command(k == Kind::read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    if (k == Kind::write) {
      gp.set_byte_enable_ptr(be);
      gp.set_byte_enable_length(kLineBytes);
    }
  }
  double latency_ns() const { return double((done - sent).value()) / 1000.0; }  // 1 ps resolution
};

class Initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Initiator> sock;
  std::vector<std::unique_ptr<Req>> reqs;
  sc_time end_resp_delay = sc_core::SC_ZERO_TIME;  // > 0: answer BEGIN_RESP with TLM_ACCEPTED
  unsigned finished = 0;

  explicit Initiator(sc_core::sc_module_name n) : sc_module(n), sock("sock") {
    sock.register_nb_transport_bw(this, &Initiator::bw);
    SC_HAS_PROCESS(Initiator);
    SC_THREAD(issue);
    SC_THREAD(ack);
  }

  Req& read(uint64_t addr, sc_time at = sc_core::SC_ZERO_TIME) { return add(Kind::read, addr, at); }
  // Writes `n` bytes of `src` at byte offset `off` of the line.
  Req& write(uint64_t addr, unsigned off, const void* src, unsigned n, sc_time at = sc_core::SC_ZERO_TIME) {
    Req& r = add(Kind::write, addr, at);
    std::memcpy(r.data + off, src, n);
    std::memset(r.be + off, 0xFF, n);
    return r;
  }
  Req& atomic(uint64_t addr, std::vector<AtomLane> lanes, sc_time at = sc_core::SC_ZERO_TIME) {
    Req& r = add(Kind::atomic, addr, at);
    r.ext->atoms = std::move(lanes);
    return r;
  }

 private:
  Req& add(Kind k, uint64_t addr, sc_time at) {
    reqs.push_back(std::make_unique<Req>(k, addr));
    reqs.back()->at = at;
    reqs.back()->ext->id = reqs.size() - 1;
    if (sc_core::sc_is_running()) more_.notify(sc_core::SC_ZERO_TIME);
    return *reqs.back();
  }
  void issue() {
    for (size_t i = 0;; ++i) {
      while (i >= reqs.size()) wait(more_);
      Req* r = reqs[i].get();
      if (sc_core::sc_time_stamp() < r->at) wait(r->at - sc_core::sc_time_stamp());
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time t = sc_core::SC_ZERO_TIME;
      r->sent = sc_core::sc_time_stamp();
      open_ = r;
      tlm::tlm_sync_enum s = sock->nb_transport_fw(r->gp, ph, t);
      if (s == tlm::TLM_ACCEPTED) {
        wait(end_req_);
      } else {
        r->accepted = sc_core::sc_time_stamp();
      }
    }
  }
  void ack() {
    for (;;) {
      wait(resp_);
      while (!acks_.empty()) {
        wait(end_resp_delay);
        tlm::tlm_generic_payload* gp = acks_.front();
        acks_.erase(acks_.begin());
        tlm::tlm_phase ph = tlm::END_RESP;
        sc_time t = sc_core::SC_ZERO_TIME;
        sock->nb_transport_fw(*gp, ph, t);
      }
    }
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& t) {
    if (ph == tlm::END_REQ) {
      open_->accepted = sc_core::sc_time_stamp();
      end_req_.notify();
      return tlm::TLM_ACCEPTED;
    }
    EXPECT_EQ(ph, tlm::BEGIN_RESP);
    Req& r = *reqs.at(gp.get_extension<MemExt>()->id);
    EXPECT_EQ(&r.gp, &gp);
    EXPECT_FALSE(r.finished) << "second response";
    r.done = sc_core::sc_time_stamp();
    r.finished = true;
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    ++finished;
    if (end_resp_delay == sc_core::SC_ZERO_TIME) return tlm::TLM_COMPLETED;
    acks_.push_back(&gp);
    resp_.notify();
    return tlm::TLM_ACCEPTED;
  }

  Req* open_ = nullptr;
  sc_core::sc_event end_req_, resp_, more_;
  std::vector<tlm::tlm_generic_payload*> acks_;
};

// A config with round numbers: every clock 1000 MHz (1 ns cycles).
inline config::Config simple_config(std::vector<std::string> sets = {}) {
  config::Config c;
  for (const char* s : {"mem.num_partitions=1", "mem.sub_partitions=1", "l2.clock_mhz=1000", "dram.clock_mhz=1000", "icnt.clock_mhz=1000",
                        "l2.hit_latency=10", "dram.latency=5"})
    c.set(s);
  for (auto& s : sets) c.set(s);
  return c;
}

// A heap allocation filled with bytes (i * 7 + seed) & 0xFF.
inline uint64_t pattern_alloc(func::GlobalMemory& g, uint64_t bytes, unsigned seed) {
  uint64_t p = g.alloc(bytes, func::Allocation::Kind::heap, "test");
  std::vector<uint8_t> v(bytes);
  for (uint64_t i = 0; i < bytes; ++i) v[i] = uint8_t(i * 7 + seed);
  g.write(p, v.data(), bytes, "pattern");
  return p;
}

inline double ns(const sc_time& t) { return double(t.value()) / 1000.0; }

// One partition behind a scripted initiator, on simple_config(sets).
struct PartitionRig {
  config::Config cfg;
  func::GlobalMemory g;
  Initiator ini{"ini"};
  std::unique_ptr<Partition> part;
  explicit PartitionRig(std::vector<std::string> sets = {}) : cfg(simple_config(std::move(sets))) {
    part = std::make_unique<Partition>("part", cfg, 0, g);
    ini.sock.bind(part->tgt);
  }
  config::json l2() const { return part->stats()["l2"]; }
  config::json dram() const { return part->stats()["dram"]; }
  int64_t c(const char* key) const { return cfg.value(key).get<int64_t>(); }
};

// DRAM contents (the backing store) of the line at a.
inline std::vector<uint8_t> gmem_line(func::GlobalMemory& g, uint64_t a) {
  std::vector<uint8_t> v(kLineBytes);
  g.read(v.data(), a, kLineBytes, "test");
  return v;
}

}  // namespace relgpu::mem::test

namespace relgpu::mem::test {

// A TLM target that accepts every request at once, records when it
// arrived, and answers each after `delay` (in arrival order).
class Sink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Sink> sock;
  std::vector<sc_time> arrivals;
  sc_time delay = sc_core::SC_ZERO_TIME;

  explicit Sink(sc_core::sc_module_name n) : sc_module(n), sock("sock") {
    sock.register_nb_transport_fw(this, &Sink::fw);
    SC_HAS_PROCESS(Sink);
    SC_THREAD(respond);
  }

 private:
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& t) {
    if (ph == tlm::END_RESP) {
      end_resp_.notify();
      return tlm::TLM_COMPLETED;
    }
    arrivals.push_back(sc_core::sc_time_stamp());
    q_.push_back(&gp);
    have_.notify(sc_core::SC_ZERO_TIME);
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void respond() {
    for (;;) {
      while (q_.empty()) wait(have_);
      tlm::tlm_generic_payload* gp = q_.front();
      q_.erase(q_.begin());
      if (delay != sc_core::SC_ZERO_TIME) wait(delay);
      gp->set_response_status(tlm::TLM_OK_RESPONSE);
      tlm::tlm_phase ph = tlm::BEGIN_RESP;
      sc_time t = sc_core::SC_ZERO_TIME;
      if (sock->nb_transport_bw(*gp, ph, t) == tlm::TLM_ACCEPTED) wait(end_resp_);
    }
  }
  std::vector<tlm::tlm_generic_payload*> q_;
  sc_core::sc_event have_, end_resp_;
};

}  // namespace relgpu::mem::test
