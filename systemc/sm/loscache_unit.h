// LoSCache, the LD/ST side of one SM (Tan dissertation Ch7; spec 000 §5,
// §7b; the L2 side is mem/loscache.h). Holds the SM's prediction table
// (blocks/loscache_table, through blocks::make so --rtl swaps in the RTL)
// and drives its ports once per SM cycle (the LD/ST stage calls cycle()):
//   start_i           the first SM cycle of each kernel launch;
//   insert_*          during PREDICT, each global memory instruction of the
//                     predictor CTA: its PC and the block address of its
//                     first line (the line of the lowest active lane);
//   lookup_*          every global memory instruction as it starts in the
//                     LD/ST unit (the +1-cycle lookup overlaps address
//                     generation, so it adds no cycle); the hit's pred and
//                     entry travel with each of its L2-bound line requests;
//   l2_access_i       one pulse per data request this SM sends to the L2
//                     (loscache.phase_count=sm, the default);
//   predictor_done_i  when the predictor CTA finishes (sm), or when the
//                     GPU-wide prediction phase is over (gpu, see below);
//   query_* / fill_*  in UPDATE, each query_valid_o becomes a count-query
//                     packet through the interconnect to the partition owning
//                     the block; its answer drives fill_*;
//   mispredict_*      an L2 response flagged as an under-prediction names the
//                     entry its request carried (kept with the request).
// Events the SM sees in other stages (responses, sends, CTA ends) are queued
// and reach the table at its next cycle, one per port per cycle.
//
// Choices (the dissertation is silent):
//  - predictor CTA (loscache.predictor_cta): "random", the paper's, picks
//    one of the CTAs placed on this SM when the launch starts, drawn from
//    loscache.seed, the SM and the launch number (reproducible); "first" takes
//    the first CTA placed. An SM that gets no CTA at the start takes the
//    first that comes. Its warps get strict issue priority in every
//    scheduler policy until the table leaves PREDICT;
//  - what ends the prediction phase (loscache.phase_count). The text
//    (§7.2.3: "finished after 100 L2 cache accesses or all the predictor
//    CTAs are completed") does not say whose accesses. "sm" (default): each
//    table counts its own SM's L2 data requests (predictor and other CTAs)
//    and waits for its own predictor CTA, as the control logic the paper
//    adds sits in each LD/ST unit with no GPU-wide signal, and only this
//    reading comes near the paper's table occupancy (7 valid entries on
//    average, 21 in every NW table: docs/results/loscache.md measures 4.3
//    against 1.4). "gpu": one phase for the whole GPU, ended in every table
//    by the GPU's phase_limit-th L2 data request of the launch or when every
//    SM's predictor CTA has finished; "cta": as "sm", counting only the
//    predictor CTA's own L2 data requests (an ablation: later instructions
//    of the predictor, stores after a loop, reach the table);
//  - predictor CTAs keep using predictions after the phase (spec choice 6);
//  - a PC is the instruction index in its function plus the function's
//    ordinal in this launch (first seen first) in the upper bits;
//  - the table keeps 25-bit block addresses (32-bit addresses); our global
//    addresses lie above 4 GB, so the unit keeps the upper address bits of
//    each inserted block to form the query's address;
//  - requests of an instruction that started during PREDICT carry the
//    predict flag (the L2 only counts them), whenever they leave.
// Every statistic comes from the table's outputs and this unit's own inputs,
// never from the C++ model (RTL mode has none).
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "blocks/instance.h"
#include "mem/request.h"
#include "common/config.h"
#include "sm/ldst_hook.h"

namespace relgpu::sm {

inline const config::Key<std::string> kLoscachePredictorCta{
    "loscache.predictor_cta", "random", "",
    "which CTA of an SM trains its prediction table: random = one of those placed at launch, drawn from "
    "loscache.seed (Tan Ch7: 'a random CTA'); first = the first placed (deterministic without a seed)",
    std::vector<std::string>{"random", "first"}};
inline const config::Key<std::string> kLoscachePhaseCount{
    "loscache.phase_count", "sm", "",
    "whose L2 accesses and predictor CTAs end the prediction phase (blocks.loscache_table.phase_limit accesses, or "
    "the predictor CTAs done; Tan Ch7 7.2.3 does not say): sm = each table its own SM's requests and predictor CTA "
    "(the paper's per-LD/ST-unit logic, and its 7 valid entries on average); gpu = one phase for the whole GPU, "
    "ended by the requests of every SM and every SM's predictor CTA; cta = each table only its predictor CTA's own "
    "requests (an ablation: the phase then lasts until the predictor has issued that many)",
    std::vector<std::string>{"sm", "gpu", "cta"}};
inline const config::Key<int64_t> kLoscacheSeed{
    "loscache.seed", 1, "", "seed of the random predictor-CTA draw (with the SM and launch number)", 0, 9.2e18};

// The GPU-wide prediction phase (loscache.phase_count=gpu), shared by the
// units of one GPU (one simulation context and config) and reset by the first
// unit that begins each launch.
struct LoscachePhase {
  uint64_t launch = 0, accesses = 0;
  unsigned predictors = 0, done = 0;
  bool over(uint64_t limit) const { return accesses >= limit || (predictors > 0 && done == predictors); }
  static std::shared_ptr<LoscachePhase> of(const config::Config& cfg);
};

class LoscacheUnit final : public LdstHook {
 public:
  LoscacheUnit(unsigned sm_id, const config::Config& cfg);

  void begin_launch() override;
  void cta_added(unsigned cta_slot) override;
  void cta_finished(unsigned cta_slot) override;
  // Strict issue priority for the predictor CTA's warps.
  bool prioritising() const override { return prio_; }
  bool prioritised(unsigned cta_slot) const override { return is_predictor(cta_slot); }
  bool is_predictor(unsigned cta_slot) const { return prio_ && cta_slot == pred_slot_; }
  bool predicting() const { return phase_ == blocks::kPredict; }

  // A global memory instruction starting in the LD/ST unit this cycle.
  struct Op {
    const void* function = nullptr;  // identifies the function (ptx::Function)
    int32_t pc = 0;
    uint64_t line = 0;               // first line of the instruction
    bool predictor = false;          // issued by the predictor CTA
  };
  using Query = Packet;  // a count query: the entry asks for its line's count
  // One table cycle. `op` may be null; `query_room`: a query packet can be
  // queued this cycle (query_ready_i). Returns op's tag; `q` a query to send.
  Tag cycle(const Op* op, bool query_room, Query& q);
  // The same as the SM's LD/ST hook (the predictor flag from the CTA slot).
  Tag cycle(const Start* start, bool room, Packet& out) override;

  // A data request left for the L2; `predictor`: the predictor CTA's.
  void l2_request_sent(bool predictor = true) {
    if (gpu_phase_) ++gpu_phase_->accesses;
    else if (predictor || !cta_count_) ++l2_pending_;
  }
  void request_sent(unsigned cta_slot) override { l2_request_sent(is_predictor(cta_slot)); }
  void query_answered(uint32_t entry, uint32_t count) {
    fills_.push_back({entry, count});
    --queries_out_;
  }
  void answered(const mem::MemExt& e) override { query_answered(uint32_t(e.los_entry), e.los_count); }
  // Count queries sent and not yet answered (the SM is not idle meanwhile).
  unsigned queries_outstanding() const { return queries_out_; }
  bool outstanding() const override { return queries_out_ > 0; }
  void mispredicted(int16_t entry) { if (entry >= 0) mispredicts_.push_back(uint32_t(entry)); }
  void response(const mem::MemExt& e) override {
    if (e.los_mispredict) mispredicted(e.los_entry);
  }
  // Work for the table without any other activity of the SM (keeps the SM
  // from skipping cycles).
  bool wants_cycle() const override;
  const char* stats_key() const override { return "loscache"; }
  config::json stats() const override;

 private:
  uint32_t pc_of(const Op& op);
  void draw_predictor();
  void predictor_chosen(unsigned cta_slot);
  bool phase_over() const;  // predictor_done_i this cycle
  config::json pcs_hist() const;

  unsigned sm_;
  blocks::LoscacheTableParams p_;
  std::unique_ptr<blocks::Instance<blocks::LoscacheTableBlock>> table_;
  uint32_t phase_ = blocks::kNormal;  // phase_o of the last cycle
  bool start_ = false, done_ = false, have_pred_ = false, prio_ = false;
  unsigned pred_slot_ = 0;
  bool random_, cta_count_;
  uint64_t seed_, launches_ = 0;
  std::vector<unsigned> placed_;  // CTA slots placed before the launch's first cycle
  uint64_t l2_pending_ = 0;
  unsigned queries_out_ = 0;
  std::deque<std::pair<uint32_t, uint32_t>> fills_;  // (entry, count)
  std::deque<uint32_t> mispredicts_;
  std::vector<uint8_t> naive_;                       // per entry: the count its fill brought
  std::unordered_map<uint32_t, uint64_t> hi_;        // block -> upper address bits
  std::unordered_map<const void*, uint32_t> fn_ids_;
  std::shared_ptr<LoscachePhase> gpu_phase_;         // null: loscache.phase_count=sm
  std::unordered_set<uint32_t> pcs_seen_;            // predictor PCs issued in PREDICT

  struct Stats {
    uint64_t table_cycles = 0, predict_cycles = 0, update_cycles = 0;
    uint64_t inserts = 0, lookups = 0, predictions = 0, pred_sum = 0, thr_sum = 0;
    uint64_t queries = 0, fills = 0, fills_zero = 0, mispredicts = 0;
    uint64_t pcs_seen = 0;  // distinct predictor PCs in PREDICT, table full or not
  } st_;
};

}  // namespace relgpu::sm
