#include "sm/uniform_unit.h"

#include <algorithm>

#include "common/error.h"
#include "func/exec.h"
#include "sm/core.h"
#include "sm/regfile.h"

namespace relgpu::sm {

using func::XK;

namespace {
// Special registers with one value per warp (spec 001 §1: "such as thread
// block dimensions"; ctaid and the SM's ids likewise). Clocks are left out:
// a uniform result must not depend on when a lane reads.
bool uniform_sreg(ptx::Sreg s) {
  switch (s) {
    case ptx::Sreg::ntid: case ptx::Sreg::ctaid: case ptx::Sreg::nctaid: case ptx::Sreg::warpid:
    case ptx::Sreg::nwarpid: case ptx::Sreg::smid: case ptx::Sreg::nsmid: case ptx::Sreg::gridid:
    case ptx::Sreg::dynamic_smem_size: case ptx::Sreg::total_smem_size:
      return true;
    default:
      return false;
  }
}

// A load whose lanes read one address when its address registers are
// uniform: global, shared and constant space, and a kernel's parameters (a
// .func's parameters live in each thread's frame).
bool uniform_load(const ptx::Function& fn, const func::DInstr& d) {
  if (d.alocal) return false;
  switch (d.space) {
    case ptx::Space::global: case ptx::Space::shared: case ptx::Space::const_: return true;
    case ptx::Space::param: return fn.is_entry;
    default: return false;
  }
}

uint32_t lanes(uint32_t mask) { return uint32_t(__builtin_popcount(mask)); }
}  // namespace

bool uniform_candidate(const ptx::Function& fn, const func::DInstr& d, const StaticOp& o) {
  switch (d.xk) {
    case XK::alu: case XK::mov: case XK::pack: case XK::unpack: case XK::cvta: break;
    case XK::ld:
      if (!uniform_load(fn, d)) return false;
      break;
    default: return false;  // control, stores, atomics, cross-lane ops
  }
  if (o.control || (o.wr_phys.empty() && o.wr_slot.empty())) return false;
  for (uint16_t v : o.rd_slot)  // predicates have tokens; registers outside the banks do not
    if (fn.regs[v].type != ptx::Type::pred) return false;
  for (unsigned i = 0; i < d.nsrc; ++i) {
    const func::DOp& s = d.src[i];
    if (s.k == func::DOp::kLocal || (s.k == func::DOp::kSreg && !uniform_sreg(s.sreg))) return false;
  }
  return true;
}

UniformUnit::UniformUnit(const config::Config& cfg, SmRegs& regs)
    : regs_(regs),
      copies_(unsigned(cfg.get(kUniformCopies))),
      scalar_issue_(cfg.get(kUniformScalarIssue)),
      broadcast_loads_(cfg.get(kUniformBroadcastLoads)) {
  const unsigned lane = unsigned(cfg.get(kUniformLane));
  if (lane + copies_ > 32)
    throw InputError(kUniformLane.name + "=" + std::to_string(lane) + " leaves no lane for the second copy (" +
                     kUniformCopies.name + "=2 needs a lane at most 30)");
  regs_.set_scalar(lane, copies_);
}

void UniformUnit::begin_launch() {
  st_ = Stats{};
  regs_.reset_scalar_counts();
  for (Live& l : live_) l = Live{};
}

bool UniformUnit::issued(const Inst& in) {
  const StaticOp& op = *in.op;
  if (!op.mem && !op.control) st_.alu_thread_ops += lanes(in.f.active);
  if (!op.uniform || (op.mem && !broadcast_loads_)) return false;
  for (uint16_t p : op.rd_phys)
    if (!regs_.token(in.ws, in.pbase + p)) return false;
  for (uint16_t v : op.rd_slot)
    if (!regs_.pred_token(in.ws, in.sbase + v)) return false;
  if (in.f.active != ~0u) {
    ++st_.divergent_candidates;
    return false;
  }
  if (scalar_issue_ && !op.mem && op.ii > 1) {
    ++st_.scalar_issues;
    st_.unit_cycles_saved += op.ii - 1u;
  }
  return true;
}

// A uniform instruction whose guard let every lane write (a uniform guard
// that is false writes nothing).
bool UniformUnit::scalar_result(const Inst& in) const { return in.scalar && in.f.exec == ~0u; }

void UniformUnit::writing(const Inst& in) {
  const bool s = scalar_result(in);
  regs_.scalar_write(s);
  if (!s) {
    const uint32_t exec = in.f.exec;
    if (exec && exec != ~0u) count_cow(in);
    return;
  }
  ++(in.op->mem ? st_.uniform_loads : st_.uniform_alu);
  if (!in.op->mem && size_t(in.op->cls) < 3) ++st_.by_class[size_t(in.op->cls)];
  const func::InFlight& f = in.f;
  bool same = true;
  for (unsigned k = 0; k < f.ndst && same; ++k)
    for (unsigned l = 1; l < 32 && same; ++l) same = f.dbuf[k][l] == f.dbuf[k][0];
  if (f.d->dst2 >= 0)
    for (unsigned l = 1; l < 32 && same; ++l) same = f.d2buf[l] == f.d2buf[0];
  if (!same) ++st_.unsound;
}

// The paper's copy-on-write case (Fig. 7): a divergent instruction that
// writes a uniform register it also reads (`VR1 = VR1 + 2`). Physical
// registers, as the hardware sees them; the paper's simulator ran PTX, with
// no register allocation, so the PTX's own case is counted apart.
void UniformUnit::count_cow(const Inst& in) {
  for (uint16_t r : in.op->wr_phys)
    if (regs_.token(in.ws, in.pbase + r) &&
        std::find(in.op->rd_phys.begin(), in.op->rd_phys.end(), r) != in.op->rd_phys.end()) {
      ++st_.cow_dst_src;
      const func::DInstr& d = *in.f.d;
      for (unsigned i = 0; i < d.nsrc; ++i)
        if (d.dst.k == func::DOp::kReg && d.src[i].k == func::DOp::kReg && d.src[i].reg == d.dst.reg) {
          ++st_.cow_same_ptx;
          break;
        }
      return;
    }
}

void UniformUnit::written(const Inst& in, uint64_t now) {
  regs_.scalar_write(false);
  if (copies_ != 2) return;
  if (in.ws >= live_.size()) live_.resize(in.ws + 1);
  Live& lv = live_[in.ws];
  for (uint16_t r : in.op->wr_phys) {
    const unsigned p = in.pbase + r;
    if (p >= lv.wr.size()) {
      lv.wr.resize(p + 1, 0);
      lv.rd.resize(p + 1, 0);
      lv.prot.resize(p + 1, 0);
    }
    close(in.ws, p);
    lv.wr[p] = now;
    lv.prot[p] = regs_.token(in.ws, p);
  }
}

void UniformUnit::dispatched(const Inst& in, uint64_t now) {
  if (in.ws >= live_.size()) return;
  Live& lv = live_[in.ws];
  for (uint16_t r : in.op->rd_phys)
    if (in.pbase + r < lv.rd.size()) lv.rd[in.pbase + r] = now;
}

// The value in p was live from its write to its last read.
void UniformUnit::close(unsigned ws, unsigned p) {
  Live& lv = live_[ws];
  if (lv.rd[p] > lv.wr[p]) {
    const uint64_t d = lv.rd[p] - lv.wr[p];
    st_.live_cycles += d;
    if (lv.prot[p]) st_.protected_cycles += d;
  }
  lv.rd[p] = lv.wr[p] = 0;
}

void UniformUnit::warp_exited(unsigned ws, uint64_t /*now*/) {
  if (ws >= live_.size()) return;
  for (unsigned p = 0; p < live_[ws].wr.size(); ++p) close(ws, p);
  live_[ws] = Live{};
}

config::json UniformUnit::stats() const {
  const SmRegs::ScalarCounts& c = regs_.scalar_counts();
  config::json j;
  j["alu_thread_ops"] = st_.alu_thread_ops;
  j["uniform_alu_insts"] = st_.uniform_alu;
  j["uniform_loads"] = st_.uniform_loads;
  j["divergent_candidates"] = st_.divergent_candidates;
  j["redundant_ops"] = 31 * st_.uniform_alu;  // spec 001 §6: an IWU's 31 repeated lane operations
  // By the power model's event (power.events int / fp / sfu): each ran on
  // `copies` SPs instead of 32 (the report prices the lanes saved).
  j["uniform_alu_by_class"] = {{"int", st_.by_class[0]}, {"fp", st_.by_class[1]}, {"sfu", st_.by_class[2]}};
  j["scalar_writes"] = c.scalar_writes;
  j["broadcast_reads"] = c.broadcast_reads;
  j["expands"] = c.expands;
  j["cow_dst_src_insts"] = st_.cow_dst_src;
  j["cow_same_ptx_reg_insts"] = st_.cow_same_ptx;
  j["copy_mismatches"] = c.copy_mismatches;
  j["rf_lane_writes_saved"] = (32 - copies_) * c.scalar_writes;
  j["rf_lane_reads_saved"] = (32 - copies_) * c.broadcast_reads;
  j["scalar_issues"] = st_.scalar_issues;
  j["unit_cycles_saved"] = st_.unit_cycles_saved;
  j["unsound_writes"] = st_.unsound;
  if (copies_ == 2) {
    j["protected_alu_ops"] = 32 * st_.uniform_alu;
    j["vrf_live_reg_cycles"] = st_.live_cycles;
    j["vrf_protected_reg_cycles"] = st_.protected_cycles;
  }
  return j;
}

void derive_uniform(config::json& u, double thread_insn) {
  auto num = [&](const char* k) { return u.contains(k) ? u[k].get<double>() : 0.0; };
  if (thread_insn > 0) u["intra_redundancy"] = num("redundant_ops") / thread_insn;
  if (u.contains("protected_alu_ops") && num("alu_thread_ops") > 0)
    u["alu_coverage"] = num("protected_alu_ops") / num("alu_thread_ops");
  if (num("vrf_live_reg_cycles") > 0) u["vrf_coverage"] = num("vrf_protected_reg_cycles") / num("vrf_live_reg_cycles");
}

}  // namespace relgpu::sm
