#include "sm/loscache_unit.h"

#include <algorithm>
#include <map>

#include <systemc>

namespace relgpu::sm {

using blocks::kNormal;
using blocks::kPredict;
using blocks::kUpdate;

// One GPU's units share its phase: keyed by the SystemC context (one GPU per
// elaboration) and the config they were built from; an entry lives as long
// as a unit holds it.
std::shared_ptr<LoscachePhase> LoscachePhase::of(const config::Config& cfg) {
  static std::map<std::pair<const void*, const void*>, std::weak_ptr<LoscachePhase>> all;
  auto& w = all[{sc_core::sc_get_curr_simcontext(), &cfg}];
  std::shared_ptr<LoscachePhase> p = w.lock();
  if (!p) w = p = std::make_shared<LoscachePhase>();
  return p;
}

LoscacheUnit::LoscacheUnit(unsigned sm_id, const config::Config& cfg)
    : sm_(sm_id), p_(blocks::LoscacheTableParams::from(cfg)),
      random_(cfg.get(kLoscachePredictorCta) == "random"), cta_count_(cfg.get(kLoscachePhaseCount) == "cta"),
      seed_(uint64_t(cfg.get(kLoscacheSeed))) {
  table_ = blocks::make<blocks::LoscacheTableBlock>(p_, blocks::Site{sm_id, &cfg});
  naive_.assign(p_.num_entries, 0);
  if (cfg.get(kLoscachePhaseCount) == "gpu") gpu_phase_ = LoscachePhase::of(cfg);
}

void LoscacheUnit::begin_launch() {
  ++launches_;
  if (gpu_phase_ && gpu_phase_->launch < launches_) *gpu_phase_ = LoscachePhase{launches_};
  start_ = true;
  done_ = have_pred_ = false;
  prio_ = true;  // until the table leaves PREDICT; no predictor CTA yet
  l2_pending_ = 0;
  fills_.clear();
  mispredicts_.clear();
  hi_.clear();
  fn_ids_.clear();
  std::fill(naive_.begin(), naive_.end(), 0);
  st_ = Stats{};
  placed_.clear();
  pcs_seen_.clear();
}

void LoscacheUnit::predictor_chosen(unsigned cta_slot) {
  have_pred_ = true;
  pred_slot_ = cta_slot;
  if (gpu_phase_) ++gpu_phase_->predictors;
}

bool LoscacheUnit::phase_over() const {
  if (start_) return false;
  if (!gpu_phase_) return done_;
  return phase_ == kPredict && gpu_phase_->over(p_.phase_limit);
}

void LoscacheUnit::cta_added(unsigned cta_slot) {
  if (have_pred_) return;
  if (random_ && start_) {  // the launch's first cycle has not run: draw then
    placed_.push_back(cta_slot);
    return;
  }
  predictor_chosen(cta_slot);
}

// splitmix64 over (seed, SM, launch): the same run draws the same CTAs.
void LoscacheUnit::draw_predictor() {
  if (placed_.empty()) return;
  uint64_t z = seed_ * 0x9E3779B97F4A7C15ull + (uint64_t(sm_) << 32) + launches_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  predictor_chosen(placed_[z % placed_.size()]);
  placed_.clear();
}

void LoscacheUnit::cta_finished(unsigned cta_slot) {
  if (have_pred_ && cta_slot == pred_slot_ && !done_) {
    if (gpu_phase_) ++gpu_phase_->done;
    else done_ = true;  // predictor_done_i at the next table cycle
    prio_ = false;
    pred_slot_ = ~0u;  // the slot may be reused by another CTA
  }
}

uint32_t LoscacheUnit::pc_of(const Op& op) {
  auto it = fn_ids_.find(op.function);
  if (it == fn_ids_.end()) it = fn_ids_.emplace(op.function, uint32_t(fn_ids_.size())).first;
  return (it->second << 20) | (uint32_t(op.pc) & 0xFFFFFu);
}

LoscacheUnit::Tag LoscacheUnit::cycle(const Op* op, bool query_room, Query& q) {
  if (start_) draw_predictor();
  blocks::LoscacheTableIn in;
  in.start_i = start_;
  in.predictor_done_i = phase_over();
  in.l2_access_i = l2_pending_ > 0 && !start_;
  in.query_ready_i = query_room;
  const uint32_t blk_mask = uint32_t(blocks::mask(p_.blk_width));
  uint32_t pc = 0, blk = 0;
  if (op && !start_) {
    pc = pc_of(*op);
    blk = uint32_t(op->line / mem::kLineBytes) & blk_mask;
    in.lookup_valid_i = true;
    in.lookup_pc_i = pc;
    if (op->predictor) {  // the table ignores inserts outside PREDICT
      in.insert_valid_i = true;
      in.insert_pc_i = pc;
      in.insert_blk_i = blk;
    }
  }
  if (!fills_.empty()) {
    in.fill_valid_i = true;
    in.fill_entry_i = fills_.front().first;
    in.fill_count_i = fills_.front().second;
  }
  if (!mispredicts_.empty()) {
    in.mispredict_valid_i = true;
    in.mispredict_entry_i = mispredicts_.front();
  }

  blocks::LoscacheTableOut out = table_->cycle(in);

  const uint32_t phase = out.phase_o;
  ++st_.table_cycles;
  st_.predict_cycles += phase == kPredict;
  st_.update_cycles += phase == kUpdate;
  Tag t;
  if (in.start_i) {
    start_ = false;
    phase_ = kPredict;  // after this edge
    t.predict = true;
    return t;
  }
  if (in.predictor_done_i) done_ = false;
  if (in.l2_access_i) --l2_pending_;
  if (phase != kPredict) l2_pending_ = 0;  // only the prediction phase counts accesses
  if (in.fill_valid_i) {
    // The table takes a fill only in UPDATE; a count of 0 drops the entry.
    if (phase == kUpdate) {
      ++st_.fills;
      st_.fills_zero += in.fill_count_i == 0;
      if (in.fill_entry_i < naive_.size())
        naive_[in.fill_entry_i] = uint8_t(std::min<uint32_t>(in.fill_count_i, uint32_t(blocks::mask(p_.cnt_width))));
    }
    fills_.pop_front();
  }
  if (in.mispredict_valid_i) {
    st_.mispredicts += phase == kNormal;
    mispredicts_.pop_front();
  }
  if (in.insert_valid_i && phase == kPredict) {
    pcs_seen_.insert(pc);
    ++st_.inserts;
    hi_[blk] = op->line & ~(uint64_t(blk_mask) * mem::kLineBytes + (mem::kLineBytes - 1));
  }
  if (out.query_valid_o && in.query_ready_i) {
    q.valid = true;
    q.entry = int16_t(out.query_entry_o);
    auto it = hi_.find(out.query_blk_o);
    q.line = (it != hi_.end() ? it->second : 0) | uint64_t(out.query_blk_o) * mem::kLineBytes;
    ++st_.queries;
    ++queries_out_;
  }
  if (op) {
    t.predict = phase == kPredict;
    if (phase == kNormal) ++st_.lookups;
    if (out.lookup_hit_o) {
      t.pred = uint8_t(out.lookup_pred_o);
      t.entry = int16_t(out.lookup_entry_o);
      t.naive = out.lookup_entry_o < naive_.size() ? naive_[out.lookup_entry_o] : 0;
      ++st_.predictions;
      st_.pred_sum += t.pred;
      st_.thr_sum += t.pred - std::min(t.pred, t.naive);
    }
  }
  if (phase_ == kPredict && phase != kPredict) st_.pcs_seen = pcs_seen_.size();
  phase_ = phase;
  if (phase_ != kPredict) prio_ = false;
  return t;
}

LoscacheUnit::Tag LoscacheUnit::cycle(const Start* start, bool room, Packet& out) {
  Op op;
  if (start) op = {start->function, start->pc, start->line, is_predictor(start->cta_slot)};
  return cycle(start ? &op : nullptr, room, out);
}

bool LoscacheUnit::wants_cycle() const {
  return start_ || done_ || phase_ == kUpdate || !fills_.empty() || !mispredicts_.empty() ||
         (phase_ == kPredict && (l2_pending_ > 0 || phase_over()));
}

config::json LoscacheUnit::stats() const {
  return {{"table_cycles", st_.table_cycles}, {"predict_cycles", st_.predict_cycles},
          {"update_cycles", st_.update_cycles}, {"inserts", st_.inserts},
          {"lookups", st_.lookups}, {"predictions", st_.predictions},
          {"pred_sum", st_.pred_sum}, {"thr_sum", st_.thr_sum},
          {"queries", st_.queries}, {"fills", st_.fills},
          {"fills_zero", st_.fills_zero}, {"mispredicts", st_.mispredicts},
          {"pcs_seen", pcs_hist()}};
}

// Distinct predictor PCs of the launch's prediction phase as a one-hot array
// (index = count): summed over SMs and launches it is a histogram, whose last
// index is the maximum (the paper's Fig. 7.11) whatever the table size.
config::json LoscacheUnit::pcs_hist() const {
  uint64_t n = phase_ == kPredict ? pcs_seen_.size() : st_.pcs_seen;
  config::json a = config::json::array();
  for (uint64_t i = 0; i <= n; ++i) a.push_back(uint64_t(i == n));
  return a;
}

}  // namespace relgpu::sm
