// GPGPU-Sim's per-opcode ALU timing (sm.op_latency=gpgpusim): the latency
// and initiation interval its ptx_instruction::set_opcode_and_latency gives
// each PTX opcode under the GTX480 configuration (-ptx_opcode_latency_int /
// _fp / _dp, -ptx_opcode_initiation_*, the SFU's default 8 / 8; 3.x and 4.0
// use the same values for these opcodes). Opcodes its switch does not list
// (logic, shifts, setp, selp, cvt, mov, fma, rem, ...) fall to its ALU_OP
// class: latency 1. The unit an instruction runs on stays relgpu's choice.
#pragma once
#include <cstdint>

#include "ptx/ir.h"

namespace relgpu::sm {

struct OpTiming {
  uint16_t latency = 1, ii = 1;
};

// For a non-memory, non-control instruction.
OpTiming gpgpusim_op_timing(const ptx::Instr& in);

}  // namespace relgpu::sm
