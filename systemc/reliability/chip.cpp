#include "reliability/chip.h"

#include <cmath>
#include <sstream>

#include "common/error.h"
#include "reliability/keys.h"
#include "reliability/shared_cache.h"

namespace relgpu::reliability {

static std::string num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

static void check_op(const OperatingPoint& op) {
  if (op.by_rate && !(op.rate >= 0.0 && op.rate <= 1.0))
    throw InputError("config key 'rf.cell_failure_rate' = " + num(op.rate) + " is outside [0, 1]");
  if (!op.by_rate && !(op.vdd >= kVddMin && op.vdd <= kVddMax))
    throw InputError("config key 'rf.vdd' = " + num(op.vdd) + " V is outside the model's range [" + num(kVddMin) +
                     ", " + num(kVddMax) + "] V (normalised: the chip's worst RF cell = 1.0 V)");
}

OperatingPoint operating_point(const config::Config& cfg) {
  bool v = cfg.is_set(kRfVdd.name), r = cfg.is_set(kRfCellFailureRate.name);
  if (v && r)
    throw InputError("config keys 'rf.vdd' and 'rf.cell_failure_rate' are both set; each sets the register-file "
                     "operating point, set only one");
  OperatingPoint op;
  op.by_rate = r;
  op.vdd = cfg.get(kRfVdd);
  op.rate = cfg.get(kRfCellFailureRate);
  check_op(op);
  return op;
}

Chip::Chip(const config::Config& cfg, const RfGeometry& g) : g_(g) {
  OperatingPoint op = operating_point(cfg);
  code_bits_ = unsigned(cfg.get(kRfSecdedBits));
  if (code_bits_ && (code_bits_ % 32 || g.entry_bits % code_bits_))
    throw InputError("config key 'rf.secded_bits' = " + std::to_string(code_bits_) +
                     ": a SEC-DED code word must be a multiple of 32 bits that divides rf.entry_bits (" +
                     std::to_string(g.entry_bits) + "), or 0 for the whole entry");
  build(uint64_t(cfg.get(kChipSeed)), parse_sigma_ratio(cfg.get(kSigmaRatio), kSigmaRatio.name),
        parse_floorplan(cfg.get(kFloorplan), kFloorplan.name), op);
}

Chip::Chip(uint64_t seed, const std::string& sigma_ratio, const RfGeometry& g, OperatingPoint op, Floorplan fp)
    : g_(g) {
  SigmaSplit split = parse_sigma_ratio(sigma_ratio);
  check_op(op);
  build(seed, split, fp, op);
}

void Chip::build(uint64_t seed, SigmaSplit split, Floorplan fp, OperatingPoint op) {
  for (unsigned s = 0; s < g_.sms; ++s) maps_.emplace_back(g_.banks, g_.rows, g_.entry_bits, code_bits_);
  // Nominal supply: nothing fails whatever the chip, so skip the model.
  if (op.by_rate ? op.rate == 0.0 : op.vdd >= 1.0) {
    vdd_ = op.by_rate ? 1.0 : op.vdd;
    for (auto& m : maps_) m.set_vdd(vdd_);
    return;
  }
  Variation var(seed, split, g_, fp);
  const uint64_t per_sm = g_.cells_per_sm();
  std::vector<Code> codes(g_.cells());
  std::vector<uint64_t> hist(65536, 0);
  for (unsigned s = 0; s < g_.sms; ++s) {
    Code* c = codes.data() + s * per_sm;
    var.vmin_codes(s, c);
    for (uint64_t i = 0; i < per_sm; ++i) ++hist[c[i]];
  }
  max_code_ = 65535;
  while (max_code_ > 0 && hist[max_code_] == 0) --max_code_;
  // A cell fails iff its code > thr.
  unsigned thr;
  if (op.by_rate) {
    double want = op.rate * double(g_.cells());
    uint64_t above = 0;
    thr = max_code_;
    double best = want;  // |above(max_code) - want|
    for (unsigned c = max_code_; c > 0; --c) {
      above += hist[c];  // now: cells with code > c - 1
      double d = std::fabs(double(above) - want);
      if (d < best) best = d, thr = c - 1;
      if (double(above) > want) break;
    }
    vdd_ = max_code_ ? double(thr) / max_code_ : 1.0;
  } else {
    vdd_ = op.vdd;
    thr = unsigned(std::min(65535.0, std::floor(op.vdd * max_code_)));
  }
  for (unsigned s = 0; s < g_.sms; ++s) {
    const Code* c = codes.data() + s * per_sm;
    RfFaults& m = maps_[s];
    m.set_vdd(vdd_);
    for (uint64_t i = 0; i < per_sm; ++i)
      if (c[i] > thr) {
        uint64_t entry = i / g_.entry_bits;
        m.add_bad_cell(unsigned(entry / g_.rows), unsigned(entry % g_.rows), unsigned(i % g_.entry_bits),
                       var.stuck_value(s, i));
      }
    faulty_cells_ += m.faulty_cells();
    faulty_entries_ += m.faulty_entries();
  }
}

std::shared_ptr<const Chip> Chip::shared(const config::Config& cfg, const RfGeometry& g) {
  OperatingPoint op = operating_point(cfg);
  std::ostringstream k;
  k.precision(17);
  k << cfg.get(kChipSeed) << '|' << cfg.get(kSigmaRatio) << '|' << cfg.get(kFloorplan) << '|' << g.sms << ',' << g.banks << ',' << g.rows << ','
    << g.entry_bits << '|' << op.by_rate << ',' << op.vdd << ',' << op.rate << '|' << cfg.get(kRfSecdedBits);
  return shared_by_key<Chip>(k.str(), [&] { return std::make_shared<const Chip>(cfg, g); });
}

}  // namespace relgpu::reliability
