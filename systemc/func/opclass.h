// Opcode classes for instruction counts; the power model maps them onto its
// INT/FP/SFU/LDST energies.
#pragma once
#include <cstdint>

#include "ptx/ir.h"

namespace relgpu::func {

enum class OpClass : uint8_t {
  INT, FP32, FP64, SFU, LDST_GLOBAL, LDST_SHARED, LDST_LOCAL, LDST_CONST_PARAM, ATOMIC, BRANCH, BARRIER,
  OTHER, count_
};
const char* opclass_name(OpClass c);   // "INT", "LDST_GLOBAL", ...
// Generic-space loads/stores count as LDST_GLOBAL (the space is only known
// per lane at run time; the common case is global).
OpClass classify(const ptx::Instr& in);

}  // namespace relgpu::func
