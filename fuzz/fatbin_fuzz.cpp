// libFuzzer target: bytes as a program file and fatbinaries (inputs_fatbin.cpp).
#include "inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  relgpu::fuzz::fatbin_input(data, size);
  return 0;
}
