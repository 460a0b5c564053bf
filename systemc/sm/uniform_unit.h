// Uniform vector instructions, token design with opportunistic reliability
// (Xiang et al., ICS'13; spec 001 §1, §2, §5, §6). One unit per SM, on the
// instruction hook (sm/inst_hook.h); the token file and the scalar data
// path are SmRegs's (sm/regfile.h: set_scalar).
//   detection (ID): an instruction is intra-warp uniform (IWU) when its
//     active mask is full and every source is uniform: an immediate, a
//     special register that does not depend on the thread (ntid, ctaid,
//     nctaid, smid, ...), or a register or predicate whose token is set.
//     ALU instructions (not branches, memory, or cross-lane ops like shfl)
//     count as redundant work; loads from a uniform address with a full
//     mask (the paper's broadcast path) set their destinations' tokens too.
//   data path: the result is stored in the scalar slot only (lane
//     uniform.scalar_lane, and lane + 1 with uniform.copies=2), later reads
//     broadcast it, so a fault in that slot's cells reaches every lane.
//     Such an access counts only the bank holding the slot (Core's RF
//     access counts, hence RF energy and the power model's RF events).
//   timing: an IWU holds its unit one cycle instead of its initiation
//     interval (uniform.scalar_issue): the paper's one issue per cycle
//     instead of one per warp_size / NumSP cycles. On the GTX480 config the
//     SP pipes already take a warp per cycle, so only SFU and FP64
//     instructions gain.
// Choices (the paper is silent): the IRB (inter-warp reuse, §4) and the SRF
// design (§3) are not built; with two copies a differing pair is counted as
// a detected error and the first copy is used (parity, which would correct,
// is not modelled); a register is live from its write to its last read.
#pragma once
#include <cstdint>
#include <vector>

#include "common/config.h"
#include "sm/inst_hook.h"

namespace relgpu::ptx { struct Function; }
namespace relgpu::func { struct DInstr; }

namespace relgpu::sm {

class SmRegs;
struct StaticOp;

inline const config::Key<bool> kUniformEnable{
    "uniform.enable", false, "",
    "uniform vector instructions (spec 001, token design): detect intra-warp uniform instructions at issue, "
    "keep their results as one scalar per register and broadcast it on reads"};
inline const config::Key<int64_t> kUniformCopies{
    "uniform.copies", 1, "copies",
    "copies of each scalar: 2 = the paper's opportunistic reliability (a second copy in the next lane, "
    "compared on every read; the ALU op is duplicated on a second SP)",
    1, 2};
inline const config::Key<int64_t> kUniformLane{
    "uniform.scalar_lane", 16, "lane",
    "lane that holds a uniform register's scalar: warp_size - NumSP (the paper's VRx.N; 16 for the GTX480's "
    "16-wide SIMD groups, 24 for the GTX285's 8 SPs)",
    0, 31};
inline const config::Key<bool> kUniformBroadcastLoads{
    "uniform.broadcast_loads", true, "",
    "loads from one address with a full mask set their destinations' tokens (the paper's broadcast path; "
    "kernel parameters are such loads); false: only uniform ALU instructions do (ablation)"};
inline const config::Key<bool> kUniformScalarIssue{
    "uniform.scalar_issue", true, "",
    "a uniform instruction holds its functional unit one cycle instead of its initiation interval; false "
    "keeps the baseline's timing (ablation)"};

// Whether `d` can be uniform when its register sources are (static part of
// detection; `o` is its StaticOp with rd_slot / wr lists filled).
bool uniform_candidate(const ptx::Function& fn, const func::DInstr& d, const StaticOp& o);

// The chip-wide ratios from the summed counters (gpu/stats.cpp):
// intra_redundancy (Fig. 2: over the SMs' thread_insn, every lane operation
// issued), alu_coverage and vrf_coverage (Figs 14, 15).
void derive_uniform(config::json& u, double thread_insn);

class UniformUnit final : public InstHook {
 public:
  UniformUnit(const config::Config& cfg, SmRegs& regs);

  void begin_launch() override;
  bool issued(const Inst& in) override;
  bool one_cycle() const override { return scalar_issue_; }
  void dispatched(const Inst& in, uint64_t now) override;
  void writing(const Inst& in) override;
  void written(const Inst& in, uint64_t now) override;
  void warp_exited(unsigned ws, uint64_t now) override;
  const char* stats_key() const override { return "uniform"; }
  config::json stats() const override;

 private:
  struct Live {  // per physical register of a warp slot (VRF coverage)
    std::vector<uint64_t> wr, rd;
    std::vector<uint8_t> prot;
  };
  bool scalar_result(const Inst& in) const;
  void count_cow(const Inst& in);
  void close(unsigned ws, unsigned p);

  SmRegs& regs_;
  unsigned copies_;
  bool scalar_issue_, broadcast_loads_;
  std::vector<Live> live_;  // per warp slot, with two copies
  struct Stats {
    uint64_t alu_thread_ops = 0;  // ALU lane operations issued
    uint64_t uniform_alu = 0, uniform_loads = 0, divergent_candidates = 0;
    uint64_t cow_dst_src = 0;  // divergent writes to a uniform register they also read (Fig. 7's case)
    uint64_t cow_same_ptx = 0;  // ... where the PTX names the destination among the sources too
    uint64_t by_class[3] = {};  // uniform ALU instructions: INT, FP, SFU (the power model's events)
    uint64_t scalar_issues = 0, unit_cycles_saved = 0;
    uint64_t unsound = 0;  // uniform results whose lanes differed (0 unless detection is wrong)
    uint64_t live_cycles = 0, protected_cycles = 0;
  } st_;
};

}  // namespace relgpu::sm
