// Runs the built `relgpu` binary (RELGPU_BIN, set by ctest) for the tests of
// the command line as a user meets it.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace relgpu::clitest {

struct Out {
  int rc;
  std::string text;  // stdout and stderr together
};

inline Out relgpu(const std::string& args) {
  const char* bin = std::getenv("RELGPU_BIN");
  EXPECT_NE(bin, nullptr) << "RELGPU_BIN not set (run through ctest)";
  std::string cmd = std::string(bin ? bin : "relgpu") + " " + args + " 2>&1";
  Out o{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.text.append(buf.data(), n);
  int st = pclose(p);
  o.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

}  // namespace relgpu::clitest
