// Instructions: opcode and modifiers, operands, call sequences.
#include <algorithm>
#include <cstring>

#include "ptx/analysis.h"
#include "ptx/parser_impl.h"

namespace relgpu::ptx::detail {

namespace {

const std::unordered_map<std::string_view, Opcode>& opcode_map() {
  static const std::unordered_map<std::string_view, Opcode> m = [] {
    std::unordered_map<std::string_view, Opcode> r;
    for (size_t i = 0; i < size_t(Opcode::count_); ++i) r[opcode_name(Opcode(i))] = Opcode(i);
    return r;
  }();
  return m;
}

// Instructions whose operand forms (texture handles, matrix fragments,
// barriers objects ...) the IR does not describe: kept undecoded so that
// validate() reports them as unsupported at their line.
bool undecoded_op(Opcode op) {
  switch (op) {
    case Opcode::tex: case Opcode::tld4: case Opcode::txq: case Opcode::suld: case Opcode::sust:
    case Opcode::wmma: case Opcode::mma: case Opcode::ldmatrix: case Opcode::stmatrix: case Opcode::cp:
    case Opcode::mbarrier: case Opcode::tensormap: case Opcode::brx: case Opcode::createpolicy:
    case Opcode::mapa: case Opcode::getctarank: case Opcode::applypriority: case Opcode::discard:
    case Opcode::alloca: case Opcode::stacksave: case Opcode::stackrestore: case Opcode::griddepcontrol:
    case Opcode::elect: case Opcode::setmaxnreg: case Opcode::pmevent:
      return true;
    default:
      return false;
  }
}

// Operand position that must be an address, -1 if none may be.
int addr_pos(Opcode op) {
  switch (op) {
    case Opcode::ld: case Opcode::ldu: case Opcode::atom: return 1;
    case Opcode::st: case Opcode::red: case Opcode::prefetch: case Opcode::prefetchu: return 0;
    default: return -1;
  }
}

// Operand count range (destinations included, pair destination excluded);
// {0, 255} = not checked.
std::pair<int, int> operand_count(Opcode op) {
  switch (op) {
    case Opcode::add: case Opcode::sub: case Opcode::mul: case Opcode::div: case Opcode::rem:
    case Opcode::and_: case Opcode::or_: case Opcode::xor_: case Opcode::shl: case Opcode::shr:
    case Opcode::min: case Opcode::max: case Opcode::addc: case Opcode::subc: case Opcode::mul24:
    case Opcode::copysign: case Opcode::bmsk: case Opcode::szext: case Opcode::redux:
      return {3, 3};
    case Opcode::setp: case Opcode::set: return {3, 4};
    case Opcode::mad: case Opcode::fma: case Opcode::madc: case Opcode::mad24: case Opcode::sad:
    case Opcode::selp: case Opcode::slct: case Opcode::bfe: case Opcode::prmt: case Opcode::dp4a:
    case Opcode::dp2a: case Opcode::shf: case Opcode::fns:
      return {4, 4};
    case Opcode::bfi: case Opcode::lop3: return {5, 5};
    case Opcode::mov: case Opcode::abs: case Opcode::neg: case Opcode::not_: case Opcode::cnot:
    case Opcode::cvta: case Opcode::popc: case Opcode::clz: case Opcode::brev:
    case Opcode::bfind: case Opcode::rcp: case Opcode::sqrt: case Opcode::rsqrt: case Opcode::sin:
    case Opcode::cos: case Opcode::lg2: case Opcode::ex2: case Opcode::tanh: case Opcode::isspacep:
    case Opcode::testp: case Opcode::ld: case Opcode::ldu: case Opcode::st: case Opcode::red:
      return {2, 2};
    case Opcode::atom: return {3, 4};
    case Opcode::cvt: return {2, 3};  // cvt.rn.f16x2.f32 d, a, b packs two sources
    case Opcode::vote: return {2, 3};
    case Opcode::shfl: return {4, 5};
    case Opcode::match: return {3, 3};
    case Opcode::bra: return {1, 1};
    case Opcode::ret: case Opcode::exit: case Opcode::trap: case Opcode::brkpt: case Opcode::membar:
    case Opcode::fence:
      return {0, 0};
    case Opcode::bar: case Opcode::barrier: return {0, 4};
    case Opcode::activemask: return {1, 1};
    case Opcode::prefetch: case Opcode::prefetchu: case Opcode::nanosleep: return {1, 1};
    default: return {0, 255};
  }
}

bool is_type_like(std::string_view w) {
  if (w.size() < 2 || std::string_view("subf").find(w[0]) == std::string_view::npos) return false;
  return std::all_of(w.begin() + 1, w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool parse_sreg(std::string_view name, Operand& o) {
  static const std::unordered_map<std::string_view, Sreg> k = {
      {"%tid", Sreg::tid}, {"%ntid", Sreg::ntid}, {"%ctaid", Sreg::ctaid}, {"%nctaid", Sreg::nctaid},
      {"%laneid", Sreg::laneid}, {"%warpid", Sreg::warpid}, {"%nwarpid", Sreg::nwarpid},
      {"%smid", Sreg::smid}, {"%nsmid", Sreg::nsmid}, {"%gridid", Sreg::gridid}, {"%clock", Sreg::clock},
      {"%clock64", Sreg::clock64}, {"%lanemask_eq", Sreg::lanemask_eq}, {"%lanemask_le", Sreg::lanemask_le},
      {"%lanemask_lt", Sreg::lanemask_lt}, {"%lanemask_ge", Sreg::lanemask_ge},
      {"%lanemask_gt", Sreg::lanemask_gt}, {"%globaltimer", Sreg::globaltimer},
      {"%dynamic_smem_size", Sreg::dynamic_smem_size}, {"%total_smem_size", Sreg::total_smem_size}};
  std::string_view base = name, comp;
  size_t dot = name.find('.');
  if (dot != std::string_view::npos) base = name.substr(0, dot), comp = name.substr(dot + 1);
  auto it = k.find(base);
  if (it != k.end()) {
    o.kind = Operand::Kind::sreg;
    o.sreg = it->second;
    bool vec = o.sreg == Sreg::tid || o.sreg == Sreg::ntid || o.sreg == Sreg::ctaid || o.sreg == Sreg::nctaid;
    if (vec != !comp.empty()) return false;
    if (vec) {
      if (comp == "x") o.comp = 0;
      else if (comp == "y") o.comp = 1;
      else if (comp == "z") o.comp = 2;
      else return false;
    }
    return true;
  }
  // %envreg0..31, %pm0..7: the number goes in comp.
  auto numbered = [&](std::string_view pre, Sreg s, unsigned max) {
    if (base.substr(0, pre.size()) != pre || base.size() == pre.size() || !comp.empty()) return false;
    unsigned v = 0;
    for (char c : base.substr(pre.size())) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + unsigned(c - '0');
      if (v > max) return false;
    }
    o.kind = Operand::Kind::sreg;
    o.sreg = s;
    o.comp = uint8_t(v);
    return true;
  };
  return numbered("%envreg", Sreg::envreg, 31) || numbered("%pm", Sreg::pm0, 7);
}

}  // namespace

// Applies one modifier (without its dot) to `m`, by opcode context.
static void apply_mod(Opcode op, std::string_view w, Mods& m, std::vector<Type>& types, bool& bar_red) {
  auto one_of = [&](std::initializer_list<Opcode> l) { return std::find(l.begin(), l.end(), op) != l.end(); };
  const bool atomish = one_of({Opcode::atom, Opcode::red, Opcode::redux});
  const bool cmpish = one_of({Opcode::setp, Opcode::set});
  const bool barish = one_of({Opcode::bar, Opcode::barrier});
  if (Type t = type_from(w); t != Type::none) { types.push_back(t); return; }
  if (Space s = space_from(w); s != Space::none) { m.space = s; return; }
  static const std::unordered_map<std::string_view, Rnd> rnd = {
      {"rn", Rnd::rn}, {"rz", Rnd::rz}, {"rm", Rnd::rm}, {"rp", Rnd::rp}, {"rna", Rnd::rna},
      {"rni", Rnd::rni}, {"rzi", Rnd::rzi}, {"rmi", Rnd::rmi}, {"rpi", Rnd::rpi}};
  if (auto it = rnd.find(w); it != rnd.end()) { m.rnd = it->second; return; }
  if (cmpish) {
    static const std::unordered_map<std::string_view, Cmp> cmp = {
        {"eq", Cmp::eq}, {"ne", Cmp::ne}, {"lt", Cmp::lt}, {"le", Cmp::le}, {"gt", Cmp::gt}, {"ge", Cmp::ge},
        {"lo", Cmp::lo}, {"ls", Cmp::ls}, {"hi", Cmp::hi}, {"hs", Cmp::hs}, {"equ", Cmp::equ},
        {"neu", Cmp::neu}, {"ltu", Cmp::ltu}, {"leu", Cmp::leu}, {"gtu", Cmp::gtu}, {"geu", Cmp::geu},
        {"num", Cmp::num}, {"nan", Cmp::nan}};
    if (auto it = cmp.find(w); it != cmp.end()) { m.cmp = it->second; return; }
    if (w == "and") { m.bop = BoolOp::and_; return; }
    if (w == "or") { m.bop = BoolOp::or_; return; }
    if (w == "xor") { m.bop = BoolOp::xor_; return; }
  }
  if (atomish) {
    static const std::unordered_map<std::string_view, AtomOp> a = {
        {"add", AtomOp::add}, {"min", AtomOp::min}, {"max", AtomOp::max}, {"inc", AtomOp::inc},
        {"dec", AtomOp::dec}, {"cas", AtomOp::cas}, {"exch", AtomOp::exch}, {"and", AtomOp::and_},
        {"or", AtomOp::or_}, {"xor", AtomOp::xor_}};
    if (auto it = a.find(w); it != a.end()) { m.atom = it->second; return; }
  }
  if (barish) {
    if (w == "sync") { m.sync = true; if (!m.warp) m.bar = BarMode::sync; return; }
    if (w == "arrive") { m.bar = BarMode::arrive; return; }
    if (w == "red") { bar_red = true; return; }
    if (w == "warp" && op == Opcode::bar) { m.warp = true; return; }
    if (bar_red && w == "popc") { m.bar = BarMode::red_popc; return; }
    if (bar_red && w == "and") { m.bar = BarMode::red_and; return; }
    if (bar_red && w == "or") { m.bar = BarMode::red_or; return; }
  }
  // match.any / match.all use the vote field (documented in ptx/parser.h).
  if (op == Opcode::vote || op == Opcode::match) {
    if (w == "all") { m.vote = VoteMode::all; return; }
    if (w == "any") { m.vote = VoteMode::any; return; }
    if (w == "uni" && op == Opcode::vote) { m.vote = VoteMode::uni; return; }
    if (w == "ballot" && op == Opcode::vote) { m.vote = VoteMode::ballot; return; }
  }
  if (op == Opcode::shfl) {
    if (w == "up") { m.shfl = ShflMode::up; return; }
    if (w == "down") { m.shfl = ShflMode::down; return; }
    if (w == "bfly") { m.shfl = ShflMode::bfly; return; }
    if (w == "idx") { m.shfl = ShflMode::idx; return; }
  }
  if (op == Opcode::prmt) {
    static const std::unordered_map<std::string_view, PrmtMode> p = {
        {"f4e", PrmtMode::f4e}, {"b4e", PrmtMode::b4e}, {"rc8", PrmtMode::rc8},
        {"ecl", PrmtMode::ecl}, {"ecr", PrmtMode::ecr}, {"rc16", PrmtMode::rc16}};
    if (auto it = p.find(w); it != p.end()) { m.prmt = it->second; return; }
  }
  if (one_of({Opcode::mul, Opcode::mad, Opcode::mul24, Opcode::mad24, Opcode::madc})) {
    if (w == "lo") { m.mul = MulMode::lo; return; }
    if (w == "hi") { m.mul = MulMode::hi; return; }
    if (w == "wide") { m.mul = MulMode::wide; return; }
  }
  if (op == Opcode::shf) {
    // .l/.r then .clamp/.wrap; .l alone stays l_clamp until .wrap is seen.
    if (w == "l") { m.shf = ShfMode::l_clamp; return; }
    if (w == "r") { m.shf = ShfMode::r_clamp; return; }
    if (w == "wrap" && m.shf == ShfMode::l_clamp) { m.shf = ShfMode::l_wrap; return; }
    if (w == "wrap" && m.shf == ShfMode::r_clamp) { m.shf = ShfMode::r_wrap; return; }
    if (w == "clamp" && m.shf != ShfMode::none) return;
  }
  if (one_of({Opcode::bra, Opcode::call, Opcode::ret})) {
    if (w == "uni") { m.uni = true; return; }
  }
  if (op == Opcode::membar) {
    if (w == "gl") { m.scope = Scope::gpu; return; }
  }
  if (w == "cta") { m.scope = Scope::cta; return; }
  if (w == "gpu") { m.scope = Scope::gpu; return; }
  if (w == "sys") { m.scope = Scope::sys; return; }
  if (w == "cluster") { m.scope = Scope::cluster; return; }
  if (w == "v2") { m.vec = 2; return; }
  if (w == "v4") { m.vec = 4; return; }
  if (w == "ftz") { m.ftz = true; return; }
  if (w == "sat") { m.sat = true; return; }
  if (w == "approx") { m.approx = true; return; }
  if (w == "full") { m.full = true; return; }
  if (w == "cc") { m.cc = true; return; }
  if (w == "nc" && op == Opcode::ld) { m.nc = true; return; }
  if (w == "sync") { m.sync = true; return; }
  if (w == "aligned") { m.aligned = true; return; }
  if (w == "volatile") { m.volatile_ = true; return; }
  if (w == "relaxed") { m.relaxed = true; return; }
  if (w == "acquire") { m.acquire = true; return; }
  if (w == "release") { m.release = true; return; }
  // A functional model executes memory operations in order, so .sc is kept as
  // acquire+release, the strongest ordering the IR names.
  if (w == "acq_rel" || w == "sc") { m.acquire = m.release = true; return; }
  if (w == "weak") { m.weak = true; return; }
  if (w == "to" && op == Opcode::cvta) { m.to = true; return; }
  if (w == "shiftamt" && op == Opcode::bfind) { m.shiftamt = true; return; }
  if (w == "noftz") { m.noftz = true; return; }
  if (w == "oob") { m.oob = true; return; }
  if (w == "relu") { m.relu = true; return; }
  if (w == "satfinite") { m.satfinite = true; return; }
  if (w == "NaN") { m.nan = true; return; }
  if (w == "xorsign") { m.xorsign = true; return; }
  if (w == "abs" && (op == Opcode::min || op == Opcode::max)) { m.abs = true; return; }
  // Cache and eviction hints: no effect on results.
  static const char* const hints[] = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "L1", "L2"};
  bool hint = std::find(std::begin(hints), std::end(hints), w) != std::end(hints) ||
              ((w.substr(0, 4) == "L1::" || w.substr(0, 4) == "L2::") && w != "L2::cache_hint");
  if (hint) { m.hints += "." + std::string(w); return; }
  m.unknown += "." + std::string(w);
}

// `mov.b32 %f1, {0, %rs2};` (cuda_bf16.hpp): an immediate inside a vector
// operand. The IR's vectors hold registers only, so the parser inserts
// `mov.bN %vimmK, imm;` before the instruction and uses that register. The
// element width is the mov's width divided by the element count (filled in
// once the count is known), else the instruction type.
int32_t Parser::vec_imm(Instr& in, size_t) {
  const Token& t = peek();
  bool minus = false;
  if (t.is('-')) { next(); minus = true; }
  const Token& nt = peek();
  Num n;
  if (nt.kind != Token::number || !parse_number(nt.text, minus, n) || n.kind != Num::integer)
    fail(nt, "expected a register or integer in vector operand");
  next();
  if (in.ops.empty() && in.op != Opcode::st) fail(t, "an immediate cannot be a destination");
  Function& f = *f_;
  Instr mv;
  mv.op = Opcode::mov;
  mv.line = t.line;
  mv.col = t.col;
  Operand d, v;
  d.kind = Operand::Kind::reg;
  f.regs.push_back({"%vimm" + std::to_string(f.regs.size()), Type::b32});
  d.reg = int32_t(f.regs.size() - 1);
  v.kind = Operand::Kind::imm;
  v.imm = int64_t(n.bits);
  mv.ops = {d, v};
  pending_vec_imms_.push_back(std::move(mv));
  return d.reg;
}

void Parser::parse_instruction() {
  Function& f = *f_;
  Instr in;
  const size_t first_tok = p_;
  const Token& start = peek();
  in.line = start.line;
  in.col = start.col;
  if (peek().is('@')) {
    next();
    if (peek().is('!')) { next(); in.guard_neg = true; }
    const Token& gt = peek();
    std::string_view g = expect_word("a predicate register after '@'");
    in.guard = find_reg(g);
    if (in.guard < 0) fail(gt, "undeclared register '" + std::string(g) + "'");
    if (f.regs[in.guard].type != Type::pred) fail(gt, "guard '" + std::string(g) + "' is not a .pred register");
  }
  const Token& ot = peek();
  if (ot.kind != Token::word) fail(ot, "expected an instruction, found '" + std::string(ot.text) + "'");
  next();
  std::string_view word = ot.text;
  size_t dot = word.find('.');
  std::string_view name = word.substr(0, dot);
  auto it = opcode_map().find(name);
  if (it == opcode_map().end()) {
    if (peek().is(':')) fail(ot, "bad label");
    fail(ot, "unknown instruction '" + std::string(name) + "'");
  }
  in.op = it->second;
  std::vector<Type> types;
  bool bar_red = false;
  uint32_t mcol = ot.col + uint32_t(name.size());
  while (dot != std::string_view::npos) {
    size_t nd = word.find('.', dot + 1);
    std::string_view w = word.substr(dot + 1, nd == std::string_view::npos ? nd : nd - dot - 1);
    if (w.empty()) fail(ot, "empty modifier in '" + std::string(word) + "'");
    std::string before = in.m.unknown;
    apply_mod(in.op, w, in.m, types, bar_red);
    if (in.m.unknown != before && is_type_like(w))
      throw InputError(at(file_, ot.line, mcol + 1, "unknown type '." + std::string(w) + "' in '" + std::string(word) + "'"));
    mcol += uint32_t(w.size() + 1);
    dot = nd;
  }
  if (types.size() > 2) {
    for (size_t i = 0; i + 2 < types.size(); ++i) in.m.unknown += std::string(".") + type_name(types[i]);
    types.erase(types.begin(), types.end() - 2);
  }
  if (!types.empty()) in.m.type = types[0];
  if (types.size() == 2) in.m.type2 = types[1];

  if (undecoded_op(in.op) || !in.m.unknown.empty()) {
    in.undecoded = true;
    // The whole instruction is unsupported, not one modifier of it.
    if (undecoded_op(in.op)) in.m.unknown.clear();
    skip_statement();
  } else if (in.op == Opcode::call) {
    // call[.uni] [(rets),] callee [, (args)] [, prototype];
    // ops: [0] = return-param list, [1] = callee, [2] = argument list.
    Operand rets, callee, args;
    rets.kind = args.kind = Operand::Kind::list;
    auto param_list = [&](Operand& o) {
      expect('(', "'('");
      if (peek().is(')')) { next(); return; }
      for (;;) {
        const Token& pt = peek();
        if (pt.kind != Token::word) fail(pt, "call arguments must be .param variables");
        int32_t s = find_sym(pt.text);
        if (s < 0 && find_reg(pt.text) >= 0)
          fail(pt, "call arguments must be .param variables, not registers ('" + std::string(pt.text) + "')");
        if (s < 0) fail(pt, "undeclared parameter '" + std::string(pt.text) + "'");
        if (f.symbols[s].space != Space::param) fail(pt, "call argument '" + std::string(pt.text) + "' is not a .param variable");
        next();
        o.vregs.push_back(s);
        if (peek().is(',')) { next(); continue; }
        expect(')', "')'");
        return;
      }
    };
    if (peek().is('(')) {
      param_list(rets);
      expect(',', "',' after the return parameters");
    }
    const Token& ct = peek();
    std::string_view cname = expect_word("a function name");
    if (find_reg(cname) >= 0)
      fail(ct, "indirect call through register '" + std::string(cname) + "' is not supported");
    callee.kind = Operand::Kind::func;
    call_fixes_.push_back({&f, f.instrs.size(), std::string(cname), ct.line, ct.col});
    if (peek().is(',')) {
      next();
      param_list(args);
      if (peek().is(',')) fail(peek(), "call with a prototype (indirect call) is not supported");
    }
    expect(';', "';' after call");
    in.ops = {std::move(rets), std::move(callee), std::move(args)};
  } else {
    while (!peek().is(';')) {
      if (peek().kind == Token::end) fail(peek(), "expected ';' before end of file");
      if (!in.ops.empty() && !peek().is(',')) {
        const Token& pt = t_[p_ - 1];
        if (peek().line != pt.line)
          throw InputError(at(file_, pt.line, pt.col + uint32_t(pt.text.size()), "expected ';' after '" + std::string(word) + "' instruction"));
        fail(peek(), "expected ',' or ';' after an operand, found '" + std::string(peek().text) + "'");
      }
      if (!in.ops.empty()) next();
      const Token& t = peek();
      Operand o;
      auto reg_of = [&](const Token& rt) {
        if (rt.kind != Token::word) fail(rt, "expected a register, found '" + std::string(rt.text) + "'");
        int32_t r = find_reg(rt.text);
        if (r < 0) fail(rt, "undeclared register '" + std::string(rt.text) + "'");
        next();
        return r;
      };
      if (t.is('{')) {
        next();
        o.kind = Operand::Kind::vec;
        for (;;) {
          if (peek().text == "_") { next(); o.vregs.push_back(-1); }
          else if (peek().kind == Token::number || peek().is('-')) o.vregs.push_back(vec_imm(in, o.vregs.size() + 1));
          else o.vregs.push_back(reg_of(peek()));
          if (peek().is(',')) { next(); continue; }
          expect('}', "'}' after vector operand");
          break;
        }
        if (o.vregs.size() != 2 && o.vregs.size() != 4 && o.vregs.size() != 8)
          fail(t, "vector operand must have 2, 4 or 8 elements");
      } else if (t.is('[')) {
        next();
        o.kind = Operand::Kind::addr;
        const Token& bt = peek();
        if (bt.kind == Token::word) {
          int32_t r = find_reg(bt.text);
          if (r >= 0) {
            o.reg = r;
          } else {
            o.sym = find_sym(bt.text);
            if (o.sym < 0) fail(bt, "undeclared register or variable '" + std::string(bt.text) + "' in address");
          }
          next();
          if (peek().is('+') || peek().is('-')) {
            bool minus = next().is('-');
            if (peek().is('-')) { next(); minus = !minus; }  // `[%rd1+-4]`
            Num n;
            if (peek().kind != Token::number || !parse_number(peek().text, minus, n) || n.kind != Num::integer)
              fail(peek(), "expected an integer offset in address");
            o.imm = int64_t(n.bits);
            next();
          }
        } else if (bt.kind == Token::number || bt.is('-')) {
          bool minus = false;
          if (bt.is('-')) { next(); minus = true; }
          Num n;
          if (peek().kind != Token::number || !parse_number(peek().text, minus, n) || n.kind != Num::integer)
            fail(peek(), "expected an address");
          o.imm = int64_t(n.bits);
          next();
        } else {
          fail(bt, "expected an address, found '" + std::string(bt.text) + "'");
        }
        expect(']', "']' after address");
      } else if (t.is('!')) {
        next();
        const Token& rt = peek();
        o.kind = Operand::Kind::reg;
        o.reg = reg_of(rt);
        o.neg = true;
        if (f.regs[o.reg].type != Type::pred) fail(rt, "'!' applies to predicates only");
      } else if (t.is('-') || t.kind == Token::number) {
        bool minus = false;
        if (t.is('-')) { next(); minus = true; }
        const Token& nt = peek();
        Num n;
        if (nt.kind != Token::number || !parse_number(nt.text, minus, n))
          fail(nt, "bad number '" + std::string(nt.text) + "'");
        next();
        o.kind = Operand::Kind::imm;
        o.imm = int64_t(n.bits);
        o.fimm = n.kind != Num::integer;
      } else if (t.kind == Token::word) {
        std::string_view w = t.text;
        int32_t r = find_reg(w);
        if (w == "_") {
          o.kind = Operand::Kind::sink;
          next();
        } else if (r >= 0) {
          o.kind = Operand::Kind::reg;
          o.reg = r;
          next();
          if (peek().is('|')) {
            if (in.ops.size() != 0 || (in.op != Opcode::setp && in.op != Opcode::shfl))
              fail(peek(), "'|' (a second destination) is only allowed on the first operand of setp and shfl");
            next();
            in.pair_dst = reg_of(peek());
          }
        } else if (w[0] == '%') {
          if (!parse_sreg(w, o)) fail(t, "undeclared register '" + std::string(w) + "'");
          next();
        } else if (in.op == Opcode::bra) {
          o.kind = Operand::Kind::label;
          label_fixes_.push_back({f.instrs.size(), in.ops.size(), std::string(w), t.line, t.col, scopes_.size()});
          next();
        } else {
          o.kind = Operand::Kind::sym;
          o.sym = find_sym(w);
          if (o.sym < 0) {
            if (m_->function_index.count(std::string(w)))
              fail(t, "taking the address of function '" + std::string(w) + "' is not supported");
            fail(t, "undeclared identifier '" + std::string(w) + "'");
          }
          next();
          if (peek().is('+')) {  // `mov.u64 %rd1, arr+8`: imm is a byte offset
            next();
            Num n;
            if (peek().kind != Token::number || !parse_number(peek().text, false, n) || n.kind != Num::integer)
              fail(peek(), "expected an integer offset after '" + std::string(w) + "+'");
            o.imm = int64_t(n.bits);
            next();
          }
        }
      } else {
        fail(t, "bad operand '" + std::string(t.text) + "'");
      }
      in.ops.push_back(std::move(o));
      if (peek().kind == Token::end) fail(peek(), "expected ';' before end of file");
    }
    next();  // ;
    // Shape checks, so that the executor can index operands without fear.
    auto [lo, hi] = operand_count(in.op);
    int nops = int(in.ops.size());
    if (nops < lo || nops > hi) {
      std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      fail(ot, "'" + std::string(word) + "' takes " + want + " operands, found " + std::to_string(nops));
    }
    int ap = addr_pos(in.op);
    for (int i = 0; i < nops; ++i) {
      bool is_addr = in.ops[i].kind == Operand::Kind::addr;
      if (i == ap && !is_addr) fail(ot, "operand " + std::to_string(i + 1) + " of '" + std::string(word) + "' must be an address [..]");
      if (i != ap && is_addr) fail(ot, "operand " + std::to_string(i + 1) + " of '" + std::string(word) + "' must not be an address");
    }
    if (writes_dst(in.op) && nops > 0) {
      auto k = in.ops[0].kind;
      if (k != Operand::Kind::reg && k != Operand::Kind::vec && k != Operand::Kind::sink)
        fail(ot, "the destination of '" + std::string(word) + "' must be a register");
      if (in.ops[0].neg) fail(ot, "a destination cannot be negated");
    }
    if (in.op == Opcode::bra && in.ops[0].kind != Operand::Kind::label)
      fail(ot, "bra needs a label (indirect branches are not supported)");
  }
  // Normalised text: tokens joined with single spaces where needed.
  std::string text;
  for (size_t i = first_tok; i < p_; ++i) {
    const Token& k = t_[i];
    if (k.is(';')) break;
    if (!text.empty()) {
      const Token& pk = t_[i - 1];
      bool sp = pk.is(',') || i - 1 == size_t(&ot - t_.data()) ||
                ((pk.kind == Token::word || pk.kind == Token::number) && (k.kind == Token::word || k.kind == Token::number));
      if (sp) text += ' ';
    }
    text += k.text;
  }
  in.text = std::move(text);
  for (Instr& mv : pending_vec_imms_) {
    // Width of one element: mov packs (type bits / elements), ld/st use the type.
    unsigned bits = type_bits(in.m.type);
    for (const Operand& o : in.ops)
      if (o.kind == Operand::Kind::vec && in.op == Opcode::mov) bits /= unsigned(o.vregs.size());
    Type t = bits == 8 ? Type::b8 : bits == 16 ? Type::b16 : bits == 64 ? Type::b64 : Type::b32;
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
      throw InputError(at(file_, mv.line, mv.col, "cannot size the immediate in this vector operand"));
    mv.m.type = t;
    f.regs[mv.ops[0].reg].type = t;
    mv.text = std::string("mov.") + type_name(t) + " " + f.regs[mv.ops[0].reg].name + ", " +
              std::to_string(mv.ops[1].imm) + "  (inserted: immediate in '" + in.text + "')";
    for (LabelFix& x : label_fixes_)
      if (x.instr == f.instrs.size()) ++x.instr;  // the bra (if any) moves down by one
    for (CallFix& x : call_fixes_)
      if (x.f == &f && x.instr == f.instrs.size()) ++x.instr;
    f.instrs.push_back(std::move(mv));
  }
  pending_vec_imms_.clear();
  f.instrs.push_back(std::move(in));
}

}  // namespace relgpu::ptx::detail
