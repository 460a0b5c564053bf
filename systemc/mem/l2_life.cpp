#include "mem/l2_life.h"

namespace relgpu::mem {

void L2Life::access(uint64_t line, uint64_t cycle, uint32_t cta) {
  auto [it, fresh] = open_.try_emplace(line);
  Gen& g = it->second;
  if (fresh) g.first = cycle;
  g.last = cycle;
  ++g.accesses;
  auto [c, first] = chunks_.try_emplace(line, Chunk{cta, false});
  if (!first && c->second.cta != cta) c->second.inter = true;
}

void L2Life::close(const Gen& g) {
  live_ += g.last - g.first;
  ++gens_;
  ++reref_[g.accesses > 2 ? 2 : g.accesses - 1];
}

void L2Life::evict(uint64_t line) {
  auto it = open_.find(line);
  if (it == open_.end()) return;
  close(it->second);
  open_.erase(it);
}

void L2Life::reset() {
  open_.clear();
  chunks_.clear();
  live_ = gens_ = 0;
  reref_[0] = reref_[1] = reref_[2] = 0;
}

uint64_t L2Life::live_line_cycles() const {
  uint64_t live = live_;
  for (const auto& [line, g] : open_) live += g.last - g.first;
  return live;
}

config::json L2Life::stats(uint64_t line_cycles) const {
  L2Life t = *this;  // open generations end with the kernel
  for (const auto& [line, g] : open_) t.close(g);
  uint64_t inter = 0;
  for (const auto& [line, c] : chunks_) inter += c.inter;
  return {{"line_cycles", line_cycles},
          {"live_line_cycles", t.live_},
          {"generations", t.gens_},
          {"rereference", {{"zero", t.reref_[0]}, {"once", t.reref_[1]}, {"more", t.reref_[2]}}},
          {"chunks", chunks_.size()},
          {"chunks_inter_cta", inter}};
}

}  // namespace relgpu::mem
