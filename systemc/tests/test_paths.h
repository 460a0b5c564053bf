// Where the source tree is, for tests that read files from it. test_main.cpp
// always exports RELGPU_SOURCE_DIR (from cmake, unless the caller set it).
#pragma once
#include <cstdlib>
#include <string>

namespace relgpu::testpaths {

inline std::string source_dir() {
  const char* d = std::getenv("RELGPU_SOURCE_DIR");
  return d ? d : RELGPU_SOURCE_DIR_DEFAULT;
}
// A path relative to the source tree: source_path("configs/gtx480.json").
inline std::string source_path(const std::string& rel) { return source_dir() + "/" + rel; }

}  // namespace relgpu::testpaths
