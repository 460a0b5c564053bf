// LESS's keys that the module loader reads too (runtime/device.cpp: the
// compiler's two register namespaces, ptx::split_namespaces); the rest sit in
// sm/less_unit.h.
#pragma once
#include <string>
#include <vector>

#include "common/config.h"

namespace relgpu::sm {

inline const config::Key<bool> kLessEnable{
    "less.enable", false, "",
    "LESS hybrid STT-RAM/SRAM register file (Tan Ch4): STT-RAM registers are soft-error immune, their writes "
    "slow; needs rf.entry_bits=1024 (configs/less.json has the chapter's GPU)"};
inline const config::Key<std::string> kLessPlacement{
    "less.placement", "lifetime", "",
    "which registers are STT-RAM: lifetime = LA-LESS (values living more than less.lifetime_threshold "
    "instructions), all = the all-STT-RAM RF, none = all SRAM (the baseline, with LESS's accounting), "
    "sram_split = all SRAM with LA-LESS's register allocation (the two namespaces; an ablation that isolates "
    "the allocation's effect on bank conflicts)",
    std::vector<std::string>{"lifetime", "all", "none", "sram_split"}};
inline const config::Key<int64_t> kLessThreshold{
    "less.lifetime_threshold", 10, "instructions",
    "LA-LESS: a register is STT-RAM when a value in it may be read more than this many instructions after "
    "its write (10: the paper's sensitivity optimum)", 0, 100000};

// Whether the module loader splits the register namespaces (ptx::split_namespaces).
inline bool less_splits(const config::Config& cfg) {
  const std::string p = cfg.get(kLessPlacement);
  return cfg.get(kLessEnable) && (p == "lifetime" || p == "sram_split");
}

}  // namespace relgpu::sm
