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

// The launch record's occupancy against what the one SM then held: 24 CTAs
// of the `alu` kernel with ptxas's count set to `regs`. Returns
// "ctas_per_sm limited_by max_resident_ctas ctas_by_register_count".
std::string occupancy(const std::string& config, uint32_t regs, uint32_t threads, uint64_t dyn_shmem) {
  return in_child([=] {
    TimingDevice t(make_config(config, {"gpu.num_sms=1"}));
    ptx::PtxasInfo info;
    info.registers = {{"alu", regs}, {"chase", regs}};
    const ptx::Module& mod = t.dev.load_module(kMicroPtx, "micro.ptx", &info);
    uint32_t n = 20;
    void* args[] = {&n};
    t.dev.launch(t.dev.kernel(mod, "alu"), {24, 1, 1}, {threads, 1, 1}, dyn_shmem, args);
    const runtime::LaunchRecord& r = t.dev.launches().back();
    const auto& o = r.occupancy;
    return std::to_string(o["ctas_per_sm"].get<uint64_t>()) + " " + o["limited_by"].get<std::string>() + " " +
           std::to_string(r.detail["sms"][0]["max_resident_ctas"].get<uint64_t>()) + " " +
           std::to_string(o["ctas_by_register_count"].get<uint64_t>());
  });
}

TEST(TimingOccupancy, TheLaunchSaysWhatLimitsItAndTheSmHoldsThatMany) {
  // GTX480: 1536 threads, 8 CTA slots, 48 KB shared, 256 RF rows of 4 bank
  // groups (a warp of r registers holds ceil(r / 4) rows).
  EXPECT_EQ(occupancy("gtx480", 16, 256, 0), "6 threads 6 8");       // 4 rows a warp: 64 warps, 8 CTAs
  EXPECT_EQ(occupancy("gtx480", 64, 256, 0), "2 rf_rows 2 2");       // 16 rows a warp: 16 warps
  EXPECT_EQ(occupancy("gtx480", 8, 64, 0), "8 ctas 8 64");           // CTA slots before threads (24)
  EXPECT_EQ(occupancy("gtx480", 16, 256, 16384), "3 shared 3 8");    // 48 KB / 16 KB
  // The PV paper's RF, 16 banks x 64 rows of one warp register: 40 registers
  // take 3 whole rows (48 held), so 21 warps fit, 2 CTAs of 8, where
  // GPGPU-Sim's rule (registers rounded to 4) allows 3.
  EXPECT_EQ(occupancy("fermi_16bank", 40, 256, 0), "2 rf_rows 2 3");
}

}  // namespace
