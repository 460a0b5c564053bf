// The SM pipeline (implements SmCore). Stages, run in reverse order each
// cycle so that each consumes what the previous cycle produced:
//   responses -> writeback -> LD/ST unit -> dispatch (OC -> FU) ->
//   operand read (bank arbitration) -> issue -> fetch -> send requests
//
// Timing of one ALU instruction: issued at t, its operands are read from
// the banks at t+1 (later on a bank conflict), it dispatches to its unit at
// t+2 and writes back at t+2+latency; a dependent instruction issues in the
// writeback cycle. So a dependent chain takes latency + 2 cycles per
// instruction.
//
// Functional work is done by func::Executor at fixed points:
//   issue      fetch (SIMT mask); non-control instructions also commit here
//              (pc advance), so a warp can have several instructions in flight
//   dispatch   read_operands (from the banked RF) + execute; per warp in
//              program order, so side state (carry, memory order) is kept
//   LD/ST      non-global lanes via memory(); global lanes through L1 lines
//              and line requests (exec_timing.cpp hooks)
//   writeback  writeback into the RF; control instructions commit here
// Control instructions (bra, call, ret, exit, bar, membar, trap) stop the
// warp's issue until they write back; all but bra also wait until the warp
// has nothing in flight and its stores are acknowledged ("drain"), so a
// barrier or membar sees all earlier memory effects of the warp.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "power/rf_energy.h"
#include "reliability/chip.h"
#include "reliability/rf_delay.h"
#include "sm/argo.h"
#include "sm/bot_path.h"
#include "sm/bot_unit.h"
#include "sm/dead_time.h"
#include "sm/grguard.h"
#include "sm/issue_gate.h"
#include "sm/ro_cache.h"
#include "sm/keys.h"
#include "sm/l1d.h"
#include "sm/less_unit.h"
#include "sm/upsets.h"
#include "sm/inst_hook.h"
#include "sm/ldst_hook.h"
#include "sm/op_timing.h"
#include "sm/regfile.h"
#include "sm/rise.h"
#include "sm/sm_core.h"
#include "sm/sp_upsets.h"

namespace relgpu::sm {

enum class Unit : uint8_t { sp, dp, sfu, mem };
// kThrottled: the issue gate (the droop predictor) deferred a ready
// instruction; kHeld: the global smoother holds the SM's issue
// (sm/issue_gate.h, core_smoothing.cpp).
enum Stall : uint8_t { kIssued, kScoreboard, kStructural, kMemory, kBarrier, kIdle, kThrottled, kHeld, kStallCount };

// Per decoded instruction, computed once per function.
struct StaticOp {
  Unit unit = Unit::sp;
  IssueClass cls = IssueClass::INT;
  uint16_t latency = 1, ii = 1;
  bool control = false, drain = false, mem = false;
  bool bypass = false;         // not cached in L1: .cg/.cv/volatile, gpu-scope relaxed/acquire loads, atomics
  bool acquire = false;        // gpu/sys-scope acquire (ld, atom, fence, membar): later loads miss L1
  // Registers read / written, as physical 32-bit registers of the frame
  // (register-file values) or frame register slots (predicates and
  // registers without a physical one). The scoreboard works on physical
  // registers: the allocator reuses one for several virtual registers, and
  // a dead load result must not land after a newer value of the same entry.
  std::vector<uint16_t> rd_phys, rd_slot, wr_phys, wr_slot, sb_phys, sb_slot;
  uint32_t rd_dead = 0;        // GR-Guard: bit i = rd_phys[i] carries a dead bit (sm/grguard.h)
  uint32_t rd_dead_all = 0;    // the same with a dead bit on every source operand (grguard.dead_bits=all)
  bool uniform = false;        // uniform vectors: uniform when its register sources are (sm/uniform_unit.h)
  bool dup = false;            // RISE: an SP instruction a copy can re-run from its operands (sm/rise.h)
};

// RISE's copy of one SP instruction (sm/rise.h, core_rise.cpp).
struct RiseInst {
  uint32_t lanes = 0;          // lanes a copy checks
  uint32_t dup = 0;            // idle lanes holding the copy (a warp of <= 16 threads)
  uint32_t carry_in = 0;       // the warp's carry flags before it ran
  Rise::Why why = Rise::Why::none;
  uint64_t buf[5][32];         // the copy's results: dbuf[0..3], d2buf
  // A full copy issues in the next cycle (Full-RISE); the others ride in idle lanes.
  bool copy() const { return why == Rise::Why::all || why == Rise::Why::idle_sm || why == Rise::Why::pending; }
};

// One warp instruction in flight.
struct Inst {
  func::InFlight f;
  const StaticOp* op = nullptr;
  unsigned ws = 0;
  uint64_t seq = 0;
  uint32_t pbase = 0, sbase = 0; // frame bases at issue (scoreboard release)
  int oc = -1;                 // operand collector while collecting
  uint8_t nread = 0, nwrite = 0;
  uint8_t read_group[24], write_group[12];
  uint32_t reads_left = 0;     // bit per read not yet granted
  uint64_t ready = 0;          // result / data available
  // LD/ST
  bool ldst_started = false;
  uint32_t gmask = 0;          // global lanes
  uint8_t nlines = 0, next_line = 0;
  uint64_t lines[32];
  uint8_t nclines = 0, next_cline = 0;  // constant-cache lines (const and param lanes)
  uint64_t clines[32];
  uint64_t busy_until = 0;     // non-global part occupies the unit until then
  uint16_t pending = 0;        // line responses outstanding
  bool left_unit = false;      // all lines sent / looked up
  GrInst gr;                   // GR-Guard (sm/grguard.h)
  uint64_t opnd_ready = 0;     // BOT: a slow sub-bank read delivers its operand then
  uint64_t wb_done = 0;        // an RF path hook granted its write; it completes in that cycle (0: not yet)
  LdstHook::Tag ldst_tag;      // what its L2 requests carry (sm/ldst_hook.h: LoSCache)
  bool scalar = false;         // the instruction hook made it scalar at issue (sm/inst_hook.h)
  uint32_t scalar_reads = 0;   // bit i: read i is of a uniform register (its scalar slot's banks only)
  RiseInst rise;               // RISE (sm/rise.h)
};

struct WarpSlot {
  func::Warp* w = nullptr;
  func::Cta* cta = nullptr;
  unsigned cta_slot = 0;
  uint64_t age = 0;            // launch order (GTO's "oldest")
  uint8_t ib = 0;              // instruction-buffer entries
  uint64_t ib_ready = 0;
  bool control = false;        // a control instruction in flight
  bool imiss = false;          // its next instruction's line is being fetched
  unsigned inflight = 0;       // issued, not written back
  unsigned stores = 0;         // store / reduction requests not acknowledged
  uint64_t issue_seq = 0, dispatch_seq = 0;
  // Scoreboard, per physical register / per register slot: 0 free,
  // 1 ALU result pending, 2 memory result pending.
  std::vector<uint8_t> sbp, sbs;
  const func::Code* code = nullptr;  // current frame's code, its ops and bases
  size_t depth = 0;
  const StaticOp* ops = nullptr;
  uint32_t pbase = 0;
  uint64_t wake = 0;           // ARGO (sm/argo.h): its RF rows are powered from this cycle
  // check() result cache: a warp stalled on its scoreboard, a barrier, a
  // control instruction or an empty buffer stays stalled until something
  // of its own changes (then `dirty` is set), so the schedulers skip it.
  // Structural stalls are cached too, with the instruction and its
  // collector pool: only a free collector is then missing.
  bool dirty = true;
  uint8_t cached = 0, pool = 0;
  const StaticOp* cached_op = nullptr;
  uint64_t hold = 0;           // RISE: a detected mismatch re-fetches; no issue before this cycle
  // RISE Partial-RISE: a diverged warp ran these lanes of this warp's next
  // instruction (at pair_pc) in its idle lanes; flips are strikes on them.
  uint32_t pair_lanes = 0;
  int32_t pair_pc = -1;
  const func::Code* pair_code = nullptr;
  uint64_t pair_until = 0;
  uint32_t pair_flip[32] = {};
};

struct CtaSlot {
  func::Cta cta;
  bool live = false;
  uint32_t threads = 0;
  uint64_t shared = 0;
  std::vector<unsigned> warps;  // warp slots
};

struct Scheduler {
  std::vector<unsigned> order;  // its warp slots, by age
  int last = -1;                // last issued warp slot
  std::vector<unsigned> active, pending;  // two_level pools
  unsigned group = 0;                     // fetch_group: the group with priority
  uint64_t copy_at = UINT64_MAX;          // RISE: a full copy takes this cycle's issue slot
};

class Core final : public SmCore {
 public:
  Core(unsigned sm_id, const config::Config& cfg, MemPort& port);
  ~Core() override;

  void begin_launch(const func::LaunchCtx& ctx) override;
  bool can_accept(const CtaShape& s) const override;
  config::json occupancy(const CtaShape& s) const override;
  void add_cta(const uint32_t ctaid[3]) override;
  unsigned take_finished() override;
  bool idle() const override;
  void cycle(uint64_t now) override;
  void on_response(std::unique_ptr<LineRequest> r) override;
  uint64_t next_active_cycle(uint64_t now) const override;
  void add_observer(ActivityObserver* o) override { observers_.push_back(o); }
  void set_machine(const func::MachineRegs* m) override { machine_ = m; }
  void set_warp_sink(ActiveWarpSink* sink, unsigned period) override;
  config::json stats() const override;

  // Debug / test hook: every issued instruction as (cycle, warp slot, pc).
  struct IssueRecord { uint64_t cycle; unsigned ws; int32_t pc; };
  void set_issue_trace(std::vector<IssueRecord>* t) { trace_ = t; }

  RegisterFile& regfile() { return rf_; }
  SmRegs& regs() { return regs_; }
  const RowAllocator& row_allocator() const { return rows_; }
  L1D& l1d() { return l1_; }
  // The LD/ST hook (sm/ldst_hook.h): LoSCache's table, attached by make_sm.
  void attach_ldst_hook(std::unique_ptr<LdstHook> h) { ldst_ = std::move(h); }
  // The instruction hook (sm/inst_hook.h): uniform vectors, attached by make_sm.
  void attach_inst_hook(std::unique_ptr<InstHook> h) { inst_ = std::move(h); }
  double rf_fmax_mhz() const override { return rf_energy_->fmax_mhz(); }
  double rf_vdd() const override { return rf_faults()->vdd(); }
  unsigned rf_entry_bits() const override { return rf_.entry_bits(); }
  const GrGuard* grguard() const { return gr_.get(); }  // null when grguard.enable is false
  // Lanes of warp slot ws that hold a live thread: an instruction whose
  // active mask is all of them is non-divergent (exited lanes and lanes
  // without a thread never read their registers again).
  uint32_t live_lanes(unsigned ws) const {
    const func::Warp* w = warps_[ws].w;
    return w ? w->valid & ~w->exited : 0;
  }
  const reliability::RfFaults* rf_faults() const { return &chip_->rf_faults(id_); }  // never null; empty = fault free
  // ---- Voltage smoothing (sm/issue_gate.h, core_smoothing.cpp) ----
  const IssueGate* issue_gate() const { return gate_.get(); }  // the droop predictor, or null
  // Warps resident, not finished and not waiting on an instruction fetch or
  // a memory result (the global smoother's "active" warps).
  unsigned smoother_active_warps() const;
  // The hook of the global smoother: no issue before SM cycle `cycle`.
  void hold_issue_until(uint64_t cycle);
  // ---- end voltage smoothing ----

  // ---- The register-file path (sm/rf_path.h): what the mechanism in it
  // (GR-Guard's patching unit, the BOT's arbitration) reads and may do ----
  uint64_t now() const { return now_; }
  unsigned id() const { return id_; }
  // Operand collectors of a pool (0 sp, 1 sfu, 2 mem): the instruction each holds, or null.
  const std::vector<Inst*>& collectors(unsigned pool) const { return oc_[pool]; }
  static int pool_of(const StaticOp& op) { return op.unit == Unit::sfu ? 1 : op.unit == Unit::mem ? 2 : 0; }
  unsigned rows_per_warp() const { return rows_per_warp_; }
  unsigned l1_hit_cycles() const { return l1_hit_; }
  const Inst* ldst_head() const { return ldq_.empty() ? nullptr : ldq_.front(); }  // the LD/ST unit's front
  bool collecting() const { return oc_free_[0] + oc_free_[1] + oc_free_[2] != oc_total_; }  // a collector in use
  unsigned cta_slot(unsigned ws) const { return warps_[ws].cta_slot; }
  uint32_t warp_pbase(unsigned ws) const { return warps_[ws].pbase; }  // its frame's first physical register
  // Row of the i-th banked register an instruction reads / writes (its
  // group is read_group[i] / write_group[i]).
  unsigned banked_row(const Inst* in, unsigned i, bool write) const;  // throws if there is none
  // One access of RF bank `bank`, in the stats and in this cycle's Activity.
  void count_rf_access(bool write, unsigned bank) {
    ++(write ? st_.rf_writes : st_.rf_reads)[bank];
    ++(write ? act_.rf_writes : act_.rf_reads)[bank];
  }
  void count_rf_write_conflict(unsigned bank) { ++st_.rf_write_conflicts[bank]; }
  // A read that lost its port: banks [first, first + n) conflicted.
  void count_rf_read_conflict(unsigned first, unsigned n) {
    for (unsigned b = first; b < first + n; ++b) ++st_.rf_conflicts[b];
    ++st_.rf_conflict_reads;
    ++act_.rf_bank_conflicts;
  }
  void rf_read_done(const Inst* in, unsigned i) {  // a granted read, for the RF access observers
    if (!rf_observers_.empty()) rf_read_granted(in, i);
  }
  // The writeback stage, for a hook that runs it: the results waiting (ready
  // or not), each bank group's write port of this cycle (1 = taken), and
  // retire() once a result is written.
  std::vector<Inst*>& writeback_queue() { return wb_; }
  std::vector<uint8_t>& write_ports() { return group_write_; }
  std::vector<uint8_t>& read_ports() { return group_read_; }
  bool rf_shared_port() const { return rf_shared_port_; }  // rf.shared_port: a write takes the read port
  void retire(Inst* in) { complete(in); }
  // Results write back oldest ready first (ready cycle, then issue order).
  static bool writeback_order(const Inst* a, const Inst* b) {
    return a->ready != b->ready ? a->ready < b->ready : a->seq < b->seq;
  }
  // ---- end register-file path ----

 private:
  unsigned slots_per_warp(const CtaShape& s) const;  // RF row slots a warp of this shape takes
  struct Req { enum K : uint8_t { free, load, bypass, store, atomic, query, ifetch, cfetch } kind = free; int mshr = -1; Inst* inst = nullptr; unsigned ws = 0; };
  struct FuState { uint64_t next_free = 0; };

  // stages (core_pipe.cpp, core_ldst.cpp)
  void responses();
  void writeback();
  void ldst();
  void dispatch();
  void operand_read();
  void issue();
  void fetch();
  bool icache_fetch(unsigned ws);  // core_pipe.cpp: the fetch's instruction-cache access
  void icache_filled(int mshr);
  bool ccache_line(Inst* in);  // core_ldst.cpp: one constant-cache line; false = stalled
  void ccache_filled(int mshr);
  void send();
  Stall check(unsigned ws, const StaticOp*& op);
  Stall check_now(unsigned ws, const StaticOp*& op);
  void issue_warp(unsigned ws, const StaticOp* op);
  void complete(Inst* in);
  void finish_mem(Inst* in);
  bool start_ldst(Inst* in);
  bool ldst_line(Inst* in);
  void line_arrived(Inst* in, uint64_t line, const uint8_t* data);
  void cta_check(unsigned cta_slot);
  const StaticOp* ops_for(const func::Code* c);
  StaticOp make_op(const ptx::Function& fn, const func::DInstr& d) const;
  std::unique_ptr<LineRequest> new_request(Req::K kind, uint64_t line, unsigned ws, const Inst* in);
  Inst* alloc_inst();
  void free_inst(Inst* in);
  // Issue in two steps: select_issue() lets every scheduler pick (nothing
  // changes but the check() caches; later schedulers see the collectors the
  // earlier picks take), then issue() issues the picks, as many as the
  // throttles allow. select() is one scheduler's pick; demote() (two_level)
  // and pass_group() (fetch_group) update its priorities after it.
  struct Pick {
    Stall r = kIdle;
    unsigned ws = 0;
    const StaticOp* op = nullptr;
    bool fwas = false;  // picked by FWAS (fast_first_pick)
    bool copy = false;  // RISE: the slot goes to a full copy
  };
  void select_issue();
  Stall select(Scheduler& s, Pick& p);
  void demote(Scheduler& s);
  void pass_group(Scheduler& s);
  void publish(uint64_t skipped);
  bool find_banked_row(const Inst* in, unsigned i, bool write, unsigned& row) const;
  void rf_read_granted(const Inst* in, unsigned i);  // tells the RF access observers
  void rf_warp_exited(unsigned ws);                  // the same, for each register of an exited warp
  void report_deadlock() const;

  // config
  unsigned id_;
  MemPort& port_;
  unsigned max_threads_, max_ctas_, max_warps_, nsched_, ib_entries_, fetch_lat_, two_level_active_,
      group_warps_, fetch_groups_;  // fetch_group: warps per group, groups per SM
  uint64_t shared_cap_;
  enum class Policy { lrr, gto, two_level, fetch_group } policy_;
  unsigned oc_count_[3];        // sp(+dp), sfu, mem
  unsigned sp_units_, sfu_units_;
  bool release_waits_, l1_global_;
  uint16_t lat_sp_, ii_sp_, lat_mad_, lat_div_, ii_div_, lat_fdiv_, ii_fdiv_, lat_dp_, ii_dp_, lat_sfu_, ii_sfu_;
  enum class OpTable : uint8_t { relgpu, gpgpusim, gpgpusim3 };
  OpTable op_table_ = OpTable::relgpu;  // sm.op_latency (sm/op_timing.h)
  uint16_t result_delay_ = 0;
  unsigned smem_banks_, smem_lat_, l1_hit_, const_lat_, miss_q_, ldst_q_;

  // state
  std::shared_ptr<const reliability::Chip> chip_;  // RF fault maps of this SM's chip
  RegisterFile rf_;
  SmRegs regs_;
  L1D l1_;
  func::LaunchCtx ctx_;
  std::unique_ptr<func::Executor> ex_;
  const func::MachineRegs* machine_ = nullptr;
  std::unordered_map<const func::Code*, std::vector<StaticOp>> ops_;
  std::vector<WarpSlot> warps_;
  std::vector<uint8_t> warp_free_;
  std::vector<CtaSlot> ctas_;
  RowAllocator rows_;                  // RF row slots of rows_per_warp_ rows (sm/argo.h)
  std::vector<unsigned> rows_starting_;  // warp slots added since the last cycle: rows held from the next
  unsigned rows_per_warp_ = 1, free_warps_ = 0;
  unsigned last_resident_ = 0;         // resident warps at the end of the last cycle
  uint32_t threads_used_ = 0;
  uint64_t shared_used_ = 0;
  unsigned live_ctas_ = 0, finished_ = 0;
  uint64_t age_ = 0;
  std::vector<Scheduler> sched_;
  std::vector<Inst*> oc_[3];           // per collector: its instruction or nullptr
  unsigned oc_free_[3] = {0, 0, 0};
  unsigned oc_total_ = 0, active_warps_ = 0;
  std::vector<FuState> fu_sp_, fu_sfu_;
  FuState fu_dp_;
  std::vector<Inst*> wb_;              // results waiting for writeback
  std::deque<Inst*> ldq_;              // LD/ST unit queue
  std::deque<std::unique_ptr<LineRequest>> outq_, resp_;
  std::vector<std::unique_ptr<LineRequest>> req_pool_;
  std::vector<Req> reqs_;
  std::vector<uint32_t> req_free_;
  std::vector<std::unique_ptr<Inst>> inst_store_;
  std::vector<Inst*> inst_free_;
  std::vector<uint8_t> group_read_, group_write_;  // per bank group: used this cycle
  unsigned inflight_total_ = 0, stores_total_ = 0;
  unsigned fetch_rr_ = 0;
  std::vector<mem::AtomLane> atoms_;               // scratch: one line's atomic lanes
  std::vector<std::vector<mem::AtomLane>> groups_;  // scratch: ... split into requests
  bool fetch_scan_ = true;             // some warp may want a fetch
  uint64_t now_ = 0, last_cycle_ = 0;
  bool started_ = false, busy_ = false;
  uint64_t next_wake_ = UINT64_MAX;
  std::vector<ActivityObserver*> observers_;
  std::vector<IssueRecord>* trace_ = nullptr;
  Activity act_;
  Activity idle_act_;  // what publish() reports for skipped cycles
  Stall last_stall_ = kIdle;
  uint64_t scratch_[func::kWarpSize];

  // ---- GR-Guard and RF energy (sm/grguard.h, power/rf_energy.h) ----
  std::unique_ptr<GrGuard> gr_;        // null when grguard.enable is false
  std::unique_ptr<LessPath> less_;     // LESS (sm/less_unit.h); null when less.enable is false
  std::unique_ptr<Upsets> upsets_;     // RF particle strikes (sm/upsets.h); null at rf.upset_rate=0
  RfPathHook* rf_hook_ = nullptr;      // gr_, bot_path_ or less_ (sm/rf_path.h)
  std::unique_ptr<power::RfEnergyModel> rf_energy_;
  // ---- end GR-Guard ----

  // ---- Bank organization (sm/bot_unit.h; its arbitration on vbs: sm/bot_path.h) ----
  std::unique_ptr<BotUnit> bot_;       // null when bot.enable is false
  std::unique_ptr<BotPath> bot_path_;  // the RF path hook over bot_
  std::shared_ptr<const reliability::RfDelay> bot_delay_;  // bot.slow_sbs=pv: this chip's RF delay
  // ---- end bank organization ----
  // FWAS's issue order: a ready instruction the RF path hook calls fast
  // first, round-robin from the last issued warp (core_pipe.cpp).
  bool fast_first_pick(Scheduler& sc, Pick& p);

  // ---- Voltage smoothing (sm/issue_gate.h, core_smoothing.cpp) ----
  std::vector<Pick> picks_;            // this cycle's picks, one per scheduler
  std::unique_ptr<IssueGate> gate_;    // the droop predictor (smoothing.local.enable), or null
  IssueGate::Limit limit_;             // the gate's limits this cycle
  ActiveWarpSink* sink_ = nullptr;     // the global smoother, if any
  unsigned report_period_ = 0;
  uint64_t hold_until_ = 0;            // no issue before this cycle
  uint64_t held_cycles_ = 0;           // per launch: cycles with a pick the hold kept back
  void gate_issue();                   // after dispatch(): picks, then the gate's limits
  unsigned planned_reads() const;      // the 1024-bit reads operand_read() would grant
  bool waits_memory(const WarpSlot& s) const;
  void report_skipped(uint64_t now);   // start of a cycle: report boundaries skipped over
  void report_now();                   // end of a report cycle
  // ---- end voltage smoothing ----

  // ---- Register dead time (sm/dead_time.h) ----
  std::unique_ptr<DeadTime> dead_;     // null when grguard.deadtime is false
  std::vector<RfAccessObserver*> rf_observers_;
  bool rf_shared_port_ = false;        // rf.shared_port
  bool rf_dead_all_ = false, rf_exit_deaths_ = false;  // grguard.dead_bits=all, exit_deaths: ReadMark, rf_exit
  std::vector<std::shared_ptr<const reliability::Chip>> dead_chips_;  // grguard.deadtime_fault_rates maps
  // ---- end register dead time ----

  // ---- The LD/ST hook (sm/ldst_hook.h, core_ldst.cpp) ----
  std::unique_ptr<LdstHook> ldst_;  // LoSCache's table (loscache.enable), or null
  std::unique_ptr<InstHook> inst_;  // uniform vectors (uniform.enable), or null
  uint32_t scalar_banks_ = 0;       // banks of a warp register that hold a uniform register's scalar
  void ldst_hook_cycle(Inst* starting);
  void tag_request(LineRequest& r, const Inst* in) const;
  // ---- end LD/ST hook ----

  // ---- RISE and SP strikes (sm/rise.h, sm/sp_upsets.h, core_rise.cpp) ----
  std::unique_ptr<Rise> rise_;          // null when rise.enable is false
  std::unique_ptr<SpUpsets> sp_upsets_;  // null at sp.upset_rate=0
  unsigned num_sms_ = 1;
  uint64_t pair_window_ = 2, recovery_cycles_ = 20;  // rise.pair_window, rise.recovery_cycles
  bool pair_sm_ = false;                             // rise.pair_scope=sm
  // What each SP unit ran last: the original in [start, start + ii), a full
  // copy in [start + ii, start + 2 ii); copies in idle lanes (dup) and a
  // paired warp's lanes (pair, of warp slot pair_ws) with the original.
  struct SpOcc { Inst* in = nullptr; uint64_t start = 0; uint16_t ii = 0; bool copy = false; uint32_t dup = 0, pair = 0; unsigned pair_ws = 0; };
  std::vector<SpOcc> sp_occ_;
  func::InFlight scratch_f_;            // a copy's run
  void rise_issue(Inst* in);                                    // at issue: a full copy or a paired one
  void rise_dispatch(Inst* in, unsigned unit, uint32_t carry0); // after execute: run the copy, count AVF
  void rise_pair(const Inst* in, unsigned unit);                // Partial-RISE: a ready warp at the same PC
  void rise_compare(Inst* in);                                  // before writeback: compare, vote
  void rerun(const Inst* in, uint64_t out[5][32]);              // the instruction again on its operands
  void sp_strikes();                                            // start of a cycle
  // ---- end RISE ----

  // stats (per launch)
  struct Stats {
    uint64_t cycles = 0, warp_insn = 0, thread_insn = 0, ctas = 0;
    uint64_t max_resident_ctas = 0;  // the most CTAs resident at once (occupancy() predicts it)
    uint64_t resident_warp_cycles = 0;  // sum over busy cycles of resident warps (occupancy)
    uint64_t stall[kStallCount] = {};
    uint64_t issued_cls[size_t(IssueClass::count_)] = {};
    std::vector<uint64_t> rf_reads, rf_writes, rf_conflicts, rf_write_conflicts;
    uint64_t rf_conflict_reads = 0;    // operand reads that lost bank arbitration (one per read per cycle)
    // Warp-register operands at or above the warp's rows (ptxas's count; the
    // constant operands first, ptx::fit_to_ptxas): no bank, no RF faults.
    uint64_t rf_outside_reads = 0, rf_outside_writes = 0;
    uint64_t oc_busy = 0;              // sum over cycles of collectors in use
    uint64_t l1_access = 0, l1_hit = 0, l1_miss = 0, l1_merge = 0, l1_bypass = 0, mshr_full = 0;
    uint64_t smem_access = 0, smem_conflicts = 0, local_access = 0, const_access = 0;
    uint64_t req_read = 0, req_write = 0, req_atomic = 0;
    uint64_t icache_access = 0, icache_miss = 0, ccache_access = 0, ccache_miss = 0;
  } st_;
  std::unique_ptr<ReadOnlyCache> icache_;  // null: icache.enable false, every fetch hits
  std::unique_ptr<ReadOnlyCache> ccache_;  // null: ccache.enable false, every const/param read hits
};

}  // namespace relgpu::sm
