// libFuzzer target: a config file and --set lines (inputs_config.cpp).
//
// `config_fuzz --write-dict=FILE` writes a libFuzzer dictionary of every key
// name and string choice the registry knows, and exits (scripts/fuzz).
#include <cstdlib>
#include <fstream>
#include <string>

#include "common/config.h"
#include "inputs.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const std::string flag = "--write-dict=";
  for (int i = 1; i < *argc; ++i) {
    std::string a = (*argv)[i];
    if (a.compare(0, flag.size(), flag) != 0) continue;
    std::ofstream out(a.substr(flag.size()));
    for (const auto& [name, k] : relgpu::config::registry()) {
      out << relgpu::config::json(name).dump() << "\n";
      for (const auto& c : k.choices) out << relgpu::config::json(c).dump() << "\n";
    }
    out.close();  // std::exit does not destroy `out`
    std::exit(out ? 0 : 1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  relgpu::fuzz::config_input(data, size);
  return 0;
}
