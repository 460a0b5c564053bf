// Local droop predictor (Leng thesis §4.5, spec 004 §5.1): one per SM.
// RTL: rtl/droop_predictor/droop_predictor.v. Cycle contract: blocks/block.h.
//
// Each cycle: P = sum(W_c * n_c) over the dispatch classes INT/FP/SFU/LDST and
// the RF read/write counts, saturated to PowerWidth bits. With hist[0] = P of
// the previous cycle, a droop is predicted when, for any k in 2..HistDepth,
// P - hist[k-2] > T_k (the power increment over a k-cycle window, strictly
// greater). throttle_dispatch_o / throttle_rf_o = droop & their mask bit, in
// the same cycle. At the clock edge P is pushed into the history.
//
// Choices where the thesis is silent (also in the RTL header):
//  - The 4-entry FIFO is {P, hist[0..2]}: the current estimate plus 3 stored
//    ones; a 4th stored entry would never be read.
//  - P saturates at 2^PowerWidth-1 instead of wrapping.
//  - The history records the requested (candidate) power even when throttled:
//    the block does not see the reduced set, and a deferred burst then shows
//    a smaller increment next cycle, so a throttle lasts one cycle at a time.
//  - The history resets to 0, so the first busy cycle after reset can trigger.
//  - Weights, thresholds and a 2-bit throttle mask are CSRs written through
//    csr_we_i/csr_addr_i/csr_wdata_i; a write lands at the clock edge.
//    Map: 0..5 W_int W_fp W_sfu W_ldst W_rf_rd W_rf_wr (low WeightWidth bits),
//    6..8 T2 T3 T4 (PowerWidth bits), 9 mask (bit0 dispatch, bit1 RF).
//    Other addresses and T_k with k > HistDepth are ignored.
//  - The thesis gives no trained weights/thresholds; the reset values are
//    our own round numbers. With smoothing.local.enable the SM writes the
//    CSRs at start-up (sm/droop_unit.h): weights from the power model's
//    per-event energies, thresholds from smoothing.local.thr2..4 (trained
//    by scripts/train_droop.py).
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "blocks/block.h"

namespace relgpu::blocks {

namespace droop_keys {
using K = config::Key<int64_t>;
inline const K kCntWidth{"blocks.droop_predictor.cnt_width", 2, "bits", "dispatch count width per class (2 dispatch ports)", 1, 8};
inline const K kRfCntWidth{"blocks.droop_predictor.rf_cnt_width", 5, "bits", "RF read/write count width (16 banks)", 1, 8};
inline const K kWeightWidth{"blocks.droop_predictor.weight_width", 8, "bits", "per-event energy weight width", 1, 12};
inline const K kPowerWidth{"blocks.droop_predictor.power_width", 12, "bits", "power estimate and threshold width (LSB ~ Pmax_SM/1024)", 4, 20};
inline const K kHistDepth{"blocks.droop_predictor.hist_depth", 4, "cycles", "window length incl. the current cycle; thresholds T2..T<depth>", 2, 4};
inline const K kWIntReset{"blocks.droop_predictor.w_int_reset", 12, "power LSB", "reset value of W_int", 0, 4095};
inline const K kWFpReset{"blocks.droop_predictor.w_fp_reset", 20, "power LSB", "reset value of W_fp", 0, 4095};
inline const K kWSfuReset{"blocks.droop_predictor.w_sfu_reset", 40, "power LSB", "reset value of W_sfu", 0, 4095};
inline const K kWLdstReset{"blocks.droop_predictor.w_ldst_reset", 30, "power LSB", "reset value of W_ldst", 0, 4095};
inline const K kWRfRdReset{"blocks.droop_predictor.w_rf_rd_reset", 6, "power LSB", "reset value of W_rf_rd (per bank read)", 0, 4095};
inline const K kWRfWrReset{"blocks.droop_predictor.w_rf_wr_reset", 8, "power LSB", "reset value of W_rf_wr (per bank write)", 0, 4095};
inline const K kThr2Reset{"blocks.droop_predictor.thr2_reset", 120, "power LSB", "reset value of T2", 0, 1048575};
inline const K kThr3Reset{"blocks.droop_predictor.thr3_reset", 160, "power LSB", "reset value of T3", 0, 1048575};
inline const K kThr4Reset{"blocks.droop_predictor.thr4_reset", 200, "power LSB", "reset value of T4", 0, 1048575};
inline const K kMaskReset{"blocks.droop_predictor.mask_reset", 3, "bitmask", "reset throttle mask: bit0 dispatch, bit1 RF", 0, 3};
}  // namespace droop_keys

struct DroopPredictorParams {
  unsigned cnt_width = 2, rf_cnt_width = 5, weight_width = 8, power_width = 12, hist_depth = 4;
  std::array<uint32_t, 6> w_reset{12, 20, 40, 30, 6, 8};  // INT FP SFU LDST RF_RD RF_WR
  std::array<uint32_t, 3> thr_reset{120, 160, 200};        // T2 T3 T4
  uint32_t mask_reset = 3;
  static DroopPredictorParams from(const config::Config& cfg);
  // Every field as "key=value ...", keys as in configs/blocks/<block>.json;
  // two Params are equal iff their describe() strings are (the --rtl check).
  std::string describe() const;
};

#define RELGPU_DROOP_PREDICTOR_IN(P) \
  P(uint32_t, n_int_i)               \
  P(uint32_t, n_fp_i)                \
  P(uint32_t, n_sfu_i)               \
  P(uint32_t, n_ldst_i)              \
  P(uint32_t, n_rf_rd_i)             \
  P(uint32_t, n_rf_wr_i)             \
  P(bool, csr_we_i)                  \
  P(uint32_t, csr_addr_i)            \
  P(uint32_t, csr_wdata_i)
#define RELGPU_DROOP_PREDICTOR_OUT(P) \
  P(uint32_t, power_o)                \
  P(bool, droop_o)                    \
  P(bool, throttle_dispatch_o)        \
  P(bool, throttle_rf_o)

struct DroopPredictorIn { RELGPU_BLOCK_PORTS(RELGPU_DROOP_PREDICTOR_IN) };
struct DroopPredictorOut { RELGPU_BLOCK_PORTS(RELGPU_DROOP_PREDICTOR_OUT) };

class DroopPredictorModel {
 public:
  static constexpr unsigned kCsrAddrWidth = 4;
  explicit DroopPredictorModel(const DroopPredictorParams& p);
  void reset();
  DroopPredictorOut cycle(const DroopPredictorIn& in);

  // Read-only state, for coverage and stats.
  uint32_t weight(unsigned i) const { return w_[i]; }
  uint32_t threshold(unsigned k) const { return thr_[k - 2]; }  // k = 2..4
  uint32_t hist(unsigned i) const { return hist_[i]; }
  uint32_t throttle_mask() const { return mask_; }
  // The last cycle's unsaturated sum and increments, for coverage.
  uint64_t last_raw_power() const { return raw_; }
  const DroopPredictorParams& params() const { return p_; }

 private:
  DroopPredictorParams p_;
  std::array<uint32_t, 6> w_{};
  std::array<uint32_t, 3> thr_{};
  std::array<uint32_t, 3> hist_{};
  uint32_t mask_ = 0;
  uint64_t raw_ = 0;
};

}  // namespace relgpu::blocks
