#include "sm/less_unit.h"

#include <algorithm>

#include <stdexcept>

#include "common/error.h"
#include "ptx/ir.h"
#include "sm/core.h"

namespace relgpu::sm {

namespace {
// Cycles a ready result may wait for its write: far beyond any contention
// (a bus is held at most less.stt_write_cycles), so only a model error reaches it.
constexpr uint64_t kStarved = 1'000'000;
}  // namespace

LessPath::LessPath(Core& core, const config::Config& cfg)
    : c_(core),
      narrow_on_(cfg.get(kLessNarrow)),
      threshold_(unsigned(cfg.get(kLessThreshold))),
      write_cycles_(unsigned(cfg.get(kLessSttWrite))) {
  const std::string p = cfg.get(kLessPlacement);
  placement_all_ = p == "all";
  placement_none_ = p == "none" || p == "sram_split";
  for (auto& b : bus_free_) b.assign(size_t(cfg.get(kLessResultBuses)), 0);
  // Table 4.1 for the segment sizes: SRAM 128 KB alone, SRAM 32 KB + STT-RAM
  // 96 KB, or STT-RAM 128 KB alone.
  if (placement_none_) {
    e_read_[0] = e_read_[1] = cfg.get(kLessSramRead128);
    e_write_[0] = e_write_[1] = cfg.get(kLessSramWrite128);
    leak_mw_ = cfg.get(kLessSramLeak128);
  } else if (placement_all_) {
    e_read_[0] = e_read_[1] = cfg.get(kLessSttRead128);
    e_write_[0] = e_write_[1] = cfg.get(kLessSttWrite128);
    leak_mw_ = cfg.get(kLessSttLeak128);
  } else {
    e_read_[0] = cfg.get(kLessSramRead32), e_read_[1] = cfg.get(kLessSttRead96);
    e_write_[0] = cfg.get(kLessSramWrite32), e_write_[1] = cfg.get(kLessSttWrite96);
    leak_mw_ = cfg.get(kLessSramLeak32) + cfg.get(kLessSttLeak96);
  }
}

void LessPath::begin_launch() {
  st_ = Stats{};
  live_.clear();
  stt_port_free_.assign(c_.regfile().groups(), 0);
  for (auto& b : bus_free_) std::fill(b.begin(), b.end(), 0);
  const ptx::Function* k = c_.regs().kernel();
  auto it = by_kernel_.find(k);
  if (it == by_kernel_.end()) {
    // The kernel's physical registers by namespace, as the compiler split
    // them (ptx::split_namespaces at module load): STT-RAM from less_sram_regs up.
    std::vector<uint8_t> phys(std::max(k->regs_allocator, k->regs_used()), placement_all_ ? 1 : 0);
    if (!placement_all_ && !placement_none_) {
      if (k->less_sram_regs < 0)
        throw std::logic_error("less: kernel '" + k->name + "' was loaded without its register namespaces");
      for (size_t p = size_t(k->less_sram_regs); p < k->regs_allocator; ++p) phys[p] = 1;
    }
    it = by_kernel_.emplace(k, std::move(phys)).first;
  }
  stt_ = &it->second;
  for (size_t p = 0; p < k->regs_allocator; ++p) ++st_.regs[(*stt_)[p]];  // the registers values use
  c_.regs().set_immune(stt_);  // STT-RAM cells take no particle strike (sm/upsets.h)
}

unsigned LessPath::banked_phys(const Inst& in, bool write, unsigned* out, unsigned max) const {
  const unsigned cap = c_.regs().capacity(in.ws);
  unsigned n = 0;
  for (uint16_t p : write ? in.op->wr_phys : in.op->rd_phys)
    if (in.pbase + p < cap && n < max) out[n++] = in.pbase + p;
  return n;
}

bool LessPath::narrow(const Inst& in) const {
  const func::InFlight& f = in.f;
  const bool pair = f.d && f.d->dst2 >= 0;
  if (!f.ndst && !pair) return false;
  constexpr uint64_t kHigh16 = 0xffff0000ffff0000ull;  // the upper half of each 32-bit register
  for (uint32_t m = f.exec; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    for (unsigned k = 0; k < f.ndst; ++k)
      if (f.dbuf[k][l] & kHigh16) return false;
    if (pair && (f.d2buf[l] & kHigh16)) return false;
  }
  return true;
}

int LessPath::free_bus(uint8_t need, uint64_t now, uint8_t& took) const {
  const size_t n = bus_free_[0].size();
  int half_open = -1, empty = -1;
  for (size_t b = 0; b < n; ++b) {
    const bool lo = bus_free_[0][b] <= now, hi = bus_free_[1][b] <= now;
    if (lo && hi) {
      if (empty < 0) empty = int(b);
    } else if (lo || hi) {
      if (half_open < 0) half_open = int(b);
    }
  }
  if (need == kBoth) {
    took = kBoth;
    return empty;
  }
  // A narrow write joins a bus another narrow write holds first (NWA-LESS's
  // free half), else takes the low half of a free bus.
  if (half_open >= 0) {
    took = bus_free_[0][size_t(half_open)] <= now ? kLow : kHigh;
    return half_open;
  }
  took = kLow;
  return empty;
}

void LessPath::writeback() {
  std::vector<Inst*>& wb = c_.writeback_queue();
  std::vector<uint8_t>& wports = c_.write_ports();
  std::fill(wports.begin(), wports.end(), 0);
  const uint64_t now = c_.now();
  if (wb.empty()) return;
  std::sort(wb.begin(), wb.end(), Core::writeback_order);
  const bool buses = !bus_free_[0].empty();
  size_t keep = 0;
  for (size_t i = 0; i < wb.size(); ++i) {
    Inst* in = wb[i];
    if (in->wb_done) {  // an STT-RAM write in progress
      if (in->wb_done <= now)
        c_.retire(in);
      else
        wb[keep++] = in;
      continue;
    }
    if (in->ready > now) {
      wb[keep++] = in;
      continue;
    }
    unsigned phys[sizeof in->write_group];
    banked_phys(*in, true, phys, in->nwrite);
    bool to_stt = false;
    for (unsigned j = 0; j < in->nwrite; ++j) to_stt |= stt(phys[j]);
    bool ok = true;
    for (unsigned j = 0; j < in->nwrite && ok; ++j) {
      const unsigned g = in->write_group[j];
      if (wports[g]) {
        c_.count_rf_write_conflict(g);
        ok = false;
      } else if (to_stt && stt_port_free_[g] > now) {
        ++st_.port_waits;
        ok = false;
      }
    }
    const bool nar = ok && to_stt && narrow_on_ && narrow(*in);  // (only a write that may go checks its values)
    const unsigned len = to_stt ? write_cycles_ : 1;
    int bus = -1;
    uint8_t took = kNone;
    if (ok && buses && in->nwrite) {
      bus = free_bus(nar ? kLow : kBoth, now, took);
      if (bus < 0) {
        ++st_.bus_waits;
        ok = false;
      }
    }
    if (!ok) {
      // A result the buses and ports can never take would spin to gpu.max_cycles: stop instead.
      if (now - in->ready > kStarved)
        throw KernelError("less: a result of warp slot " + std::to_string(in->ws) + " waited " +
                          std::to_string(now - in->ready) + " cycles for a result bus and its bank's write port");
      wb[keep++] = in;
      continue;
    }
    if (bus >= 0) {
      const bool shared = took != kBoth && bus_free_[took == kLow ? 1 : 0][size_t(bus)] > now;
      st_.shared_bus += shared;
      for (unsigned h = 0; h < 2; ++h)
        if (took >> h & 1) bus_free_[h][size_t(bus)] = now + len;
    }
    st_.narrow_stt += nar;
    const unsigned span = c_.regfile().span();
    for (unsigned j = 0; j < in->nwrite; ++j) {
      const unsigned g = in->write_group[j], p = phys[j];
      wports[g] = 1;
      if (to_stt) stt_port_free_[g] = now + len;
      for (unsigned b = 0; b < span; ++b) c_.count_rf_access(true, g * span + b);
      ++st_.writes[to_stt];
      write_value(*in, in->ws, p, to_stt, now);
    }
    if (len > 1) {
      in->wb_done = now + len - 1;  // the result is in the cells at the end of the write
      wb[keep++] = in;
    } else {
      c_.retire(in);
    }
  }
  wb.resize(keep);
}

void LessPath::granted(Inst* in, unsigned slot) {
  unsigned phys[sizeof in->read_group];
  if (banked_phys(*in, false, phys, slot + 1) <= slot) return;
  const unsigned p = phys[slot];
  ++st_.reads[stt(p)];
  if (in->ws >= live_.size() || p >= live_[in->ws].size()) return;
  Value& v = live_[in->ws][p];
  if (!v.open) return;
  v.rd = c_.now();
  v.rd_seq = in->seq;
  v.read = true;
}

void LessPath::write_value(const Inst& in, unsigned ws, unsigned p, bool stt, uint64_t now) {
  if (ws >= live_.size()) live_.resize(ws + 1);
  if (p >= live_[ws].size()) live_[ws].resize(p + 1);
  close(ws, p);
  live_[ws][p] = Value{now, now, in.seq, in.seq, true, false, stt};
}

void LessPath::close(unsigned ws, unsigned p) {
  Value& v = live_[ws][p];
  if (!v.open) return;
  v.open = false;
  const uint64_t ace = v.read ? v.rd - v.wr : 0;
  const unsigned cls = v.read && v.rd_seq - v.wr_seq > threshold_ ? 1 : 0;  // lifetime in the warp's instructions
  st_.ace[v.stt] += ace;
  ++st_.values[cls];
  st_.value_ace[cls] += ace;
  if (cls == 0 && v.stt) ++st_.misplaced[0];
  if (cls == 1 && !v.stt) ++st_.misplaced[1];
}

void LessPath::warp_exited(unsigned ws) {
  if (ws >= live_.size()) return;
  for (unsigned p = 0; p < live_[ws].size(); ++p) close(ws, p);
}

config::json LessPath::stats() const {
  const double dyn = double(st_.reads[0]) * e_read_[0] + double(st_.reads[1]) * e_read_[1] +
                     double(st_.writes[0]) * e_write_[0] + double(st_.writes[1]) * e_write_[1];
  return {{"sram_regs", st_.regs[0]},
          {"stt_regs", st_.regs[1]},
          {"sram_reads", st_.reads[0]},
          {"stt_reads", st_.reads[1]},
          {"sram_writes", st_.writes[0]},
          {"stt_writes", st_.writes[1]},
          {"narrow_stt_writes", st_.narrow_stt},
          {"shared_bus_writes", st_.shared_bus},
          {"bus_waits", st_.bus_waits},
          {"port_waits", st_.port_waits},
          {"ace_sram_reg_cycles", st_.ace[0]},
          {"ace_stt_reg_cycles", st_.ace[1]},
          {"short_values", st_.values[0]},
          {"long_values", st_.values[1]},
          {"short_ace_reg_cycles", st_.value_ace[0]},
          {"long_ace_reg_cycles", st_.value_ace[1]},
          {"short_in_stt", st_.misplaced[0]},
          {"long_in_sram", st_.misplaced[1]},
          {"dynamic_nj", dyn},
          {"leakage_mw", leak_mw_}};
}

void derive_less(config::json& l, double seconds) {
  auto num = [&](const char* k) { return l.contains(k) ? l[k].get<double>() : 0.0; };
  auto ratio = [&](const char* out, double a, double b) {
    if (b > 0) l[out] = a / b;
  };
  ratio("coverage", num("ace_stt_reg_cycles"), num("ace_stt_reg_cycles") + num("ace_sram_reg_cycles"));
  ratio("short_value_share", num("short_values"), num("short_values") + num("long_values"));
  ratio("long_value_ace_share", num("long_ace_reg_cycles"), num("long_ace_reg_cycles") + num("short_ace_reg_cycles"));
  ratio("stt_reg_share", num("stt_regs"), num("stt_regs") + num("sram_regs"));
  ratio("stt_write_share", num("stt_writes"), num("stt_writes") + num("sram_writes"));
  ratio("narrow_share", num("narrow_stt_writes"), num("stt_writes"));
  ratio("shared_bus_share", num("shared_bus_writes"), num("stt_writes"));
  const double leak = num("leakage_mw") * 1e-3 * seconds * 1e9;  // nJ over the launch
  l["leakage_nj"] = leak;
  l["energy_nj"] = num("dynamic_nj") + leak;
}

}  // namespace relgpu::sm
