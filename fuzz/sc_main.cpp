// libsystemc.so, linked through relgpu_common, needs an sc_main. libFuzzer's
// main() runs instead of SystemC's, so this one is only reached if that
// ever changes: say so instead of fuzzing nothing.
#include <cstdio>

extern "C" int sc_main(int, char**) {
  std::fputs("relgpu fuzz: SystemC's main() ran instead of libFuzzer's; check the link order\n", stderr);
  return 1;
}
