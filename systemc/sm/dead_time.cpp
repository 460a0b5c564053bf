#include "sm/dead_time.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "common/error.h"
#include "reliability/keys.h"
#include "reliability/shared_cache.h"

namespace relgpu::sm {

std::vector<DeadTimeOverlay> dead_time_overlays(const config::Config& cfg, const reliability::RfGeometry& g) {
  std::vector<DeadTimeOverlay> out;
  const std::string list = cfg.get(kDeadTimeFaultRates);
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    char* end = nullptr;
    const double rate = std::strtod(item.c_str(), &end);
    if (item.empty() || *end || !(rate > 0.0 && rate <= 1.0))
      throw InputError("config key '" + kDeadTimeFaultRates.name + "' = '" + list + "': '" + item +
                       "' is not a cell failure rate in (0, 1]");
    const uint64_t seed = uint64_t(cfg.get(reliability::kChipSeed));
    const std::string sigma = cfg.get(reliability::kSigmaRatio), fp = cfg.get(reliability::kFloorplan);
    std::ostringstream key;
    key << "deadtime|" << seed << '|' << sigma << '|' << fp << '|' << g.sms << ',' << g.banks << ',' << g.rows << ','
        << g.entry_bits << '|' << item;
    reliability::OperatingPoint op;
    op.by_rate = true;
    op.rate = rate;
    auto chip = reliability::shared_by_key<reliability::Chip>(key.str(), [&] {
      return std::make_shared<const reliability::Chip>(seed, sigma, g, op, reliability::parse_floorplan(fp));
    });
    out.push_back({item, std::move(chip)});
  }
  return out;
}

DeadTime::DeadTime(unsigned groups, unsigned rows, unsigned span, const reliability::RfFaults* faults,
                   bool first_read, const std::vector<Named>& overlays)
    : groups_(groups), rows_(rows), span_(span), first_read_(first_read), wrg_(size_t(groups) * rows) {
  std::vector<Named> maps{{"", faults}};
  maps.insert(maps.end(), overlays.begin(), overlays.end());
  for (const auto& [name, f] : maps) {
    names_.push_back(name);
    std::vector<uint8_t> count(size_t(groups) * rows, 0);
    if (f && f->faulty_entries())
      for (unsigned g = 0; g < groups; ++g)
        for (unsigned r = 0; r < rows; ++r)
          for (unsigned e = 0; e < span; ++e)
            if (f->faulty(g * span + e, r)) ++count[size_t(g) * rows + r];
    faulty_.push_back(std::move(count));
  }
  closed_ = zero();
}

DeadTime::Sums DeadTime::zero() const {
  Sums s;
  s.dead_good.assign(faulty_.size(), 0);
  s.live_faulty.assign(faulty_.size(), 0);
  s.known_good.assign(faulty_.size(), 0);
  return s;
}

void DeadTime::begin_launch() {
  std::fill(wrg_.begin(), wrg_.end(), Wrg{});
  closed_ = zero();
  start_ = kNone;
  end_ = 0;
}

void DeadTime::rf_read(unsigned group, unsigned row, uint64_t cycle, ReadMark mark) {
  Wrg& w = wrg_[size_t(group) * rows_ + row];
  if (w.write == kNone) return;  // not written in this launch: no residency to read from
  if (mark == ReadMark::kDies && w.declared == kNone) w.declared = cycle;
  if (first_read_ && w.read != kNone) return;
  w.read = cycle;
  w.mark = mark;
}

void DeadTime::rf_exit(unsigned group, unsigned row, uint64_t cycle) {
  Wrg& w = wrg_[size_t(group) * rows_ + row];
  if (w.write != kNone && w.declared == kNone) w.declared = cycle;
}

void DeadTime::rf_write(unsigned group, unsigned row, uint64_t cycle) {
  const size_t i = size_t(group) * rows_ + row;
  Wrg& w = wrg_[i];
  close(i, w, cycle, closed_);
  w = Wrg{};
  w.write = cycle;
}

void DeadTime::on_cycle(const Activity& a, uint64_t skipped) {
  if (start_ == kNone) start_ = a.cycle;
  end_ = a.cycle + 1 + skipped;
}

void DeadTime::close(size_t i, const Wrg& w, uint64_t end, Sums& s) const {
  if (w.write == kNone) return;
  const uint64_t residency = end - w.write;
  const uint64_t dead = end - (w.read == kNone ? w.write : w.read);
  const uint64_t live = residency - dead;
  ++s.intervals;
  s.residency += residency;
  s.dead += dead;
  s.live_entries += live * span_;
  s.dead_entries += dead * span_;
  // Coverage: the unit knows the dead time after its declaration.
  const uint64_t from = std::max(w.read == kNone ? w.write : w.read, w.declared == kNone ? end : w.declared);
  const uint64_t known = end - std::min(from, end);
  s.known += known;
  if (dead > known) {
    s.lost[w.read == kNone ? kNeverRead : unsigned(w.mark)] += dead - known;
  }
  for (size_t m = 0; m < faulty_.size(); ++m) {
    s.dead_good[m] += dead * (span_ - faulty_[m][i]);
    s.live_faulty[m] += live * faulty_[m][i];
    s.known_good[m] += known * (span_ - faulty_[m][i]);
  }
}

config::json DeadTime::stats() const {
  Sums tail = zero();
  for (size_t i = 0; i < wrg_.size(); ++i) close(i, wrg_[i], end_, tail);
  const uint64_t cycles = start_ == kNone ? 0 : end_ - start_;
  config::json j;
  j["intervals"] = closed_.intervals;
  j["residency_cycles"] = closed_.residency;
  j["dead_cycles"] = closed_.dead;
  j["known_dead_cycles"] = closed_.known;
  static const char* const kWhy[kLostN] = {"marked", "divergent", "later_operand", "compiler_live", "never_read"};
  for (unsigned k = 0; k < kLostN; ++k) j["lost_dead_cycles"][kWhy[k]] = closed_.lost[k];
  j["tail_intervals"] = tail.intervals;
  j["tail_residency_cycles"] = tail.residency;
  j["tail_dead_cycles"] = tail.dead;
  j["entry_cycles"] = cycles * groups_ * rows_ * span_;
  j["live_entry_cycles"] = closed_.live_entries + tail.live_entries;
  j["dead_entry_cycles"] = closed_.dead_entries + tail.dead_entries;
  for (size_t m = 0; m < faulty_.size(); ++m) {
    config::json& o = m ? j["at_rate"][names_[m]] : j;
    uint64_t faulty = 0;
    for (uint8_t n : faulty_[m]) faulty += n;
    if (m) o["entry_cycles"] = j["entry_cycles"];
    o["faulty_entry_cycles"] = cycles * faulty;
    o["dead_good_entry_cycles"] = closed_.dead_good[m] + tail.dead_good[m];
    o["live_faulty_entry_cycles"] = closed_.live_faulty[m] + tail.live_faulty[m];
    o["known_dead_good_entry_cycles"] = closed_.known_good[m] + tail.known_good[m];
  }
  return j;
}

}  // namespace relgpu::sm
