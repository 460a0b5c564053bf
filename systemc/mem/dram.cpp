#include "mem/dram.h"

#include <algorithm>

#include "mem/request.h"

namespace relgpu::mem {

DramCtrl::DramCtrl(const config::Config& cfg)
    : banks_(unsigned(cfg.get(kDramBanks))),
      depth_(unsigned(cfg.get(kDramQueue))),
      row_bytes_(uint64_t(cfg.get(kDramRowBytes))),
      tCL_(unsigned(cfg.get(kDramCL))),
      tRCD_(unsigned(cfg.get(kDramRCD))),
      tRP_(unsigned(cfg.get(kDramRP))),
      tRAS_(unsigned(cfg.get(kDramRAS))),
      tRRD_(unsigned(cfg.get(kDramRRD))),
      tWL_(unsigned(cfg.get(kDramWL))),
      tWR_(unsigned(cfg.get(kDramWR))),
      tCDLR_(unsigned(cfg.get(kDramCDLR))),
      frfcfs_(cfg.get(kDramScheduler) == "frfcfs"),
      bank_(banks_),
      hits_(banks_, 0) {
  uint64_t burst_bytes = uint64_t(cfg.get(kDramBusBytes)) * uint64_t(cfg.get(kDramBurstLength));
  uint64_t read_bytes = std::min<uint64_t>(burst_bytes, uint64_t(cfg.get(kDramBurstUseful)));
  uint64_t per_burst = uint64_t(std::max(cfg.get(kDramCCD), cfg.get(kDramBurstCycles)));
  occ_ = unsigned((kLineBytes + read_bytes - 1) / read_bytes * per_burst);
  occ_write_ = unsigned((kLineBytes + burst_bytes - 1) / burst_bytes * per_burst);
  q_.reserve(2 * depth_);
}

void DramCtrl::push(uint64_t local, bool write, uint32_t tag, uint64_t arrive) {
  uint64_t r = local / row_bytes_;
  q_.push_back({arrive, uint32_t(r % banks_), uint32_t(r / banks_), tag, write, false});
  if (bank_[q_.back().bank].open == int64_t(q_.back().row)) ++hits_[q_.back().bank];
  ++(write ? nwrites_ : nreads_);
}

// Earliest cycle a column command of this direction may issue on the bus.
uint64_t DramCtrl::col_ready(bool write) const {
  uint64_t t = next_col_any_;
  if (write) {
    if (bus_free_ > tWL_) t = std::max(t, bus_free_ - tWL_);  // no overlap with earlier data
  } else {
    if (bus_free_ > tCL_) t = std::max(t, bus_free_ - tCL_);
    t = std::max(t, wr_end_ + tCDLR_);                         // write-to-read turnaround
  }
  return t;
}

void DramCtrl::open_row(uint32_t bank, uint32_t row) {
  bank_[bank].open = row;
  unsigned n = 0;
  for (const Entry& e : q_) n += e.bank == bank && e.row == row;
  hits_[bank] = n;
}

void DramCtrl::issue_col(size_t i, uint64_t now, std::vector<Done>& done) {
  Entry e = q_[i];
  q_.erase(q_.begin() + i);
  Bank& b = bank_[e.bank];
  --hits_[e.bank];  // a column command is always a hit on the open row
  const unsigned occ = e.write ? occ_write_ : occ_;
  next_col_any_ = now + occ;
  b.next_col = now + occ;
  stats.busy_cycles += occ;
  ++(e.activated ? stats.row_misses : stats.row_hits);
  if (e.write) {
    --nwrites_;
    ++stats.writes;
    stats.bytes_written += kLineBytes;
    bus_free_ = wr_end_ = now + tWL_ + occ;
    b.next_pre = std::max(b.next_pre, wr_end_ + tWR_);
  } else {
    --nreads_;
    ++stats.reads;
    stats.bytes_read += kLineBytes;
    bus_free_ = now + tCL_ + occ_;
    b.next_pre = std::max(b.next_pre, now + occ_);
    done.push_back({bus_free_, e.tag, now > e.arrive ? now - e.arrive : 0});
  }
}

uint64_t DramCtrl::step(uint64_t now, std::vector<Done>& done) {
  size_t n = frfcfs_ ? q_.size() : std::min<size_t>(q_.size(), 1);
  // 1. a column command for the oldest ready row hit
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = q_[i];
    const Bank& b = bank_[e.bank];
    if (e.arrive <= now && b.open == int64_t(e.row) && b.next_col <= now && col_ready(e.write) <= now) {
      issue_col(i, now, done);
      return q_.empty() ? UINT64_MAX : now + 1;
    }
  }
  // 2. else a row command (ACT or PRE) for the oldest request that can use one
  for (size_t i = 0; i < n; ++i) {
    Entry& e = q_[i];
    Bank& b = bank_[e.bank];
    if (e.arrive > now || b.open == int64_t(e.row)) continue;
    if (b.open < 0) {
      if (b.next_act <= now && (!any_act_ || last_act_ + tRRD_ <= now)) {
        open_row(e.bank, e.row);
        b.next_col = now + tRCD_;
        b.next_pre = now + tRAS_;
        b.next_act = now + tRAS_ + tRP_;
        last_act_ = now;
        any_act_ = true;
        e.activated = true;
        ++stats.activates;
        return now + 1;
      }
    } else if (b.next_pre <= now && !(frfcfs_ && pending_hit(e.bank))) {
      b.open = -1;
      hits_[e.bank] = 0;  // a closed bank has no open-row hits
      b.next_act = std::max(b.next_act, now + tRP_);
      ++stats.precharges;
      return now + 1;
    }
  }
  // 3. nothing legal now: the earliest cycle something could be
  uint64_t next = UINT64_MAX;
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = q_[i];
    const Bank& b = bank_[e.bank];
    uint64_t t;
    if (b.open == int64_t(e.row)) t = std::max(b.next_col, col_ready(e.write));
    else if (b.open < 0) t = std::max(b.next_act, any_act_ ? last_act_ + tRRD_ : 0);
    else if (frfcfs_ && pending_hit(e.bank)) continue;  // the hits' times count
    else t = b.next_pre;
    next = std::min(next, std::max(t, e.arrive));
  }
  if (next == UINT64_MAX && !q_.empty()) next = now + 1;  // defensive: never stall silently
  return std::max(next, now + 1);
}

}  // namespace relgpu::mem
