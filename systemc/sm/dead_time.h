// Register dead time, the characterisation behind GR-Guard (Tan dissertation
// §6.2, Fig. 6.5); stats only, off unless grguard.deadtime.
//
// Unit: a warp register's cells, i.e. one WRG (bank group, row) of the RF,
// whichever warp owns it. The SM reports every operand read the arbitrator
// grants and every result written back (RfAccessObserver, sm/activity.h);
// reads and writes of registers that have no bank (predicates, overflow)
// are not RF accesses and are not seen.
//   residency  write -> next write of the same WRG (the paper's);
//   dead time  last read before that next write -> the next write (the
//              paper's "last read to next write"; a WRG written and never
//              read before its next write is dead the whole residency).
// "Last read" is exact, not a compiler guess: the interval is closed when
// the next write arrives, so the observer knows which read was the last
// (an oracle over the run, as the paper's). Every write closes an interval,
// divergent (partial) ones included (our choice: the paper does not say).
// A WRG's interval still open when the launch ends (no next write) is a
// tail: its residency runs to the end of the launch and it is dead after its
// last read (kernel end kills every register). Tails are counted apart; the
// headline share is over closed intervals only, as the paper defines it.
//
// Per cycle, each entry (1/span of a WRG) is live (written, a read still to
// come), dead (after its last read) or unwritten (not written yet in this
// launch: rows no warp owns, or a warp's register before its first write).
// With the SM's fault map (an entry with 2+ bad cells is faulty), the entry
// cycles that are dead and good, and live and faulty, give the paper's
// per-cycle shares (Fig. 6.5: ~20% vs 3% at 10% faulty entries, 15% vs 8%
// at 30%). The window is the SM's own launch: from its first cycle to its
// last (skipped cycles included). grguard.deadtime_fault_rates adds the same
// shares against the chip's maps at other cell failure rates, faults not
// applied: the run needs no GR-Guard and cannot stop, so every workload and
// scheduler gives the characterisation at the paper's fault points.
//
// Dead-bit coverage: what GR-Guard's patching unit can know of that dead
// time. A WRG is *declared* dead from the first read that marks it
// (ReadMark::kDies) or from its warp's exit (rf_exit), as the unit's Dead
// map would be. Of each closed interval's dead time, the part after the
// declaration (and after the last read) is known; the rest is lost, and is
// charged to why the last read did not mark it: never read, divergent, a
// later operand without a dead bit, or static liveness (e.g. a loop's last
// iteration); an exit after that read recovers the time from the exit on.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "reliability/chip.h"
#include "reliability/rf_faults.h"
#include "sm/activity.h"

namespace relgpu::sm {

inline const config::Key<bool> kDeadTime{
    "grguard.deadtime", false, "",
    "record register dead time (last read -> next write, per WRG) and residency (write -> next write), and the "
    "per-cycle shares of RF entries that are dead and good, live and faulty (Tan Ch6 §6.2); stats only"};
inline const config::Key<bool> kDeadTimeDebugFirstRead{
    "grguard.deadtime_debug_first_read", false, "",
    "Debug mutant for tests: dead time counted from the first read after a write instead of the last (it "
    "must change the numbers)"};

inline const config::Key<std::string> kDeadTimeFaultRates{
    "grguard.deadtime_fault_rates", "", "cell failure rates, comma separated",
    "with grguard.deadtime: also count the per-cycle entry shares against this chip's RF fault maps at these "
    "cell failure rates (pv.chip_seed, pv.sigma_ratio, pv.floorplan; SEC-DED per entry), faults not applied to "
    "the run; stats under dead_time.at_rate.<rate as written>. Empty = none"};

// One overlay map set per rate of grguard.deadtime_fault_rates, in the order
// given, each shared by the SMs of a GPU; a malformed list is an InputError
// naming the key.
struct DeadTimeOverlay {
  std::string rate;  // as written in the key
  std::shared_ptr<const reliability::Chip> chip;
};
std::vector<DeadTimeOverlay> dead_time_overlays(const config::Config& cfg, const reliability::RfGeometry& g);

class DeadTime final : public RfAccessObserver, public ActivityObserver {
 public:
  // groups x rows WRGs of `span` entries each; faults: the SM's map (bank =
  // group * span + entry), nullptr or empty = every entry good; overlays:
  // more maps, named, counted under at_rate.
  using Named = std::pair<std::string, const reliability::RfFaults*>;
  DeadTime(unsigned groups, unsigned rows, unsigned span, const reliability::RfFaults* faults,
           bool first_read = false, const std::vector<Named>& overlays = {});

  void begin_launch();  // every WRG unwritten; the window opens at the next cycle
  void rf_read(unsigned group, unsigned row, uint64_t cycle, ReadMark mark) override;
  void rf_write(unsigned group, unsigned row, uint64_t cycle) override;
  void rf_exit(unsigned group, unsigned row, uint64_t cycle) override;
  void on_cycle(const Activity& a, uint64_t skipped) override;  // the window's bounds
  // Counters, with open intervals closed at the end of the window as tails.
  config::json stats() const;

 private:
  static constexpr uint64_t kNone = ~uint64_t(0);
  // Why dead time was lost to the unit: the last read's ReadMark (kDies
  // loses none), or no read at all.
  static constexpr unsigned kNeverRead = 4, kLostN = 5;
  struct Wrg {
    uint64_t write = kNone, read = kNone;  // last write; last (or first) read after it
    uint64_t declared = kNone;             // first marking read or exit after the write
    ReadMark mark = ReadMark::kCompilerLive;  // of the last read
  };
  struct Sums {
    uint64_t intervals = 0, residency = 0, dead = 0;     // in cycles
    uint64_t live_entries = 0, dead_entries = 0;         // entry-cycles
    std::vector<uint64_t> dead_good, live_faulty;        // entry-cycles, per map (0: the run's own)
    uint64_t known = 0, lost[kLostN] = {};               // closed intervals' dead cycles (coverage)
    std::vector<uint64_t> known_good;                    // entry-cycles known dead and good, per map
  };
  Sums zero() const;
  // Adds the interval [w.write, end) of WRG `i` to `s`.
  void close(size_t i, const Wrg& w, uint64_t end, Sums& s) const;

  unsigned groups_, rows_, span_;
  bool first_read_;
  std::vector<std::string> names_;            // per map: "" (the run's own), then the overlays' rates
  std::vector<std::vector<uint8_t>> faulty_;  // per map, per WRG: its faulty entries (count)
  std::vector<Wrg> wrg_;
  Sums closed_;
  uint64_t start_ = kNone, end_ = 0;
};

}  // namespace relgpu::sm
