// Replays every input checked in under fuzz/corpus/TARGET through what the
// fuzz target does with it (inputs.h): the seeds, and the inputs that once
// crashed relgpu or made a sanitizer report (fuzz/corpus/*/crash-*, see
// docs/hardening.md), so each finding stays fixed in the normal suite and
// under scripts/test --sanitize. An exception other than InputError fails
// the test naming the file; a crash fails it too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "inputs.h"
#include "test_paths.h"

namespace fs = std::filesystem;

namespace {

void replay(const std::string& target, void (*run)(const uint8_t*, size_t)) {
  fs::path dir = relgpu::testpaths::source_path("fuzz/corpus/" + target);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 5u) << dir << " should hold the seed corpus";
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      run(bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      ADD_FAILURE() << f << ": " << e.what();
    }
  }
}

}  // namespace

TEST(FuzzCorpus, Ptx) { replay("ptx", relgpu::fuzz::ptx_input); }
TEST(FuzzCorpus, Config) { replay("config", relgpu::fuzz::config_input); }
TEST(FuzzCorpus, Fatbin) { replay("fatbin", relgpu::fuzz::fatbin_input); }
