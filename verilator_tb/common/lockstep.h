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
#include <type_traits>
#include <vector>

#include <verilated.h>
#include <verilated_fst_c.h>

#include "blocks/block.h"

namespace relgpu::tb {

using blocks::Wide;

// ---- field copy, compare and print, per port type --------------------------
template <class P, class V> void to_port(P& p, const V& v) { p = static_cast<P>(v); }
template <std::size_t N> void to_port(VlWide<N>& p, const Wide& v) {
  for (std::size_t i = 0; i < N; ++i) p[i] = i < v.size() ? v[i] : 0;
}
template <class P, class V> void from_port(const P& p, V& v) { v = static_cast<V>(p); }
template <std::size_t N> void from_port(const VlWide<N>& p, Wide& v) {
  v.assign(N, 0);
  for (std::size_t i = 0; i < N; ++i) v[i] = p[i];
}
template <class V> bool same(const V& a, const V& b) { return a == b; }
inline bool same(const Wide& a, const Wide& b) {  // missing words read as 0
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
    if ((i < a.size() ? a[i] : 0) != (i < b.size() ? b[i] : 0)) return false;
  return true;
}
template <class V> std::string show(const V& v) {
  std::ostringstream s;
  s << "0x" << std::hex << uint64_t(v) << std::dec << " (" << uint64_t(v) << ")";
  return s.str();
}
inline std::string show(const Wide& v) {
  std::ostringstream s;
  s << "0x" << std::hex << std::setfill('0');
  if (v.empty()) s << "0";
  for (std::size_t i = v.size(); i-- > 0;) s << std::setw(8) << v[i] << (i ? "_" : "");
  return s.str();
}
template <class S> std::string show_all(const S& s) {
  std::ostringstream o;
  S::visit(s, [&](const char* name, const auto& v) { o << "    " << name << " = " << show(v) << "\n"; });
  return o.str();
}

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

// ---- the Verilated side ------------------------------------------------------
// Same interface as the C++ model: reset() and cycle(in). Glue supplies
// Top (the Verilated class), In, Out, drive(Top&, const In&), sample(Top&, Out&).
template <class Glue>
class RtlBlock {
 public:
  using In = typename Glue::In;
  using Out = typename Glue::Out;

  explicit RtlBlock(const std::optional<std::string>& fst = std::nullopt) : ctx_(new VerilatedContext) {
    if (fst) ctx_->traceEverOn(true);
    top_.reset(new typename Glue::Top(ctx_.get(), "top"));
    if (fst) {
      trace_.reset(new VerilatedFstC);
      top_->trace(trace_.get(), 99);
      trace_->open(fst->c_str());
    }
  }
  ~RtlBlock() {
    if (trace_) trace_->close();
    top_->final();
  }
  // Asynchronous active-low reset with all inputs 0, then released.
  void reset() {
    Glue::drive(*top_, In{});
    top_->clk_i = 0;
    top_->rst_ni = 0;
    eval();
    top_->clk_i = 1;
    eval();
    top_->clk_i = 0;
    eval();
    top_->rst_ni = 1;
    eval();
  }
  Out cycle(const In& in) {
    Glue::drive(*top_, in);
    top_->clk_i = 0;
    eval();
    Out out;
    Glue::sample(*top_, out);
    top_->clk_i = 1;
    eval();
    top_->clk_i = 0;
    eval();
    return out;
  }
  typename Glue::Top& top() { return *top_; }

 private:
  void eval() {
    top_->eval();
    if (trace_) trace_->dump(ctx_->time());
    ctx_->timeInc(1);
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<typename Glue::Top> top_;
  std::unique_ptr<VerilatedFstC> trace_;
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
    bool ok = true;
    std::ostringstream diff;
    // Visit both outputs in port order; the i-th field of one is the i-th of the other.
    std::vector<std::string> rtl_vals;
    Out::visit(last_rtl_, [&](const char*, const auto& v) { rtl_vals.push_back(show(v)); });
    std::size_t i = 0;
    Out::visit(last_model_, [&](const char* name, const auto& mv) {
      bool eq = field_equal(name, mv);
      if (!eq) ok = false;
      diff << "    " << name << ": rtl=" << rtl_vals[i] << " model=" << show(mv) << (eq ? "" : "   <-- differs")
           << "\n";
      ++i;
    });
    ++cycle_;
    ++since_reset_;
    if (!ok) fail(in, diff.str());
    return ok;
  }

  const Out& rtl_out() const { return last_rtl_; }
  const Out& model_out() const { return last_model_; }
  const Model& model() const { return model_; }
  uint64_t cycles() const { return cycle_; }
  bool failed() const { return failed_; }
  const std::string& report() const { return report_; }

 private:
  template <class V> bool field_equal(const char* name, const V& mv) {
    bool eq = true;
    Out::visit(last_rtl_, [&](const char* n, const auto& rv) {
      if constexpr (std::is_same_v<std::decay_t<decltype(rv)>, V>)
        if (std::string(n) == name) eq = same(rv, mv);
    });
    return eq;
  }

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

// Per-block glue from the port lists of block.h:
//   RELGPU_TB_GLUE(DroopGlue, "droop_predictor", Vdroop_predictor, blocks::DroopPredictor,
//                  RELGPU_DROOP_PREDICTOR_IN, RELGPU_DROOP_PREDICTOR_OUT)
// expects blocks::DroopPredictorIn/Out/Params/Model to exist.
#define RELGPU_TB_DRIVE(T, name) ::relgpu::tb::to_port(t.name, in.name);
#define RELGPU_TB_SAMPLE(T, name) ::relgpu::tb::from_port(t.name, out.name);
#define RELGPU_TB_GLUE(Glue, block_name, TopT, Prefix, IN_LIST, OUT_LIST)       \
  struct Glue {                                                                  \
    using Top = TopT;                                                            \
    using In = Prefix##In;                                                       \
    using Out = Prefix##Out;                                                     \
    using Params = Prefix##Params;                                               \
    using Model = Prefix##Model;                                                 \
    static constexpr const char* name = block_name;                              \
    static void drive(Top& t, const In& in) { IN_LIST(RELGPU_TB_DRIVE) }         \
    static void sample(Top& t, Out& out) { OUT_LIST(RELGPU_TB_SAMPLE) }          \
  }

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
