// libFuzzer target: arbitrary text as a PTX module (inputs_ptx.cpp).
#include "inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  relgpu::fuzz::ptx_input(data, size);
  return 0;
}
