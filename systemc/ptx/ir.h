// The decoded form of a PTX module. The parser (parser.cpp) builds it once;
// the analyses (analysis.cpp) annotate it; the executor (func/) runs it.
// Nothing downstream looks at PTX text again: operands are resolved to
// dense register indices, symbol indices and instruction indices.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace relgpu::ptx {

// ---- types ---------------------------------------------------------------
enum class Type : uint8_t {
  none, pred,
  b8, b16, b32, b64, b128,
  u8, u16, u32, u64,
  s8, s16, s32, s64,
  f16, f16x2, bf16, bf16x2, f32, f64,
};
unsigned type_bits(Type t);        // pred -> 1, b128 -> 128
inline unsigned type_bytes(Type t) { return type_bits(t) == 1 ? 1 : type_bits(t) / 8; }
bool type_is_float(Type t);        // f16.. f64
// 32-bit registers a value of type t takes in our allocation: an aligned pair
// for 64 bits, a quad for 128, one slot for 8/16/32 bits.
inline unsigned reg_words(Type t) { return type_bits(t) > 64 ? 4u : type_bits(t) > 32 ? 2u : 1u; }
bool type_is_signed(Type t);       // s8..s64
const char* type_name(Type t);     // "u32"

enum class Space : uint8_t { none, reg, global, shared, local, param, const_, generic };
const char* space_name(Space s);

// ---- opcodes ---------------------------------------------------------------
// X(enum, "ptx name"). The list is every opcode the parser recognises.
// Whether the executor implements it is a separate question: the executor
// exposes `bool func::implemented(const Instr&)`, and a module that uses a
// recognised but unimplemented opcode or modifier combination is rejected at
// load with "unsupported PTX instruction 'tex.2d'" at its line.
#define RELGPU_PTX_OPCODES(X) \
  X(abs, "abs") X(add, "add") X(addc, "addc") X(and_, "and") X(atom, "atom") \
  X(bar, "bar") X(barrier, "barrier") X(bfe, "bfe") X(bfi, "bfi") X(bfind, "bfind") \
  X(bra, "bra") X(brev, "brev") X(brkpt, "brkpt") X(brx, "brx") X(call, "call") \
  X(clz, "clz") X(cnot, "cnot") X(copysign, "copysign") X(cos, "cos") X(cvt, "cvt") \
  X(cvta, "cvta") X(div, "div") X(dp2a, "dp2a") X(dp4a, "dp4a") X(ex2, "ex2") X(exit, "exit") \
  X(fma, "fma") X(fns, "fns") X(isspacep, "isspacep") X(ld, "ld") X(ldu, "ldu") \
  X(lg2, "lg2") X(lop3, "lop3") X(mad, "mad") X(mad24, "mad24") X(madc, "madc") \
  X(match, "match") X(max, "max") X(membar, "membar") X(fence, "fence") X(min, "min") \
  X(mov, "mov") X(mul, "mul") X(mul24, "mul24") X(nanosleep, "nanosleep") X(neg, "neg") \
  X(not_, "not") X(or_, "or") X(pmevent, "pmevent") X(popc, "popc") X(prefetch, "prefetch") \
  X(prefetchu, "prefetchu") X(prmt, "prmt") X(rcp, "rcp") X(red, "red") X(redux, "redux") \
  X(rem, "rem") X(ret, "ret") X(rsqrt, "rsqrt") X(sad, "sad") X(selp, "selp") X(set, "set") \
  X(setp, "setp") X(shf, "shf") X(shfl, "shfl") X(shl, "shl") X(shr, "shr") X(sin, "sin") \
  X(slct, "slct") X(sqrt, "sqrt") X(st, "st") X(sub, "sub") X(subc, "subc") X(suld, "suld") \
  X(sust, "sust") X(tanh, "tanh") X(testp, "testp") X(tex, "tex") X(tld4, "tld4") \
  X(trap, "trap") X(txq, "txq") X(vote, "vote") X(wmma, "wmma") X(mma, "mma") X(xor_, "xor") \
  X(activemask, "activemask") X(cp, "cp") X(griddepcontrol, "griddepcontrol") X(alloca, "alloca") \
  X(stacksave, "stacksave") X(stackrestore, "stackrestore") X(applypriority, "applypriority") \
  X(discard, "discard") X(createpolicy, "createpolicy") X(elect, "elect") X(ldmatrix, "ldmatrix") \
  X(stmatrix, "stmatrix") X(mapa, "mapa") X(getctarank, "getctarank") X(mbarrier, "mbarrier") \
  X(tensormap, "tensormap") X(setmaxnreg, "setmaxnreg") X(szext, "szext") X(bmsk, "bmsk")
enum class Opcode : uint16_t {
#define RELGPU_X(e, s) e,
  RELGPU_PTX_OPCODES(RELGPU_X)
#undef RELGPU_X
  count_
};
const char* opcode_name(Opcode op);

// ---- modifiers ------------------------------------------------------------
enum class Rnd : uint8_t { none, rn, rz, rm, rp, rna, rni, rzi, rmi, rpi };
enum class Cmp : uint8_t { none, eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };
enum class BoolOp : uint8_t { none, and_, or_, xor_ };       // setp.lt.and, vote.all/any/uni/ballot below
enum class AtomOp : uint8_t { none, add, min, max, inc, dec, cas, exch, and_, or_, xor_ };
enum class VoteMode : uint8_t { none, all, any, uni, ballot };
enum class ShflMode : uint8_t { none, up, down, bfly, idx };
enum class PrmtMode : uint8_t { none, f4e, b4e, rc8, ecl, ecr, rc16 };
enum class MulMode : uint8_t { none, lo, hi, wide };          // mul/mad .lo .hi .wide
enum class ShfMode : uint8_t { none, l_clamp, l_wrap, r_clamp, r_wrap };   // bmsk/szext: .clamp -> r_clamp, .wrap -> r_wrap
enum class TestpOp : uint8_t { none, finite, infinite, number, notanumber, normal, subnormal };
enum class BarMode : uint8_t { none, sync, arrive, red_popc, red_and, red_or };
enum class Scope : uint8_t { none, cta, gpu, sys, cluster };

// Every modifier an instruction can carry. Fields not used by an opcode stay
// at their defaults. `type` is the instruction's (last) type suffix; for cvt
// it is the destination type and `type2` the source type; for set it is the
// destination type and `type2` the compared type; for slct `type2` is the
// selector type.
struct Mods {
  Type type = Type::none;
  Type type2 = Type::none;
  Space space = Space::none;   // ld/st/atom/red/cvta/isspacep/prefetch
  uint8_t vec = 1;             // .v2 -> 2, .v4 -> 4
  Rnd rnd = Rnd::none;
  Cmp cmp = Cmp::none;
  BoolOp bop = BoolOp::none;
  AtomOp atom = AtomOp::none;
  VoteMode vote = VoteMode::none;
  ShflMode shfl = ShflMode::none;
  PrmtMode prmt = PrmtMode::none;
  MulMode mul = MulMode::none;   // also dp2a.lo / dp2a.hi
  ShfMode shf = ShfMode::none;
  TestpOp testp = TestpOp::none;   // testp.finite ...
  BarMode bar = BarMode::none;
  Scope scope = Scope::none;
  bool ftz = false, sat = false, approx = false, full = false;
  bool cc = false;             // add.cc / sub.cc / mad.cc: writes the carry flag
  bool uni = false;            // bra.uni / call.uni
  bool nc = false;             // ld.global.nc
  bool sync = false;           // shfl.sync / vote.sync / bar.sync via barrier.sync
  bool aligned = false;        // bar.sync is bar.sync.aligned; barrier.sync.aligned
  bool volatile_ = false, relaxed = false, acquire = false, release = false, weak = false;
  bool to = false;             // cvta.to.global
  bool shiftamt = false;       // bfind.shiftamt
  bool noftz = false, oob = false, relu = false, satfinite = false, nan = false, xorsign = false, abs = false;
  bool warp = false;           // bar.warp.sync (__syncwarp): operand is the member mask
  // Modifiers the parser recognises as PTX but does not model (".2d",
  // ".m16n8k8", ".testp" classes ...), as written, e.g. ".2d.v4". validate()
  // rejects an instruction with any, so none is silently ignored.
  std::string unknown;
  // Cache and eviction hints (.ca .cg .cs .lu .cv .wb .wt .L1::..., .L2::...)
  // do not change results; the parser keeps their text only for ptx-info.
  std::string hints;
};

// ---- operands ---------------------------------------------------------------
// Special registers, with .x/.y/.z in Operand::comp.
enum class Sreg : uint8_t {
  none, tid, ntid, ctaid, nctaid, laneid, warpid, nwarpid, smid, nsmid, gridid,
  clock, clock64, lanemask_eq, lanemask_le, lanemask_lt, lanemask_ge, lanemask_gt,
  globaltimer, pm0, envreg, dynamic_smem_size, total_smem_size,
};

struct Operand {
  enum class Kind : uint8_t {
    none,
    reg,      // reg (dense index into Function::regs); neg = `!%p` on a predicate source
    imm,      // imm holds the value's bits: integers sign-extended, 0fXXXXXXXX as f32 bits,
              // 0dXXXXXXXXXXXXXXXX and decimal floats as f64 bits (fimm = true)
    sreg,     // special register sreg, component comp (0=x,1=y,2=z)
    addr,     // [base + imm]: base is reg (>=0) or sym (>=0) or neither (absolute)
    sym,      // a symbol used as a value: `mov.u64 %rd1, smem;` or a param/global name
    label,    // branch target: imm = instruction index in Function::instrs
    vec,      // {%r1, %r2, _, %r4}: vregs, -1 for the `_` sink
    func,     // a callee: sym = index into Module::functions
    list,     // call argument lists `(a, b, c)`: vregs hold param symbol indices
    sink,     // `_` as a whole operand
  };
  Kind kind = Kind::none;
  bool neg = false;            // `!%p`
  bool fimm = false;           // imm is a floating-point literal
  uint8_t comp = 0;            // .x/.y/.z for sreg
  Sreg sreg = Sreg::none;
  int32_t reg = -1;            // register index for reg/addr
  int32_t sym = -1;            // Symbol index (Function::symbols) for addr/sym/list elements
  int64_t imm = 0;
  std::vector<int32_t> vregs;  // vec: register indices (-1 = sink); list: symbol indices
};

// ---- instructions -----------------------------------------------------------
// Results of the per-kernel analyses (analysis.cpp), stored on the instruction
// so the executor and timing model read them in O(1).
struct InstrInfo {
  bool dead[2] = {false, false}; // GR-Guard: source operand 0/1 is a register, not read again before rewrite
  int32_t ipdom = -1;            // branches: reconvergence point (instruction index; n = function exit)
  int32_t block = -1;            // basic block index
  bool tainted_branch = false;   // branch condition depends on %tid/%ctaid (directly or through data)
  // Bit k: the k-th source register read (see ptx/analysis.h, instr_uses) is
  // its last use before a rewrite. dead[0..1] are bits 0 and 1.
  uint32_t dead_mask = 0;
};

struct Instr {
  Opcode op = Opcode::count_;
  Mods m;
  int32_t guard = -1;          // guard predicate register, -1 = none
  bool guard_neg = false;      // @!%p
  std::vector<Operand> ops;    // destination(s) first, as written in PTX
  // `setp ... %p|%q, a, b` and `shfl.sync ... %r|%p, ...` have a second
  // destination: pair_dst is its register (-1 = none).
  int32_t pair_dst = -1;
  uint32_t line = 0, col = 0;  // position in the source file (1-based)
  InstrInfo info;
  std::string text;            // the instruction as written, for messages and ptx-info
  // The operands were not decoded (texture, surface, matrix and async-copy
  // instructions): ops is empty and validate() rejects the instruction.
  bool undecoded = false;
};

// ---- registers, symbols, functions --------------------------------------------
struct Reg {
  std::string name;            // "%r12"
  Type type;                   // declared type (.pred, .b32, .f64, ...)
};

// A named piece of memory visible to a function: module globals/consts,
// kernel .shared, function .local, and .param (kernel parameters, callee
// parameters, and the caller-side `.param` temporaries of a call sequence).
struct Symbol {
  std::string name;
  Space space = Space::none;
  Type type = Type::none;      // element type
  uint32_t align = 0;          // bytes; 0 = natural
  uint64_t size = 0;           // bytes; 0 with `extern_` = dynamic shared array
  uint64_t offset = 0;         // byte offset inside its space (param: in the param buffer;
                               // shared: in the CTA's static shared area; local: in the frame)
  bool extern_ = false;        // `.extern .shared .b8 smem[];`
  std::vector<uint8_t> init;   // initializer bytes (globals/consts), empty = zero
  int32_t module_sym = -1;     // for module-scope symbols referenced from a function:
                               // index into Module::globals
  // Addresses inside the initializer (`.u64 p = generic(x);`, `{a, b+8}`):
  // at `offset` in init, write the address of Module::globals[target] plus
  // addend, as a generic address (generic = true) or in its own space.
  struct Reloc { uint64_t offset = 0; int32_t target = -1; int64_t addend = 0; bool generic = false; };
  std::vector<Reloc> relocs;
};

struct Function {
  std::string name;
  bool is_entry = false;       // .entry (kernel) vs .func
  std::vector<Reg> regs;       // dense register namespace of this function
  std::vector<Symbol> symbols; // everything an operand's sym may index
  std::vector<int32_t> params;   // symbol indices of the formal parameters, in order
  std::vector<int32_t> rets;     // symbol indices of the return parameters (.func)
  uint64_t param_bytes = 0;    // size of the kernel/function parameter buffer
  uint64_t shared_bytes = 0;   // static shared memory (kernel-level, incl. module .shared used)
  uint64_t local_bytes = 0;    // .local frame size per thread
  std::vector<Instr> instrs;
  std::unordered_map<std::string, int32_t> labels;  // label -> instruction index
  // Performance-tuning directives (.maxntid, .reqntid, .minnctapersm, .maxnreg).
  uint32_t maxntid[3] = {0, 0, 0}, reqntid[3] = {0, 0, 0};
  uint32_t minnctapersm = 0, maxnreg = 0;
  uint32_t line = 0;           // line of the .entry/.func header
  // ---- analysis results (analysis.cpp) ----
  // Registers per thread. Our allocator's count lays out the physical
  // registers (and .func frames); ptxas's count (`ptxas -v`, ptx/ptxas.h;
  // 0 = not known) is what the hardware allocates. Occupancy and a warp's RF
  // rows follow regs_used(): ptxas's count when known, else ours. Physical
  // registers our allocator numbers at or above it hold their data in the
  // warp's overflow store (sm/regfile.h); where there are any,
  // fit_to_ptxas numbers the constant operands (parameters, which SASS
  // reads from the constant bank) last, so they are those first.
  uint32_t regs_allocator = 0;    // 32-bit registers after our allocation (64-bit values take 2)
  uint32_t regs_ptxas = 0;
  uint32_t regs_used() const { return regs_ptxas ? regs_ptxas : regs_allocator; }
  std::vector<int32_t> phys_reg;  // per virtual register: first physical 32-bit register
  // LESS (ptx::split_namespaces): physical registers [0, less_sram_regs) are
  // the SRAM namespace, the ones above STT-RAM; -1 = not split.
  int32_t less_sram_regs = -1;
  std::vector<int32_t> tainted_regs;  // registers used under ID-dependent branches
  // Registers used under branches whose guard derives from the ids by
  // arithmetic alone, not through a value loaded from memory (a subset of
  // tainted_regs): the PV paper's "programmatic-value dependent" branches.
  std::vector<int32_t> programmatic_regs;
  // Thread-dependent branches whose condition a launch can evaluate per
  // thread (hybrid banks' lane compaction, spec 002 §5): the guard is
  // computed from %tid, %ntid, %ctaid, %nctaid, %laneid, immediates and
  // kernel parameters only. `slice`: the instructions that compute it, in
  // program order, each register in it written by one instruction of the
  // function. taken_len / fall_len: instructions on each path before the
  // reconvergence point (the paths' blocks, counted once each).
  struct LaneBranch {
    int32_t at = -1;
    std::vector<int32_t> slice;
    uint32_t taken_len = 0, fall_len = 0;
  };
  std::vector<LaneBranch> lane_branches;
  std::vector<int32_t> lane_regs;  // registers used under lane_branches (a subset of tainted_regs)
  // ---- additions (parser) ----
  bool defined = false;           // has a body (false: a prototype / .extern declaration)
  // Kernels: byte offset of the dynamic (extern) shared array, after the
  // static shared area; extern .shared symbols carry the same offset.
  uint64_t dyn_shared_offset = 0;
  // ---- additions (analysis.cpp) ----
  struct Block { int32_t first = 0, last = 0; std::vector<int32_t> succ; };  // [first, last] instructions
  std::vector<Block> blocks;      // basic blocks in instruction order
  // def_uses[i]: for an instruction i that writes registers, the instructions
  // that may read a value it wrote (sorted); empty otherwise.
  std::vector<std::vector<int32_t>> def_uses;
};

struct Module {
  std::string file;            // for messages
  std::string version;         // "9.0"
  std::string target;          // "sm_75"
  unsigned address_size = 64;
  std::vector<Symbol> globals; // .global / .const / module-scope .shared
  std::vector<std::unique_ptr<Function>> functions;  // stable addresses
  std::unordered_map<std::string, int32_t> function_index;
  const Function* find(const std::string& name) const;
  // The architecture number of .target ("sm_75" -> 75, "sm_90a" -> 90); 0
  // when the target names none.
  unsigned target_sm() const;
};

}  // namespace relgpu::ptx
