// GPGPU-Sim's per-opcode ALU timing (sm.op_latency=gpgpusim / gpgpusim3):
// the latency and initiation interval its ptx_instruction::
// set_opcode_and_latency gives each PTX opcode under the GTX480
// configuration (-ptx_opcode_latency_int / _fp / _dp, -ptx_opcode_initiation_*;
// 3.x and 4.0 ship the same values). Opcodes its switch does not list (logic,
// shifts, setp, selp, cvt, mov, fma, rem, ...) fall to its ALU_OP class:
// latency 1. The two versions differ in a few rows (below) and in one unit:
// 3.x sends integer mul and mad to the SFU (SFU_OP). Otherwise the unit an
// instruction runs on stays relgpu's.
#pragma once
#include <cstdint>

#include "ptx/ir.h"

namespace relgpu::sm {

struct OpTiming {
  uint16_t latency = 1, ii = 1;
  bool sfu = false;  // runs on the SFU (3.x: integer mul / mad)
};

// For a non-memory instruction (control ones fall to ALU_OP's 1, as there);
// v3: GPGPU-Sim 3.x's table (the seeds' simulator), else 4.0's (the one
// relgpu correlates against).
OpTiming gpgpusim_op_timing(const ptx::Instr& in, bool v3);

}  // namespace relgpu::sm
