#include "mem/partition.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "blocks/loscache_table/loscache_table.h"
#include "func/memory_atomic.h"
#include "mem/request.h"

namespace relgpu::mem {

using tlm::tlm_generic_payload;

// A DRAM request's tag: the issuing slice in the high bits, its MSHR below.
constexpr unsigned kSliceShift = 24;

Partition::Partition(sc_core::sc_module_name name, const config::Config& cfg, unsigned index,
                     func::GlobalMemory& gmem)
    : sc_module(name),
      tgt("tgt"),
      index_(index),
      fill_on_memcpy_(cfg.get(kL2FillOnMemcpy)),
      sectored_(cfg.get(kL2Sectored)),
      lazy_write_(cfg.get(kL2WriteAllocate) == "lazy"),
      map_(cfg),
      l2clk_(cfg.get(kL2Clock)),
      dclk_(cfg.get(kDramClock)),
      l2_(cfg, map_, gmem),
      dram_(cfg),
      hit_lat_(unsigned(cfg.get(kL2HitLatency))),
      merge_max_(unsigned(cfg.get(kL2MshrMerge))),
      qdepth_(unsigned(cfg.get(kL2QueueDepth))),
      dram_lat_(unsigned(cfg.get(kDramLatency))),
      inq_(qdepth_),
      to_dram_(64),
      fills_(64),
      out_(qdepth_),
      energy_(cfg),
      los_(cfg.get(kLoscacheEnable)),
      launch_gating_(los_ && cfg.get(kLoscacheLaunchGating)),
      bypass_(cfg.get(kLoscacheBypass)),
      woken_(cfg.get(kLoscacheWokenLine) == "regate" ? Woken::regate
             : cfg.get(kLoscacheWokenLine) == "stay" ? Woken::stay : Woken::next),
      cnt_max_(unsigned(blocks::mask(unsigned(cfg.get(blocks::loscache_keys::kCntWidth))))),
      life_on_(cfg.get(kL2LifeStats)) {
  if (index_ >= map_.partitions())
    throw InputError("partition index " + std::to_string(index_) + " >= mem.num_partitions " +
                     std::to_string(map_.partitions()));
  tgt.register_nb_transport_fw(this, &Partition::nb_transport_fw);
  slices_.push_back(this);
  unsigned n = unsigned(cfg.get(kL2Mshrs));
  mshr_.resize(n);
  waiters_.resize(n);
  for (auto& w : waiters_) w.reserve(merge_max_);
  for (unsigned i = n; i-- > 0;) free_mshr_.push_back(i);
  if (los_) use_.resize(size_t(l2_.sets()) * l2_.ways());
  resp_.reserve(qdepth_ + size_t(n) * merge_max_);
  SC_HAS_PROCESS(Partition);
  SC_METHOD(l2_step);
  sensitive << l2_ev_;
  dont_initialize();
  SC_METHOD(dram_step);
  sensitive << dram_ev_;
  dont_initialize();
}

void Partition::kick_l2() { l2clk_.notify_at(l2_ev_, l2clk_.after()); }

unsigned Partition::memcpy_fill(uint64_t addr, uint64_t n) {
  if (!fill_on_memcpy_ || n == 0) return 0;
  unsigned count = 0;
  for (uint64_t a = addr & ~uint64_t(kLineBytes - 1); a < addr + n; a += kLineBytes) {
    if (map_.partition(a) != index_ || l2_.lookup(a) >= 0) continue;
    int v = l2_.victim(a);
    if (v < 0) continue;  // every way is being fetched
    if (los_) los_evicting(v, l2clk_.now());
    if (life_on_ && l2_.line(v).st != L2Cache::State::invalid) life_.evict(l2_.line(v).addr);
    l2_.replace(v, a, L2Cache::State::valid);  // a dirty victim is written back (untimed)
    l2_.fill(v);
    ++count;
  }
  return count;
}

void Partition::share_dram_with(Partition& owner) {
  if (&owner == this || owner.owner_ != &owner || slices_.size() != 1)
    throw std::logic_error("partition: share_dram_with needs a DRAM-owning slice, once");
  owner_ = &owner;
  slices_.clear();
  sub_ = uint32_t(owner.slices_.size());
  owner.slices_.push_back(this);
}

tlm::tlm_sync_enum Partition::nb_transport_fw(tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t) {
  if (ph == tlm::BEGIN_REQ) {
    if (pending_) SC_REPORT_ERROR(name(), "BEGIN_REQ before END_REQ of the previous request");
    if (inq_.size() < qdepth_) {
      inq_.push_back({&gp, l2clk_.after(t)});
      kick_l2();
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    pending_ = &gp;  // END_REQ when a slot frees: back pressure
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {
    resp_blocked_ = false;
    kick_l2();
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR(name(), "unexpected phase on the forward path");
  return tlm::TLM_COMPLETED;
}

// Room in the channel's DRAM queue for one more request, counting what every
// slice of the channel has on its way there.
bool Partition::dram_room(bool write) const {
  unsigned in_flight = 0;
  for (const Partition* p : owner_->slices_) in_flight += write ? p->to_dram_writes_ : p->to_dram_reads_;
  return dram().queued(write) + in_flight < dram().depth();
}

static bool full_line(const tlm_generic_payload& gp) {
  const uint8_t* be = gp.get_byte_enable_ptr();
  if (!be) return true;
  if (gp.get_byte_enable_length() < kLineBytes) return false;
  for (unsigned i = 0; i < kLineBytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, be + i, 8);
    if (w != ~uint64_t(0)) return false;
  }
  return true;
}

// The bytes a write enables, as a 128-bit mask (bit i = byte i).
static void write_mask(const tlm_generic_payload& gp, uint64_t m[2]) {
  const uint8_t* be = gp.get_byte_enable_ptr();
  unsigned bl = gp.get_byte_enable_length();
  m[0] = m[1] = be ? 0 : ~uint64_t(0);
  if (be)
    for (unsigned i = 0; i < kLineBytes; ++i)
      if (be[i % bl] == TLM_BYTE_ENABLED) m[i / 64] |= uint64_t(1) << (i % 64);
}

void Partition::apply(tlm_generic_payload& gp, int line) {
  uint8_t* ld = l2_.data(line);
  MemExt* ext = gp.get_extension<MemExt>();
  uint8_t* d = gp.get_data_ptr();
  switch (ext->kind) {
    case Kind::read:
      energy_.count(power::L2Energy::data_read);
      std::memcpy(d, ld, kLineBytes);
      return;
    case Kind::query:
      return;
    case Kind::write: {
      energy_.count(power::L2Energy::data_write);
      const uint8_t* be = gp.get_byte_enable_ptr();
      unsigned bl = gp.get_byte_enable_length();
      if (!be) {
        std::memcpy(ld, d, kLineBytes);
      } else if (bl == kLineBytes) {  // enables are 0xFF/0x00 bytes: a word mask
        for (unsigned i = 0; i < kLineBytes; i += 8) {
          uint64_t m, v, o;
          std::memcpy(&m, be + i, 8);
          std::memcpy(&v, d + i, 8);
          std::memcpy(&o, ld + i, 8);
          o = (o & ~m) | (v & m);
          std::memcpy(ld + i, &o, 8);
        }
      } else {
        for (unsigned i = 0; i < kLineBytes; ++i)
          if (be[i % bl] == TLM_BYTE_ENABLED) ld[i] = d[i];
      }
      l2_.line(line).dirty = true;
      if (l2_.line(line).partial) {
        uint64_t m[2];
        write_mask(gp, m);
        l2_.written(line, m);
      }
      return;
    }
    case Kind::atomic:
      energy_.count(power::L2Energy::data_read);
      energy_.count(power::L2Energy::data_write);
      for (AtomLane& a : ext->atoms) {
        if (a.offset + a.bytes > kLineBytes) SC_REPORT_ERROR(name(), "atomic lane operand crosses the line");
        a.old = func::atom_apply_at(ld + a.offset, a.op, a.type, a.bytes, a.b, a.c);
      }
      l2_.line(line).dirty = true;
      return;
  }
}

void Partition::respond(tlm_generic_payload& gp, uint64_t ready) {
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  resp_.push_back({ready, resp_seq_++, &gp});
  std::push_heap(resp_.begin(), resp_.end(), std::greater<Resp>());
}

bool Partition::lookup(tlm_generic_payload& gp, uint64_t c) {
  if (!lookup_line(gp, c)) return false;
  if (life_on_) {
    const MemExt& e = *gp.get_extension<MemExt>();
    if (e.kind != Kind::query) life_.access(gp.get_address(), c, e.cta_id);
  }
  return true;
}

// Tag lookup of one request at L2 cycle c; false = a resource is busy, retry.
bool Partition::lookup_line(tlm_generic_payload& gp, uint64_t c) {
  MemExt* ext = gp.get_extension<MemExt>();
  uint64_t a = gp.get_address();
  if (!ext) SC_REPORT_ERROR(name(), "request without a MemExt extension (mem/request.h)");
  if (a % kLineBytes || gp.get_data_length() < kLineBytes)
    SC_REPORT_ERROR(name(), "request is not one line-aligned 128-byte line (mem/request.h)");
  if (map_.partition(a) != index_) SC_REPORT_ERROR(name(), "request routed to the wrong partition");
  int i = l2_.lookup(a);
  if (los_ && ext->kind == Kind::query) return los_query(gp, *ext, i, c);
  KindStats& ks = ks_[unsigned(ext->kind)];
  // LoSCache (partition_loscache.cpp): the prediction the request carries
  // (0 = none, and always 0 in the prediction phase: count only) and the
  // line's access count after this access.
  const unsigned pred = los_ && !ext->los_predict ? ext->los_pred : 0;
  if (i < 0) {
    if (pred == 1 && bypass_ && ext->kind != Kind::atomic) return los_bypass(gp, *ext, a, c, ks);
    return miss(gp, *ext, a, c, ks);
  }
  L2Cache::Line& l = l2_.line(i);
  const uint8_t cnt = uint8_t(std::min<unsigned>(l.count + 1u, cnt_max_));
  // The predicted last access: gate after it (a woken line under "stay" never).
  const bool last = pred && cnt >= pred && !(woken_ == Woken::stay && l.woken);
  switch (l.st) {
    case L2Cache::State::valid:
      if (l.partial && ext->kind != Kind::write) {  // allocated by writes alone: fetch the rest
        if (free_mshr_.empty() || !dram_room(false)) return false;
        l.st = L2Cache::State::reserved;
        start_fetch(gp, a, i, c);
        ++ks.accesses, ++ks.misses;
        if (last) l.gate_pending = true;
        break;
      }
      // Gating a dirty (or now written) line needs DRAM room for its write-back.
      if (last && (l.dirty || ext->kind != Kind::read) && !dram_room(true)) return false;
      apply(gp, i);
      l2_.touch(i);
      respond(gp, c + hit_lat_);
      ++ks.accesses, ++ks.hits;
      break;
    case L2Cache::State::reserved: {  // the line is being fetched
      auto& w = waiters_[l.mshr];
      if (w.size() >= merge_max_) return false;
      w.push_back(&gp);
      ++ks.accesses, ++ks.misses, ++ks.mshr_merges;
      if (last) l.gate_pending = true;
      break;
    }
    case L2Cache::State::gated:  // LoSCache only: under-prediction, refetch
      if (!los_refetch(gp, *ext, a, i, c, ks)) return false;
      if (last && woken_ == Woken::regate) l.gate_pending = true;
      break;
    case L2Cache::State::invalid: break;  // lookup() never returns one
  }
  energy_.count(power::L2Energy::tag);
  if (los_) {
    l.count = cnt;
    los_access(a, *ext);
    los_used(i, c);
    if (l.st == L2Cache::State::valid && last) los_gate(i, c);  // served above, then gated
  }
  return true;
}

// A request whose line has no tag here: victim, write-back, fetch. A write
// allocates without fetching (GPGPU-Sim's L2 write-allocate policy
// "lazy fetch on read"): a partial line holds only the written bytes until
// a read fetches the rest.
bool Partition::miss(tlm_generic_payload& gp, MemExt& e, uint64_t a, uint64_t c, KindStats& ks) {
  bool whole = e.kind == Kind::write && full_line(gp);
  bool lazy = whole || (e.kind == Kind::write && lazy_write_);
  int v = l2_.victim(a);
  if (v < 0) return false;
  const L2Cache::Line& vl = l2_.line(v);
  uint64_t vaddr = vl.addr;
  if (vl.st == L2Cache::State::valid && vl.dirty && !dram_room(true)) return false;
  if (!lazy && (free_mshr_.empty() || !dram_room(false))) return false;
  ++ks.accesses, ++ks.misses;
  energy_.count(power::L2Energy::tag);
  if (los_) los_evicting(v, c);
  if (life_on_ && vl.st != L2Cache::State::invalid) life_.evict(vaddr);
  if (l2_.replace(v, a, lazy ? L2Cache::State::valid : L2Cache::State::reserved)) {
    ++writebacks_;
    energy_.count(power::L2Energy::data_read);
    to_dram_.push_back({c + hit_lat_, map_.local(vaddr), 0, true});
    ++to_dram_writes_;
  }
  if (los_) los_allocated(v, e, c);
  if (lazy) {
    l2_.line(v).partial = !whole;
    apply(gp, v);
    respond(gp, c + hit_lat_);
    if (l2_.line(v).gate_pending) gate_q_.push_back(v);
    return true;
  }
  start_fetch(gp, a, v, c);
  return true;
}

// MSHR and DRAM read for gp's line (line < 0: a LoSCache bypass, no line).
void Partition::start_fetch(tlm_generic_payload& gp, uint64_t a, int line, uint64_t c) {
  uint32_t m = free_mshr_.back();
  free_mshr_.pop_back();
  mshr_[m] = {a, line, 0};
  waiters_[m].push_back(&gp);
  if (line >= 0) l2_.line(line).mshr = int32_t(m);
  to_dram_.push_back({c + hit_lat_, map_.local(a), m, false});
  ++to_dram_reads_;
}

void Partition::l2_step() {
  uint64_t c = l2clk_.now();
  if (los_) power_tick(c);
  // Misses and write-backs that have passed the L2 pipeline enter the DRAM queues.
  if (!to_dram_.empty() && to_dram_.front().due <= c) {
    uint64_t dc = dclk_.after();
    while (!to_dram_.empty() && to_dram_.front().due <= c) {
      const ToDram& x = to_dram_.front();
      dram().push(x.local, x.write, x.tag | sub_ << kSliceShift, dc);
      --(x.write ? to_dram_writes_ : to_dram_reads_);
      to_dram_.pop_front();
    }
    dclk_.notify_at(owner_->dram_ev_, dc);
  }
  // Fills: the line becomes valid, then its MSHR's requests, one per cycle.
  while (!fills_.empty() && fills_.front().due <= c) {
    uint32_t m = fills_.front().mshr;
    const uint16_t waited = uint16_t(std::min<uint64_t>(fills_.front().waited, UINT16_MAX));
    fills_.pop_front();
    for (tlm_generic_payload* w : waiters_[m]) w->get_extension<MemExt>()->mc_pending = waited;  // RISE's T_P
    int line = mshr_[m].line;
    uint64_t k = 0;
    if (line < 0) {  // LoSCache bypass: the data was read at the lookup
      for (tlm_generic_payload* w : waiters_[m]) respond(*w, c + ++k);
    } else {
      l2_.fill(line);
      energy_.count(power::L2Energy::data_write);
      L2Cache::Line& l = l2_.line(line);
      l.st = L2Cache::State::valid;
      l.mshr = -1;
      l2_.touch(line);
      for (tlm_generic_payload* w : waiters_[m]) {
        apply(*w, line);
        respond(*w, c + ++k);
      }
      if (l.gate_pending) gate_q_.push_back(line);
    }
    waiters_[m].clear();
    free_mshr_.push_back(m);
  }
  if (!gate_q_.empty()) los_gate_pending(c);
  // Responses that have passed the pipeline enter the bounded queue towards
  // the interconnect; only that queue (not the pipeline) can stall lookups.
  while (!resp_.empty() && resp_.front().ready <= c && out_.size() < qdepth_) {
    std::pop_heap(resp_.begin(), resp_.end(), std::greater<Resp>());
    out_.push_back(resp_.back().gp);
    resp_.pop_back();
  }
  // Tag lookups in arrival order, one 32-B sector per cycle (GPGPU-Sim's
  // sectored L2 splits a request into sector accesses); the flush uses the
  // cycles the tags are free.
  bool looked_up = tag_free_ > c;
  if (!inq_.empty() && inq_.front().ready <= c && tag_free_ <= c) {
    looked_up = true;
    stall_on_resp_ = out_.size() >= qdepth_;
    const MemExt* e = inq_.front().gp->get_extension<MemExt>();
    KindStats* ks = e && e->kind != Kind::query ? &ks_[unsigned(e->kind)] : nullptr;
    uint64_t misses = ks ? ks->misses : 0;
    if (!stall_on_resp_ && lookup(*inq_.front().gp, c)) {
      unsigned sectors = ks ? e->sectors : 1;
      tag_free_ = c + (sectored_ ? sectors : 1);
      if (ks) {
        ks->sectors += sectors;
        if (ks->misses != misses) ks->sector_misses += sectors;
      }
      inq_.pop_front();
      if (stalled_) stall_cycles_ += c - stall_since_;
      stalled_ = false;
      if (pending_) {
        inq_.push_back({pending_, c + 1});
        end_req_ = pending_;
        pending_ = nullptr;
      }
    } else if (!stalled_) {
      stalled_ = true;
      stall_since_ = c;
    }
  }
  bool flush_waits = false;  // for DRAM room: dram_step kicks us
  if (!looked_up && !flush_q_.empty()) flush_waits = !flush_step(c);
  // One response per cycle towards the interconnect.
  if (!resp_blocked_ && !out_.empty()) {
    tlm_generic_payload* gp = out_.front();
    out_.pop_front();
    tlm::tlm_phase ph = tlm::BEGIN_RESP;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    if (tgt->nb_transport_bw(*gp, ph, t) == tlm::TLM_ACCEPTED) resp_blocked_ = true;
  }
  if (end_req_) {  // after our state is consistent: the caller may send BEGIN_REQ at once
    tlm_generic_payload* gp = end_req_;
    end_req_ = nullptr;
    tlm::tlm_phase ph = tlm::END_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    tgt->nb_transport_bw(*gp, ph, t);
  }
  // Next cycle with work; resources freed elsewhere (DRAM slot, END_RESP) kick us.
  uint64_t next = UINT64_MAX;
  if (!to_dram_.empty()) next = std::min(next, to_dram_.front().due);
  if (!fills_.empty()) next = std::min(next, fills_.front().due);
  if (!inq_.empty() && (!stalled_ || (stall_on_resp_ && out_.size() < qdepth_)))
    next = std::min(next, std::max(inq_.front().ready, tag_free_));
  if (!resp_.empty() && out_.size() < qdepth_) next = std::min(next, resp_.front().ready);
  if (!resp_blocked_ && !out_.empty()) next = c + 1;
  if (!gate_q_.empty() || (!flush_q_.empty() && !flush_waits)) next = c + 1;
  if (next != UINT64_MAX) l2clk_.notify_at(l2_ev_, std::max(next, c + 1));
  if (flushing_) flush_check();
}

void Partition::dram_step() {
  uint64_t d = dclk_.now();
  unsigned before = dram_.queued(false) + dram_.queued(true);
  uint64_t next = dram_.step(d, done_);
  for (const DramCtrl::Done& x : done_) {
    Partition* s = slices_.at(x.tag >> kSliceShift);
    uint64_t due = s->l2clk_.ceil_of(dclk_.time_of(x.cycle)) + dram_lat_;
    s->fills_.push_back({due, x.tag & ((1u << kSliceShift) - 1), x.waited});
    s->l2clk_.notify_at(s->l2_ev_, due);
  }
  done_.clear();
  if (dram_.queued(false) + dram_.queued(true) < before)
    for (Partition* s : slices_)
      if (s->stalled_ || !s->flush_q_.empty()) s->kick_l2();
  if (next != UINT64_MAX) dclk_.notify_at(dram_ev_, next);
  for (Partition* s : slices_)
    if (s->flushing_) s->flush_check();
}

void Partition::start_flush() {
  flush_q_.clear();
  for (unsigned i = l2_.sets() * l2_.ways(); i-- > 0;) {  // taken from the back: in line order
    const L2Cache::Line& l = l2_.line(int(i));
    if (l.st == L2Cache::State::valid && l.dirty) flush_q_.push_back(int(i));
  }
  flushing_ = true;
  kick_l2();  // also ends a flush with nothing to do (flush_check)
}

bool Partition::flush_step(uint64_t c) {
  if (!dram_room(true)) return false;
  int i = flush_q_.back();
  flush_q_.pop_back();
  uint64_t a = l2_.line(i).addr;
  if (!l2_.clean(i)) return true;  // written or evicted since the flush began
  ++flush_wb_;
  energy_.count(power::L2Energy::data_read);
  to_dram_.push_back({c + 1, map_.local(a), 0, true});
  ++to_dram_writes_;
  return true;
}

// Done when this slice has nothing left and the channel's DRAM (shared with
// the other slices) has issued every write-back.
void Partition::flush_check() {
  if (!flush_q_.empty() || !idle() || !dram().empty()) return;
  flushing_ = false;
  uint64_t now = sc_core::sc_time_stamp().value();
  flush_end_ps_ = std::max(now, dclk_.time_of(dram().bus_free()));
  flush_done_.notify(sc_core::SC_ZERO_TIME);
}

bool Partition::idle() const {
  return inq_.empty() && !pending_ && to_dram_.empty() && fills_.empty() && resp_.empty() && out_.empty() && !resp_blocked_ &&
         dram_.empty() && free_mshr_.size() == mshr_.size() && gate_q_.empty();
}

void Partition::reset_stats() {
  for (KindStats& k : ks_) k = {};
  writebacks_ = flush_wb_ = stall_cycles_ = 0;
  stall_since_ = l2clk_.now();
  dram_.stats = {};
  stats_t0_ = sc_core::sc_time_stamp().value();
  stats_c0_ = power_t_ = l2clk_.now();
  on_cycles_ = 0;
  los_st_ = {};
  pc_counts_.clear();
  powered_ = {};
  for (WayUse& u : use_) u = {stats_c0_, true};  // LoSCache: no way accessed in the new window yet
  energy_.reset();
  life_.reset();
}

config::json Partition::stats() const {
  config::json l2, kinds;
  KindStats tot;
  const char* names[3] = {"read", "write", "atomic"};
  for (unsigned k = 0; k < 3; ++k) {
    const KindStats& s = ks_[k];
    kinds[names[k]] = {{"accesses", s.accesses}, {"hits", s.hits}, {"misses", s.misses},
                       {"mshr_merges", s.mshr_merges}, {"sectors", s.sectors}, {"sector_misses", s.sector_misses}};
    tot.accesses += s.accesses, tot.hits += s.hits, tot.misses += s.misses, tot.mshr_merges += s.mshr_merges;
    tot.sectors += s.sectors, tot.sector_misses += s.sector_misses;
  }
  l2 = {{"accesses", tot.accesses}, {"hits", tot.hits}, {"misses", tot.misses}, {"mshr_merges", tot.mshr_merges},
        {"sectors", tot.sectors}, {"sector_misses", tot.sector_misses},
        {"writebacks", writebacks_}, {"flush_writebacks", flush_wb_}, {"stall_cycles", stall_cycles_},
        {"per_kind", kinds}};
  const DramCtrl::Stats& d = dram_.stats;
  // The channel's DRAM is reported once, by the slice that owns it.
  uint64_t cycles = owner_ == this ? (sc_core::sc_time_stamp().value() - stats_t0_) / dclk_.period() : 0;
  config::json dram = {{"reads", d.reads}, {"writes", d.writes}, {"row_hits", d.row_hits},
                       {"row_misses", d.row_misses}, {"activates", d.activates}, {"precharges", d.precharges},
                       {"bytes_read", d.bytes_read}, {"bytes_written", d.bytes_written},
                       {"busy_cycles", d.busy_cycles}, {"cycles", cycles},
                       {"bandwidth_util", cycles ? double(d.busy_cycles) / double(cycles) : 0.0}};
  // Leakage over the time since the last reset; with LoSCache only powered
  // line-cycles leak fully (mem/loscache.h, power/l2_energy.h).
  uint64_t now = l2clk_.now(), lines = uint64_t(l2_.sets()) * l2_.ways();
  uint64_t line_cycles = lines * (now - stats_c0_);
  uint64_t on = los_ ? on_cycles_ + uint64_t(l2_.powered_lines()) * (now - power_t_) : line_cycles;
  double seconds = sc_core::sc_time::from_value(sc_core::sc_time_stamp().value() - stats_t0_).to_seconds();
  config::json out = {{"l2", l2}, {"dram", dram},
                      {"l2_energy", energy_.stats(seconds, line_cycles ? double(on) / double(line_cycles) : 1.0)}};
  if (los_) out["loscache"] = los_stats(now);
  if (life_on_) {
    config::json life = life_.stats(line_cycles);
    double live = line_cycles ? double(life["live_line_cycles"].get<uint64_t>()) / double(line_cycles) : 0.0;
    life["ideal_gating_total_nj"] = energy_.ideal_total_nj(seconds, live, life["generations"].get<uint64_t>());
    out["l2_life"] = std::move(life);
  }
  return out;
}

}  // namespace relgpu::mem
