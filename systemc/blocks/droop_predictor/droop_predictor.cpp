#include "blocks/droop_predictor/droop_predictor.h"

#include <algorithm>

#include "common/error.h"

namespace relgpu::blocks {

std::string DroopPredictorParams::describe() const {
  static const char* w[6] = {"w_int_reset", "w_fp_reset", "w_sfu_reset", "w_ldst_reset", "w_rf_rd_reset", "w_rf_wr_reset"};
  std::string s = "cnt_width=" + std::to_string(cnt_width) + " rf_cnt_width=" + std::to_string(rf_cnt_width) +
                  " weight_width=" + std::to_string(weight_width) + " power_width=" + std::to_string(power_width) +
                  " hist_depth=" + std::to_string(hist_depth);
  for (unsigned i = 0; i < 6; ++i) s += std::string(" ") + w[i] + "=" + std::to_string(w_reset[i]);
  for (unsigned k = 0; k < 3; ++k) s += " thr" + std::to_string(k + 2) + "_reset=" + std::to_string(thr_reset[k]);
  return s + " mask_reset=" + std::to_string(mask_reset);
}

DroopPredictorParams DroopPredictorParams::from(const config::Config& cfg) {
  using namespace droop_keys;
  DroopPredictorParams p;
  p.cnt_width = get_u(cfg, kCntWidth);
  p.rf_cnt_width = get_u(cfg, kRfCntWidth);
  p.weight_width = get_u(cfg, kWeightWidth);
  p.power_width = get_u(cfg, kPowerWidth);
  p.hist_depth = get_u(cfg, kHistDepth);
  p.w_reset = {get_u(cfg, kWIntReset), get_u(cfg, kWFpReset), get_u(cfg, kWSfuReset),
               get_u(cfg, kWLdstReset), get_u(cfg, kWRfRdReset), get_u(cfg, kWRfWrReset)};
  p.thr_reset = {get_u(cfg, kThr2Reset), get_u(cfg, kThr3Reset), get_u(cfg, kThr4Reset)};
  p.mask_reset = get_u(cfg, kMaskReset);
  // Weights are written through the PowerWidth-bit CSR data port.
  if (p.weight_width > p.power_width)
    throw InputError(kWeightWidth.name + " must not exceed " + kPowerWidth.name);
  return p;
}

DroopPredictorModel::DroopPredictorModel(const DroopPredictorParams& p) : p_(p) { reset(); }

void DroopPredictorModel::reset() {
  // Reset values are truncated to the register widths, as the RTL does.
  for (unsigned i = 0; i < 6; ++i) w_[i] = p_.w_reset[i] & mask(p_.weight_width);
  for (unsigned i = 0; i < 3; ++i) thr_[i] = p_.thr_reset[i] & mask(p_.power_width);
  mask_ = p_.mask_reset & 3;
  hist_.fill(0);
  raw_ = 0;
}

DroopPredictorOut DroopPredictorModel::cycle(const DroopPredictorIn& in) {
  const uint64_t cm = mask(p_.cnt_width), rm = mask(p_.rf_cnt_width), pmax = mask(p_.power_width);
  const uint64_t n[6] = {in.n_int_i & cm, in.n_fp_i & cm, in.n_sfu_i & cm,
                         in.n_ldst_i & cm, in.n_rf_rd_i & rm, in.n_rf_wr_i & rm};
  raw_ = 0;
  for (unsigned i = 0; i < 6; ++i) raw_ += uint64_t(w_[i]) * n[i];
  const uint32_t power = uint32_t(std::min(raw_, pmax));

  bool droop = false;
  for (unsigned k = 2; k <= p_.hist_depth; ++k)
    droop |= uint64_t(power) > uint64_t(hist_[k - 2]) + thr_[k - 2];

  DroopPredictorOut out;
  out.power_o = power;
  out.droop_o = droop;
  out.throttle_dispatch_o = droop && (mask_ & 1);
  out.throttle_rf_o = droop && (mask_ & 2);

  // Clock edge: CSR write, then the history shift.
  if (in.csr_we_i) {
    const uint32_t a = in.csr_addr_i & mask(kCsrAddrWidth), d = in.csr_wdata_i & uint32_t(pmax);
    if (a < 6) w_[a] = d & mask(p_.weight_width);
    else if (a < 9 && a - 6 + 2 <= p_.hist_depth) thr_[a - 6] = d;
    else if (a == 9) mask_ = d & 3;
  }
  for (unsigned i = 2; i > 0; --i) hist_[i] = hist_[i - 1];
  hist_[0] = power;
  return out;
}

}  // namespace relgpu::blocks
