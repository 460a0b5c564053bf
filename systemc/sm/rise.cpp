#include "sm/rise.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace relgpu::sm {

Rise::Rise(unsigned sm, const config::Config& cfg)
    : rp_(cfg.get(kRiseRp)), is_(cfg.get(kRiseIs)), partial_(cfg.get(kRisePartial)), all_(cfg.get(kRiseAll)),
      sm_(sm), ref_(uint64_t(cfg.get(kRiseRefLatency))), thr_(uint64_t(cfg.get(kRisePendThreshold))),
      period_(uint64_t(cfg.get(kRiseSamplePeriod))), seed_(uint64_t(cfg.get(kRiseSeed))) {}

void Rise::begin_launch(uint64_t blocks, unsigned num_sms, uint64_t launch) {
  st = Stats{};
  blocks_.clear();
  received_ = 0;
  q_ = blocks / std::max(1u, num_sms);
  const uint64_t r = blocks % std::max(1u, num_sms);
  // The r SMs predicted to run q + 1 blocks: the first r of a permutation
  // every SM draws alike. With r = 0 no SM idles, so none duplicates.
  is_sm_ = false;
  if (is_ && q_ > 0 && r > 0) {
    std::vector<unsigned> perm(num_sms);
    std::iota(perm.begin(), perm.end(), 0u);
    std::mt19937_64 rng(seed_ * 0x9e3779b97f4a7c15ull + launch);
    std::shuffle(perm.begin(), perm.end(), rng);
    is_sm_ = std::find(perm.begin(), perm.begin() + long(r), sm_) == perm.begin() + long(r);
  }
  t_acc_ = next_sample_ = 0;
}

void Rise::cta_added(unsigned slot, unsigned warps) {
  if (slot >= blocks_.size()) blocks_.resize(slot + 1);
  blocks_[slot] = Block{0, warps, false};
  if (is_sm_ && ++received_ == q_) {
    blocks_[slot].fixed = true;
    ++st.is_blocks;
  }
}

void Rise::response(unsigned slot, uint32_t pending, uint64_t latency, uint64_t now) {
  if (!rp_ || !pending) return;  // only DRAM-served responses carry an RC
  if (now >= next_sample_) {
    t_acc_ = latency;
    next_sample_ = now - now % period_ + period_;
  }
  if (slot >= blocks_.size()) return;
  Block& b = blocks_[slot];
  if (b.fixed || b.counter) return;  // a counter above 0 ignores new RCs
  const uint64_t tp = std::min<uint64_t>(pending, 1023);  // the 10-bit timer saturates
  uint64_t rc = 0;
  if (tp > thr_) rc = t_acc_ < ref_ ? t_acc_ * tp / ref_ : tp;
  if (!rc) return;
  b.counter = rc * b.warps;
  ++st.rc_set;
  st.rc_sum += rc;
}

Rise::Why Rise::full_copy(unsigned slot) {
  if (all_) return Why::all;
  if (slot >= blocks_.size()) return Why::none;
  Block& b = blocks_[slot];
  if (b.fixed) return Why::idle_sm;
  if (b.counter) {
    --b.counter;
    return Why::pending;
  }
  return Why::none;
}

config::json Rise::stats(unsigned sp_units) const {
  return {{"sp_lanes", sp_units * 32u},
          {"sp_insn", st.sp_insn},
          {"sp_lane_cycles", st.sp_lane_cycles},
          {"ace_lane_cycles", st.ace_lane_cycles},
          {"protected_lane_cycles", st.protected_lane_cycles},
          {"busy_unit_cycles", st.busy_unit_cycles},
          {"partly_idle_unit_cycles", st.partly_idle_unit_cycles},
          {"copies",
           {{"all", st.copies[size_t(Why::all)]},
            {"idle_sm", st.copies[size_t(Why::idle_sm)]},
            {"pending", st.copies[size_t(Why::pending)]},
            {"intra", st.copies[size_t(Why::intra)]},
            {"pair", st.copies[size_t(Why::pair)]}}},
          {"copy_lane_cycles", st.copy_lane_cycles},
          {"pairs_set", st.pairs_set},
          {"pairs_used", st.pairs_used},
          {"pairs_expired", st.pairs_expired},
          {"pair_searches", st.pair_searches},
          {"pair_same_pc", st.pair_same_pc},
          {"pair_same_pc_any", st.pair_same_pc_any},
          {"rc_set", st.rc_set},
          {"rc_sum", st.rc_sum},
          {"is_blocks", st.is_blocks},
          {"compared", st.compared},
          {"mismatches", st.mismatches},
          {"recovered_lanes", st.recovered_lanes},
          {"recovery_cycles", st.recovery_cycles}};
}

void derive_rise(config::json& r) {
  auto num = [&](const char* k) { return r.contains(k) && r[k].is_number() ? r[k].get<double>() : 0.0; };
  const double cap = num("capacity_lane_cycles"), lanes = num("sp_lane_cycles");
  if (cap > 0) {
    r["sp_avf"] = num("ace_lane_cycles") / cap;
    r["sp_utilization"] = lanes / cap;
  }
  if (lanes > 0) r["protected_fraction"] = num("protected_lane_cycles") / lanes;
}

}  // namespace relgpu::sm
