// How the GPU model holds a hardware block: its C++ model (the default), the
// Verilated RTL (`relgpu run --rtl BLOCK`), or both side by side, compared
// every cycle (`--rtl-check`). One adapter pattern for all four blocks.
//
// A block is described by a traits struct (RELGPU_BLOCK_TRAITS below):
// PatchingUnitBlock::In / Out / Model / Params and ::name = "patching_unit".
// The SM (or LD/ST unit) owns a std::unique_ptr<Instance<B>> from make<B>()
// and calls cycle() once per its clock cycle, per the block.h contract.
// Users of a block must derive every statistic from its outputs, never from
// the C++ model's internals: RTL mode has no C++ model, and its stats must be
// identical.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "blocks/bank_org_table/bank_org_table.h"
#include "blocks/block.h"
#include "blocks/droop_predictor/droop_predictor.h"
#include "blocks/loscache_table/loscache_table.h"
#include "blocks/patching_unit/patching_unit.h"
#include "blocks/ports.h"
#include "common/config.h"
#include "common/error.h"

namespace relgpu::blocks {

// Traits of one block: its port structs, C++ model, parameters and name.
#define RELGPU_BLOCK_TRAITS(Trait, Prefix, block_name) \
  struct Trait {                                      \
    using In = Prefix##In;                            \
    using Out = Prefix##Out;                          \
    using Model = Prefix##Model;                      \
    using Params = Prefix##Params;                    \
    static constexpr const char* name = block_name;   \
  };
RELGPU_BLOCK_TRAITS(PatchingUnitBlock, PatchingUnit, "patching_unit")
RELGPU_BLOCK_TRAITS(LoscacheTableBlock, LoscacheTable, "loscache_table")
RELGPU_BLOCK_TRAITS(BankOrgTableBlock, BankOrgTable, "bank_org_table")
RELGPU_BLOCK_TRAITS(DroopPredictorBlock, DroopPredictor, "droop_predictor")
#undef RELGPU_BLOCK_TRAITS

template <class B>
class Instance {
 public:
  virtual ~Instance() = default;
  virtual void reset() = 0;
  virtual typename B::Out cycle(const typename B::In& in) = 0;
};

// The C++ model behind the Instance interface.
template <class B>
class CppInstance final : public Instance<B> {
 public:
  explicit CppInstance(const typename B::Params& p) : m_(p) {}
  void reset() override { m_.reset(); }
  typename B::Out cycle(const typename B::In& in) override { return m_.cycle(in); }
  const typename B::Model& model() const { return m_; }

 private:
  typename B::Model m_;
};

enum class Impl { cpp, rtl, check };

// Which implementation the config asks for this block (sim.rtl lists blocks
// or says "all"; sim.rtl_check runs both). Throws InputError for an unknown
// block name in sim.rtl.
Impl impl_for(const config::Config& cfg, const char* block);

// Where the instance sits, for mismatch reports and waveform scopes.
struct Site {
  unsigned sm = 0;
  const config::Config* cfg = nullptr;
  // The owner's current clock cycle, if it exposes one: --rtl-check reports
  // name it beside the block's own cycle count (optional).
  const uint64_t* cycle = nullptr;
};

// Checks the sim.rtl / sim.rtl_check / sim.trace_rtl keys together (unknown
// block names, a trace file without RTL blocks); InputError naming the key.
void check_rtl_keys(const config::Config& cfg);

// sim.trace_rtl's file for the instance of `block` at `site`, or "" when not
// tracing: one FST file per instance, FILE.fst -> FILE.sm<N>.<block>.fst
// (every instance has its own Verilator context, see cosim/).
std::string trace_path(const Site& site, const char* block);

// SystemC's current time in ps (the waveform time of --trace-rtl).
uint64_t sim_time_ps();

// --rtl-check found the C++ model and the RTL disagreeing. The CLI exits
// with kRtlMismatchExit.
struct RtlMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};
inline constexpr int kRtlMismatchExit = 5;

// The text of an RtlMismatch: where and when (SC time, owner cycle, block
// cycle), the inputs and both outputs.
std::string mismatch_report(const Site& site, const char* block, uint64_t cycle, uint64_t since_reset,
                            const std::string& inputs, const std::string& outputs);

// Per block name, over this process: checked instances built and cycles
// compared (relgpu run prints it after a --rtl-check run).
struct CheckTally {
  unsigned instances = 0;
  uint64_t cycles = 0;
};
std::map<std::string, CheckTally>& check_tally();

// Runs two implementations of a block side by side (the C++ model and the
// RTL for --rtl-check), compares every output every cycle and throws
// RtlMismatch at the first difference. Returns the first one's outputs.
template <class B>
class CheckedInstance final : public Instance<B> {
 public:
  CheckedInstance(std::unique_ptr<Instance<B>> cpp, std::unique_ptr<Instance<B>> rtl, const Site& site)
      : cpp_(std::move(cpp)), rtl_(std::move(rtl)), site_(site), tally_(&check_tally()[B::name]) {
    ++tally_->instances;
  }
  void reset() override {
    cpp_->reset();
    rtl_->reset();
    since_reset_ = 0;
  }
  typename B::Out cycle(const typename B::In& in) override {
    typename B::Out a = cpp_->cycle(in);
    typename B::Out b = rtl_->cycle(in);
    if (!same_ports(a, b))
      throw RtlMismatch(mismatch_report(site_, B::name, cycles_, since_reset_, show_all(in),
                                        diff_ports(a, b, "cpp", "rtl")));
    ++cycles_;
    ++since_reset_;
    ++tally_->cycles;
    return a;
  }
  // cycle() calls that passed the comparison.
  uint64_t cycles() const { return cycles_; }

 private:
  std::unique_ptr<Instance<B>> cpp_, rtl_;
  Site site_;
  uint64_t cycles_ = 0, since_reset_ = 0;
  CheckTally* tally_;  // a std::map node: stable
};

// RTL factories: the Verilator co-simulation library registers one per block
// at static-init time. Absent (a build without it) => InputError on --rtl.
template <class B>
using RtlFactory = std::function<std::unique_ptr<Instance<B>>(const typename B::Params&, const Site&, Impl)>;
template <class B>
RtlFactory<B>& rtl_factory() {
  static RtlFactory<B> f;
  return f;
}

// The instance the config asks for: CppInstance for Impl::cpp, else what the
// registered RTL factory builds for rtl / check.
template <class B>
std::unique_ptr<Instance<B>> make(const typename B::Params& p, const Site& site) {
  Impl impl = site.cfg ? impl_for(*site.cfg, B::name) : Impl::cpp;
  if (impl == Impl::cpp) return std::make_unique<CppInstance<B>>(p);
  if (!rtl_factory<B>())
    throw InputError(std::string("sim.rtl: this relgpu was built without the Verilated RTL of ") + B::name);
  return rtl_factory<B>()(p, site, impl);
}

}  // namespace relgpu::blocks
