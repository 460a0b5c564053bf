// The text of `relgpu ptx-info FILE.ptx`: what the parser and the analyses
// made of each kernel and function, for users inspecting their own PTX.
// Expects analyse(m) to have run (blocks, IPDOMs, dead bits, registers).
#pragma once
#include <string>

#include "ptx/ir.h"

namespace relgpu::ptx {

std::string info(const Module& m);

}  // namespace relgpu::ptx
