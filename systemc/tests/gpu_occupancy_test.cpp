// Occupancy follows ptxas's registers per thread (ptx/ptxas.h): the same
// kernel, told it needs more registers, gets fewer resident CTAs per SM.
#include "gpu_kernels.h"
#include "gpu_test_util.h"

using namespace relgpu;
using namespace relgpu::gputest;

namespace {

// The `alu` kernel on one SM: 24 CTAs of 256 threads (8 warps each), with
// ptxas's count set to `regs`. Returns the SM's occupancy and the registers
// the launch allocated.
std::string run_with_registers(uint32_t regs) {
  return in_child([regs] {
    TimingDevice t(make_config("gtx480", {"gpu.num_sms=1"}));
    ptx::PtxasInfo info;
    info.registers = {{"alu", regs}, {"chase", regs}};
    const ptx::Module& mod = t.dev.load_module(kMicroPtx, "micro.ptx", &info);
    uint32_t n = 200;
    void* args[] = {&n};
    t.dev.launch(t.dev.kernel(mod, "alu"), {24, 1, 1}, {256, 1, 1}, 0, args);
    const runtime::LaunchRecord& r = t.dev.launches().back();
    return std::to_string(r.detail["sms"][0]["occupancy"].get<double>()) + " " + std::to_string(r.regs_per_thread);
  });
}

TEST(TimingOccupancy, MoreRegistersFewerResidentCtas) {
  // GTX480 SM: 1536 threads (6 such CTAs), 8 CTA slots, 32 banks x 256 rows
  // as 4 bank groups: a warp of r registers takes ceil(r / 4) of 256 rows.
  //   16 registers: 4 rows, 64 warps fit; threads allow 6 CTAs = 48 warps (100%)
  //   64 registers: 16 rows, 16 warps fit = 2 CTAs (33%)
  std::string lo = run_with_registers(16), hi = run_with_registers(64);
  ASSERT_EQ(lo.find("error"), std::string::npos) << lo;
  ASSERT_EQ(hi.find("error"), std::string::npos) << hi;
  double occ_lo = std::stod(lo), occ_hi = std::stod(hi);
  EXPECT_EQ(lo.substr(lo.find(' ') + 1), "16");
  EXPECT_EQ(hi.substr(hi.find(' ') + 1), "64");
  EXPECT_GT(occ_lo, 0.85) << "6 CTAs of 8 warps in 48 warp slots";
  EXPECT_GT(occ_hi, 0.28) << "2 CTAs of 8 warps";
  EXPECT_LT(occ_hi, 0.34) << "2 CTAs of 8 warps";
}

}  // namespace
