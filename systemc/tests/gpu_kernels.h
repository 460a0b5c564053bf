// Small PTX kernels with known answers for the timing-model tests.
#pragma once
#include <vector>

#include "runtime/device.h"

namespace relgpu::gputest {

// chase: one thread follows a pointer chain n times (p = *p) and stores the
// final p at out, so every load depends on the one before (latency-bound).
// alu: a dependent integer loop of n iterations, no memory.
inline const char* kMicroPtx = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry chase(.param .u64 p_buf, .param .u32 p_n, .param .u64 p_out) {
  .reg .pred %p<2>; .reg .b32 %r<3>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p_buf];
  ld.param.u32 %r1, [p_n];
  ld.param.u64 %rd2, [p_out];
  mov.u32 %r2, 0;
CHASE:
  ld.global.u64 %rd1, [%rd1];
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra CHASE;
  st.global.u64 [%rd2], %rd1;
  ret;
}
.visible .entry alu(.param .u32 p_n) {
  .reg .pred %p<2>; .reg .b32 %r<4>;
  ld.param.u32 %r1, [p_n];
  mov.u32 %r2, 0;
  mov.u32 %r3, 1;
SPIN:
  mad.lo.u32 %r3, %r3, 3, %r2;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra SPIN;
  ret;
}
)";

struct Micro {
  runtime::Device& dev;
  const ptx::Module& mod;
  explicit Micro(runtime::Device& d) : dev(d), mod(d.load_module(kMicroPtx, "micro.ptx")) {}

  // Writes a chain through addrs (each holds the next; the last holds `end`).
  void chain(const std::vector<uint64_t>& addrs, uint64_t end) {
    for (size_t i = 0; i < addrs.size(); ++i) {
      uint64_t next = i + 1 < addrs.size() ? addrs[i + 1] : end;
      dev.memcpy_to_device(addrs[i], &next, 8);
    }
  }
  // Launches chase on one thread; returns that launch's record.
  const runtime::LaunchRecord& chase(uint64_t start, uint32_t n, uint64_t out) {
    void* args[] = {&start, &n, &out};
    dev.launch(dev.kernel(mod, "chase"), {1, 1, 1}, {1, 1, 1}, 0, args);
    return dev.launches().back();
  }
  const runtime::LaunchRecord& alu(runtime::Dim3 grid, runtime::Dim3 block, uint32_t n) {
    void* args[] = {&n};
    dev.launch(dev.kernel(mod, "alu"), grid, block, 0, args);
    return dev.launches().back();
  }
  uint64_t read64(uint64_t a) {
    uint64_t v = 0;
    dev.memcpy_to_host(&v, a, 8);
    return v;
  }
};

}  // namespace relgpu::gputest
