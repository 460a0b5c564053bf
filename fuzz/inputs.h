// What each fuzz target does with one input, shared by the libFuzzer
// targets (*_fuzz.cpp) and by fuzz_corpus_test, which replays every input
// checked in under fuzz/corpus/ in the normal test suite. Malformed input
// must end in relgpu::InputError, which these catch; any other exception
// escapes to the caller, and a crash or sanitizer report is a bug as well.
#pragma once
#include <cstddef>
#include <cstdint>

namespace relgpu::fuzz {

// PTX text, as `relgpu ptx-info` and Device::load_module take it.
void ptx_input(const uint8_t* data, size_t size);
// A config file's text, optionally followed by a NUL and --set lines.
void config_input(const uint8_t* data, size_t size);
// Bytes as a program file (ELF) and as fatbinaries.
void fatbin_input(const uint8_t* data, size_t size);

}  // namespace relgpu::fuzz
