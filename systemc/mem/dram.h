// One GDDR5-like DRAM channel controller (no SystemC; Partition clocks it).
//
// Local address (see address_map.h) -> bank/row, "row:bank:column" order:
//   bank = (local / row_bytes) % banks,  row = local / (row_bytes * banks)
// so a row holds row_bytes of consecutive partition-local bytes.
// A 128-B line read is ceil(128 / min(bus_bytes * burst_length,
// burst_useful_bytes)) bursts, a write-back ceil(128 / (bus_bytes *
// burst_length)), issued back
// to back as one column access; each burst takes max(tCCD, burst_cycles)
// command cycles of the data bus.
// Scheduling, one command per DRAM cycle:
//   frfcfs: the oldest request whose row is open and whose column command is
//           legal now goes first (row hit); otherwise the oldest request that
//           can advance its bank (ACT, or PRE of a row no queued request hits).
//   fcfs:   only the oldest request is served.
// Reads and writes have separate queues (each queue_depth deep) but are
// scheduled together by age. Timing only: write data reached the backing
// store when the L2 evicted the line, read data is taken at the fill.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"

namespace relgpu::mem {

using DK = config::Key<int64_t>;
// GTX480 values from GPGPU-Sim 3.x's public configs/GTX480/gpgpusim.config
// (-gpgpu_dram_timing_opt, GDDR5 Hynix H5GQ1H24AFR), in DRAM command cycles.
inline const config::Key<double> kDramClock{
    "dram.clock_mhz", 924.0, "MHz", "DRAM command clock (GPGPU-Sim GTX480 -gpgpu_clock_domains: 924)", 1, 1e5};
inline const DK kDramBanks{"dram.banks", 16, "banks", "banks per channel (GPGPU-Sim GTX480 nbk=16)", 1, 256};
inline const DK kDramCL{"dram.tCL", 12, "DRAM cycles", "read column command to first data (GPGPU-Sim GTX480 CL=12)", 1, 1000};
inline const DK kDramRCD{"dram.tRCD", 12, "DRAM cycles", "activate to column command (GPGPU-Sim GTX480 RCD=12)", 1, 1000};
inline const DK kDramRP{"dram.tRP", 12, "DRAM cycles", "precharge to activate (GPGPU-Sim GTX480 RP=12)", 1, 1000};
inline const DK kDramRAS{"dram.tRAS", 28, "DRAM cycles", "activate to precharge (GPGPU-Sim GTX480 RAS=28)", 1, 1000};
inline const DK kDramRRD{"dram.tRRD", 6, "DRAM cycles", "activate to activate, different banks (GPGPU-Sim GTX480 RRD=6)", 1, 1000};
inline const DK kDramCCD{"dram.tCCD", 2, "DRAM cycles", "column command to column command (GPGPU-Sim GTX480 CCD=2)", 1, 1000};
inline const DK kDramWL{"dram.tWL", 4, "DRAM cycles", "write column command to first data (GPGPU-Sim GTX480 WL=4)", 0, 1000};
inline const DK kDramWR{"dram.tWR", 12, "DRAM cycles", "end of write data to precharge (GPGPU-Sim GTX480 WR=12)", 0, 1000};
inline const DK kDramCDLR{"dram.tCDLR", 5, "DRAM cycles", "end of write data to read command (GPGPU-Sim GTX480 CDLR=5)", 0, 1000};
inline const DK kDramBurstCycles{
    "dram.burst_cycles", 2, "DRAM cycles",
    "data-bus cycles of one burst: burst length 8 / 4 data beats per command cycle (GDDR5 QDR, GPGPU-Sim "
    "GTX480 -dram_data_command_freq_ratio 4)", 1, 64};
inline const DK kDramBusBytes{
    "dram.bus_bytes", 8, "bytes",
    "data-bus width per channel (GPGPU-Sim GTX480: -gpgpu_dram_buswidth 4 x -gpgpu_n_mem_per_ctrlr 2)", 1, 256};
inline const DK kDramBurstLength{"dram.burst_length", 8, "beats", "burst length (GPGPU-Sim GTX480 -gpgpu_dram_burst_length 8)", 1, 64};
inline const DK kDramBurstUseful{
    "dram.burst_useful_bytes", 32, "bytes",
    "bytes of a line one read burst carries: GPGPU-Sim's sectored L2 reads one 32-B sector per DRAM "
    "request and each takes a whole burst (its 64-B atom), so a 128-B line read is 4 bursts; a write-back "
    "uses full bursts (bus_bytes x burst_length, 2 per line); 128 = full bursts for reads too", 1, 4096};
inline const DK kDramRowBytes{
    "dram.row_bytes", 4096, "bytes",
    "row (page) size per channel: 2 KB page x 2 chips (GPGPU-Sim GTX480 address mapping: 12 column+byte bits)",
    128, 1 << 20};
inline const DK kDramQueue{
    "dram.queue_depth", 64, "requests",
    "read queue and write queue depth, each (GPGPU-Sim 4.0 SM2_GTX480 -gpgpu_frfcfs_dram_sched_queue_size 64; "
    "3.x: 16)", 1, 4096};
inline const DK kDramLatency{
    "dram.latency", 100, "L2 cycles",
    "fixed controller/PHY latency added to each read's return (GPGPU-Sim GTX480 -dram_latency 100)", 0, 100000};
inline const config::Key<std::string> kDramScheduler{
    "dram.scheduler", "frfcfs", "", "DRAM scheduler (GPGPU-Sim GTX480 -gpgpu_dram_scheduler 1 = FR-FCFS)",
    std::vector<std::string>{"frfcfs", "fcfs"}};

class DramCtrl {
 public:
  struct Done {
    uint64_t cycle;  // DRAM cycle the last data beat is on the bus
    uint32_t tag;
    uint64_t waited = 0;  // DRAM cycles from its arrival in the queue to its column command
  };
  struct Stats {
    uint64_t reads = 0, writes = 0, row_hits = 0, row_misses = 0, activates = 0, precharges = 0;
    uint64_t bytes_read = 0, bytes_written = 0, busy_cycles = 0;
  };

  explicit DramCtrl(const config::Config& cfg);

  bool can_accept(bool write) const { return (write ? nwrites_ : nreads_) < depth_; }
  unsigned queued(bool write) const { return write ? nwrites_ : nreads_; }
  unsigned depth() const { return depth_; }
  // A request schedulable from DRAM cycle `arrive`; reads report `tag` when done.
  void push(uint64_t local, bool write, uint32_t tag, uint64_t arrive);
  // Issues at most one command at cycle `now`, appends finished reads to
  // `done`, and returns the next cycle at which a command may issue
  // (UINT64_MAX when the queues are empty).
  uint64_t step(uint64_t now, std::vector<Done>& done);
  bool empty() const { return q_.empty(); }
  // DRAM cycle at which the data of the last issued command has left the bus.
  uint64_t bus_free() const { return bus_free_; }
  unsigned line_cycles() const { return occ_; }  // data-bus cycles per line read

  Stats stats;

 private:
  struct Entry {
    uint64_t arrive;
    uint32_t bank, row, tag;
    bool write, activated;
  };
  struct Bank {
    int64_t open = -1;
    uint64_t next_act = 0, next_pre = 0, next_col = 0;
  };
  uint64_t col_ready(bool write) const;
  // Does a queued request (arrived or not) hit the bank's open row? hits_
  // counts them, so the scheduler's scans stay linear in the queue.
  bool pending_hit(uint32_t bank) const { return hits_[bank] != 0; }
  void open_row(uint32_t bank, uint32_t row);
  void issue_col(size_t i, uint64_t now, std::vector<Done>& done);

  unsigned banks_, depth_;
  uint64_t row_bytes_;
  unsigned tCL_, tRCD_, tRP_, tRAS_, tRRD_, tWL_, tWR_, tCDLR_;
  unsigned occ_, occ_write_;  // data-bus cycles of a line read (sector bursts) and write-back (full bursts)
  bool frfcfs_;
  std::vector<Bank> bank_;
  std::vector<unsigned> hits_;  // per bank: queued requests to its open row
  std::vector<Entry> q_;  // arrival order (at most 2 x depth entries)
  unsigned nreads_ = 0, nwrites_ = 0;
  uint64_t next_col_any_ = 0, bus_free_ = 0, wr_end_ = 0, last_act_ = 0;
  bool any_act_ = false;
};

}  // namespace relgpu::mem
