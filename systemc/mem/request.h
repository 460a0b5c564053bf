// A memory request between an SM and the memory partitions, and the TLM-2.0
// extension that carries it on a tlm_generic_payload.
//
// Protocol (approximately-timed, base protocol phases): the SM's initiator
// socket sends BEGIN_REQ with nb_transport_fw; a component that cannot take
// the request now returns TLM_ACCEPTED and sends END_REQ later (back
// pressure); the responder sends BEGIN_RESP on the backward path; the
// initiator answers END_RESP (or TLM_COMPLETED). Payload fields:
//   address      line-aligned (kLineBytes) global address
//   command      TLM_READ_COMMAND (read), TLM_WRITE_COMMAND (write, atomic)
//   data_ptr     kLineBytes buffer owned by the initiator: filled with the
//                line on read responses; holds the bytes to write on writes
//   byte_enable  writes only: kLineBytes entries, 0xFF = write this byte
//   extension    MemExt (always present)
// Any memory-side component (interconnect, L2 slice, DRAM controller) can be
// replaced by another TLM target that follows this.
#pragma once
#include <cstdint>
#include <vector>

#include <tlm>

#include "ptx/ir.h"

namespace relgpu::mem {

constexpr unsigned kLineBytes = 128;

// query: a LoSCache count query (mem/loscache.h): reads one L2 line's access
// count, no data either way.
enum class Kind : uint8_t { read, write, atomic, query };

// One lane's atomic operation on this line, applied at the L2 in vector order.
struct AtomLane {
  uint16_t offset = 0;          // byte offset in the line
  uint8_t bytes = 4;            // operand size
  uint8_t lane = 0;
  ptx::AtomOp op = ptx::AtomOp::none;
  ptx::Type type = ptx::Type::none;
  uint64_t b = 0, c = 0;        // operands (c: cas new value)
  uint64_t old = 0;             // result: the value before the operation
};

struct MemExt : tlm::tlm_extension<MemExt> {
  Kind kind = Kind::read;
  uint32_t sm = 0, warp = 0, cta = 0;  // cta: the SM's CTA slot
  uint32_t cta_id = 0;          // launch-wide linear CTA id (x fastest)
  int32_t pc = -1;              // instruction index in its function
  uint64_t id = 0;              // initiator-local request id
  bool bypass_l1 = false;       // .cg / volatile / atomics: not cached in L1
  std::vector<AtomLane> atoms;  // kind == atomic
  uint64_t issue_cycle = 0;     // SM cycle the request left the SM (for latency stats)
  uint16_t mc_pending = 0;      // response: DRAM cycles its line waited in the controller's queue (RISE's T_P; 0: no DRAM read)
  // 32-B sectors of the line the request covers: 4 for an L1 line fill; for
  // uncached accesses GPGPU-Sim's segment rule (1 if the lanes' bytes fall in
  // one sector, 2 if in one aligned half, else 4). The sectored L2 spends a
  // tag cycle per sector and packets carry sectors * 32 data bytes.
  uint8_t sectors = 4;
  // LoSCache (mem/loscache.h); untouched while loscache.enable is false.
  uint8_t los_pred = 0;         // predicted accesses of the line; 0 = no prediction, never gate
  uint8_t los_naive = 0;        // the same prediction without the adaptive threshold (stats only)
  int16_t los_entry = -1;       // prediction-table entry of the PC (query: the entry asked about)
  bool los_predict = false;     // the SM is in its prediction phase: the L2 only counts
  bool los_mispredict = false;  // response: the line had been gated (under-prediction)
  uint8_t los_count = 0;        // query response: the line's access count

  tlm::tlm_extension_base* clone() const override { return new MemExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const MemExt&>(o); }
};

}  // namespace relgpu::mem
