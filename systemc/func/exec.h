// The SIMT executor: what one warp instruction does. Functional mode
// (engine.h) and the cycle-level timing model both drive it; timing decides
// WHEN each stage runs, the executor decides WHAT it does.
//
// Stepped API, one warp instruction in flight per InFlight:
//
//   Executor ex(launch, regs);           // once per launch
//   Cta cta; ex.init_cta(cta, ctaid, rf_base);   // warps get RegStorage ids rf_base..
//   InFlight f;
//   if (ex.fetch(w, f)) {                // pc, decoded instruction, SIMT mask (f.active)
//     ex.read_operands(w, f);            // registers via RegStorage::read, guard -> f.exec,
//                                        // immediates / special registers / symbol addresses
//     ex.execute(w, f);                  // ALU (alu_exec), cross-lane ops, branch decision;
//                                        // memory ops: per-lane f.addr/f.lane_space/f.bytes
//     ex.memory(w, f, cta);              // loads/stores/atomics against memory (no-op otherwise)
//     ex.writeback(w, f);                // results -> RegStorage::write
//     Event e = ex.commit(w, f, cta);    // pc / SIMT stack / call frames / exit / barrier
//   }
//   ex.step(w, cta)                      // all of the above, functional fast path
//
// fetch returns false when the warp is done or waiting at a barrier.
// Event::barrier means the warp now waits; Cta::arrive (called by commit)
// has already released the barrier if this was the last arrival, and
// Cta::released_warps() lists warps to wake. Errors the kernel causes throw
// KernelError naming kernel, PC (index and file:line:col), warp, thread
// (ctaid/tid) and address.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "func/access_log.h"
#include "func/memory.h"
#include "func/opclass.h"
#include "func/warp.h"
#include "ptx/ir.h"

namespace relgpu::mem { struct AtomLane; }

namespace relgpu::func {

// True if the executor runs this instruction (alu_supports or handled here).
bool implemented(const ptx::Instr& in);

struct Dim3u { uint32_t x = 1, y = 1, z = 1; };

// Everything fixed for one launch.
struct LaunchCtx {
  const ptx::Module* mod = nullptr;
  const ptx::Function* kernel = nullptr;
  Dim3u grid, block;
  uint64_t dyn_shmem = 0;
  const std::vector<uint8_t>* params = nullptr;  // kernel parameter buffer
  GlobalMemory* gmem = nullptr;
  std::ostream* out = nullptr;                    // printf output (std::cout if null)
  uint64_t gridid = 0;
  uint64_t stack_bytes = 1024;                    // per-thread stack above the kernel frame
  uint64_t max_warp_insn = UINT64_MAX;            // runaway guard, per launch
  // Independent thread scheduling (func.reconvergence): 0 = off (IPDOM
  // stack), else func.its_yield.
  uint32_t its_yield = 0;
  uint64_t grid_workspace = 0;  // cooperative launch: cooperative groups' grid barrier, read as %envreg1:%envreg2
  AccessLog* access = nullptr;  // records the global allocations read and written (runtime/resilience.h)
};

// What %smid, %nsmid, %clock, %clock64 and %globaltimer read. The timing
// model's SMs supply their own (gpu/sm_module.h); without one (functional
// mode) the executor's deterministic stand-ins apply: %smid 0, %nsmid 1, and
// the clocks and %globaltimer count the warp instructions issued in the
// launch so far (one per cycle, one cycle per ns).
class MachineRegs {
 public:
  virtual ~MachineRegs() = default;
  virtual uint32_t smid() const = 0;
  virtual uint32_t nsmid() const = 0;
  virtual uint64_t clock64() const = 0;         // this SM's cycle counter
  virtual uint64_t globaltimer_ns() const = 0;  // simulated time
};

// Kind of execution, resolved once per instruction at decode.
enum class XK : uint8_t {
  alu, mov, pack, unpack, ld, st, atom, red, bra, call, ret, exit, trap, brkpt, bar, nop, wsync,
  vote, shfl, activemask, match, redux, cvta, isspacep,
};

// A decoded operand.
struct DOp {
  enum K : uint8_t { kNone, kReg, kImm, kSreg, kLocal, kVec, kSink } k = kNone;
  uint8_t comp = 0;
  bool neg = false;             // `!%p`
  ptx::Sreg sreg = ptx::Sreg::none;
  int32_t reg = -1;
  uint64_t imm = 0;             // imm value; local_addr: offset in the frame
  int32_t cidx = -1;            // imm: index of its broadcast copy in Code::consts
  int32_t v[4] = {-1, -1, -1, -1};  // vec registers (-1 = `_`)
  uint8_t nv = 0;
};

struct DInstr {
  const ptx::Instr* in = nullptr;
  XK xk = XK::nop;
  OpClass cls = OpClass::OTHER;
  int32_t guard = -1;
  bool gneg = false;
  bool has_dst = false;
  DOp dst;
  int32_t dst2 = -1;            // pair destination
  uint8_t nsrc = 0;
  DOp src[5];
  // memory: [abase + aoff (+ frame local base if alocal)]
  ptx::Space space = ptx::Space::none;
  uint8_t bytes = 0, vec = 1;
  bool sign = false;            // sign-extend loads
  int32_t abase = -1;
  uint64_t aoff = 0;
  bool alocal = false;
  int32_t target = -1, ipdom = -1;
  const Code* callee = nullptr;
  enum class Builtin : uint8_t { none, vprintf, assertfail, malloc, free } builtin = Builtin::none;
  int32_t ret_sym = -1, arg_syms[8];  // call: caller temporaries (frame param slots)
  uint8_t nargs = 0;
};

// A function decoded for execution.
struct Code {
  const ptx::Function* fn = nullptr;
  std::vector<DInstr> ins;
  std::vector<uint64_t> reg_mask;     // per register: mask of its width
  std::vector<uint8_t> reg_bits;
  std::vector<uint32_t> param_slot;   // per symbol: offset in the frame's param area
  uint64_t param_area = 0;            // bytes per lane
  uint64_t local_bytes = 0;           // frame size, 16-aligned
  std::vector<std::vector<uint64_t>> consts;  // broadcast immediates, 32 lanes each
};

enum class Event : uint8_t { none, barrier, exit };

// One warp instruction in flight through the stages.
struct InFlight {
  const DInstr* d = nullptr;
  const Code* code = nullptr;
  int32_t pc = -1;
  uint32_t active = 0;          // SIMT mask at fetch (counted as thread instructions)
  uint32_t exec = 0;            // active & guard
  bool direct = false;          // functional fast path: operands point into FlatRegs
  const uint64_t* src[5] = {};
  uint64_t sbuf[5][kWarpSize];
  const uint64_t* abase = nullptr;   // address base register values
  uint64_t abuf[kWarpSize];
  uint64_t dbuf[4][kWarpSize];  // results: dst (or vector elements)
  uint64_t d2buf[kWarpSize];    // pair destination
  uint8_t ndst = 0;             // result registers to write back
  bool wrote_direct = false;
  // memory ops, filled by execute(): per lane space and address in that space
  uint64_t addr[kWarpSize];
  ptx::Space lane_space[kWarpSize];
  uint32_t bytes = 0;           // per lane (element size * vec)
  // control
  uint32_t taken = 0;           // branch: lanes taking it
  uint32_t bar_id = 0, bar_count = 0;
  uint32_t pred_mask = 0;       // bar.red / vote: lanes whose predicate is true
};

// One CTA: its warps, shared memory, local stacks, barriers.
class Cta {
 public:
  uint32_t ctaid[3] = {0, 0, 0};
  std::vector<Warp> warps;
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local;           // nthreads * local_per_thread, allocated on first use
  uint64_t local_per_thread = 0;
  uint64_t dyn_base = 0;                // start of dynamic shared memory
  BarrierState bars[16];
  std::vector<unsigned> released;       // warps woken by the last arrive(), for the timing model

  bool all_done() const {
    for (auto& w : warps)
      if (!w.done) return false;
    return true;
  }
};

class Executor {
 public:
  Executor(const LaunchCtx& ctx, RegStorage& regs);
  ~Executor();

  // Creates cta's warps (all threads at pc 0 of the kernel); warp i uses
  // RegStorage warp rf_base + i.
  void init_cta(Cta& cta, const uint32_t ctaid[3], unsigned rf_base = 0);

  // The stages of one warp instruction, in order (see the top of this file).
  bool fetch(Cta& cta, Warp& w, InFlight& f);
  void read_operands(Cta& cta, Warp& w, InFlight& f);
  void execute(Cta& cta, Warp& w, InFlight& f);
  void memory(Cta& cta, Warp& w, InFlight& f);       // only ld/st/atom/red do anything
  void writeback(Cta& cta, Warp& w, InFlight& f);
  Event commit(Cta& cta, Warp& w, InFlight& f);
  // All stages; returns commit's event (Event::none also when the warp could
  // not issue). Uses the FlatRegs fast path when the storage is FlatRegs.
  Event step(Cta& cta, Warp& w, InFlight& f);
  static bool is_memory(const InFlight& f) {
    return f.d && (f.d->xk == XK::ld || f.d->xk == XK::st || f.d->xk == XK::atom || f.d->xk == XK::red);
  }

  // A warp exited: barriers waiting for it may now release.
  void warp_exited(Cta& cta);
  // For deadlock reports: each unfinished warp, where it waits.
  std::string describe_waits(const Cta& cta) const;

  // ---- timing-model hooks (exec_timing.cpp) ----
  // The timing model moves global-memory lanes of ld/st/atom/red through its
  // 128-B line requests instead of GlobalMemory; every other lane (shared,
  // local, param, const) still goes through memory(). Call after execute().
  // Global lanes of f (exec lanes whose space is global), checked for
  // bounds, alignment, const stores and atomic spaces with the same errors
  // memory() throws.
  uint32_t global_lanes(Cta& cta, Warp& w, InFlight& f);
  // memory() for the exec lanes that are not global; sets f.ndst as memory() does.
  void memory_non_global(Cta& cta, Warp& w, InFlight& f, uint32_t global);
  // ld: results of the global lanes whose address lies in the line at
  // `line` (line-aligned, mem::kLineBytes) from that line's bytes.
  void load_from_line(InFlight& f, uint32_t global, uint64_t line, const uint8_t* data) const;
  // st: writes the global lanes' bytes in this line into data and marks
  // byte_enable (0xFF); lanes in lane order, so the last lane wins as in memory().
  void store_to_line(InFlight& f, uint32_t global, uint64_t line, uint8_t* data, uint8_t* byte_enable) const;
  // atom/red: the global lanes' operations on this line, in lane order.
  void atoms_for_line(InFlight& f, uint32_t global, uint64_t line, std::vector<mem::AtomLane>& out) const;
  // atom: the old values returned with a line's AtomLanes become the results.
  void atom_results(InFlight& f, const std::vector<mem::AtomLane>& lanes) const;

  const LaunchCtx& ctx() const { return ctx_; }
  // The machine behind the special registers (nullptr: functional stand-ins).
  void set_machine(const MachineRegs* m) { machine_ = m; }
  const Code& code(const ptx::Function* fn);   // decoded (cached per launch)
  uint64_t issued() const { return issued_; }
  uint64_t its_yields() const { return its_yields_; }  // waiting threads let run ahead (func.its_yield)

  // Throws KernelError "kernel 'k': what; at PC n (file:line:col `text`),
  // warp w of CTA (x,y,z), thread tid (x,y,z) lane l" (no thread if lane < 0).
  [[noreturn]] void fail(const Cta& cta, const Warp& w, int pc, int lane, const std::string& what) const;
  std::string describe_pc(const Warp& w, int pc) const;

 private:
  void decode(Code& c);
  const uint64_t* operand(Cta& cta, Warp& w, InFlight& f, const DOp& op, unsigned i);
  void sreg_value(const Cta& cta, const Warp& w, const DOp& op, uint64_t* out) const;
  void compute_addresses(Cta& cta, Warp& w, InFlight& f);
  uint8_t* resolve(Cta& cta, Warp& w, int pc, int lane, ptx::Space sp, uint64_t a, uint64_t n, bool store,
                   const char* what);
  uint8_t* lane_ptr(Cta& cta, Warp& w, InFlight& f, unsigned lane, bool store, const char* what);
  void exec_cross_lane(Cta& cta, Warp& w, InFlight& f);
  void do_call(Cta& cta, Warp& w, InFlight& f);
  void do_return(Cta& cta, Warp& w);
  void builtin_call(Cta& cta, Warp& w, InFlight& f);
  void heap_call(Cta& cta, Warp& w, InFlight& f);
  void remove_threads(Warp& w, uint32_t m, bool all_frames);
  void its_branch(Warp& w, const InFlight& f, size_t depth);
  bool its_yield(Warp& w);
  enum class Converge : uint8_t { arrive, pass, wait };
  Converge its_converge(Cta& cta, Warp& w, InFlight& f, uint32_t need);
  void warp_sync(Cta& cta, Warp& w, InFlight& f);
  bool its_barrier(Cta& cta, Warp& w, InFlight& f);
  void normalize(Cta& cta, Warp& w);
  void arrive(Cta& cta, Warp& w, InFlight& f);
  bool barrier_ready(const Cta& cta, unsigned b) const;
  void release(Cta& cta, unsigned b);
  void write_reg(Warp& w, int32_t reg, uint32_t mask, const uint64_t* v);
  uint64_t param_u64(const Warp& w, unsigned lane, int32_t sym) const;
  std::string read_cstring(Cta& cta, Warp& w, int pc, unsigned lane, uint64_t generic);
  // After a lane's global/const access resolved (gmem->last_hit() is its allocation): into ctx_.access.
  void note_access(const InFlight& f, unsigned l, uint32_t bytes, bool read, bool write) {
    if (ctx_.access && (f.lane_space[l] == ptx::Space::global || f.lane_space[l] == ptx::Space::const_))
      ctx_.access->note(ctx_.gmem->last_hit(), f.addr[l], bytes, read, write);
  }

  LaunchCtx ctx_;
  RegStorage& regs_;
  FlatRegs* flat_ = nullptr;
  std::map<const ptx::Function*, std::unique_ptr<Code>> codes_;
  const Code* kcode_ = nullptr;
  const MachineRegs* machine_ = nullptr;
  uint64_t issued_ = 0;
  uint64_t its_yields_ = 0;
};

// Applies one atomic lane to the line holding it (line = the line's bytes)
// and stores the value before the operation in a.old: the memory side's
// half of an atomic, with the executor's semantics.
void apply_atom(mem::AtomLane& a, uint8_t* line);

}  // namespace relgpu::func
