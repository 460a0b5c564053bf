// Lockstep harness: drives the same inputs into a Verilated RTL block and its
// C++ model (systemc/blocks/block.h contract) every cycle and compares every
// output. See verilator_tb/README.md for how a block plugs in.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "blocks/block.h"
#include "blocks/ports.h"
#include "cosim/verilated_block.h"

namespace relgpu::tb {

using blocks::Wide;

// Field copy, compare and print, and the Verilated side (RtlBlock), are
// shared with `relgpu run --rtl` / --rtl-check.
using blocks::diff_ports;
using blocks::same;
using blocks::same_ports;
using blocks::show;
using blocks::show_all;
template <class Glue> using RtlBlock = cosim::RtlBlock<Glue>;

// ---- environment -------------------------------------------------------------
// RELGPU_TB_SEED=<n> overrides the test's default seed.
inline uint64_t seed_from_env(uint64_t def) {
  const char* s = std::getenv("RELGPU_TB_SEED");
  return s && *s ? std::strtoull(s, nullptr, 0) : def;
}
// RELGPU_TB_TRACE=1 traces every run to <block>_<tag>.fst; any other non-empty
// value except 0 is used as a path prefix (<value><block>_<tag>.fst).
inline std::optional<std::string> trace_path_from_env(const std::string& block, const std::string& tag) {
  const char* s = std::getenv("RELGPU_TB_TRACE");
  if (!s || !*s || std::string(s) == "0") return std::nullopt;
  std::string prefix = std::string(s) == "1" ? "" : s;
  return prefix + block + "_" + tag + ".fst";
}

// Seeded random numbers for constrained-random stimulus.
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t bits(unsigned w) { return g_() & blocks::mask(w); }
  uint64_t range(uint64_t lo, uint64_t hi) { return lo + g_() % (hi - lo + 1); }  // inclusive
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(g_) < p; }

 private:
  std::mt19937_64 g_;
};

// ---- lockstep checker ----------------------------------------------------------
// Glue additionally supplies Model (the C++ model class), Params and a
// `static constexpr const char* name`.
template <class Glue>
class Lockstep {
 public:
  using In = typename Glue::In;
  using Out = typename Glue::Out;
  using Model = typename Glue::Model;
  using Params = typename Glue::Params;

  // tag names this run in file names (e.g. "random", "directed_full").
  Lockstep(const Params& p, std::string tag, uint64_t seed = 0)
      : params_(p), tag_(std::move(tag)), seed_(seed), model_(p),
        rtl_(new RtlBlock<Glue>(trace_path_from_env(Glue::name, tag_))) {
    reset();
  }

  void reset() {
    model_.reset();
    rtl_->reset();
    log_.push_back(std::nullopt);
    since_reset_ = 0;
  }

  // One cycle on both sides. Returns false (and prints the report) on the
  // first mismatch; later calls do nothing and return false.
  bool step(const In& in) {
    if (failed_) return false;
    log_.push_back(in);
    last_model_ = model_.cycle(in);
    last_rtl_ = rtl_->cycle(in);
    const bool ok = same_ports(last_rtl_, last_model_);
    ++cycle_;
    ++since_reset_;
    if (!ok) fail(in, diff_ports(last_rtl_, last_model_, "rtl", "model"));
    return ok;
  }

  const Out& rtl_out() const { return last_rtl_; }
  const Out& model_out() const { return last_model_; }
  const Model& model() const { return model_; }
  uint64_t cycles() const { return cycle_; }
  bool failed() const { return failed_; }
  const std::string& report() const { return report_; }

 private:
  void fail(const In& in, const std::string& diff) {
    failed_ = true;
    std::ostringstream r;
    r << "relgpu-lockstep: MISMATCH block=" << Glue::name << " run=" << tag_ << " seed=" << seed_
      << " cycle=" << cycle_ - 1 << " (cycle " << since_reset_ - 1 << " since reset)\n"
      << "  inputs:\n" << show_all(in) << "  outputs:\n" << diff;
    std::string fst = std::string(Glue::name) + "_" + tag_ + "_mismatch.fst";
    replay(fst);
    r << "  waveform: " << fst << "\n"
      << "  reproduce: RELGPU_TB_SEED=" << seed_ << " RELGPU_TB_TRACE=1\n";
    report_ = r.str();
    std::cout << report_ << std::flush;
  }

  // Re-runs every recorded input into a fresh, traced RTL instance.
  void replay(const std::string& fst) {
    RtlBlock<Glue> r(fst);
    for (auto& e : log_) {
      if (e) r.cycle(*e);
      else r.reset();
    }
  }

  Params params_;
  std::string tag_;
  uint64_t seed_;
  Model model_;
  std::unique_ptr<RtlBlock<Glue>> rtl_;
  std::vector<std::optional<In>> log_;  // nullopt = reset
  Out last_model_{}, last_rtl_{};
  uint64_t cycle_ = 0, since_reset_ = 0;
  bool failed_ = false;
  std::string report_;
};

// ---- functional coverage -----------------------------------------------------
// Named counters declared up front, so a behaviour never hit shows as 0.
class Coverage {
 public:
  explicit Coverage(const std::vector<std::string>& names) {
    for (auto& n : names) count_[n] = 0;
  }
  void hit(const std::string& name, bool cond = true) {
    if (!cond) return;
    auto it = count_.find(name);
    if (it == count_.end()) throw std::logic_error("undeclared coverage point " + name);
    ++it->second;
  }
  uint64_t operator[](const std::string& n) const { return count_.at(n); }
  std::vector<std::string> missing() const {
    std::vector<std::string> m;
    for (auto& [n, c] : count_)
      if (c == 0) m.push_back(n);
    return m;
  }
  std::string table(const std::string& title) const {
    std::ostringstream s;
    s << "coverage " << title << ":\n";
    for (auto& [n, c] : count_) s << "  " << std::left << std::setw(28) << n << c << (c ? "" : "   <-- never hit") << "\n";
    return s.str();
  }

 private:
  std::map<std::string, uint64_t> count_;
};

}  // namespace relgpu::tb

// Per-block glue (cosim/verilated_block.h): RELGPU_TB_GLUE(DroopGlue,
// "droop_predictor", Vdroop_predictor, blocks::DroopPredictor, ...).
#define RELGPU_TB_GLUE RELGPU_RTL_GLUE

#ifdef RELGPU_BLOCK_CONFIG
namespace relgpu::tb {
// The block's parameter file (configs/blocks/<block>.json), the very file the
// RTL was verilated with (-G), so the model and the RTL cannot drift.
inline config::Config block_config() {
  config::Config cfg;
  cfg.load_file(RELGPU_BLOCK_CONFIG);
  return cfg;
}
}  // namespace relgpu::tb
#endif
