// relgpu_ptxinfo PTXAS IN.ptx OUT.ptxinfo: runs ptxas -v on a workload's PTX
// and writes its registers per kernel (ptx/ptxas.h). The build runs it when
// ptxas is present; the output is checked in beside the PTX.
#include <fstream>
#include <iostream>
#include <sstream>

#include "ptx/ptxas.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: relgpu_ptxinfo PTXAS IN.ptx OUT.ptxinfo\n";
    return 2;
  }
  std::ifstream in(argv[2]);
  if (!in) {
    std::cerr << argv[2] << ": cannot open\n";
    return 2;
  }
  std::stringstream ptx;
  ptx << in.rdbuf();
  std::string why;
  auto info = relgpu::ptx::run_ptxas(argv[1], ptx.str(), "", why);
  if (!info) {
    std::cerr << argv[2] << ": " << why << "\n";
    return 1;
  }
  std::ofstream out(argv[3]);
  if (!(out << relgpu::ptx::to_json(*info))) {
    std::cerr << argv[3] << ": cannot write\n";
    return 1;
  }
  return 0;
}
