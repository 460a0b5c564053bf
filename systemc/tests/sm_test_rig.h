// Test rig for sm_* tests: drives one SmCore directly (no SystemC) with a
// fake MemPort that answers line requests from a GlobalMemory after a fixed
// delay, in order. Reuses func_test_rig.h's PTX loading and buffers, so the
// same setup can run on the functional engine for comparison.
#pragma once
#include <array>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "func_test_rig.h"
#include "mem/request.h"
#include "sm/core.h"

namespace relgpu::sm::test {

// Memory behind the SM: reads copy the line from GlobalMemory (bytes outside
// any allocation read as 0), writes apply the enabled bytes, atomics apply
// their lanes in order. Each request is answered `delay` cycles after it was sent.
class FakePort final : public MemPort {
 public:
  FakePort(func::GlobalMemory& m, uint64_t delay) : mem_(m), delay_(delay) {}
  bool send(std::unique_ptr<LineRequest>& r) override {
    if (refuse_) { --refuse_; return false; }
    q_.emplace_back(now + delay_, std::move(r));
    ++sent;
    return true;
  }
  void deliver(uint64_t t, SmCore& sm) {
    while (!q_.empty() && q_.front().first <= t) {
      std::unique_ptr<LineRequest> r = std::move(q_.front().second);
      q_.pop_front();
      serve(*r);
      sm.on_response(std::move(r));
    }
  }
  uint64_t next() const { return q_.empty() ? std::numeric_limits<uint64_t>::max() : q_.front().first; }
  void refuse(unsigned n) { refuse_ = n; }
  uint64_t now = 0;
  uint64_t sent = 0;

 private:
  uint8_t* at(uint64_t a) { return mem_.translate(a, 1); }
  void serve(LineRequest& r) {
    if (r.ext.kind == mem::Kind::read) {
      for (unsigned i = 0; i < mem::kLineBytes; ++i) {
        uint8_t* p = at(r.addr + i);
        r.data[i] = p ? *p : 0;
      }
    } else if (r.ext.kind == mem::Kind::write) {
      for (unsigned i = 0; i < mem::kLineBytes; ++i)
        if (r.byte_enable[i])
          if (uint8_t* p = at(r.addr + i)) *p = r.data[i];
    } else {
      uint8_t line[mem::kLineBytes];
      for (unsigned i = 0; i < mem::kLineBytes; ++i) {
        uint8_t* p = at(r.addr + i);
        line[i] = p ? *p : 0;
      }
      for (auto& a : r.ext.atoms) {
        func::apply_atom(a, line);
        for (unsigned i = 0; i < a.bytes; ++i)
          if (uint8_t* p = at(r.addr + a.offset + i)) *p = line[a.offset + i];
      }
    }
  }
  func::GlobalMemory& mem_;
  uint64_t delay_;
  unsigned refuse_ = 0;
  std::deque<std::pair<uint64_t, std::unique_ptr<LineRequest>>> q_;
};

struct TRig : func::test::Rig {
  // The pipeline tests count cycles by hand: perfect instruction and
  // constant caches, and Table 7.1's 1-cycle L1 and 3-cycle shared memory
  // (a test may set others).
  TRig() {
    for (const char* s : {"icache.enable=false", "ccache.enable=false", "l1d.hit_latency=1", "smem.latency=3"})
      cfg.set(s);
  }
  uint64_t delay = 100;
  std::unique_ptr<FakePort> port;
  std::unique_ptr<Core> sm;
  std::vector<uint8_t> params;
  uint64_t cycles = 0, calls = 0;
  std::vector<ActivityObserver*> observers;
  // Called before each cycle (fault injection, tracing).
  std::function<void(uint64_t now)> before_cycle;
  std::function<void(Core&)> on_core;  // after the SM is built, before its launch (attach hooks)

  // Runs the kernel to completion on one SM; returns the SM's cycle count.
  uint64_t run_timing(const std::string& kernel, runtime::Dim3 grid, runtime::Dim3 block,
                      std::vector<uint64_t> args, uint64_t dyn = 0) {
    const ptx::Function* k = mod->find(kernel);
    if (!k) throw std::runtime_error("no kernel " + kernel);
    params.assign(k->param_bytes, 0);
    for (size_t i = 0; i < args.size(); ++i) {
      const ptx::Symbol& s = k->symbols[k->params[i]];
      std::memcpy(params.data() + s.offset, &args[i], std::min<uint64_t>(s.size, 8));
    }
    func::LaunchCtx ctx;
    ctx.mod = mod.get();
    ctx.kernel = k;
    ctx.grid = {grid.x, grid.y, grid.z};
    ctx.block = {block.x, block.y, block.z};
    ctx.dyn_shmem = dyn;
    ctx.params = &params;
    ctx.gmem = &mem;
    ctx.out = &out;
    ctx.gridid = 1;
    port = std::make_unique<FakePort>(mem, delay);
    sm = std::make_unique<Core>(0, cfg, *port);
    for (auto* o : observers) sm->add_observer(o);
    if (on_core) on_core(*sm);
    sm->begin_launch(ctx);
    CtaShape shape{block.x * block.y * block.z, k->regs_used(), k->shared_bytes + dyn};
    std::vector<std::array<uint32_t, 3>> ids;
    for (uint32_t z = 0; z < grid.z; ++z)
      for (uint32_t y = 0; y < grid.y; ++y)
        for (uint32_t x = 0; x < grid.x; ++x) ids.push_back({x, y, z});
    size_t next = 0;
    uint64_t now = 0;
    calls = 0;
    for (;;) {
      while (next < ids.size() && sm->can_accept(shape)) sm->add_cta(ids[next++].data());
      port->now = now;
      port->deliver(now, *sm);
      if (before_cycle) before_cycle(now);
      sm->cycle(now);
      ++calls;
      sm->take_finished();
      if (next == ids.size() && sm->idle()) break;
      uint64_t n = std::min(sm->next_active_cycle(now), port->next());
      if (next < ids.size() && sm->can_accept(shape)) n = now + 1;
      if (n == std::numeric_limits<uint64_t>::max()) throw std::runtime_error("SM deadlock: nothing can wake it");
      if (n > now + 2'000'000) throw std::runtime_error("SM stuck");
      now = std::max(n, now + 1);
    }
    cycles = stat("cycles");
    return cycles;
  }
  uint64_t stat(const std::string& k) const { return sm->stats()[k].get<uint64_t>(); }
  config::json stats() const { return sm->stats(); }
};

// PTX module header and a line repeated n times, for hand-written kernels.
inline const char* kHead = ".version 7.0\n.target sm_75\n.address_size 64\n";
inline std::string repeat(const std::string& line, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += line + "\n";
  return s;
}

}  // namespace relgpu::sm::test
