// The Verilated RTL of a block behind blocks::Instance<B> (`relgpu run
// --rtl`), and the factory that blocks::make<B>() calls for Impl::rtl and
// Impl::check. One adapter for every block: a block plugs in with its glue
// (RELGPU_RTL_GLUE) and one register_rtl<B, Glue>() call in cosim.cpp.
#pragma once
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blocks/instance.h"
#include "common/config.h"
#include "common/error.h"
#include "cosim/verilated_block.h"

namespace relgpu::cosim {

// Drives one Verilated model, clocked by the owner's cycle() calls (the
// SM's clock). Owns its VerilatedContext (in RtlBlock): one instance per SM
// of the same model class, each with its own time and FST file.
//
// Quiet cycles are not re-evaluated: a Verilated model is a deterministic
// function of its root object (every signal, register, port and trigger
// flag; these blocks hold no heap data) and its inputs. When a cycle whose
// inputs repeat the previous cycle's leaves the root byte-for-byte as it
// found it, every further cycle with those inputs would too and gives the
// same outputs, so they are answered from the last outputs until the inputs
// change. This is exact, and it matters: an SM presents its blocks idle
// inputs on many cycles, and one patching_unit eval costs microseconds.
// Not done while tracing, so the waveform shows every clock.
template <class B, class Glue>
class RtlInstance final : public blocks::Instance<B> {
 public:
  using Root = typename Glue::Root;
  // fst: waveform file or "" (none); scope: top scope name in it.
  RtlInstance(const std::string& fst, const std::string& scope)
      : rtl_(fst.empty() ? std::nullopt : std::optional<std::string>(fst), scope),
        snap_(rtl_.tracing() ? 0 : sizeof(Root)) {
    reset();  // the state a new C++ model starts in
  }
  void reset() override {
    rtl_.reset();
    have_last_ = settled_ = false;
  }
  typename B::Out cycle(const typename B::In& in) override {
    if (rtl_.tracing()) {
      // Waveform time follows simulated time: inputs at the SM's clock
      // edge, the block's rising edge 1 ps later.
      rtl_.advance_time(blocks::sim_time_ps());
      rtl_.cycle(in, out_);
      return out_;
    }
    const bool repeat = have_last_ && blocks::same_ports(in, last_in_);
    if (repeat && settled_) return out_;
    const unsigned char* root = reinterpret_cast<const unsigned char*>(rtl_.top().rootp);
    if (repeat) std::memcpy(snap_.data(), root, sizeof(Root));
    rtl_.cycle(in, out_);
    settled_ = repeat && std::memcmp(snap_.data(), root, sizeof(Root)) == 0;
    if (!repeat) last_in_ = in;
    have_last_ = true;
    return out_;
  }

 private:
  RtlBlock<Glue> rtl_;
  typename B::Out out_{};  // reused: no allocation per cycle
  typename B::In last_in_{};
  std::vector<unsigned char> snap_;  // the root before a repeated cycle
  bool have_last_ = false, settled_ = false;
};

// Verilator parameters are fixed when the library is built (from
// configs/blocks/<block>.json); a run whose block parameters differ cannot
// use the RTL. The message names the block and both parameter sets.
template <class B>
void check_rtl_params(const typename B::Params& verilated, const typename B::Params& wanted) {
  if (verilated.describe() == wanted.describe()) return;
  throw InputError(std::string("--rtl ") + B::name + ": the Verilated RTL has " + verilated.describe() +
                   "; this config gives " + wanted.describe() +
                   " (the RTL is verilated with configs/blocks/" + B::name +
                   ".json: change that file and rebuild, or run this block as its C++ model)");
}

// Installs blocks::rtl_factory<B>(). `verilated` returns the parameters the
// Verilated model was built with; it is called when an instance is made,
// not at static-init time (it reads config keys registered by other files).
template <class B, class Glue>
void register_rtl(typename B::Params (*verilated)()) {
  blocks::rtl_factory<B>() = [verilated](const typename B::Params& p, const blocks::Site& site,
                                         blocks::Impl impl) -> std::unique_ptr<blocks::Instance<B>> {
    check_rtl_params<B>(verilated(), p);
    auto rtl = std::make_unique<RtlInstance<B, Glue>>(blocks::trace_path(site, B::name),
                                                      "sm" + std::to_string(site.sm));
    if (impl != blocks::Impl::check) return rtl;
    return std::make_unique<blocks::CheckedInstance<B>>(std::make_unique<blocks::CppInstance<B>>(p), std::move(rtl),
                                                        site);
  };
}

}  // namespace relgpu::cosim
