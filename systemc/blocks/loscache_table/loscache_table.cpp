#include "blocks/loscache_table/loscache_table.h"

#include <algorithm>

#include "common/error.h"

namespace relgpu::blocks {

std::string LoscacheTableParams::describe() const {
  return "num_entries=" + std::to_string(num_entries) + " pc_width=" + std::to_string(pc_width) +
         " blk_width=" + std::to_string(blk_width) + " cnt_width=" + std::to_string(cnt_width) +
         " thr_width=" + std::to_string(thr_width) + " phase_limit=" + std::to_string(phase_limit);
}

LoscacheTableParams LoscacheTableParams::from(const config::Config& cfg) {
  using namespace loscache_keys;
  LoscacheTableParams p;
  p.num_entries = get_u(cfg, kNumEntries);
  p.pc_width = get_u(cfg, kPcWidth);
  p.blk_width = get_u(cfg, kBlkWidth);
  p.cnt_width = get_u(cfg, kCntWidth);
  p.thr_width = get_u(cfg, kThrWidth);
  p.phase_limit = get_u(cfg, kPhaseLimit);
  // pred = cnt + thr is computed in CntWidth+1 bits.
  if (p.thr_width > p.cnt_width) throw InputError(kThrWidth.name + " must not exceed " + kCntWidth.name);
  return p;
}

LoscacheTableModel::LoscacheTableModel(const LoscacheTableParams& p) : p_(p) { reset(); }

void LoscacheTableModel::reset() {
  e_.assign(p_.num_entries, Entry{});
  phase_ = kNormal;
  alloc_ = acc_ = qptr_ = 0;
}

int LoscacheTableModel::match(uint32_t pc) const {
  for (unsigned i = 0; i < p_.num_entries; ++i)
    if (e_[i].valid && e_[i].pc == pc) return int(i);
  return -1;
}

LoscacheTableOut LoscacheTableModel::cycle(const LoscacheTableIn& in) {
  const uint32_t pcm = uint32_t(mask(p_.pc_width)), cntmax = uint32_t(mask(p_.cnt_width));
  const uint32_t thrmax = uint32_t(mask(p_.thr_width)), em = uint32_t(mask(p_.entry_width()));
  LoscacheTableOut out;
  out.phase_o = phase_;
  out.full_o = alloc_ == p_.num_entries;
  if (in.lookup_valid_i && phase_ == kNormal) {
    int i = match(in.lookup_pc_i & pcm);
    if (i >= 0) {
      out.lookup_hit_o = true;
      out.lookup_entry_o = uint32_t(i);
      out.lookup_pred_o = std::min(e_[i].cnt + e_[i].thr, cntmax);
    }
  }
  out.query_valid_o = phase_ == kUpdate && qptr_ < alloc_;
  if (out.query_valid_o) {
    out.query_entry_o = qptr_;
    out.query_blk_o = e_[qptr_].blk;
  }

  // Clock edge.
  if (in.start_i) {
    reset();
    phase_ = kPredict;
    return out;
  }
  switch (phase_) {
    case kPredict: {
      if (in.insert_valid_i && match(in.insert_pc_i & pcm) < 0 && alloc_ < p_.num_entries) {
        e_[alloc_] = Entry{true, false, in.insert_pc_i & pcm, in.insert_blk_i & uint32_t(mask(p_.blk_width)), 0, 0};
        ++alloc_;
      }
      unsigned acc = acc_ + (in.l2_access_i ? 1 : 0);
      if (acc >= p_.phase_limit || in.predictor_done_i) {
        phase_ = kUpdate;
        qptr_ = 0;
      }
      acc_ = std::min(acc, p_.phase_limit);
      break;
    }
    case kUpdate: {
      bool done = qptr_ == alloc_ && std::none_of(e_.begin(), e_.end(), [](const Entry& e) { return e.pending; });
      if (out.query_valid_o && in.query_ready_i) e_[qptr_++].pending = true;
      uint32_t f = in.fill_entry_i & em;
      if (in.fill_valid_i && f < p_.num_entries && e_[f].pending) {
        e_[f].pending = false;
        e_[f].cnt = in.fill_count_i & cntmax;
        if (e_[f].cnt == 0) e_[f].valid = false;
      }
      if (done) phase_ = kNormal;
      break;
    }
    case kNormal: {
      uint32_t m = in.mispredict_entry_i & em;
      if (in.mispredict_valid_i && m < p_.num_entries && e_[m].valid && e_[m].thr < thrmax) ++e_[m].thr;
      break;
    }
  }
  return out;
}

}  // namespace relgpu::blocks
