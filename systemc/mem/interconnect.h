// The crossbar between the SMs and the memory partitions: N SM-side target
// sockets, M partition-side initiator sockets (multi-passthrough: bind each
// SM's initiator socket to sm_side and mem_side to each partition's target,
// in index order), AT base protocol on both sides (mem/request.h).
//
// Two independent networks (requests SM->partition, responses
// partition->SM), so responses always drain and requests cannot deadlock
// them. Per network and per cycle of the interconnect clock:
//   - every input port has a FIFO of icnt.queue_depth packets; a BEGIN_REQ
//     (BEGIN_RESP) that finds it full is not accepted: END_REQ (END_RESP) is
//     sent when a slot frees (back pressure, nothing is dropped);
//   - round-robin arbitration grants an input's head packet when its input
//     port and its output port are both free and the output queue has room;
//   - a packet of F flits holds both ports for F cycles (one flit per cycle
//     per port) and reaches the output icnt.latency cycles after its last
//     flit left: delivered at grant + F - 1 + latency;
//   - an output sends one transaction at a time downstream and waits for
//     END_REQ (END_RESP) before the next.
// Packet sizes: header (icnt.header_bytes) + payload; F = ceil(size / flit):
//   read request: header; write: header + its segment (MemExt::sectors x
//   32, as GPGPU-Sim; the enabled bytes are at most that); atomic request: header + operand bytes
//   (2 operands for cas); read response: header + sectors x 32 (128 for an
//   L1 fill); write ack: header; atomic response: header + old values; LoSCache
//   count query and its answer: header alone (the 6-bit count rides in the
//   answer's header; our choice).
// Routing: AddressMap::partition(address) (address_map.h); responses go back
// to the SM port the request came in on (RouteExt on the payload).
#pragma once
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/config.h"
#include "mem/address_map.h"
#include "mem/clock.h"
#include "mem/ring.h"

namespace relgpu::mem {

inline const config::Key<double> kIcntClock{
    "icnt.clock_mhz", 700.0, "MHz", "interconnect clock (GPGPU-Sim GTX480 -gpgpu_clock_domains: 700)", 1, 1e5};
inline const config::Key<int64_t> kIcntLatency{
    "icnt.latency", 4, "icnt cycles",
    "traversal latency after a packet's last flit (our choice: GPGPU-Sim's GTX480 one-stage iSLIP crossbar, "
    "config_fermi_islip.icnt, has zero routing/allocation delays; 4 stands for router + channel)", 1, 10000};
inline const config::Key<int64_t> kIcntFlitBytes{
    "icnt.flit_bytes", 40, "bytes",
    "flit size; one flit per cycle per port (GPGPU-Sim 4.0 SM2_GTX480 flit_size = 40; 3.x: 32)",
    1, 4096};
inline const config::Key<int64_t> kIcntQueueDepth{
    "icnt.queue_depth", 16, "packets",
    "input and output queue depth per port and network: GPGPU-Sim 4.0 SM2_GTX480 vc_buf_size = 64 flits, "
    "16 packets of a 128-B line (3.x: 8 flits)", 1, 4096};
inline const config::Key<int64_t> kIcntHeaderBytes{
    "icnt.header_bytes", 8, "bytes",
    "packet header; a read request is a header alone (GPGPU-Sim READ_PACKET_SIZE = 8)", 0, 4096};

// Which SM port a request came from, carried on the payload for the response.
// Set once per payload object and reused (freed with the payload).
struct RouteExt : tlm::tlm_extension<RouteExt> {
  uint32_t src = 0;
  tlm::tlm_extension_base* clone() const override { return new RouteExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { src = static_cast<const RouteExt&>(o).src; }
};

class Interconnect : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Interconnect> sm_side;
  tlm_utils::multi_passthrough_initiator_socket<Interconnect> mem_side;

  // num_sms SM ports; mem.num_partitions partition ports.
  Interconnect(sc_core::sc_module_name name, const config::Config& cfg, unsigned num_sms);

  bool idle() const;
  config::json stats() const;
  // LoSCache count-query traffic (both networks) beside all traffic:
  // {query_packets, query_flits, query_bytes, total_packets, total_bytes}.
  config::json query_stats() const;
  void reset_stats();
  const AddressMap& map() const { return map_; }
  const ClockDomain& clock() const { return clk_; }
  // Bytes of the request / response packet for this payload, and its flits.
  unsigned req_bytes(tlm::tlm_generic_payload& gp) const;
  unsigned resp_bytes(tlm::tlm_generic_payload& gp) const;
  unsigned flits(unsigned bytes) const { return bytes ? (bytes + flit_ - 1) / flit_ : 1; }

 private:
  struct Packet {
    tlm::tlm_generic_payload* gp = nullptr;
    uint64_t ready = 0;  // cycle from which it may be granted
    uint32_t dst = 0, flits = 1, bytes = 0;
  };
  struct In {
    Ring<Packet> q;
    Packet pending;      // offered while q was full
    bool has_pending = false;
    bool pending_end = false;  // an END_x is owed upstream for it
    uint64_t free_at = 0;
  };
  struct Out {
    Ring<std::pair<uint64_t, tlm::tlm_generic_payload*>> q;  // (delivery cycle, payload)
    uint64_t free_at = 0;
    tlm::tlm_generic_payload* wait = nullptr;  // sent, waiting for its END_REQ / END_RESP
  };
  struct PortStats {
    uint64_t packets = 0, flits = 0, bytes = 0;
  };
  struct Net {
    bool is_req;
    std::vector<In> in;
    std::vector<Out> out;
    std::vector<PortStats> in_stats, out_stats;
    PortStats query;  // LoSCache count queries and their answers
    std::vector<std::pair<uint32_t, tlm::tlm_generic_payload*>> released;
    unsigned rr = 0;
    sc_core::sc_event ev;
  };

  tlm::tlm_sync_enum fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void end_of_elaboration() override;
  bool offer(Net& n, unsigned i, const Packet& p, bool owe_end);
  void response_from(unsigned part, tlm::tlm_generic_payload& gp, const sc_core::sc_time& t, bool owe_end,
                     bool* accepted);
  bool deliver(Net& n, unsigned j, tlm::tlm_generic_payload& gp);
  void release(Net& n, unsigned i, tlm::tlm_generic_payload& gp);
  void step(Net& n);
  void req_step() { step(req_); }
  void resp_step() { step(resp_); }
  void kick(Net& n) { clk_.notify_at(n.ev, clk_.after()); }

  unsigned nsm_;
  AddressMap map_;
  ClockDomain clk_;
  unsigned lat_, flit_, depth_, header_;
  bool count_queries_ = false;  // loscache.enable
  Net req_, resp_;
};

}  // namespace relgpu::mem
