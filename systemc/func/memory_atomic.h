// Atomic read-modify-write semantics shared by the functional executor
// (exec_mem.cpp) and the timing model's L2 (mem/), so both apply exactly the
// same operation to a memory location.
#pragma once
#include <cstdint>

#include "ptx/ir.h"

namespace relgpu::func {

// New value of an atomic location; `old`, `b`, `c` at the instruction's
// width (`bytes`), c is the cas new value. The result is masked to `bytes`.
uint64_t atom_apply(ptx::AtomOp op, ptx::Type t, unsigned bytes, uint64_t old, uint64_t b, uint64_t c);

// Applies the operation to the little-endian location p[0, bytes) and
// returns its old value.
uint64_t atom_apply_at(uint8_t* p, ptx::AtomOp op, ptx::Type t, unsigned bytes, uint64_t b, uint64_t c);

}  // namespace relgpu::func
