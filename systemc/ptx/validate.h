// Load-time check that a parsed module can be run: every instruction is one
// the executor implements, and the program uses no construct we cannot run.
#pragma once
#include <functional>

#include "ptx/ir.h"

namespace relgpu::ptx {

// Throws relgpu::InputError "file:line:col: unsupported PTX instruction
// 'tex.2d.v4.f32.f32'" for the first instruction (in file order) that was not
// decoded or that `implemented` rejects, and "file:line:col: recursion ..."
// for a call cycle (the executor has no call stack in memory, so recursion
// is rejected rather than run with an arbitrary depth limit).
void validate(const Module& m, const std::function<bool(const Instr&)>& implemented);

}  // namespace relgpu::ptx
