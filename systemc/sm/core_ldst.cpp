// LD/ST unit: coalescer, shared memory with bank conflicts, L1D with MSHRs,
// line requests to the memory system and their responses.
//
// Spaces (our choices where the papers are silent):
//   global        coalesced into 128-B lines, one line per cycle through L1;
//                 data only from L1 lines or memory responses
//   shared        32 banks x 4 B; a warp takes one cycle per distinct word in
//                 its most-used bank; latency smem.latency + extra cycles
//   local         assumed to hit in L1 (interleaved per thread, so one line per
//                 distinct 4-B word offset); l1d.hit_latency + extra lines
//   const, param  constant cache assumed to hit; one distinct address per
//                 cycle; sm.const_latency
// Non-global data goes through the executor's functional path.
#include <algorithm>
#include <cstring>

#include "sm/core.h"

namespace relgpu::sm {

using func::XK;
using mem::kLineBytes;
using ptx::Space;

std::unique_ptr<LineRequest> Core::new_request(Req::K kind, uint64_t line, unsigned ws, const Inst* in) {
  std::unique_ptr<LineRequest> r;
  if (!req_pool_.empty()) {
    r = std::move(req_pool_.back());
    req_pool_.pop_back();
  } else {
    r = std::make_unique<LineRequest>();
  }
  uint32_t id;
  if (!req_free_.empty()) {
    id = req_free_.back();
    req_free_.pop_back();
  } else {
    id = uint32_t(reqs_.size());
    reqs_.emplace_back();
  }
  reqs_[id] = Req{kind, -1, const_cast<Inst*>(in), ws};
  mem::MemExt& e = r->ext;
  e.kind = kind == Req::store    ? mem::Kind::write
           : kind == Req::atomic ? mem::Kind::atomic
           : kind == Req::query  ? mem::Kind::query
                                 : mem::Kind::read;
  e.sm = id_;
  e.warp = ws;
  e.cta = warps_[ws].cta_slot;
  if (const func::Cta* c = warps_[ws].cta)
    e.cta_id = c->ctaid[0] + ctx_.grid.x * (c->ctaid[1] + ctx_.grid.y * c->ctaid[2]);
  e.pc = in ? in->f.pc : -1;
  e.id = id;
  e.bypass_l1 = kind != Req::load;
  e.atoms.clear();
  e.issue_cycle = now_;
  e.sectors = 4;
  r->not_before = 0;
  e.los_pred = e.los_naive = 0;
  e.los_entry = -1;
  e.los_predict = e.los_mispredict = false;
  e.los_count = 0;
  e.mc_pending = 0;
  r->addr = line;
  r->write = kind == Req::store || kind == Req::atomic;
  if (r->write) {
    std::memset(r->data, 0, kLineBytes);
    std::memset(r->byte_enable, 0, kLineBytes);
  }
  if (kind != Req::query && kind != Req::ifetch && kind != Req::cfetch)
    (kind == Req::store ? st_.req_write : kind == Req::atomic ? st_.req_atomic : st_.req_read)++;
  return r;
}

// First cycle of a memory instruction in the unit: error checks, the
// non-global lanes (functional, with their timing), coalescing.
bool Core::start_ldst(Inst* in) {
  WarpSlot& s = warps_[in->ws];
  func::InFlight& f = in->f;
  in->gmask = ex_->global_lanes(*s.cta, *s.w, f);
  ex_->memory_non_global(*s.cta, *s.w, f, in->gmask);
  in->ldst_started = true;
  in->nclines = 0;
  unsigned cycles = 0, lat = 1;
  uint32_t other = f.exec & ~in->gmask;
  if (other) {
    uint64_t words[4 * func::kWarpSize];
    unsigned nwords = 0, nlocal = 0, nconst = 0;
    uint8_t bank_n[64] = {};
    uint64_t lw[4 * func::kWarpSize], ca[func::kWarpSize];
    unsigned degree = 0;
    bool shared = false;
    for (uint32_t m = other; m; m &= m - 1) {
      unsigned l = unsigned(__builtin_ctz(m));
      uint64_t a = f.addr[l];
      unsigned n = in->f.d->xk == XK::ld || in->f.d->xk == XK::st ? f.bytes : f.d->bytes;
      switch (f.lane_space[l]) {
        case Space::shared:
          shared = true;
          for (uint64_t w = a >> 2; w <= (a + n - 1) >> 2; ++w) {
            if (std::find(words, words + nwords, w) != words + nwords) continue;  // broadcast
            words[nwords++] = w;
            degree = std::max<unsigned>(degree, ++bank_n[w % smem_banks_]);
          }
          break;
        case Space::local:
          for (uint64_t w = a >> 2; w <= (a + n - 1) >> 2; ++w)
            if (std::find(lw, lw + nlocal, w) == lw + nlocal) lw[nlocal++] = w;
          break;
        default:  // param, const
          if (std::find(ca, ca + nconst, a) == ca + nconst) ca[nconst++] = a;
          if (ccache_) {
            uint64_t cl = ccache_->line_of(a) + (f.lane_space[l] == Space::param ? kParamBase : kConstBase);
            if (std::find(in->clines, in->clines + in->nclines, cl) == in->clines + in->nclines)
              in->clines[in->nclines++] = cl;
          }
          break;
      }
    }
    if (shared) {
      ++st_.smem_access;
      ++act_.shared_accesses;
      st_.smem_conflicts += degree - 1;
      cycles += degree;
      lat = std::max(lat, smem_lat_ + degree - 1);
    }
    if (nlocal) {
      ++st_.local_access;
      cycles += nlocal;
      lat = std::max(lat, l1_hit_ + nlocal - 1);
    }
    if (nconst) {
      ++st_.const_access;
      if (!ccache_) ++act_.const_accesses;  // else one per cache line (ccache_line)
      cycles += nconst;
      lat = std::max(lat, const_lat_ + nconst - 1);
    }
  }
  in->busy_until = now_ + (cycles ? cycles - 1 : 0);
  in->ready = now_ + lat;
  in->nlines = in->next_line = 0;
  in->next_cline = 0;
  for (uint32_t m = in->gmask; m; m &= m - 1) {
    uint64_t line = f.addr[__builtin_ctz(m)] & ~uint64_t(kLineBytes - 1);
    if (std::find(in->lines, in->lines + in->nlines, line) == in->lines + in->nlines) in->lines[in->nlines++] = line;
  }
  return true;
}

// One constant-cache line of a const/param access (one per cycle, before
// the global lines): a hit costs nothing more; a miss sends the line's
// fetch or joins the one in flight, and the instruction waits for it.
bool Core::ccache_line(Inst* in) {
  uint64_t line = in->clines[in->next_cline];
  ++st_.ccache_access, ++act_.const_accesses;
  if (ccache_->probe(line)) return true;
  int m = ccache_->pending(line);
  if (m < 0) {
    if (outq_.size() >= miss_q_ || (m = ccache_->allocate(line)) < 0) return false;
    ++st_.ccache_miss;
    // The memory system moves 128-B lines: fetch the one holding it.
    auto r = new_request(Req::cfetch, line & ~uint64_t(kLineBytes - 1), in->ws, nullptr);
    r->ext.sectors = uint8_t(std::min<unsigned>(4, (ccache_->line_bytes() + 31) / 32));
    reqs_[r->ext.id].mshr = m;
    outq_.push_back(std::move(r));
  }
  ccache_->waiters(m).push_back(reinterpret_cast<uintptr_t>(in));
  ++in->pending;
  return true;
}

void Core::ccache_filled(int m) {
  uint64_t line = ccache_->release(m);
  ccache_->fill(line);
  for (uintptr_t w : ccache_->waiters(m)) line_arrived(reinterpret_cast<Inst*>(w), line, nullptr);
  busy_ = true;
}

// GPGPU-Sim's segment rule for an uncached access touching bytes [lo, hi]
// of a line: one 32-B sector, one aligned 64-B half (2 sectors), or the line.
static uint8_t segment_sectors(unsigned lo, unsigned hi) {
  return lo / 32 == hi / 32 ? 1 : lo / 64 == hi / 64 ? 2 : 4;
}

static uint8_t enabled_sectors(const uint8_t* be) {
  unsigned lo = kLineBytes, hi = 0;
  for (unsigned i = 0; i < kLineBytes; ++i)
    if (be[i]) lo = std::min(lo, i), hi = i;
  return lo <= hi ? segment_sectors(lo, hi) : 1;
}

// One global line through L1 / to the memory system; false = stalled.
bool Core::ldst_line(Inst* in) {
  uint64_t line = in->lines[in->next_line];
  WarpSlot& s = warps_[in->ws];
  func::InFlight& f = in->f;
  XK xk = f.d->xk;
  if (xk == XK::ld && !in->op->bypass && l1_global_) {
    if (const uint8_t* d = l1_.probe(line)) {
      ++st_.l1_access, ++st_.l1_hit, ++act_.l1_accesses;
      ex_->load_from_line(f, in->gmask, line, d);
      in->ready = std::max(in->ready, now_ + l1_hit_);
      return true;
    }
    int m = l1_.mergeable(line);
    if (m >= 0) {
      ++st_.l1_access, ++st_.l1_miss, ++st_.l1_merge, ++act_.l1_accesses, ++act_.l1_misses;
      l1_.mshr(m).waiters.push_back(in);
      ++in->pending;
      return true;
    }
    if (outq_.size() >= miss_q_) return false;
    m = l1_.allocate(line);
    if (m < 0) {
      ++st_.mshr_full;
      return false;
    }
    ++st_.l1_access, ++st_.l1_miss, ++act_.l1_accesses, ++act_.l1_misses;
    auto r = new_request(Req::load, line, in->ws, in);
    r->not_before = now_ + l1_hit_;  // the miss is known after the L1 access
    tag_request(*r, in);
    reqs_[r->ext.id].mshr = m;
    l1_.mshr(m).waiters.push_back(in);
    ++in->pending;
    outq_.push_back(std::move(r));
    return true;
  }
  if (outq_.size() >= miss_q_) return false;
  if (xk == XK::ld) {
    ++st_.l1_bypass;
    unsigned lo = kLineBytes, hi = 0;
    for (uint32_t m = in->gmask; m; m &= m - 1) {
      uint64_t a = f.addr[__builtin_ctz(m)];
      if ((a & ~uint64_t(kLineBytes - 1)) != line) continue;
      lo = std::min(lo, unsigned(a - line));
      hi = std::max(hi, unsigned(std::min<uint64_t>(a - line + f.bytes, kLineBytes) - 1));
    }
    outq_.push_back(new_request(Req::bypass, line, in->ws, in));
    outq_.back()->ext.sectors = lo <= hi ? segment_sectors(lo, hi) : 1;
    tag_request(*outq_.back(), in);
    ++in->pending;
    return true;
  }
  // Stores and atomics: write-evict, and outstanding misses to the line are stale.
  l1_.evict(line);
  l1_.store_seen(line);
  if (xk == XK::st) {
    auto r = new_request(Req::store, line, in->ws, in);
    r->not_before = now_ + l1_hit_;  // write-through: the store passes the L1 first
    tag_request(*r, in);
    ex_->store_to_line(f, in->gmask, line, r->data, r->byte_enable);
    r->ext.sectors = enabled_sectors(r->byte_enable);
    outq_.push_back(std::move(r));
    ++s.stores, ++stores_total_;
    return true;
  }
  // Atomics: lanes whose bytes overlap go in separate requests (GPGPU-Sim's
  // atomic coalescing), so same-address lanes are serialised at the L2, in
  // lane order; the unit sends one request per cycle.
  bool ret = xk == XK::atom;  // red: acknowledged like a store
  atoms_.clear();
  ex_->atoms_for_line(f, in->gmask, line, atoms_);
  groups_.clear();
  for (const mem::AtomLane& a : atoms_) {
    size_t g = 0;
    auto overlaps = [&](const mem::AtomLane& b) { return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes; };
    while (g < groups_.size() && std::any_of(groups_[g].begin(), groups_[g].end(), overlaps)) ++g;
    if (g == groups_.size()) groups_.emplace_back();
    groups_[g].push_back(a);
  }
  for (auto& lanes : groups_) {
    auto r = new_request(Req::atomic, line, in->ws, ret ? in : nullptr);
    tag_request(*r, in);
    unsigned lo = kLineBytes, hi = 0;
    for (const mem::AtomLane& a : lanes) lo = std::min<unsigned>(lo, a.offset), hi = std::max<unsigned>(hi, a.offset + a.bytes - 1);
    r->ext.sectors = lo <= hi ? segment_sectors(lo, hi) : 1;
    r->ext.atoms.swap(lanes);
    outq_.push_back(std::move(r));
    if (ret) ++in->pending;
    else ++s.stores, ++stores_total_;
  }
  if (!groups_.empty()) in->busy_until = std::max(in->busy_until, now_ + groups_.size() - 1);
  return true;
}

void Core::ldst() {
  Inst* starting = !ldq_.empty() && !ldq_.front()->ldst_started ? ldq_.front() : nullptr;
  if (starting) start_ldst(starting);
  if (ldst_) ldst_hook_cycle(starting);
  if (ldq_.empty()) return;
  busy_ = true;
  Inst* in = ldq_.front();
  if (in->next_cline < in->nclines) {
    if (!ccache_line(in)) return;
    ++in->next_cline;
    return;
  }
  if (in->next_line < in->nlines) {
    if (!ldst_line(in)) return;
    if (++in->next_line < in->nlines) return;
  }
  if (in->busy_until > now_) return;
  ldq_.pop_front();
  in->left_unit = true;
  if (!in->pending) {
    in->ready = std::max(in->ready, now_ + 1);
    wb_.push_back(in);
  }
}

void Core::line_arrived(Inst* in, uint64_t line, const uint8_t* data) {
  if (data) ex_->load_from_line(in->f, in->gmask, line, data);
  if (--in->pending == 0 && in->left_unit) {
    in->ready = std::max(in->ready, now_ + 1);
    wb_.push_back(in);
  }
}

void Core::responses() {
  while (!resp_.empty()) {
    std::unique_ptr<LineRequest> r = std::move(resp_.front());
    resp_.pop_front();
    busy_ = true;
    uint32_t id = uint32_t(r->ext.id);
    Req q = reqs_.at(id);
    reqs_[id].kind = Req::free;
    req_free_.push_back(id);
    if (ldst_) ldst_->response(r->ext);
    if (rise_) rise_->response(r->ext.cta, r->ext.mc_pending, now_ - r->ext.issue_cycle, now_);  // RP-FRISE
    switch (q.kind) {
      case Req::load: {
        L1D::Mshr& m = l1_.mshr(q.mshr);
        if (!m.stale) l1_.fill(r->addr, r->data);
        for (Inst* in : m.waiters) line_arrived(in, r->addr, r->data);
        l1_.release(q.mshr);
        break;
      }
      case Req::bypass: line_arrived(q.inst, r->addr, r->data); break;
      case Req::atomic:
        if (q.inst) {
          ex_->atom_results(q.inst->f, r->ext.atoms);
          line_arrived(q.inst, r->addr, nullptr);
          break;
        }
        [[fallthrough]];
      case Req::store: {
        WarpSlot& s = warps_[q.ws];
        --s.stores, --stores_total_;
        s.dirty = true;
        if (s.w && s.w->done) cta_check(s.cta_slot);
        break;
      }
      case Req::query: ldst_->answered(r->ext); break;
      case Req::ifetch: icache_filled(q.mshr); break;
      case Req::cfetch: ccache_filled(q.mshr); break;
      default: throw std::logic_error("sm: response to an unknown request id " + std::to_string(id));
    }
    req_pool_.push_back(std::move(r));
  }
}

void Core::send() {
  if (outq_.empty()) return;
  if (outq_.front()->not_before > now_) {  // still in the L1 access: sleep until it leaves
    next_wake_ = std::min(next_wake_, outq_.front()->not_before);
    return;
  }
  busy_ = true;
  const bool data = outq_.front()->ext.kind != mem::Kind::query;
  const uint32_t req = uint32_t(outq_.front()->ext.id);
  if (port_.send(outq_.front())) {
    outq_.pop_front();
    ++act_.mem_requests;
    if (ldst_ && data) ldst_->request_sent(warps_[reqs_[req].ws].cta_slot);
  }
}

// ---- The LD/ST hook (sm/ldst_hook.h) ----

// The hook's cycle: it sees the global memory instruction starting in the
// unit now (LoSCache: the table's lookup and, while predicting, its insert)
// and may queue a packet of its own (a count query) when the miss queue has
// room.
void Core::ldst_hook_cycle(Inst* starting) {
  LdstHook::Start st;
  const LdstHook::Start* p = nullptr;
  if (starting && starting->nlines) {
    const WarpSlot& s = warps_[starting->ws];
    st.function = s.code;
    st.pc = starting->f.pc;
    st.line = starting->lines[0];
    st.cta_slot = s.cta_slot;
    p = &st;
  }
  LdstHook::Packet out;
  const LdstHook::Tag t = ldst_->cycle(p, outq_.size() < miss_q_, out);
  if (starting) starting->ldst_tag = t;
  if (out.valid) {
    auto r = new_request(Req::query, out.line, 0, nullptr);
    r->ext.los_entry = out.entry;
    outq_.push_back(std::move(r));
  }
  if (ldst_->wants_cycle()) busy_ = true;
}

void Core::tag_request(LineRequest& r, const Inst* in) const {
  if (ldst_) in->ldst_tag.apply(r.ext);
}

}  // namespace relgpu::sm
