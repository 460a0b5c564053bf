// Independent thread scheduling (func.reconvergence) in both modes: an
// intra-warp spin lock completes and bar.warp.sync orders shared memory
// between diverged paths, where the IPDOM stack spins forever or reads
// before the other path wrote.
#include "common/error.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

std::string head(const char* target) {
  return std::string(".version 9.0\n.target ") + target + "\n.address_size 64\n";
}

// Every thread takes one global lock, adds 1 to a counter, releases it.
const char* kLock = R"(
.visible .entry lock(.param .u64 p_lock, .param .u64 p_cnt) {
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p_lock];
  ld.param.u64 %rd2, [p_cnt];
SPIN:
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SPIN;
  ld.volatile.global.u32 %r2, [%rd2];
  add.u32 %r2, %r2, 1;
  st.volatile.global.u32 [%rd2], %r2;
  membar.gl;
  atom.global.exch.b32 %r3, [%rd1], 0;
  ret;
}
)";

// Lanes 0-15 and 16-31 take different paths; each writes its shared slot,
// meets the other half at a bar.warp.sync on its own path, then reads the
// other half's slot: out[l] = 3 (l+16) for l < 16, 2 (l-16) otherwise.
const char* kSync = R"(
.visible .entry xchg(.param .u64 p_out) {
  .reg .pred %p<2>; .reg .b32 %r<9>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[128];
  ld.param.u64 %rd1, [p_out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra LOW;
  mul.lo.u32 %r5, %r1, 3;
  st.shared.u32 [%r4], %r5;
  bar.warp.sync -1;
  sub.u32 %r7, %r4, 64;
  ld.shared.u32 %r6, [%r7];
  bra DONE;
LOW:
  shl.b32 %r5, %r1, 1;
  st.shared.u32 [%r4], %r5;
  bar.warp.sync -1;
  add.u32 %r8, %r4, 64;
  ld.shared.u32 %r6, [%r8];
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

// Thread 0 spins until warp 1 sets a flag (long enough for the other lanes
// of warp 0 to be let run ahead), then writes a shared value; after
// bar.sync every thread reads it: out[t] = 42.
const char* kGather = R"(
.visible .entry gather(.param .u64 p_flag, .param .u64 p_out) {
  .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<5>;
  .shared .align 4 .u32 v;
  ld.param.u64 %rd1, [p_flag];
  ld.param.u64 %rd2, [p_out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 32;
  @!%p1 bra NOTSETTER;
  mov.u32 %r2, 0;
DELAY:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 2000;
  @%p2 bra DELAY;
  st.volatile.global.u32 [%rd1], 1;
NOTSETTER:
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SYNC;
SPIN:
  ld.volatile.global.u32 %r3, [%rd1];
  setp.eq.u32 %p2, %r3, 0;
  @%p2 bra SPIN;
  st.shared.u32 [v], 42;
SYNC:
  bar.sync 0;
  ld.shared.u32 %r4, [v];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)";

struct Mode {
  bool timing;
  const char* target;
  std::vector<std::string> sets;
};

config::Config mode_config(const Mode& m) {
  config::Config cfg = m.timing ? make_config("gtx480") : config::Config{};
  if (!m.timing) cfg.set("sim.mode=functional");
  cfg.set("func.max_warp_insn=400000");
  cfg.set("gpu.max_cycles=3000000");
  for (auto& s : m.sets) cfg.set(s);
  return cfg;
}

template <class F>
void on_device(const Mode& m, F&& fn) {
  config::Config cfg = mode_config(m);
  if (m.timing) {
    TimingDevice t(cfg);
    fn(t.dev);
  } else {
    runtime::Device dev(cfg);
    fn(dev);
  }
}

// The counter after 2 warps of threads took the lock; "" or the kernel error.
std::string run_lock(const Mode& m, uint32_t& count, uint64_t& yields) {
  std::string err;
  on_device(m, [&](runtime::Device& dev) {
    const ptx::Module& mod = dev.load_module(head(m.target) + kLock, "lock.ptx");
    uint64_t lk = dev.malloc(4), cnt = dev.malloc(4);
    uint32_t zero = 0;
    dev.memcpy_to_device(lk, &zero, 4);
    dev.memcpy_to_device(cnt, &zero, 4);
    void* args[] = {&lk, &cnt};
    try {
      dev.launch(dev.kernel(mod, "lock"), {1, 1, 1}, {64, 1, 1}, 0, args);
      dev.memcpy_to_host(&count, cnt, 4);
      yields = dev.launches().back().detail.value("its_yields", uint64_t(0));
      if (dev.launches().back().detail.contains("sms")) {
        yields = 0;
        for (auto& s : dev.launches().back().detail["sms"]) yields += s.value("its_yields", uint64_t(0));
      }
    } catch (const KernelError& e) {
      err = e.what();
    }
  });
  return err;
}

std::vector<uint32_t> run_sync(const Mode& m) {
  std::vector<uint32_t> out(32, 0);
  on_device(m, [&](runtime::Device& dev) {
    const ptx::Module& mod = dev.load_module(head(m.target) + kSync, "sync.ptx");
    uint64_t o = dev.malloc(128);
    void* args[] = {&o};
    dev.launch(dev.kernel(mod, "xchg"), {1, 1, 1}, {32, 1, 1}, 0, args);
    dev.memcpy_to_host(out.data(), o, 128);
  });
  return out;
}

bool exchanged(const std::vector<uint32_t>& v) {
  for (uint32_t l = 0; l < 32; ++l)
    if (v[l] != (l < 16 ? 3 * (l + 16) : 2 * (l - 16))) return false;
  return true;
}

class Its : public ::testing::TestWithParam<bool> {};

TEST_P(Its, IntraWarpLockCompletesOnSm75) {
  uint32_t count = 0;
  uint64_t yields = 0;
  std::string err = run_lock({GetParam(), "sm_75", {}}, count, yields);
  ASSERT_EQ(err, "");
  EXPECT_EQ(count, 64u);
  EXPECT_GE(yields, 31u) << "each lane but the first of a warp waits behind the spinners once";
}

// auto picks the stack for a pre-Volta target; ipdom forces it on sm_75.
void expect_spins_forever(const Mode& m) {
  uint32_t count = 0;
  uint64_t yields = 0;
  std::string err = run_lock(m, count, yields);
  EXPECT_NE(err.find(m.timing ? "gpu.max_cycles" : "func.max_warp_insn"), std::string::npos) << err;
}

TEST_P(Its, AutoKeepsTheStackForSm60) { expect_spins_forever({GetParam(), "sm_60", {}}); }

TEST_P(Its, IpdomStackSpinsForeverOnTheSameLock) {
  expect_spins_forever({GetParam(), "sm_75", {"func.reconvergence=ipdom"}});
}

TEST_P(Its, WarpSyncOrdersSharedMemoryBetweenDivergedPaths) {
  EXPECT_TRUE(exchanged(run_sync({GetParam(), "sm_75", {}})));
}

TEST_P(Its, IpdomStackReadsBeforeTheOtherPathWrote) {
  EXPECT_FALSE(exchanged(run_sync({GetParam(), "sm_75", {"func.reconvergence=ipdom"}})))
      << "the stack runs one path to its end before the other writes";
}

// Each thread arrives at bar.sync on its own: the lanes let run ahead of
// thread 0 wait there for it.
TEST_P(Its, BarSyncGathersTheWarpsThreads) {
  std::vector<uint32_t> out(64, 0);
  uint64_t yields = 0;
  on_device({GetParam(), "sm_75", {}}, [&](runtime::Device& dev) {
    const ptx::Module& mod = dev.load_module(head("sm_75") + kGather, "gather.ptx");
    uint64_t flag = dev.malloc(4), o = dev.malloc(256);
    uint32_t zero = 0;
    dev.memcpy_to_device(flag, &zero, 4);
    void* args[] = {&flag, &o};
    dev.launch(dev.kernel(mod, "gather"), {1, 1, 1}, {64, 1, 1}, 0, args);
    dev.memcpy_to_host(out.data(), o, 256);
    auto& d = dev.launches().back().detail;
    yields = d.value("its_yields", uint64_t(0));
    if (d.contains("sms"))
      for (auto& sm : d["sms"]) yields += sm.value("its_yields", uint64_t(0));
  });
  EXPECT_GE(yields, 1u) << "the waiting lanes ran ahead to the barrier";
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], 42u) << "thread " << t;
}

INSTANTIATE_TEST_SUITE_P(Modes, Its, ::testing::Values(false, true),
                         [](const auto& i) { return std::string(i.param ? "timing" : "functional"); });

}  // namespace
