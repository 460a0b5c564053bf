// One L2 slice (a memory sub-partition) and, on the first slice of each
// channel, the channel's DRAM controller, shared by the channel's slices: a
// TLM-2.0 AT target (base protocol, mem/request.h) behind the interconnect.
//
// Timing (L2 clock):
//   a request is accepted into the input queue (END_REQ at once while there
//   is room, else withheld until a slot frees: back pressure) and looked up
//   in arrival order at the first L2 edge after it arrives; the tag pipeline
//   takes one 32-B sector per cycle (MemExt::sectors: 4 for an L1 fill;
//   l2.sectored false: one request per cycle);
//   hit                 response ready hit_latency cycles later;
//   miss                MSHR + victim reserved at lookup (a dirty victim is
//                       written back), the DRAM read enters the DRAM queue
//                       hit_latency cycles later (the same L2 pipeline);
//                       the fill is applied dram.latency L2 cycles after the
//                       last data beat, then the MSHR's requests are served
//                       in arrival order, one per cycle;
//   line being fetched  the request joins its MSHR (merge), up to l2.mshr_merge;
//   write miss          allocates without fetching (GPGPU-Sim's lazy fetch on
//                       read, l2.write_allocate); a later read or atomic of a
//                       line that holds only written bytes fetches the rest
//                       and merges.
// Responses leaving the pipeline wait in a queue of l2.queue_depth for the
// interconnect, one sent per cycle; the pipeline itself is not limited.
// The lookup stalls (in order, nothing is dropped) while no MSHR, no
// victim way (all reserved), no DRAM queue slot or no room in that
// response queue is free. Writes and atomics are acknowledged with a
// BEGIN_RESP when applied.
// Functional data: lines hold data; a read copies the line into the
// payload, a write merges its enabled bytes, an atomic applies its lanes in
// order with func::atom_apply_at (the functional executor's semantics) and
// returns the old values in MemExt::atoms.
#pragma once
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "common/config.h"
#include "func/memory.h"
#include "mem/clock.h"
#include "mem/dram.h"
#include "mem/l2_cache.h"
#include "mem/l2_life.h"
#include "mem/loscache.h"
#include "mem/ring.h"
#include "power/l2_energy.h"

namespace relgpu::mem {

inline const config::Key<double> kL2Clock{
    "l2.clock_mhz", 700.0, "MHz", "L2 clock (GPGPU-Sim GTX480 -gpgpu_clock_domains: 700)", 1, 1e5};
inline const config::Key<int64_t> kL2HitLatency{
    "l2.hit_latency", 120, "L2 cycles",
    "L2 pipeline latency from lookup to response; misses also pass it before DRAM (GPGPU-Sim GTX480 "
    "-rop_latency 120)", 1, 100000};
inline const config::Key<int64_t> kL2Mshrs{
    "l2.mshrs", 256, "entries",
    "L2 MSHRs per slice (GPGPU-Sim 4.0 SM2_GTX480 -gpgpu_cache:dl2 A:256:4; 3.x: A:32:4)", 1, 4096};
inline const config::Key<int64_t> kL2MshrMerge{
    "l2.mshr_merge", 4, "requests", "requests one L2 MSHR holds (GPGPU-Sim GTX480 -gpgpu_cache:dl2 A:256:4)", 1, 1024};
inline const config::Key<bool> kL2Sectored{
    "l2.sectored", true, "",
    "the tag pipeline takes one 32-B sector per cycle, a line fill 4 (GPGPU-Sim 4.0's sectored L2, "
    "-gpgpu_cache:dl2 S:...); false: one lookup per request (GPGPU-Sim 3.x)"};
inline const config::Key<std::string> kL2WriteAllocate{
    "l2.write_allocate", "lazy", "",
    "write miss: lazy = allocate without fetching, a later read fetches the rest (GPGPU-Sim 4.0 "
    "SM2_GTX480 'L'); fetch = fetch the line first unless the write covers it (GPGPU-Sim 3.x GTX480 'W')",
    std::vector<std::string>{"lazy", "fetch"}};
inline const config::Key<bool> kL2FillOnMemcpy{
    "l2.fill_on_memcpy", true, "",
    "a host-to-device memcpy leaves its lines in the L2 (clean, the last ones copied win), as GPGPU-Sim "
    "does with -gpgpu_perf_sim_memcpy 1 (SM2_GTX480); false: they start in DRAM only"};
inline const config::Key<int64_t> kL2QueueDepth{
    "l2.queue_depth", 64, "requests",
    "slice input queue and queue of responses waiting for the interconnect (GPGPU-Sim 4.0 SM2_GTX480 "
    "-gpgpu_dram_partition_queues 64:64:64:64; 3.x: 8:8:8:8); requests inside the l2.hit_latency pipeline "
    "are not limited by it", 1, 4096};

class Partition : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Partition> tgt;

  Partition(sc_core::sc_module_name name, const config::Config& cfg, unsigned index, func::GlobalMemory& gmem);

  // Functional maintenance for the engine, untimed; call while the memory
  // system is idle (between kernels). flush writes dirty lines back to the
  // GlobalMemory (all, or those overlapping [addr, addr+n)) and keeps them
  // resident and clean; copy_out writes them too but keeps them dirty (the
  // host reads; L2Cache::copy_out); invalidate drops lines overlapping the
  // range (the host wrote it directly). All return the number of lines affected.
  unsigned flush() { return l2_.flush(); }
  unsigned flush(uint64_t addr, uint64_t n) { return n ? l2_.flush(addr, n) : 0; }
  unsigned copy_out(uint64_t addr, uint64_t n) { return l2_.copy_out(addr, n); }
  unsigned invalidate(uint64_t addr, uint64_t n) { return l2_.invalidate(addr, n); }
  // A host-to-device memcpy wrote [addr, addr+n): with l2.fill_on_memcpy
  // the slice installs its lines of the range, clean, in address order
  // (GPGPU-Sim's -gpgpu_perf_sim_memcpy). Untimed; returns the lines installed.
  unsigned memcpy_fill(uint64_t addr, uint64_t n);

  // Timed flush (the engine's l2.flush): every line dirty now is written back
  // through the DRAM controller, one per L2 cycle while the DRAM write queue
  // has room, and becomes clean; counted in l2.flush_writebacks and the DRAM
  // stats. The flush is over once nothing is left in flight in the partition
  // (DRAM queue empty): then flushing() turns false, flush_done() fires and
  // flush_end_ps() is when the last data burst leaves the DRAM bus.
  void start_flush();
  bool flushing() const { return flushing_; }
  const sc_core::sc_event& flush_done() const { return flush_done_; }
  uint64_t flush_end_ps() const { return flush_end_ps_; }

  // Before each launch's first request: LoSCache's per-kernel state (counts,
  // gated tags; mem/loscache.h). Nothing without loscache.enable.
  void begin_kernel();
  // Slices of one channel share its DRAM controller: the first slice owns
  // it, and each other slice calls this once with the owner, before the
  // simulation starts (Gpu does; a single slice owns its own).
  void share_dram_with(Partition& owner);

  bool idle() const;
  // {"l2", "dram", "l2_energy"} and, with LoSCache, "loscache".
  config::json stats() const;
  void reset_stats();

  unsigned index() const { return index_; }
  const ClockDomain& l2_clock() const { return l2clk_; }
  const ClockDomain& dram_clock() const { return dclk_; }
  L2Cache& cache() { return l2_; }  // for tests and debug

 private:
  struct Mshr {
    uint64_t addr = 0;
    int line = -1;
    unsigned n = 0;  // waiting requests
  };
  struct InReq {
    tlm::tlm_generic_payload* gp;
    uint64_t ready;  // L2 cycle
  };
  struct ToDram {
    uint64_t due;  // L2 cycle
    uint64_t local;
    uint32_t tag;
    bool write;
  };
  struct Fill {
    uint64_t due;  // L2 cycle
    uint32_t mshr;
    uint64_t waited = 0;  // DRAM cycles the read waited in the controller's queue
  };
  struct Resp {
    uint64_t ready, seq;
    tlm::tlm_generic_payload* gp;
    bool operator>(const Resp& o) const { return ready != o.ready ? ready > o.ready : seq > o.seq; }
  };
  struct KindStats {
    uint64_t accesses = 0, hits = 0, misses = 0, mshr_merges = 0;
    uint64_t sectors = 0;        // 32-B sector accesses: GPGPU-Sim's L2 access count
    uint64_t sector_misses = 0;  // ... of requests that missed (merged ones included)
  };

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void l2_step();
  void dram_step();
  bool lookup(tlm::tlm_generic_payload& gp, uint64_t now);       // lookup_line, then l2.life_stats
  bool lookup_line(tlm::tlm_generic_payload& gp, uint64_t now);
  bool miss(tlm::tlm_generic_payload& gp, MemExt& e, uint64_t a, uint64_t c, KindStats& ks);
  void start_fetch(tlm::tlm_generic_payload& gp, uint64_t a, int line, uint64_t c);
  void apply(tlm::tlm_generic_payload& gp, int line);
  // LoSCache (partition_loscache.cpp)
  bool los_query(tlm::tlm_generic_payload& gp, MemExt& e, int line, uint64_t c);
  bool los_refetch(tlm::tlm_generic_payload& gp, MemExt& e, uint64_t a, int line, uint64_t c, KindStats& ks);
  bool los_bypass(tlm::tlm_generic_payload& gp, MemExt& e, uint64_t a, uint64_t c, KindStats& ks);
  void los_evicting(int v, uint64_t c);
  void los_allocated(int v, const MemExt& e, uint64_t c);
  void los_used(int v, uint64_t c);
  void los_powered_off(int v, uint64_t c, bool gating);
  void los_charge_tail(PoweredTime& t, int v, uint64_t c) const;
  LineGen& los_access(uint64_t a, const MemExt& e);  // the line's open generation
  void los_gate(int line, uint64_t c);
  void los_gate_pending(uint64_t c);
  void power_tick(uint64_t c);
  bool flush_step(uint64_t c);  // one line of the timed flush; false = DRAM full
  void flush_check();           // ends the flush once the partition is idle
  config::json los_stats(uint64_t now) const;
  void respond(tlm::tlm_generic_payload& gp, uint64_t ready);
  bool dram_room(bool write) const;
  DramCtrl& dram() { return owner_->dram_; }
  const DramCtrl& dram() const { return owner_->dram_; }
  void kick_l2();

  unsigned index_;
  bool fill_on_memcpy_, sectored_, lazy_write_;
  Partition* owner_ = this;            // the slice that owns the channel's DRAM controller
  std::vector<Partition*> slices_;     // on the owner: the channel's slices, by dram tag
  uint32_t sub_ = 0;                   // this slice's number in its channel (the tag's high bits)
  AddressMap map_;
  ClockDomain l2clk_, dclk_;
  L2Cache l2_;
  DramCtrl dram_;
  unsigned hit_lat_, merge_max_, qdepth_, dram_lat_;

  Ring<InReq> inq_;
  tlm::tlm_generic_payload* pending_ = nullptr;  // BEGIN_REQ not yet accepted
  tlm::tlm_generic_payload* end_req_ = nullptr;  // accepted this step: END_REQ to send
  std::vector<Mshr> mshr_;
  std::vector<std::vector<tlm::tlm_generic_payload*>> waiters_;  // per MSHR, capacity merge_max
  std::vector<uint32_t> free_mshr_;
  Ring<ToDram> to_dram_;
  unsigned to_dram_reads_ = 0, to_dram_writes_ = 0;
  Ring<Fill> fills_;
  std::vector<Resp> resp_;  // in the L2 pipeline: min-heap on (ready, seq)
  Ring<tlm::tlm_generic_payload*> out_;  // out of the pipeline, to the interconnect (l2.queue_depth)
  uint64_t resp_seq_ = 0;
  bool resp_blocked_ = false;  // BEGIN_RESP sent, waiting for END_RESP
  bool stalled_ = false;       // lookup waits for a resource
  uint64_t tag_free_ = 0;      // L2 cycle the tag pipeline takes the next request
  bool stall_on_resp_ = false; // ... for a response slot
  std::vector<DramCtrl::Done> done_;
  sc_core::sc_event l2_ev_, dram_ev_;

  // Timed flush
  std::vector<int> flush_q_;    // dirty lines still to write back
  bool flushing_ = false;
  uint64_t flush_end_ps_ = 0;
  sc_core::sc_event flush_done_;

  KindStats ks_[3];
  uint64_t writebacks_ = 0, flush_wb_ = 0, stall_cycles_ = 0, stall_since_ = 0;
  uint64_t stats_t0_ = 0;  // time of the last reset, resolution units
  uint64_t stats_c0_ = 0;  // L2 cycle of the last reset
  power::L2Energy energy_;

  // LoSCache
  bool los_ = false;
  bool launch_gating_ = false;                 // loscache.launch_gating
  bool bypass_ = true;                         // loscache.bypass
  enum class Woken { regate, next, stay } woken_;  // loscache.woken_line
  unsigned cnt_max_ = 63;                      // saturating line count
  LoscacheL2Stats los_st_;
  std::unordered_map<uint64_t, LineGen> gens_;  // open line generations (stats only)
  PcCounts pc_counts_;                          // closed ones' counts by predictor (stats only)
  bool life_on_ = false;
  L2Life life_;                                 // l2.life_stats (mem/l2_life.h)
  std::vector<int> gate_q_;                     // lines to gate once DRAM has room for their write-back
  uint64_t power_t_ = 0, on_cycles_ = 0;        // powered line-cycles integrated up to L2 cycle power_t_
  // Where the powered line-time goes (mem/loscache.h PoweredTime): per way,
  // its last access (or power-up) and whether this kernel has accessed it.
  struct WayUse { uint64_t last = 0; bool fresh = false; };
  std::vector<WayUse> use_;
  PoweredTime powered_;
};

}  // namespace relgpu::mem
