#include "mem/interconnect.h"

#include <algorithm>
#include <cstring>

#include "mem/loscache.h"
#include "mem/request.h"

namespace relgpu::mem {

using tlm::tlm_generic_payload;

Interconnect::Interconnect(sc_core::sc_module_name name, const config::Config& cfg, unsigned num_sms)
    : sc_module(name),
      sm_side("sm_side"),
      mem_side("mem_side"),
      nsm_(num_sms),
      map_(cfg),
      clk_(cfg.get(kIcntClock)),
      lat_(unsigned(cfg.get(kIcntLatency))),
      flit_(unsigned(cfg.get(kIcntFlitBytes))),
      depth_(unsigned(cfg.get(kIcntQueueDepth))),
      header_(unsigned(cfg.get(kIcntHeaderBytes))),
      count_queries_(cfg.get(kLoscacheEnable)) {
  if (nsm_ == 0) throw InputError("the interconnect needs at least one SM port");
  sm_side.register_nb_transport_fw(this, &Interconnect::fw);
  mem_side.register_nb_transport_bw(this, &Interconnect::bw);
  unsigned np = map_.partitions();
  auto init = [&](Net& n, bool is_req, unsigned nin, unsigned nout) {
    n.is_req = is_req;
    n.in.resize(nin);
    n.out.resize(nout);
    for (In& i : n.in) i.q = Ring<Packet>(depth_);
    for (Out& o : n.out) o.q = Ring<std::pair<uint64_t, tlm_generic_payload*>>(depth_);
    n.in_stats.resize(nin);
    n.out_stats.resize(nout);
    n.released.reserve(nin);
  };
  init(req_, true, nsm_, np);
  init(resp_, false, np, nsm_);
  SC_HAS_PROCESS(Interconnect);
  SC_METHOD(req_step);
  sensitive << req_.ev;
  dont_initialize();
  SC_METHOD(resp_step);
  sensitive << resp_.ev;
  dont_initialize();
}

void Interconnect::end_of_elaboration() {
  if (sm_side.size() != nsm_ || mem_side.size() != map_.partitions())
    SC_REPORT_ERROR(name(), ("bound " + std::to_string(sm_side.size()) + " SM and " +
                             std::to_string(mem_side.size()) + " partition sockets; expected " +
                             std::to_string(nsm_) + " and " + std::to_string(map_.partitions()))
                                .c_str());
}

static unsigned atom_bytes(const MemExt& e, bool operands) {
  unsigned n = 0;
  for (const AtomLane& a : e.atoms) n += a.bytes * (operands && a.op == ptx::AtomOp::cas ? 2 : 1);
  return n;
}

unsigned Interconnect::req_bytes(tlm_generic_payload& gp) const {
  const MemExt* e = gp.get_extension<MemExt>();
  unsigned b = header_;
  if (e && e->kind == Kind::write) b += e->sectors * 32u;  // GPGPU-Sim sends the whole segment
  if (e && e->kind == Kind::atomic) b += atom_bytes(*e, true);
  return b;
}

unsigned Interconnect::resp_bytes(tlm_generic_payload& gp) const {
  const MemExt* e = gp.get_extension<MemExt>();
  unsigned b = header_;
  if (!e) b += kLineBytes;
  if (e && e->kind == Kind::read) b += e->sectors * 32u;
  if (e && e->kind == Kind::atomic) b += atom_bytes(*e, false);
  return b;
}

// An input port takes a packet if its FIFO has room; else it holds it as
// the one pending offer (the base protocol allows one open BEGIN per socket).
bool Interconnect::offer(Net& n, unsigned i, const Packet& p, bool owe_end) {
  In& in = n.in[i];
  if (in.q.size() < depth_ && !in.has_pending) {
    in.q.push_back(p);
    kick(n);
    return true;
  }
  if (in.has_pending) SC_REPORT_ERROR(name(), "a second BEGIN before the first was accepted");
  in.pending = p;
  in.has_pending = true;
  in.pending_end = owe_end;
  return false;
}

tlm::tlm_sync_enum Interconnect::fw(int id, tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t) {
  if (ph == tlm::BEGIN_REQ) {
    RouteExt* r = gp.get_extension<RouteExt>();
    if (!r) {
      r = new RouteExt;
      gp.set_extension(r);
    }
    r->src = uint32_t(id);
    Packet p;
    p.gp = &gp;
    p.ready = clk_.after(t);
    p.dst = map_.partition(gp.get_address());
    p.bytes = req_bytes(gp);
    p.flits = flits(p.bytes);
    if (!offer(req_, unsigned(id), p, true)) return tlm::TLM_ACCEPTED;
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (ph == tlm::END_RESP) {
    resp_.out[id].wait = nullptr;
    kick(resp_);
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR(name(), "unexpected phase from an SM");
  return tlm::TLM_COMPLETED;
}

void Interconnect::response_from(unsigned part, tlm_generic_payload& gp, const sc_core::sc_time& t, bool owe_end,
                                 bool* accepted) {
  const RouteExt* r = gp.get_extension<RouteExt>();
  if (!r) SC_REPORT_ERROR(name(), "response without the interconnect's route extension");
  Packet p;
  p.gp = &gp;
  p.ready = clk_.after(t);
  p.dst = r->src;
  p.bytes = resp_bytes(gp);
  p.flits = flits(p.bytes);
  *accepted = offer(resp_, part, p, owe_end);
}

tlm::tlm_sync_enum Interconnect::bw(int id, tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t) {
  Out& o = req_.out[id];
  if (o.wait && (ph == tlm::END_REQ || (ph == tlm::BEGIN_RESP && o.wait == &gp))) {  // BEGIN_RESP implies END_REQ
    o.wait = nullptr;
    kick(req_);
  }
  if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
  if (ph == tlm::BEGIN_RESP) {
    bool ok;
    response_from(unsigned(id), gp, t, true, &ok);
    return ok ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  }
  SC_REPORT_ERROR(name(), "unexpected phase from a partition");
  return tlm::TLM_COMPLETED;
}

// Hands a packet to output j's downstream socket; false = it must wait for
// the END_REQ / END_RESP before the next one.
bool Interconnect::deliver(Net& n, unsigned j, tlm_generic_payload& gp) {
  sc_core::sc_time t = sc_core::SC_ZERO_TIME;
  if (!n.is_req) {
    tlm::tlm_phase ph = tlm::BEGIN_RESP;
    return sm_side[j]->nb_transport_bw(gp, ph, t) != tlm::TLM_ACCEPTED;
  }
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  tlm::tlm_sync_enum r = mem_side[j]->nb_transport_fw(gp, ph, t);
  if (r == tlm::TLM_ACCEPTED) return false;
  if (ph == tlm::BEGIN_RESP || r == tlm::TLM_COMPLETED) {  // the target answered at once
    bool owe = r != tlm::TLM_COMPLETED, ok;
    response_from(j, gp, t, owe, &ok);
    if (ok && owe) release(resp_, j, gp);
  }
  return true;
}

// The upstream side of input i may go on: END_REQ to the SM, END_RESP to the partition.
void Interconnect::release(Net& n, unsigned i, tlm_generic_payload& gp) {
  sc_core::sc_time t = sc_core::SC_ZERO_TIME;
  if (n.is_req) {
    tlm::tlm_phase ph = tlm::END_REQ;
    sm_side[i]->nb_transport_bw(gp, ph, t);
  } else {
    tlm::tlm_phase ph = tlm::END_RESP;
    mem_side[i]->nb_transport_fw(gp, ph, t);
  }
}

void Interconnect::step(Net& n) {
  uint64_t c = clk_.now();
  for (unsigned j = 0; j < n.out.size(); ++j) {
    Out& o = n.out[j];
    while (!o.wait && !o.q.empty() && o.q.front().first <= c) {
      tlm_generic_payload* gp = o.q.front().second;
      o.q.pop_front();
      if (!deliver(n, j, *gp)) o.wait = gp;
    }
  }
  unsigned nin = unsigned(n.in.size());
  for (unsigned k = 0; k < nin; ++k) {
    unsigned i = (n.rr + k) % nin;
    In& in = n.in[i];
    if (in.q.empty() || in.free_at > c) continue;
    const Packet p = in.q.front();
    Out& o = n.out[p.dst];
    if (p.ready > c || o.free_at > c || o.q.size() >= depth_) continue;
    in.free_at = o.free_at = c + p.flits;
    o.q.push_back({c + p.flits - 1 + lat_, p.gp});
    PortStats& si = n.in_stats[i];
    PortStats& so = n.out_stats[p.dst];
    ++si.packets, ++so.packets;
    si.flits += p.flits, so.flits += p.flits;
    si.bytes += p.bytes, so.bytes += p.bytes;
    if (count_queries_) {
      const MemExt* e = p.gp->get_extension<MemExt>();
      if (e && e->kind == Kind::query) ++n.query.packets, n.query.flits += p.flits, n.query.bytes += p.bytes;
    }
    in.q.pop_front();
    if (in.has_pending) {
      Packet q = in.pending;
      q.ready = std::max(q.ready, c + 1);
      in.q.push_back(q);
      in.has_pending = false;
      if (in.pending_end) n.released.push_back({i, q.gp});
    }
  }
  n.rr = (n.rr + 1) % nin;
  for (auto& [i, gp] : n.released) release(n, i, *gp);
  n.released.clear();
  uint64_t next = UINT64_MAX;
  for (const Out& o : n.out)
    if (!o.wait && !o.q.empty()) next = std::min(next, o.q.front().first);
  for (const In& in : n.in) {
    if (in.q.empty()) continue;
    const Packet& p = in.q.front();
    const Out& o = n.out[p.dst];
    if (o.q.size() >= depth_) continue;  // a delivery or END_x wakes us
    next = std::min(next, std::max({p.ready, in.free_at, o.free_at}));
  }
  if (next != UINT64_MAX) clk_.notify_at(n.ev, std::max(next, c + 1));
}

bool Interconnect::idle() const {
  for (const Net* n : {&req_, &resp_}) {
    for (const In& i : n->in)
      if (!i.q.empty() || i.has_pending) return false;
    for (const Out& o : n->out)
      if (!o.q.empty() || o.wait) return false;
  }
  return true;
}

void Interconnect::reset_stats() {
  for (Net* n : {&req_, &resp_}) {
    for (PortStats& s : n->in_stats) s = {};
    for (PortStats& s : n->out_stats) s = {};
    n->query = {};
  }
}

config::json Interconnect::stats() const {
  auto js = [](const PortStats& s) {
    return config::json{{"packets", s.packets}, {"flits", s.flits}, {"bytes", s.bytes}};
  };
  config::json sms = config::json::array(), parts = config::json::array();
  PortStats req, resp;
  for (unsigned i = 0; i < nsm_; ++i) {
    sms.push_back({{"to_icnt", js(req_.in_stats[i])}, {"from_icnt", js(resp_.out_stats[i])}});
    req.packets += req_.in_stats[i].packets, req.flits += req_.in_stats[i].flits;
    req.bytes += req_.in_stats[i].bytes;
  }
  for (unsigned j = 0; j < map_.partitions(); ++j) {
    parts.push_back({{"from_icnt", js(req_.out_stats[j])}, {"to_icnt", js(resp_.in_stats[j])}});
    resp.packets += resp_.in_stats[j].packets, resp.flits += resp_.in_stats[j].flits;
    resp.bytes += resp_.in_stats[j].bytes;
  }
  return {{"request", js(req)}, {"response", js(resp)}, {"sm", sms}, {"partition", parts}};
}

}  // namespace relgpu::mem

namespace relgpu::mem {

config::json Interconnect::query_stats() const {
  uint64_t packets = 0, bytes = 0;
  for (const Net* n : {&req_, &resp_})
    for (const PortStats& p : n->in_stats) packets += p.packets, bytes += p.bytes;
  return {{"query_packets", req_.query.packets + resp_.query.packets},
          {"query_flits", req_.query.flits + resp_.query.flits},
          {"query_bytes", req_.query.bytes + resp_.query.bytes},
          {"total_packets", packets},
          {"total_bytes", bytes}};
}

}  // namespace relgpu::mem
