// Decoding a ptx::Function once per launch into the executor's compact form,
// and the list of instructions the executor implements.
#include <cstring>

#include "common/error.h"
#include "func/exec.h"

namespace relgpu::func {

using ptx::Opcode;
using ptx::Operand;
using ptx::Space;
using ptx::Type;
using K = Operand::Kind;

static bool is_ldst_space(Space s) {
  return s == Space::global || s == Space::shared || s == Space::local || s == Space::param ||
         s == Space::const_ || s == Space::generic || s == Space::none;
}

static bool atom_ok(const ptx::Instr& in) {
  unsigned bits = ptx::type_bits(in.m.type);
  Type t = in.m.type;
  switch (in.m.atom) {
    case ptx::AtomOp::add:
      return t == Type::u32 || t == Type::s32 || t == Type::u64 || t == Type::s64 || t == Type::f32 ||
             t == Type::f64;
    case ptx::AtomOp::min: case ptx::AtomOp::max:
      return !ptx::type_is_float(t) && (bits == 32 || bits == 64);
    case ptx::AtomOp::inc: case ptx::AtomOp::dec: return t == Type::u32;
    case ptx::AtomOp::cas: return bits == 32 || bits == 64 || bits == 16;
    case ptx::AtomOp::exch: case ptx::AtomOp::and_: case ptx::AtomOp::or_: case ptx::AtomOp::xor_:
      return bits == 32 || bits == 64;
    default: return false;
  }
}

// Instructions the executor runs itself (not through alu_exec).
static bool engine_handles(const ptx::Instr& in) {
  switch (in.op) {
    case Opcode::mov: return true;
    case Opcode::ld: case Opcode::ldu: case Opcode::st:
      return is_ldst_space(in.m.space) && (in.m.vec == 1 || in.m.vec == 2 || in.m.vec == 4) &&
             ptx::type_bits(in.m.type) >= 8 && ptx::type_bits(in.m.type) <= 64;
    case Opcode::atom: case Opcode::red:
      return (in.m.space == Space::global || in.m.space == Space::shared || in.m.space == Space::generic ||
              in.m.space == Space::none) && in.m.vec == 1 && atom_ok(in);
    case Opcode::bar: case Opcode::barrier:
      return in.m.bar != ptx::BarMode::none || in.m.warp;
    case Opcode::bra: case Opcode::call: case Opcode::ret: case Opcode::exit: case Opcode::trap:
    case Opcode::brkpt: case Opcode::membar: case Opcode::fence: case Opcode::nanosleep:
    case Opcode::prefetch: case Opcode::prefetchu: case Opcode::pmevent: case Opcode::activemask:
      return true;
    case Opcode::vote: return in.m.vote != ptx::VoteMode::none;
    case Opcode::shfl: return in.m.shfl != ptx::ShflMode::none;
    case Opcode::match: return true;
    case Opcode::redux:
      return in.m.atom == ptx::AtomOp::add || in.m.atom == ptx::AtomOp::min || in.m.atom == ptx::AtomOp::max ||
             in.m.atom == ptx::AtomOp::and_ || in.m.atom == ptx::AtomOp::or_ || in.m.atom == ptx::AtomOp::xor_;
    case Opcode::cvta: case Opcode::isspacep: return true;
    default: return false;
  }
}

bool implemented(const ptx::Instr& in) {
  if (engine_handles(in)) return true;
  return alu_supports(in);
}

static XK kind_of(const ptx::Instr& in) {
  switch (in.op) {
    case Opcode::mov:
      if (!in.ops.empty() && in.ops[0].kind == K::vec) return XK::unpack;
      if (in.ops.size() > 1 && in.ops[1].kind == K::vec) return XK::pack;
      return XK::mov;
    case Opcode::ld: case Opcode::ldu: return XK::ld;
    case Opcode::st: return XK::st;
    case Opcode::atom: return XK::atom;
    case Opcode::red: return XK::red;
    case Opcode::bra: return XK::bra;
    case Opcode::call: return XK::call;
    case Opcode::ret: return XK::ret;
    case Opcode::exit: return XK::exit;
    case Opcode::trap: return XK::trap;
    case Opcode::brkpt: return XK::brkpt;
    // bar.warp.sync (__syncwarp): under the IPDOM stack a warp's threads run
    // in lockstep and memory is sequential, so it has no effect there (decode
    // turns it into nop); with independent thread scheduling it waits.
    case Opcode::bar: case Opcode::barrier: return in.m.warp ? XK::wsync : XK::bar;
    case Opcode::membar: case Opcode::fence: case Opcode::nanosleep: case Opcode::prefetch:
    case Opcode::prefetchu: case Opcode::pmevent:
      return XK::nop;
    case Opcode::vote: return XK::vote;
    case Opcode::shfl: return XK::shfl;
    case Opcode::activemask: return XK::activemask;
    case Opcode::match: return XK::match;
    case Opcode::redux: return XK::redux;
    case Opcode::cvta: return XK::cvta;
    case Opcode::isspacep: return XK::isspacep;
    default: return XK::alu;
  }
}

static bool has_dst(XK k, const ptx::Instr& in) {
  switch (k) {
    case XK::st: case XK::red: case XK::bra: case XK::call: case XK::ret: case XK::exit: case XK::trap:
    case XK::brkpt: case XK::nop: case XK::wsync:
      return false;
    case XK::bar: return in.m.bar == ptx::BarMode::red_popc || in.m.bar == ptx::BarMode::red_and ||
                         in.m.bar == ptx::BarMode::red_or;
    default: return !in.ops.empty();
  }
}

static uint64_t width_mask(unsigned bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

void Executor::decode(Code& c) {
  const ptx::Function& fn = *c.fn;
  const std::string& file = ctx_.mod->file;
  c.reg_mask.resize(fn.regs.size());
  c.reg_bits.resize(fn.regs.size());
  for (size_t r = 0; r < fn.regs.size(); ++r) {
    unsigned b = ptx::type_bits(fn.regs[r].type);
    if (b == 0 || b > 64) b = 64;
    c.reg_bits[r] = uint8_t(b);
    c.reg_mask[r] = width_mask(b);
  }
  // Frame parameter slots: every .param symbol except a kernel's own
  // parameters (those live in the launch buffer) gets its own slot, so
  // caller temporaries and formals never overlap whatever offsets the parser chose.
  c.param_slot.assign(fn.symbols.size(), 0);
  std::vector<bool> kparam(fn.symbols.size(), false);
  if (fn.is_entry)
    for (int32_t p : fn.params) kparam[p] = true;
  for (size_t s = 0; s < fn.symbols.size(); ++s) {
    const ptx::Symbol& sym = fn.symbols[s];
    if (sym.space != Space::param || kparam[s]) continue;
    uint64_t al = std::max<uint64_t>(sym.align ? sym.align : 8, 8);
    c.param_area = (c.param_area + al - 1) / al * al;
    c.param_slot[s] = uint32_t(c.param_area);
    c.param_area += std::max<uint64_t>(sym.size, 1);
  }
  c.param_area = (c.param_area + 7) / 8 * 8;
  c.local_bytes = (fn.local_bytes + 15) / 16 * 16;

  auto bad = [&](const ptx::Instr& in, const std::string& msg) {
    return InputError(at(file, in.line, in.col, msg + " in '" + in.text + "'"));
  };
  // Value of a symbol used as an address: (value, frame-local?).
  auto sym_value = [&](const ptx::Instr& in, int32_t s, bool generic) -> std::pair<uint64_t, bool> {
    if (s < 0 || size_t(s) >= fn.symbols.size()) throw bad(in, "bad symbol index");
    const ptx::Symbol& sym = fn.symbols[s];
    uint64_t v = 0;
    bool local = false;
    switch (sym.space) {
      case Space::global: case Space::const_: {
        v = ctx_.gmem->module_symbol(ctx_.mod, sym.module_sym);
        if (!v) throw bad(in, "symbol '" + sym.name + "' has no device address (module not loaded?)");
        return {v, false};
      }
      case Space::shared: v = sym.offset; break;
      case Space::local: v = sym.offset; local = true; break;
      case Space::param: v = kparam[s] ? sym.offset : kFrameParamBase + c.param_slot[s]; break;
      default: throw bad(in, "symbol '" + sym.name + "' cannot be used as an address");
    }
    if (generic) v += window_base(sym.space);
    return {v, local};
  };
  auto add_const = [&](uint64_t v) {
    c.consts.emplace_back(kWarpSize, v);
    return int32_t(c.consts.size() - 1);
  };

  c.ins.resize(fn.instrs.size());
  for (size_t i = 0; i < fn.instrs.size(); ++i) {
    const ptx::Instr& in = fn.instrs[i];
    DInstr& d = c.ins[i];
    d.in = &in;
    if (!implemented(in)) throw bad(in, std::string("unsupported PTX instruction '") + ptx::opcode_name(in.op) + "'");
    d.xk = kind_of(in);
    if (d.xk == XK::wsync && !ctx_.its_yield) d.xk = XK::nop;
    d.cls = classify(in);
    d.guard = in.guard;
    d.gneg = in.guard_neg;
    d.dst2 = in.pair_dst;
    d.space = in.m.space == Space::none ? Space::generic : in.m.space;
    d.bytes = uint8_t(ptx::type_bytes(in.m.type));
    d.vec = in.m.vec ? in.m.vec : 1;
    d.sign = ptx::type_is_signed(in.m.type);
    d.ipdom = in.info.ipdom >= 0 ? in.info.ipdom : int32_t(fn.instrs.size());
    d.has_dst = has_dst(d.xk, in);
    Type srct = (in.op == Opcode::cvt || in.op == Opcode::set) ? in.m.type2 : in.m.type;
    bool generic_sym = d.space == Space::generic;

    auto value_op = [&](const Operand& o) {
      DOp r;
      r.neg = o.neg;
      switch (o.kind) {
        case K::reg: r.k = DOp::kReg; r.reg = o.reg; break;
        case K::imm: {
          r.k = DOp::kImm;
          uint64_t v = uint64_t(o.imm);
          // A 0d/decimal literal (f64 bits) used by an f32 instruction is
          // converted; 0f literals already are f32 bits (upper half zero).
          if (o.fimm && srct == Type::f32 && (v >> 32) != 0) {
            double dv;
            std::memcpy(&dv, &v, 8);
            float fv = float(dv);
            uint32_t fb;
            std::memcpy(&fb, &fv, 4);
            v = fb;
          } else if (o.fimm && srct == Type::f64 && (v >> 32) == 0 && v != 0) {
            float fv;
            uint32_t fb = uint32_t(v);
            std::memcpy(&fv, &fb, 4);
            double dv = fv;
            std::memcpy(&v, &dv, 8);
          }
          r.imm = v;
          r.cidx = add_const(v);
          break;
        }
        case K::sreg: r.k = DOp::kSreg; r.sreg = o.sreg; r.comp = o.comp; break;
        case K::sym: {
          auto [v, local] = sym_value(in, o.sym, false);
          v += uint64_t(o.imm);  // `arr+8`
          if (local) {
            r.k = DOp::kLocal;
            r.imm = v;
          } else {
            r.k = DOp::kImm;
            r.imm = v;
            r.cidx = add_const(v);
          }
          break;
        }
        case K::vec:
          r.k = DOp::kVec;
          if (o.vregs.size() > 4) throw bad(in, "vector operand with more than 4 elements");
          r.nv = uint8_t(o.vregs.size());
          for (size_t k = 0; k < o.vregs.size(); ++k) r.v[k] = o.vregs[k];
          break;
        case K::sink: r.k = DOp::kSink; break;
        case K::none: break;
        case K::label: r.k = DOp::kImm; r.imm = uint64_t(o.imm); break;
        default: throw bad(in, "unexpected operand");
      }
      return r;
    };
    auto const_op = [&](uint64_t v) {
      DOp r;
      r.k = DOp::kImm;
      r.imm = v;
      r.cidx = add_const(v);
      return r;
    };
    auto addr_op = [&](const Operand& o) {
      if (o.kind == K::addr) {
        d.abase = o.reg;
        d.aoff = uint64_t(o.imm);
        if (o.sym >= 0) {
          auto [v, local] = sym_value(in, o.sym, generic_sym);
          d.aoff += v;
          d.alocal = local && !generic_sym;
          if (local && generic_sym) d.alocal = true;  // generic local: window + frame base + offset
        }
      } else if (o.kind == K::reg) {
        d.abase = o.reg;
      } else if (o.kind == K::imm) {
        d.aoff = uint64_t(o.imm);
      } else if (o.kind == K::sym) {
        auto [v, local] = sym_value(in, o.sym, generic_sym);
        d.aoff = v + uint64_t(o.imm);
        d.alocal = local;
      } else {
        throw bad(in, "expected an address operand");
      }
    };

    size_t first_src = 0;
    switch (d.xk) {
      case XK::ld:
        if (in.ops.size() < 2) throw bad(in, "ld needs a destination and an address");
        d.dst = value_op(in.ops[0]);
        addr_op(in.ops[1]);
        break;
      case XK::st:
        if (in.ops.size() < 2) throw bad(in, "st needs an address and a value");
        addr_op(in.ops[0]);
        d.src[0] = value_op(in.ops[1]);
        d.nsrc = 1;
        break;
      case XK::atom:
        if (in.ops.size() < 3) throw bad(in, "atom needs a destination, an address and a value");
        d.dst = value_op(in.ops[0]);
        addr_op(in.ops[1]);
        for (size_t k = 2; k < in.ops.size() && d.nsrc < 2; ++k) d.src[d.nsrc++] = value_op(in.ops[k]);
        break;
      case XK::red:
        if (in.ops.size() < 2) throw bad(in, "red needs an address and a value");
        addr_op(in.ops[0]);
        d.src[0] = value_op(in.ops[1]);
        d.nsrc = 1;
        break;
      case XK::bra:
        if (in.ops.empty() || in.ops[0].kind != K::label) throw bad(in, "bra needs a label");
        d.target = int32_t(in.ops[0].imm);
        if (d.target < 0 || size_t(d.target) >= fn.instrs.size()) throw bad(in, "branch target out of range");
        break;
      case XK::call: {
        size_t fpos = in.ops.size();
        for (size_t k = 0; k < in.ops.size(); ++k)
          if (in.ops[k].kind == K::func) { fpos = k; break; }
        if (fpos == in.ops.size()) throw bad(in, "call without a callee");
        int32_t fi = in.ops[fpos].sym;
        if (fi < 0 || size_t(fi) >= ctx_.mod->functions.size()) throw bad(in, "bad callee index");
        const ptx::Function* cf = ctx_.mod->functions[fi].get();
        for (size_t k = 0; k < in.ops.size(); ++k) {
          if (in.ops[k].kind != K::list) continue;
          if (k < fpos) {
            if (in.ops[k].vregs.size() > 1) throw bad(in, "more than one return value");
            if (!in.ops[k].vregs.empty()) d.ret_sym = in.ops[k].vregs[0];
          } else {
            if (in.ops[k].vregs.size() > 8) throw bad(in, "more than 8 call arguments");
            for (int32_t s : in.ops[k].vregs) d.arg_syms[d.nargs++] = s;
          }
        }
        if (!cf->defined || cf->instrs.empty()) {
          if (cf->name == "vprintf") d.builtin = DInstr::Builtin::vprintf;
          else if (cf->name == "__assertfail") d.builtin = DInstr::Builtin::assertfail;
          else if (cf->name == "malloc") d.builtin = DInstr::Builtin::malloc;
          else if (cf->name == "free") d.builtin = DInstr::Builtin::free;
          else throw bad(in, "call to '" + cf->name +
                                 "', which has no body (only vprintf, __assertfail, malloc and free are built in)");
        } else {
          if (cf->params.size() != d.nargs) throw bad(in, "argument count does not match '" + cf->name + "'");
          d.callee = &code(cf);
        }
        break;
      }
      case XK::bar: {
        // bar.sync a{, b}; bar.arrive a, b; bar.red.op d, a{, b}, {!}c.
        // src[0] = barrier id, src[1] = thread count (none = all), src[2] = c.
        size_t n = in.ops.size();
        bool red = d.has_dst;
        if (red && n < 3) throw bad(in, "bar.red needs d, a and c");
        if (red) d.dst = value_op(in.ops[0]);
        size_t k = red ? 1 : 0, end = red ? n - 1 : n;
        if (end > k + 2) throw bad(in, "too many operands");
        if (end > k) d.src[0] = value_op(in.ops[k]);
        else d.src[0] = const_op(0);  // barrier.sync with no operand is barrier 0
        if (end > k + 1) d.src[1] = value_op(in.ops[k + 1]);
        if (red) d.src[2] = value_op(in.ops[n - 1]);
        d.nsrc = red ? 3 : 2;
        break;
      }
      default:
        if (d.has_dst) {
          d.dst = value_op(in.ops[0]);
          first_src = 1;
        }
        for (size_t k = first_src; k < in.ops.size() && d.nsrc < 5; ++k) d.src[d.nsrc++] = value_op(in.ops[k]);
        break;
    }
    if (d.xk == XK::ld || d.xk == XK::st || d.xk == XK::atom || d.xk == XK::red) {
      if (d.space == Space::param && (d.xk == XK::atom || d.xk == XK::red)) throw bad(in, "atomic on param space");
    }
  }
}

const Code& Executor::code(const ptx::Function* fn) {
  auto it = codes_.find(fn);
  if (it != codes_.end()) return *it->second;
  auto c = std::make_unique<Code>();
  c->fn = fn;
  Code& ref = *c;
  codes_.emplace(fn, std::move(c));  // before decode: recursive calls find it
  decode(ref);
  return ref;
}

}  // namespace relgpu::func
