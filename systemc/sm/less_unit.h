// LESS: a hybrid STT-RAM / SRAM register file (Tan dissertation Ch4, DATE'15;
// spec 000 §2), as the SM's register-file path hook (sm/rf_path.h).
//   LA-LESS (§4.2.1): a compiler lifetime analysis (ptx::long_lived_regs)
//     puts every register that may hold a value read more than
//     less.lifetime_threshold instructions after its write in the STT-RAM
//     namespace, the others in SRAM. STT-RAM cells are immune to soft errors
//     (SmRegs::upset), reads take one cycle in both, an STT-RAM write holds
//     its bank's write port and a result bus less.stt_write_cycles cycles and
//     the result is visible when it ends.
//   NWA-LESS (§4.2.2): a narrow write (the upper 16 bits of every written
//     lane zero) takes one half of a result bus, so two narrow STT-RAM writes
//     to different banks share one bus.
// Both segments have the SM's banks (one read and one write port each); the
// two banks of a number share the data bus to the collectors, so operand
// reads arbitrate as in the baseline.
// Our choices where the paper is silent: registers, not values, are placed
// (the allocator colours long- and short-lived virtual registers apart);
// each register keeps the baseline's bank, (warp + register) mod banks over
// the split numbering (the paper's namespace mapping for SRAM, a rotation
// of it for STT-RAM); segment capacity is not limited (the 96 KB / 32 KB
// split is its average); an SRAM write takes a result bus one cycle; an
// instruction whose results straddle the namespaces (a vector load) writes
// them all as STT-RAM writes, timing and counts. RF
// error coverage is the share of the ACE register-cycles (write -> last
// read) spent in STT-RAM. Energy: Table 4.1 per access and leakage, for the
// segment sizes of less.placement.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/config.h"
#include "sm/less_keys.h"
#include "sm/rf_path.h"

namespace relgpu::ptx { struct Function; }

namespace relgpu::sm {

class Core;

inline const config::Key<bool> kLessNarrow{
    "less.narrow", true, "",
    "NWA-LESS: a narrow STT-RAM write (upper 16 bits of every written lane zero) takes half a result bus"};
inline const config::Key<int64_t> kLessSttWrite{
    "less.stt_write_cycles", 4, "cycles", "STT-RAM write latency (Table 4.1: 4 cycles at 600 MHz)", 1, 64};
inline const config::Key<int64_t> kLessResultBuses{
    "less.result_buses", 2, "buses",
    "result buses from the units to the RF, each held by an STT-RAM write for its whole write (GPGPU-Sim's "
    "GTX480 EX_WB pipeline width, 2; the chapter does not give its own); 0 = not modelled", 0, 16};
// Table 4.1 (40 nm, NVSim): per warp-register access (nJ) and leakage per SM (mW).
inline const config::Key<double> kLessSramRead32{"less.energy.sram32_read_nj", 0.049, "nJ", "Table 4.1: SRAM 32 KB read", 0, 1e3};
inline const config::Key<double> kLessSramWrite32{"less.energy.sram32_write_nj", 0.043, "nJ", "Table 4.1: SRAM 32 KB write", 0, 1e3};
inline const config::Key<double> kLessSramLeak32{"less.energy.sram32_leak_mw", 31.2, "mW", "Table 4.1: SRAM 32 KB leakage", 0, 1e6};
inline const config::Key<double> kLessSramRead128{"less.energy.sram128_read_nj", 0.131, "nJ", "Table 4.1: SRAM 128 KB read", 0, 1e3};
inline const config::Key<double> kLessSramWrite128{"less.energy.sram128_write_nj", 0.123, "nJ", "Table 4.1: SRAM 128 KB write", 0, 1e3};
inline const config::Key<double> kLessSramLeak128{"less.energy.sram128_leak_mw", 130.0, "mW", "Table 4.1: SRAM 128 KB leakage", 0, 1e6};
inline const config::Key<double> kLessSttRead96{"less.energy.stt96_read_nj", 0.082, "nJ", "Table 4.1: STT-RAM 96 KB read", 0, 1e3};
inline const config::Key<double> kLessSttWrite96{"less.energy.stt96_write_nj", 0.529, "nJ", "Table 4.1: STT-RAM 96 KB write", 0, 1e3};
inline const config::Key<double> kLessSttLeak96{"less.energy.stt96_leak_mw", 3.21, "mW", "Table 4.1: STT-RAM 96 KB leakage", 0, 1e6};
inline const config::Key<double> kLessSttRead128{"less.energy.stt128_read_nj", 0.092, "nJ", "Table 4.1: STT-RAM 128 KB read", 0, 1e3};
inline const config::Key<double> kLessSttWrite128{"less.energy.stt128_write_nj", 0.645, "nJ", "Table 4.1: STT-RAM 128 KB write", 0, 1e3};
inline const config::Key<double> kLessSttLeak128{"less.energy.stt128_leak_mw", 4.283, "mW", "Table 4.1: STT-RAM 128 KB leakage", 0, 1e6};

// The chip-wide ratios from the summed counters (gpu/stats.cpp): coverage,
// value-lifetime shares, narrow and combined write shares, and the RF energy
// with its leakage over the launch's `seconds`.
void derive_less(config::json& l, double seconds);

class LessPath final : public RfPathHook {
 public:
  LessPath(Core& core, const config::Config& cfg);

  void begin_launch() override;
  void granted(Inst* in, unsigned slot) override;  // an operand read: its register's live time
  void writeback() override;
  void warp_exited(unsigned ws) override;
  config::json stats() const;

 private:
  enum Half : uint8_t { kNone = 0, kLow = 1, kHigh = 2, kBoth = 3 };
  bool narrow(const Inst& in) const;
  bool stt(unsigned p) const { return p < stt_->size() && (*stt_)[p]; }
  // The physical registers of an instruction's first `max` banked reads /
  // writes, in the SM's read_group / write_group order, into out; how many.
  unsigned banked_phys(const Inst& in, bool write, unsigned* out, unsigned max) const;
  // A result bus with `need` (kBoth, or one half) free at `now`: its index
  // and the halves it gives in `took`, or -1.
  int free_bus(uint8_t need, uint64_t now, uint8_t& took) const;
  void write_value(const Inst& in, unsigned ws, unsigned p, bool stt, uint64_t now);
  void close(unsigned ws, unsigned p);

  Core& c_;
  bool placement_all_ = false, placement_none_ = false, narrow_on_;
  unsigned threshold_, write_cycles_;
  std::unordered_map<const ptx::Function*, std::vector<uint8_t>> by_kernel_;  // STT-RAM per physical register
  const std::vector<uint8_t>* stt_ = nullptr;
  std::vector<uint64_t> stt_port_free_;         // per bank group: its STT-RAM write port free from
  std::vector<uint64_t> bus_free_[2];           // per half (low, high), per result bus: free from
  // Per warp slot and physical register: the open value (write -> last read).
  struct Value { uint64_t wr = 0, rd = 0, wr_seq = 0, rd_seq = 0; bool open = false, read = false, stt = false; };
  std::vector<std::vector<Value>> live_;
  double e_read_[2], e_write_[2], leak_mw_;  // [sram, stt]
  struct Stats {
    uint64_t regs[2] = {};                   // the kernel's registers per thread by namespace [sram, stt]
    uint64_t reads[2] = {}, writes[2] = {};  // [sram, stt] warp-register accesses
    uint64_t narrow_stt = 0, shared_bus = 0;  // narrow STT-RAM writes; of them, on a bus another holds
    uint64_t bus_waits = 0, port_waits = 0;   // write-cycles lost: no result bus / STT-RAM port busy
    uint64_t ace[2] = {};                     // register-cycles from write to last read, by technology
    uint64_t values[2] = {}, value_ace[2] = {};  // values by lifetime: [<= threshold, longer]
    uint64_t misplaced[2] = {};  // short values in STT-RAM, long values in SRAM
  } st_;
};

}  // namespace relgpu::sm
