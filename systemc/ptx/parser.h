// PTX text -> Module (ir.h), everything resolved: registers to dense
// per-function indices, labels to instruction indices, symbols to
// Function::symbols indices, callees to Module::functions indices, and the
// param, local and shared layouts computed.
//
// Layout choices (the PTX spec leaves them to the implementation):
// - params: in declaration order at their alignment (.align or natural);
//   for a .func, the return params follow the params in the same buffer and
//   param_bytes covers both. Caller-side `.param` temporaries of a call
//   sequence are each their own buffer (offset 0).
// - local: the .local variables of a function, in order, at their alignment.
// - shared: module-scope static .shared variables (and .shared declared in a
//   .func) share one module-wide area starting at 0, so their offsets are the
//   same in every kernel and callee. A kernel's own .shared variables follow
//   that area if the kernel (or a callee) uses any of it, else start at 0.
//   shared_bytes is the end of what the kernel needs. Dynamic (extern)
//   shared starts at dyn_shared_offset = shared_bytes rounded up to 16 (or
//   the array's alignment); a .func using it inherits the offset from the
//   kernels that call it, and an error is raised if they disagree.
#pragma once
#include <memory>
#include <string>

#include "ptx/ir.h"

namespace relgpu::ptx {

// Throws relgpu::InputError("file:line:col: message") for anything it cannot
// parse or resolve.
std::unique_ptr<Module> parse(const std::string& text, const std::string& file);

}  // namespace relgpu::ptx
