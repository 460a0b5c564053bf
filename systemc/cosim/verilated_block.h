// A Verilated RTL block driven through the block.h cycle contract. Shared by
// the co-simulation library (cosim/rtl_instance.h, `relgpu run --rtl`) and
// the lockstep harness (verilator_tb/common/lockstep.h).
#pragma once
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <verilated.h>
#include <verilated_fst_c.h>

#include "blocks/block.h"

namespace relgpu::cosim {

using blocks::Wide;

// ---- field copy between a port struct and the Verilated model ---------------
template <class P, class V> void to_port(P& p, const V& v) { p = static_cast<P>(v); }
template <std::size_t N> void to_port(VlWide<N>& p, const Wide& v) {
  for (std::size_t i = 0; i < N; ++i) p[i] = i < v.size() ? v[i] : 0;
}
template <class P, class V> void from_port(const P& p, V& v) { v = static_cast<V>(p); }
template <std::size_t N> void from_port(const VlWide<N>& p, Wide& v) {
  v.resize(N);  // keeps the capacity: no allocation after the first cycle
  for (std::size_t i = 0; i < N; ++i) v[i] = p[i];
}

// The waveform files still open. The GPU model is not always destroyed
// before the process exits (and an error may end the run), so they are
// closed at exit: an FST file is only complete once closed.
inline std::set<VerilatedFstC*>& open_traces() {
  static std::set<VerilatedFstC*>* s = [] {
    auto* p = new std::set<VerilatedFstC*>;  // never freed: used from atexit
    std::atexit([] {
      for (VerilatedFstC* t : open_traces()) t->close();
      open_traces().clear();
    });
    return p;
  }();
  return *s;
}

// Same interface as the C++ model: reset() and cycle(in). Glue supplies
// Top (the Verilated class), In, Out, drive(Top&, const In&) and
// sample(Top&, Out&) (RELGPU_RTL_GLUE below writes it from the port lists).
// Each RtlBlock owns its VerilatedContext, so any number of them, of the
// same class or not, coexist, each with its own time and waveform.
template <class Glue>
class RtlBlock {
 public:
  using In = typename Glue::In;
  using Out = typename Glue::Out;

  // fst: waveform file; scope: the model's name, the top scope in it.
  explicit RtlBlock(const std::optional<std::string>& fst = std::nullopt, const std::string& scope = "top")
      : ctx_(new VerilatedContext) {
    if (fst) ctx_->traceEverOn(true);
    top_.reset(new typename Glue::Top(ctx_.get(), scope.c_str()));
    if (fst) {
      trace_.reset(new VerilatedFstC);
      top_->trace(trace_.get(), 99);
      trace_->open(fst->c_str());
      open_traces().insert(trace_.get());
    }
  }
  ~RtlBlock() {
    if (trace_) {
      open_traces().erase(trace_.get());
      trace_->close();
    }
    top_->final();
  }
  RtlBlock(const RtlBlock&) = delete;
  RtlBlock& operator=(const RtlBlock&) = delete;

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
  // Inputs with the clock low, the Mealy outputs, then the rising edge. The
  // clock falls again with the next cycle's inputs, in the same eval: the
  // blocks use the rising edge only, and a third eval per cycle would cost
  // a third more time in --rtl runs.
  void cycle(const In& in, Out& out) {
    Glue::drive(*top_, in);
    top_->clk_i = 0;
    eval();
    Glue::sample(*top_, out);
    top_->clk_i = 1;
    eval();
  }
  Out cycle(const In& in) {
    Out out;
    cycle(in, out);
    return out;
  }
  bool tracing() const { return bool(trace_); }
  // Moves the waveform time forward to `t` (in the context's time unit, 1 ps
  // by default); never backwards.
  void advance_time(uint64_t t) {
    if (t > ctx_->time()) ctx_->time(t);
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

}  // namespace relgpu::cosim

// Per-block glue from the port lists of block.h:
//   RELGPU_RTL_GLUE(DroopGlue, "droop_predictor", Vdroop_predictor, blocks::DroopPredictor,
//                   RELGPU_DROOP_PREDICTOR_IN, RELGPU_DROOP_PREDICTOR_OUT);
// expects blocks::DroopPredictorIn/Out/Params/Model to exist.
#define RELGPU_RTL_DRIVE(T, name) ::relgpu::cosim::to_port(t.name, in.name);
#define RELGPU_RTL_SAMPLE(T, name) ::relgpu::cosim::from_port(t.name, out.name);
#define RELGPU_RTL_GLUE(Glue, block_name, TopT, Prefix, IN_LIST, OUT_LIST) \
  struct Glue {                                                             \
    using Top = TopT;                                                       \
    using Root = TopT##___024root; /* the model's state (rtl_instance.h) */ \
    using In = Prefix##In;                                                  \
    using Out = Prefix##Out;                                                \
    using Params = Prefix##Params;                                          \
    using Model = Prefix##Model;                                            \
    static constexpr const char* name = block_name;                         \
    static void drive(Top& t, const In& in) { IN_LIST(RELGPU_RTL_DRIVE) }    \
    static void sample(Top& t, Out& out) { OUT_LIST(RELGPU_RTL_SAMPLE) }     \
  }
