// How the GPU model holds a hardware block: its C++ model (the default), the
// Verilated RTL (`relgpu run --rtl BLOCK`), or both side by side, compared
// every cycle (`--rtl-check`). One adapter pattern for all four blocks.
//
// A block is described by a traits struct:
//   struct PatchingUnitBlock {
//     using In = PatchingUnitIn; using Out = PatchingUnitOut;
//     using Model = PatchingUnitModel; using Params = PatchingUnitParams;
//     static constexpr const char* name = "patching_unit";
//   };
// The SM (or LD/ST unit) owns a std::unique_ptr<Instance<B>> from make<B>()
// and calls cycle() once per its clock cycle, per the block.h contract.
// Users of a block must derive every statistic from its outputs, never from
// the C++ model's internals: RTL mode has no C++ model, and its stats must be
// identical.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "blocks/block.h"
#include "blocks/loscache_table/loscache_table.h"
#include "blocks/patching_unit/patching_unit.h"
#include "common/config.h"

namespace relgpu::blocks {

struct PatchingUnitBlock {
  using In = PatchingUnitIn;
  using Out = PatchingUnitOut;
  using Model = PatchingUnitModel;
  using Params = PatchingUnitParams;
  static constexpr const char* name = "patching_unit";
};
struct LoscacheTableBlock {
  using In = LoscacheTableIn;
  using Out = LoscacheTableOut;
  using Model = LoscacheTableModel;
  using Params = LoscacheTableParams;
  static constexpr const char* name = "loscache_table";
};

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
