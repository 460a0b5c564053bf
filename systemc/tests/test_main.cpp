// libsystemc defines main() and calls sc_main, so tests start here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

// Set before libsystemc's main runs (it prints its banner first), and
// exported so tests and the processes they start find the tree and binary.
static const bool kEnv = [] {
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  setenv("RELGPU_SOURCE_DIR", RELGPU_SOURCE_DIR_DEFAULT, 0);
  setenv("RELGPU_BIN", RELGPU_BIN_DEFAULT, 0);
  return true;
}();

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
