// Message passing between SMs in timing mode: a producer warp stores n words
// to lines of one L2 slice, then sets a flag in another slice with
// st.release.gpu; a consumer on another SM spins on ld.acquire.gpu and reads
// the last 32 words, which must all be there. The release waits for the
// earlier stores' acknowledgements (sm.release_waits), which costs time.
// Without the wait the data still arrives first in this model (one SM's
// requests keep their order through its crossbar input FIFO and the slices'
// FIFOs), so the flag is seen sooner and the words are still right.
#include "gpu_test_util.h"
#include "mem/address_map.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

const char* kPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry mp(.param .u64 p_data, .param .u64 p_idx, .param .u32 p_n, .param .u64 p_flag,
                   .param .u64 p_out) {
  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [p_data];
  ld.param.u64 %rd2, [p_idx];
  ld.param.u32 %r1, [p_n];
  ld.param.u64 %rd3, [p_flag];
  ld.param.u64 %rd4, [p_out];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %tid.x;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra CONSUMER;
  mov.u32 %r4, %r3;
PLOOP:
  setp.ge.u32 %p2, %r4, %r1;
  @%p2 bra PDONE;
  mul.wide.u32 %rd5, %r4, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.u32 %r5, [%rd6];
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd1, %rd7;
  add.u32 %r6, %r4, 1;
  st.global.u32 [%rd8], %r6;
  add.u32 %r4, %r4, 32;
  bra PLOOP;
PDONE:
  setp.ne.u32 %p3, %r3, 0;
  @%p3 bra END;
  st.release.gpu.global.u32 [%rd3], 1;
  bra END;
CONSUMER:
  ld.acquire.gpu.global.u32 %r7, [%rd3];
  setp.eq.u32 %p2, %r7, 0;
  @%p2 bra CONSUMER;
  sub.u32 %r8, %r1, 32;
  add.u32 %r8, %r8, %r3;
  mul.wide.u32 %rd5, %r8, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.u32 %r5, [%rd6];
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd1, %rd7;
  ld.relaxed.gpu.global.u32 %r9, [%rd8];
  mul.wide.u32 %rd9, %r3, 4;
  add.s64 %rd10, %rd4, %rd9;
  st.global.u32 [%rd10], %r9;
END:
  ret;
}
)";

struct Seen {
  unsigned stale = 0;   // of the last 32 stores, words the consumer found not yet written
  uint64_t cycles = 0;  // the launch's
};

Seen message(bool release_waits) {
  config::Config cfg = make_config("gtx480", {std::string("sm.release_waits=") + (release_waits ? "true" : "false")});
  TimingDevice t(cfg);
  runtime::Device& dev = t.dev;
  const mem::AddressMap map(cfg);
  const uint32_t n = 1024;
  uint64_t flag = dev.malloc(256);
  uint64_t data = dev.malloc(uint64_t(n) * 4096);
  // One word per line, every line in one slice that is not the flag's.
  const unsigned busy = (map.partition(flag) + 1) % (unsigned(cfg.get(mem::kNumPartitions)) * 2);
  std::vector<uint32_t> idx;
  for (uint64_t a = data; idx.size() < n; a += 128)
    if (map.partition(a) == busy) idx.push_back(uint32_t((a - data) / 4));
  uint64_t didx = dev.malloc(n * 4), out = dev.malloc(32 * 4);
  dev.memcpy_to_device(didx, idx.data(), n * 4);
  std::vector<uint32_t> zero(32, 0);
  dev.memcpy_to_device(flag, zero.data(), 4);
  const ptx::Module& m = dev.load_module(kPtx, "mp.ptx");
  uint32_t nn = n;
  void* args[] = {&data, &didx, &nn, &flag, &out};
  dev.launch(dev.kernel(m, "mp"), {2, 1, 1}, {32, 1, 1}, 0, args);
  std::vector<uint32_t> got(32);
  dev.memcpy_to_host(got.data(), out, 32 * 4);
  Seen r;
  for (uint32_t l = 0; l < 32; ++l) r.stale += got[l] != n - 32 + l + 1;
  r.cycles = dev.launches().back().detail["gpu_sim_cycle"].get<uint64_t>();
  return r;
}

std::string run(bool release_waits) {
  return in_child([&] {
    Seen s = message(release_waits);
    return std::to_string(s.stale) + " " + std::to_string(s.cycles);
  });
}

TEST(TimingRelease, ConsumerSeesEveryStoreAndTheWaitCostsCycles) {
  unsigned stale[2];
  unsigned long long cycles[2];
  for (int w = 0; w < 2; ++w) {
    std::string r = run(w == 1);
    ASSERT_EQ(std::sscanf(r.c_str(), "%u %llu", &stale[w], &cycles[w]), 2) << r;
    EXPECT_EQ(stale[w], 0u) << "release_waits=" << w;
  }
  // The wait holds the flag until the last of 1,024 stores is acknowledged.
  EXPECT_GT(cycles[1], cycles[0] + 100) << cycles[1] << " vs " << cycles[0];
  std::printf("cycles: %llu with the wait, %llu without\n", cycles[1], cycles[0]);
}

}  // namespace
