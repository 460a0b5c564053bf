// Executor: fetch, operand read, execute, writeback (memory stage in
// exec_mem.cpp, control flow in exec_ctrl.cpp, cross-lane ops in exec_lanes.cpp).
#include "func/exec.h"

#include <cstring>
#include <sstream>

#include "common/error.h"

namespace relgpu::func {

using ptx::Sreg;
using ptx::Space;

Executor::Executor(const LaunchCtx& ctx, RegStorage& regs) : ctx_(ctx), regs_(regs) {
  flat_ = dynamic_cast<FlatRegs*>(&regs);
  kcode_ = &code(ctx_.kernel);
}

Executor::~Executor() = default;

void Executor::init_cta(Cta& cta, const uint32_t ctaid[3], unsigned rf_base) {
  const Dim3u& b = ctx_.block;
  uint32_t nthreads = b.x * b.y * b.z;
  unsigned nwarps = (nthreads + kWarpSize - 1) / kWarpSize;
  for (int k = 0; k < 3; ++k) cta.ctaid[k] = ctaid[k];
  // Dynamic shared memory starts where the parser put `.extern .shared`
  // arrays (their common offset), else after the static area, 16-aligned.
  const ptx::Function& kf = *ctx_.kernel;
  uint64_t dyn = (kf.shared_bytes + 15) / 16 * 16;
  for (auto& s : kf.symbols)
    if (s.space == Space::shared && s.extern_) dyn = std::max<uint64_t>(dyn, s.offset);
  cta.dyn_base = dyn;
  cta.shared.assign(dyn + ctx_.dyn_shmem, 0);
  cta.local_per_thread = kcode_->local_bytes + (ctx_.stack_bytes + 15) / 16 * 16;
  cta.local.clear();
  for (auto& bs : cta.bars) bs = BarrierState{};
  cta.released.clear();
  cta.warps.assign(nwarps, Warp{});
  for (unsigned i = 0; i < nwarps; ++i) {
    Warp& w = cta.warps[i];
    w.id = i;
    w.rf = rf_base + i;
    w.linear_tid0 = i * kWarpSize;
    for (int k = 0; k < 3; ++k) w.ctaid[k] = ctaid[k];
    for (unsigned l = 0; l < kWarpSize; ++l) {
      uint32_t t = w.linear_tid0 + l;
      if (t < nthreads) w.valid |= 1u << l;
      w.tid[0][l] = t % b.x;
      w.tid[1][l] = (t / b.x) % b.y;
      w.tid[2][l] = t / (b.x * b.y);
    }
    Frame fr;
    fr.code = kcode_;
    fr.reg_base = 0;
    fr.local_base = 0;
    fr.local_top = kcode_->local_bytes;
    fr.param.assign(kcode_->param_area * kWarpSize, 0);
    fr.stack.push_back({0, -1, w.valid});
    fr.call_mask = w.valid;
    w.frames.push_back(std::move(fr));
    regs_.reserve(w.rf, uint32_t(kcode_->fn->regs.size()));
    if (flat_) flat_->clear(w.rf);
    if (kcode_->ins.empty()) w.done = true;
  }
}

std::string Executor::describe_pc(const Warp& w, int pc) const {
  const Code& c = *w.frames.back().code;
  std::ostringstream s;
  s << "PC " << pc;
  if (pc >= 0 && size_t(pc) < c.ins.size()) {
    const ptx::Instr& in = *c.ins[pc].in;
    s << " (" << ctx_.mod->file << ":" << in.line << ":" << in.col << " `" << in.text << "`)";
  }
  if (!c.fn->is_entry) s << " in function '" << c.fn->name << "'";
  return s.str();
}

void Executor::fail(const Cta& cta, const Warp& w, int pc, int lane, const std::string& what) const {
  std::ostringstream s;
  s << "kernel '" << ctx_.kernel->name << "': " << what << "; at " << describe_pc(w, pc) << ", warp " << w.id
    << " of CTA (" << cta.ctaid[0] << "," << cta.ctaid[1] << "," << cta.ctaid[2] << ")";
  if (lane >= 0)
    s << ", thread tid (" << w.tid[0][lane] << "," << w.tid[1][lane] << "," << w.tid[2][lane] << ") lane " << lane;
  throw KernelError(s.str());
}

bool Executor::fetch(Cta&, Warp& w, InFlight& f) {
  if (w.done || w.at_barrier) return false;
  if (++issued_ > ctx_.max_warp_insn) {
    throw KernelError("kernel '" + ctx_.kernel->name + "' exceeded func.max_warp_insn=" +
                      std::to_string(ctx_.max_warp_insn) + " warp instructions (runaway kernel?); warp " +
                      std::to_string(w.id) + " of CTA (" + std::to_string(w.ctaid[0]) + "," +
                      std::to_string(w.ctaid[1]) + "," + std::to_string(w.ctaid[2]) + ") was at " +
                      describe_pc(w, w.pc()));
  }
  Frame& fr = w.frames.back();
  const SimtEntry& e = fr.stack.back();
  f.code = fr.code;
  f.pc = e.pc;
  f.active = e.mask;
  f.ndst = 0;
  f.direct = false;
  f.wrote_direct = false;
  f.taken = 0;
  if (size_t(e.pc) >= fr.code->ins.size()) {
    f.d = nullptr;
    return true;  // reported by read_operands with the warp's context
  }
  f.d = &fr.code->ins[e.pc];
  ++w.insn;
  return true;
}

void Executor::sreg_value(const Cta& cta, const Warp& w, const DOp& op, uint64_t* out) const {
  auto fill = [&](uint64_t v) {
    for (unsigned l = 0; l < kWarpSize; ++l) out[l] = v;
  };
  unsigned c = op.comp > 2 ? 0 : op.comp;
  const Dim3u& b = ctx_.block;
  const Dim3u& g = ctx_.grid;
  switch (op.sreg) {
    case Sreg::tid:
      for (unsigned l = 0; l < kWarpSize; ++l) out[l] = w.tid[c][l];
      return;
    case Sreg::ntid: fill(c == 0 ? b.x : c == 1 ? b.y : b.z); return;
    case Sreg::ctaid: fill(w.ctaid[c]); return;
    case Sreg::nctaid: fill(c == 0 ? g.x : c == 1 ? g.y : g.z); return;
    case Sreg::laneid:
      for (unsigned l = 0; l < kWarpSize; ++l) out[l] = l;
      return;
    case Sreg::warpid: fill(w.id); return;
    // Functional mode models one SM holding the CTA; %nwarpid is Turing's
    // 32 warp slots per SM.
    case Sreg::nwarpid: fill(32); return;
    // The machine's values (timing mode), else the stand-ins of MachineRegs (exec.h).
    case Sreg::smid: fill(machine_ ? machine_->smid() : 0); return;
    case Sreg::nsmid: fill(machine_ ? machine_->nsmid() : 1); return;
    case Sreg::gridid: fill(ctx_.gridid); return;
    case Sreg::clock: fill((machine_ ? machine_->clock64() : issued_) & 0xffffffffu); return;
    case Sreg::clock64: fill(machine_ ? machine_->clock64() : issued_); return;
    case Sreg::globaltimer: fill(machine_ ? machine_->globaltimer_ns() : issued_); return;
    case Sreg::lanemask_eq:
      for (unsigned l = 0; l < kWarpSize; ++l) out[l] = 1u << l;
      return;
    case Sreg::lanemask_le:
      for (unsigned l = 0; l < kWarpSize; ++l) out[l] = uint32_t((uint64_t(2) << l) - 1);
      return;
    case Sreg::lanemask_lt:
      for (unsigned l = 0; l < kWarpSize; ++l) out[l] = (1u << l) - 1;
      return;
    case Sreg::lanemask_ge:
      for (unsigned l = 0; l < kWarpSize; ++l) out[l] = ~((1u << l) - 1);
      return;
    case Sreg::lanemask_gt:
      for (unsigned l = 0; l < kWarpSize; ++l) out[l] = ~uint32_t((uint64_t(2) << l) - 1);
      return;
    case Sreg::dynamic_smem_size: fill(ctx_.dyn_shmem); return;
    case Sreg::total_smem_size: fill(cta.shared.size()); return;
    case Sreg::envreg:
      // The driver ABI of cooperative groups: %envreg1 (high) and %envreg2
      // (low) hold the grid workspace of a cooperative launch, 0 otherwise.
      if (op.comp == 1) return fill(ctx_.grid_workspace >> 32);
      if (op.comp == 2) return fill(ctx_.grid_workspace & 0xffffffffu);
      return fill(0);
    default: fill(0); return;  // %pm0..7: no counters, read as 0
  }
}

// Source operand i as a pointer to 32 lane values.
const uint64_t* Executor::operand(Cta& cta, Warp& w, InFlight& f, const DOp& op, unsigned i) {
  switch (op.k) {
    case DOp::kReg: {
      uint32_t slot = w.frames.back().reg_base + uint32_t(op.reg);
      if (f.direct) return flat_->at(w.rf, slot);
      regs_.read(w.rf, slot, f.sbuf[i]);
      return f.sbuf[i];
    }
    case DOp::kImm: return f.code->consts[op.cidx].data();
    case DOp::kSreg: sreg_value(cta, w, op, f.sbuf[i]); return f.sbuf[i];
    case DOp::kLocal: {
      uint64_t v = w.frames.back().local_base + op.imm;
      for (unsigned l = 0; l < kWarpSize; ++l) f.sbuf[i][l] = v;
      return f.sbuf[i];
    }
    default: return nullptr;
  }
}

void Executor::read_operands(Cta& cta, Warp& w, InFlight& f) {
  if (!f.d) fail(cta, w, f.pc, -1, "execution ran past the end of the function (missing ret/exit)");
  const DInstr& d = *f.d;
  f.exec = f.active;
  if (d.guard >= 0) {
    uint32_t slot = w.frames.back().reg_base + uint32_t(d.guard);
    const uint64_t* g;
    if (f.direct) {
      g = flat_->at(w.rf, slot);
    } else {
      regs_.read(w.rf, slot, f.sbuf[4]);
      g = f.sbuf[4];
    }
    uint32_t m = 0;
    for (unsigned l = 0; l < kWarpSize; ++l) m |= uint32_t(g[l] & 1) << l;
    if (d.gneg) m = ~m;
    f.exec = f.active & m;
  }
  for (unsigned i = 0; i < d.nsrc; ++i) {
    const DOp& op = d.src[i];
    if (op.k == DOp::kVec) {
      // Vector source (st.v4, mov pack): elements into sbuf[0..nv-1].
      for (unsigned k = 0; k < op.nv; ++k) {
        if (op.v[k] < 0) {
          std::memset(f.sbuf[k], 0, sizeof f.sbuf[k]);
          continue;
        }
        regs_.read(w.rf, w.frames.back().reg_base + uint32_t(op.v[k]), f.sbuf[k]);
      }
      f.src[i] = nullptr;
      continue;
    }
    f.src[i] = operand(cta, w, f, op, i);
  }
  if (d.abase >= 0) {
    uint32_t slot = w.frames.back().reg_base + uint32_t(d.abase);
    if (f.direct) {
      f.abase = flat_->at(w.rf, slot);
    } else {
      regs_.read(w.rf, slot, f.abuf);
      f.abase = f.abuf;
    }
  } else {
    f.abase = nullptr;
  }
}

void Executor::write_reg(Warp& w, int32_t reg, uint32_t mask, const uint64_t* v) {
  if (reg < 0 || !mask) return;
  uint32_t slot = w.frames.back().reg_base + uint32_t(reg);
  if (flat_) {
    uint64_t* d = flat_->at(w.rf, slot);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1) d[l] = v[l];
    return;
  }
  regs_.write(w.rf, slot, mask, v);
}

void Executor::execute(Cta& cta, Warp& w, InFlight& f) {
  const DInstr& d = *f.d;
  const Code& c = *f.code;
  uint32_t m = f.exec;
  switch (d.xk) {
    case XK::alu: {
      if (!m) return;
      AluIn a;
      for (unsigned i = 0; i < 4 && i < d.nsrc; ++i) a.src[i] = f.src[i];
      a.mask = m;
      a.carry = w.carry;
      AluOut o;
      uint32_t base = w.frames.back().reg_base;
      if (f.direct) {
        o.dst = flat_->at(w.rf, base + uint32_t(d.dst.reg));
        if (d.dst2 >= 0) o.dst2 = flat_->at(w.rf, base + uint32_t(d.dst2));
        f.wrote_direct = true;
      } else {
        o.dst = f.dbuf[0];
        o.dst2 = d.dst2 >= 0 ? f.d2buf : nullptr;
        f.ndst = 1;
      }
      alu_exec(*d.in, a, o);
      if (d.in->m.cc) w.carry = (w.carry & ~m) | (o.carry & m);
      return;
    }
    case XK::mov: {
      const uint64_t* s = f.src[0];
      if (!s) fail(cta, w, f.pc, -1, "mov without a source value");
      uint64_t mask = c.reg_mask[d.dst.reg];
      for (unsigned l = 0; l < kWarpSize; ++l) f.dbuf[0][l] = s[l] & mask;
      if (d.in->m.type == ptx::Type::pred && d.src[0].neg)
        for (unsigned l = 0; l < kWarpSize; ++l) f.dbuf[0][l] ^= 1;
      f.ndst = 1;
      return;
    }
    case XK::pack: {
      const DOp& v = d.src[0];
      unsigned eb = c.reg_bits[d.dst.reg] / (v.nv ? v.nv : 1);
      uint64_t em = eb >= 64 ? ~uint64_t(0) : (uint64_t(1) << eb) - 1;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        uint64_t x = 0;
        for (unsigned k = 0; k < v.nv; ++k) x |= (f.sbuf[k][l] & em) << (k * eb);
        f.dbuf[0][l] = x;
      }
      f.ndst = 1;
      return;
    }
    case XK::unpack: {
      const DOp& v = d.dst;
      const uint64_t* s = f.src[0];
      unsigned eb = (d.src[0].k == DOp::kReg ? c.reg_bits[d.src[0].reg] : ptx::type_bits(d.in->m.type)) /
                    (v.nv ? v.nv : 1);
      uint64_t em = eb >= 64 ? ~uint64_t(0) : (uint64_t(1) << eb) - 1;
      for (unsigned k = 0; k < v.nv; ++k)
        for (unsigned l = 0; l < kWarpSize; ++l) f.dbuf[k][l] = (s[l] >> (k * eb)) & em;
      f.ndst = v.nv;
      return;
    }
    case XK::ld: case XK::st: case XK::atom: case XK::red:
      compute_addresses(cta, w, f);
      return;
    case XK::bra: f.taken = m; return;
    case XK::vote: case XK::shfl: case XK::activemask: case XK::match: case XK::redux:
      exec_cross_lane(cta, w, f);
      return;
    case XK::cvta: {
      const uint64_t* s = f.src[0];
      uint64_t wb = window_base(d.space);
      bool narrow = ptx::type_bits(d.in->m.type) == 32;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        uint64_t v = d.in->m.to ? s[l] - wb : s[l] + wb;
        f.dbuf[0][l] = narrow ? (v & 0xffffffffu) : v;
      }
      f.ndst = 1;
      return;
    }
    case XK::isspacep: {
      const uint64_t* s = f.src[0];
      for (unsigned l = 0; l < kWarpSize; ++l) {
        Space sp = generic_space(s[l]);
        bool r = sp == d.space;
        if (d.space == Space::const_) {
          const Allocation* a = sp == Space::global ? ctx_.gmem->find(s[l]) : nullptr;
          r = a && a->kind == Allocation::Kind::const_var;
        }
        f.dbuf[0][l] = r;
      }
      f.ndst = 1;
      return;
    }
    case XK::bar: {
      if (!m) return;
      unsigned l0 = __builtin_ctz(m);
      f.bar_id = uint32_t(f.src[0][l0]);
      f.bar_count = f.src[1] ? uint32_t(f.src[1][l0]) : 0;
      f.pred_mask = 0;
      if (d.nsrc == 3) {
        for (unsigned l = 0; l < kWarpSize; ++l) f.pred_mask |= uint32_t((f.src[2][l] & 1) ^ d.src[2].neg) << l;
        f.pred_mask &= m;
      }
      return;
    }
    default: return;
  }
}

void Executor::writeback(Cta&, Warp& w, InFlight& f) {
  if (f.wrote_direct || !f.ndst) return;
  const DInstr& d = *f.d;
  // Loads with exec lanes write those lanes; a result's lanes are exec lanes.
  uint32_t m = f.exec;
  if (d.dst.k == DOp::kVec) {
    for (unsigned k = 0; k < f.ndst && k < d.dst.nv; ++k) write_reg(w, d.dst.v[k], m, f.dbuf[k]);
  } else if (d.dst.k == DOp::kReg) {
    write_reg(w, d.dst.reg, m, f.dbuf[0]);
  }
  if (d.dst2 >= 0 && d.xk != XK::mov) write_reg(w, d.dst2, m, f.d2buf);
}

Event Executor::step(Cta& cta, Warp& w, InFlight& f) {
  if (!fetch(cta, w, f)) return Event::none;
  f.direct = flat_ != nullptr;
  read_operands(cta, w, f);
  execute(cta, w, f);
  if (is_memory(f)) memory(cta, w, f);
  writeback(cta, w, f);
  return commit(cta, w, f);
}

}  // namespace relgpu::func
