#include "runtime/resilience.h"

#include <algorithm>

#include "common/error.h"
#include "func/memory.h"

namespace relgpu::runtime {

using func::hex;

namespace {

std::set<uint64_t> parse_launches(const std::string& s) {
  std::set<uint64_t> out;
  size_t a = 0;
  while (a < s.size()) {
    size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    std::string t = s.substr(a, b - a);
    t.erase(0, t.find_first_not_of(' '));
    t.erase(t.find_last_not_of(' ') + 1);
    if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos)
      throw InputError("resilience.inject_launches: '" + t + "' is not a launch index (comma-separated integers from 0)");
    out.insert(std::stoull(t));
    a = b + 1;
  }
  return out;
}

}  // namespace

Resilience::Resilience(const config::Config& cfg, func::GlobalMemory& mem, CheckpointTarget& target)
    : mem_(mem), target_(target), scheme_(cfg.get(kResScheme)), recovery_(cfg.get(kResRecovery)),
      bound_(uint64_t(cfg.get(kResChainBound))), pcie_(cfg.get(kResPcieGbps)), file_(cfg.get(kResFileGbps)),
      latency_ps_(cfg.get(kResCopyLatencyUs) * 1e6), probability_(cfg.get(kResInjectProbability)),
      inject_at_(parse_launches(cfg.get(kResInjectLaunches))), rng_(uint64_t(cfg.get(kResSeed))) {}

void Resilience::check(const config::Config& cfg) {
  if (enabled(cfg)) return;
  if (!cfg.get(kResInjectLaunches).empty() || cfg.get(kResInjectProbability) > 0)
    throw InputError("resilience.inject_launches / resilience.inject_probability inject errors for the checkpoint "
                     "runtime to recover: they need resilience.scheme other than 'off'");
}

uint64_t Resilience::copy_ps(uint64_t bytes, bool file) const {
  double ps = latency_ps_ + double(bytes) * 1000.0 / pcie_;  // 1 GB/s = 1 byte per ns
  if (file) ps += double(bytes) * 1000.0 / file_;
  return uint64_t(ps + 0.5);
}

void Resilience::charge_checkpoint(uint64_t bytes, bool file) {
  ++checkpoints_;
  checkpoint_bytes_ += bytes;
  checkpoint_ps_ += copy_ps(bytes, file);
}

Resilience::Buf& Resilience::buf(uint64_t base, const std::string& what) {
  auto it = bufs_.find(base);
  if (it != bufs_.end()) return it->second;
  // Not seen allocated (the device-side malloc arena, made inside a kernel):
  // its content before any kernel wrote it is the zeros it was created with.
  const func::Allocation* a = mem_.find(base);
  if (!a) throw KernelError("resilience: " + what + " touched " + hex(base) + ", which is no allocation");
  Buf b;
  b.size = a->size;
  return bufs_.emplace(base, std::move(b)).first->second;
}

void Resilience::allocated(uint64_t base, uint64_t size) {
  Buf b;
  b.size = size;
  b.version = b.head = ++next_id_;
  bufs_[base] = std::move(b);
}

void Resilience::freed(uint64_t base) {
  // A kernel that read or wrote it can no longer be relaunched (scan's block sums).
  if (scheme_ == "memory_protection") mark_readers_of(base, true);
  bufs_.erase(base);
}

void Resilience::host_read(uint64_t n) { host_copy_ps_ += copy_ps(n, false); }

void Resilience::host_wrote(uint64_t addr, uint64_t n, HostWrite how) {
  if (how == HostWrite::copy) host_copy_ps_ += copy_ps(n, false);
  const func::Allocation* a = mem_.find(addr);
  if (!a) return;
  Buf& b = buf(a->base, "a host write");
  const uint64_t id = ++next_id_;
  if (scheme_ == "memory_protection") {
    mark_readers_of(a->base);
    // The host copy is the implicit checkpoint; what the host does not hold
    // (a device-made rest of the buffer, a device-to-device source) is copied.
    const bool device_made = b.head_kernel || !b.chain.empty();
    uint64_t explicit_bytes = how == HostWrite::device_copy ? n : 0;
    if (device_made && n < b.size) explicit_bytes += b.size - n;
    if (explicit_bytes) charge_checkpoint(std::min(explicit_bytes, b.size), false);
    b.image = target_.copy_out(a->base, a->size);
  }
  b.version = b.head = id;
  b.head_kernel = false, b.stale = false;
  b.chain.clear();
}

void Resilience::cut(uint64_t x, Buf& b, const std::vector<uint8_t>* image, bool at_recovery) {
  b.image = image ? *image : target_.copy_out(x, b.size);
  b.head_kernel = false, b.stale = false, b.head = b.version, b.chain.clear();
  if (!at_recovery) return charge_checkpoint(b.size, false);
  ++recovery_copies_;
  restore_ps_ += copy_ps(b.size, false);
}

void Resilience::mark_readers_of(uint64_t w, bool freed) {
  // A kernel in D(x) that read w cannot be relaunched once w is overwritten
  // (by the host, or by the kernel just run). Any version of w counts: the
  // kernel may have updated w in place itself (bfs's frontier), and a
  // recovery replays the D of what it writes, not of what it reads. x's
  // device content is still right, so it is copied only when needed: before
  // a kernel updates x in place, at the chain bound, or when a recovery
  // reaches D(x) (a kernel that writes x as its output starts D(x) afresh).
  for (auto& [x, b] : bufs_) {
    if (x == w || b.stale || (!b.head_kernel && b.chain.empty())) continue;
    std::vector<uint64_t> ks = b.chain;
    if (b.head_kernel) ks.push_back(b.head);
    for (uint64_t j : ks) {
      for (auto [r, rv] : kernels_.at(j).reads) b.stale |= r == w;
      for (uint64_t o : kernels_.at(j).writes) b.stale |= freed && o == w;
    }
  }
}

void Resilience::before_launch() {
  pre_.clear();
  // memory_protection needs the state before the kernel only of buffers a
  // kernel made (a stale one it updates in place is copied as it was);
  // the other schemes may keep any writable buffer.
  for (const func::Allocation* a : mem_.allocations()) {
    if (a->kind == func::Allocation::Kind::const_var) continue;
    const Buf& b = buf(a->base, "the checkpoint");
    if (scheme_ == "memory_protection" && !b.head_kernel && b.chain.empty()) continue;
    pre_[a->base] = Saved{b.version, target_.copy_out(a->base, a->size)};
  }
}

bool Resilience::draw_injection() {
  if (probability_ <= 0) return false;
  return double(rng_() >> 11) * 0x1.0p-53 < probability_;
}

void Resilience::inject(const func::AccessLog& log) {
  std::vector<const func::AccessLog::Use*> written;
  for (auto& u : log.uses)
    if (u.written) written.push_back(&u);
  const func::AccessLog::Use& u = *written[rng_() % written.size()];
  const bool last = rng_() & 1;
  uint64_t addr = last ? u.last_store : u.first_store;
  const uint32_t bytes = last ? u.last_bytes : u.first_bytes;
  // Corrupt what the store wrote (an SDC in the output), never a byte beside
  // it that the relaunch would not rewrite: a word of a wide store, an upper
  // bit of it (bits 20-30 of a 32-bit word: a low mantissa bit can sit inside
  // a float reference's tolerance); 5w..8w-2 for a w-byte store.
  const uint32_t w = std::clamp<uint32_t>(bytes, 1, 4);
  addr += uint64_t(rng_() % std::max<uint32_t>(bytes / w, 1)) * w;
  const unsigned bit = 5 * w + unsigned(rng_() % (3 * w - 1));
  target_.flip_bit(addr, bit);
}

void Resilience::after_launch(CheckpointTarget::Launch l, const func::AccessLog& log, const std::string& what,
                              uint64_t kernel_ps) {
  kernel_ps_ += kernel_ps;
  const uint64_t id = ++next_id_, index = launches_++;
  Kernel kr{std::move(l), {}, {}};
  std::vector<uint64_t> in, out, io;
  for (auto& u : log.uses) {
    Buf& b = buf(u.alloc->base, "kernel '" + what + "'");
    if (u.read) kr.reads.push_back({u.alloc->base, b.version});
    if (u.written) kr.writes.push_back(u.alloc->base);
    (u.read && u.written ? io : u.written ? out : in).push_back(u.alloc->base);
  }
  if (scheme_ == "file" || scheme_ == "cpu_memory") {
    ckpt_ = std::move(pre_);
  } else if (scheme_ == "input_only") {
    ckpt_.clear();
    for (auto* set : {&in, &io})
      for (uint64_t b : *set)
        if (auto it = pre_.find(b); it != pre_.end()) ckpt_[b] = std::move(it->second);
  }
  if (scheme_ != "memory_protection") {
    uint64_t bytes = 0;
    for (auto& [b, s] : ckpt_) bytes += s.bytes.size();
    charge_checkpoint(bytes, scheme_ == "file");
  }
  if (scheme_ == "memory_protection") {
    for (uint64_t w : kr.writes) mark_readers_of(w);
    for (uint64_t x : io)
      if (Buf& b = bufs_.at(x); b.stale) {
        cut(x, b, &pre_.at(x).bytes);
        ++overwrite_copies_;
      }
  }
  pre_.clear();
  for (uint64_t w : kr.writes) bufs_.at(w).version = id;
  for (uint64_t o : out) {
    Buf& b = bufs_.at(o);
    b.head_kernel = true, b.stale = false, b.head = id, b.image.clear(), b.chain.clear();
  }
  for (uint64_t x : io) {
    Buf& b = bufs_.at(x);
    b.chain.push_back(id);
    max_chain_ = std::max<uint64_t>(max_chain_, 1 + b.chain.size());
  }
  launches_with_io_ += !io.empty();
  kernel_io_[what] |= !io.empty();
  kernels_[id] = std::move(kr);

  const bool drawn = draw_injection();
  if ((drawn || inject_at_.count(index)) && !kernels_[id].writes.empty()) {
    ++injected_;
    inject(log);
    recover(id, io);
  }
  if (scheme_ == "memory_protection" && bound_)
    for (uint64_t x : io) {
      Buf& b = bufs_.at(x);
      if (1 + b.chain.size() <= bound_) continue;
      cut(x, b);
      ++bound_copies_;
    }
}

void Resilience::recover(uint64_t k, const std::vector<uint64_t>& io) {
  ++recoveries_;
  struct Restore {
    uint64_t version;
    const std::vector<uint8_t>* bytes;
    uint64_t size;
  };
  std::map<uint64_t, Restore> restores;
  std::set<uint64_t> replay{k};
  auto restore_buf = [&](uint64_t x) {
    const Buf& b = bufs_.at(x);
    if (!b.head_kernel) restores[x] = Restore{b.head, &b.image, b.size};
  };
  if (scheme_ != "memory_protection") {
    for (auto& [x, s] : ckpt_) restores[x] = Restore{s.version, &s.bytes, s.bytes.size()};
  } else if (recovery_ == "faulty_only") {
    for (uint64_t x : io) restore_buf(x);
  } else {
    // R: the dependency lists of what the replayed kernels write, closed.
    std::vector<uint64_t> work = kernels_.at(k).writes;
    std::set<uint64_t> seen;
    while (!work.empty()) {
      uint64_t x = work.back();
      work.pop_back();
      if (!seen.insert(x).second) continue;
      auto it = bufs_.find(x);
      if (it == bufs_.end())
        throw KernelError("resilience: cannot recover kernel launch " + std::to_string(k) + ": allocation " + hex(x) +
                          " it depends on has been freed");
      Buf& b = it->second;
      // x is not the faulty kernel's (that one's stale buffers were copied
      // before it): its device content is right, copied now.
      if (b.stale) cut(x, b, nullptr, true);
      restore_buf(x);
      std::vector<uint64_t> ks = b.chain;
      if (b.head_kernel) ks.push_back(b.head);
      for (uint64_t j : ks)
        if (replay.insert(j).second)
          for (uint64_t w : kernels_.at(j).writes) work.push_back(w);
    }
  }
  if (recovery_ == "no_restore") restores.clear();

  // Issue order: a restore sits just after the op whose state it holds
  // (a scheme's pre-kernel checkpoint just before the faulty kernel).
  struct Step {
    double pos;
    bool restore;
    uint64_t key;
  };
  std::vector<Step> plan;
  for (auto& [x, r] : restores) plan.push_back({scheme_ == "memory_protection" ? r.version + 0.5 : k - 0.5, true, x});
  for (uint64_t j : replay) plan.push_back({double(j), false, j});
  std::sort(plan.begin(), plan.end(), [](const Step& a, const Step& b) { return a.pos < b.pos; });

  if (recovery_ == "replay_set") {
    // Dry run on buffer versions: every relaunched kernel must read what it
    // read the first time, and every buffer must end as it was.
    std::map<uint64_t, uint64_t> cur;
    auto version = [&](uint64_t x) {
      if (auto it = cur.find(x); it != cur.end()) return it->second;
      auto it = bufs_.find(x);
      if (it == bufs_.end())
        throw KernelError("resilience: cannot recover kernel launch " + std::to_string(k) + ": allocation " + hex(x) +
                          " a relaunched kernel reads has been freed");
      return it->second.version;
    };
    for (const Step& s : plan) {
      if (s.restore) {
        cur[s.key] = restores.at(s.key).version;
        continue;
      }
      const Kernel& j = kernels_.at(s.key);
      for (auto [x, v] : j.reads)
        if (version(x) != v)
          throw KernelError("resilience: cannot recover the error in kernel '" + kernels_.at(k).launch.kernel->name +
                            "': relaunching '" + j.launch.kernel->name + "' needs allocation " + hex(x) +
                            " as it read it, which no checkpoint or relaunch restores (the program overwrote it "
                            "since); Fig. 6.8's dependency set does not cover this program");
      for (uint64_t w : j.writes) cur[w] = s.key;
    }
    for (auto [x, v] : cur)
      if (bufs_.at(x).version != v)
        throw KernelError("resilience: cannot recover the error in kernel '" + kernels_.at(k).launch.kernel->name +
                          "': the relaunches would leave allocation " + hex(x) + " other than it was");
  }
  for (const Step& s : plan) {
    if (s.restore) {
      const Restore& r = restores.at(s.key);
      target_.copy_in(s.key, *r.bytes, r.size);
      restore_bytes_ += r.size;
      restore_ps_ += copy_ps(r.size, scheme_ == "file");
    } else {
      replay_ps_ += target_.relaunch(kernels_.at(s.key).launch);
      ++replayed_;
    }
  }
}

nlohmann::ordered_json Resilience::stats() const {
  const uint64_t kernel_ps = kernel_ps_, replay_ps = replay_ps_;
  const uint64_t base = kernel_ps + host_copy_ps_, recovery = restore_ps_ + replay_ps;
  auto pct = [&](uint64_t v) {
    return kernel_ps ? nlohmann::ordered_json(100.0 * double(v) / double(base)) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json j;
  j["scheme"] = scheme_;
  j["recovery"] = recovery_;
  j["chain_bound"] = bound_;
  j["pcie_gbytes_per_s"] = pcie_;
  j["launches"] = launches_;
  j["launches_with_io"] = launches_with_io_;
  j["max_chain"] = max_chain_;
  // The thesis's relaunchable kernels (69/81): no launch of the kernel updated a buffer in place.
  uint64_t relaunchable = 0;
  for (auto& [name, io] : kernel_io_) relaunchable += !io;
  j["kernels"] = kernel_io_.size();
  j["kernels_relaunchable"] = relaunchable;
  nlohmann::ordered_json in_place = nlohmann::ordered_json::array();
  for (auto& [name, io] : kernel_io_)
    if (io) in_place.push_back(name);
  j["kernels_in_place"] = in_place;
  j["kernel_time_ps"] = kernel_ps;
  j["host_copy_time_ps"] = host_copy_ps_;
  j["base_time_ps"] = base;
  j["checkpoints"] = checkpoints_;
  j["checkpoint_bytes"] = checkpoint_bytes_;
  j["checkpoint_time_ps"] = checkpoint_ps_;
  j["chain_bound_copies"] = bound_copies_;
  j["input_overwrite_copies"] = overwrite_copies_;
  j["recovery_copies"] = recovery_copies_;
  j["overhead_pct"] = pct(checkpoint_ps_);
  j["errors_injected"] = injected_;
  j["recoveries"] = recoveries_;
  j["kernels_replayed"] = replayed_;
  j["restore_bytes"] = restore_bytes_;
  j["restore_time_ps"] = restore_ps_;
  j["replay_time_ps"] = replay_ps;
  j["recovery_time_ps"] = recovery;
  j["recovery_pct"] = pct(recovery);
  if (!kernel_ps) j["note"] = "no kernel time (functional mode): the percentages need sim.mode=timing";
  return j;
}

}  // namespace relgpu::runtime
