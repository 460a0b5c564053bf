// Errors a user can act on. Every message names the file, line, key or
// kernel/PC it is about; the CLI prints what() and exits non-zero.
#pragma once
#include <stdexcept>
#include <string>

namespace relgpu {

// Bad user input: a file, a config key, PTX source, a command-line option.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A kernel did something illegal at run time (out-of-bounds access,
// misalignment, runaway). The message names kernel, PC, warp, thread, address.
struct KernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "file:line:col: message", the form compilers use, so editors can jump to it.
inline std::string at(const std::string& file, unsigned line, unsigned col, const std::string& msg) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg;
}

}  // namespace relgpu
