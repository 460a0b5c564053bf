// The stepped API (fetch / read_operands / execute / memory / writeback /
// commit) over a RegStorage that is not FlatRegs, as the timing model drives
// it: results must equal functional mode's, and every register access must
// go through the interface.
#include "func_nvcc_kernels.h"
#include "func_test_rig.h"

namespace relgpu::func::test {
namespace {

// Register storage behind the virtual interface only, counting accesses.
class CountingRegs final : public RegStorage {
 public:
  void reserve(unsigned warp, unsigned n) override {
    if (warp >= v_.size()) v_.resize(warp + 1);
    if (v_[warp].size() < n * kWarpSize) v_[warp].resize(n * kWarpSize, 0);
  }
  void read(unsigned warp, unsigned slot, uint64_t out[kWarpSize]) override {
    ++reads;
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = v_[warp][slot * kWarpSize + l];
  }
  void write(unsigned warp, unsigned slot, uint32_t mask, const uint64_t in[kWarpSize]) override {
    ++writes;
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1) v_[warp][slot * kWarpSize + l] = in[l];
  }
  uint64_t reads = 0, writes = 0;

 private:
  std::vector<std::vector<uint64_t>> v_;
};

void run_stepped(Rig& r, const std::string& kernel, uint32_t grid, uint32_t block, std::vector<uint64_t> args,
                 CountingRegs& regs) {
  const ptx::Function* k = r.mod->find(kernel);
  std::vector<uint8_t> params(k->param_bytes, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const ptx::Symbol& s = k->symbols[k->params[i]];
    std::memcpy(params.data() + s.offset, &args[i], std::min<uint64_t>(s.size, 8));
  }
  LaunchCtx ctx;
  ctx.mod = r.mod.get();
  ctx.kernel = k;
  ctx.grid = {grid, 1, 1};
  ctx.block = {block, 1, 1};
  ctx.params = &params;
  ctx.gmem = &r.mem;
  Executor ex(ctx, regs);
  for (uint32_t c = 0; c < grid; ++c) {
    Cta cta;
    const uint32_t id[3] = {c, 0, 0};
    ex.init_cta(cta, id, 100);  // RegStorage warp ids start at 100
    while (!cta.all_done()) {
      bool progress = false;
      for (Warp& w : cta.warps) {  // one instruction per warp per turn
        InFlight f;
        if (!ex.fetch(cta, w, f)) continue;
        progress = true;
        ex.read_operands(cta, w, f);
        ex.execute(cta, w, f);
        if (Executor::is_memory(f)) {
          for (unsigned l = 0; l < kWarpSize; ++l)
            if (f.exec >> l & 1) {
              EXPECT_NE(f.lane_space[l], ptx::Space::generic);
            }
          ex.memory(cta, w, f);
        }
        ex.writeback(cta, w, f);
        ex.commit(cta, w, f);
      }
      ASSERT_TRUE(progress) << ex.describe_waits(cta);
    }
  }
}

TEST(FuncStepped, MatchesFunctionalModeThroughTheInterface) {
  Rig a, b;
  a.load(kNvccPtx);
  b.load(kNvccPtx);
  std::vector<int> in(2 * 256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i % 17) - 3;
  uint64_t ain = a.upload(in), aout = a.upload(std::vector<int>(2, 0));
  uint64_t bin = b.upload(in), bout = b.upload(std::vector<int>(2, 0));
  a.run("shared_sum", {2, 1, 1}, {256, 1, 1}, {ain, aout});
  CountingRegs regs;
  run_stepped(b, "shared_sum", 2, 256, {bin, bout}, regs);
  EXPECT_EQ(a.download<int>(aout, 2), b.download<int>(bout, 2));
  EXPECT_GT(regs.reads, 1000u);
  EXPECT_GT(regs.writes, 500u);

  uint64_t ad = a.upload(std::vector<int>(80, 0)), bd = b.upload(std::vector<int>(80, 0));
  a.run("divergent", {1, 1, 1}, {80, 1, 1}, {ad, 70});
  run_stepped(b, "divergent", 1, 80, {bd, 70}, regs);
  EXPECT_EQ(a.download<int>(ad, 80), b.download<int>(bd, 80));

  uint64_t af = a.upload(std::vector<float>(32, 1.25f)), bf = b.upload(std::vector<float>(32, 1.25f));
  uint64_t ao = a.upload(std::vector<int>(32, 0)), bo = b.upload(std::vector<int>(32, 0));
  a.run("calls", {1, 1, 1}, {32, 1, 1}, {ao, af});
  run_stepped(b, "calls", 1, 32, {bo, bf}, regs);
  EXPECT_EQ(a.download<int>(ao, 32), b.download<int>(bo, 32));
  EXPECT_EQ(a.download<float>(af, 32), b.download<float>(bf, 32));
}

}  // namespace
}  // namespace relgpu::func::test
