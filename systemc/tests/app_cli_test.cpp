// The command line as a user meets it: exit codes and messages for good and
// bad input, the stats file, and determinism. Runs the built binary.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "test_paths.h"

namespace {

using relgpu::clitest::Out;
using relgpu::clitest::relgpu;

std::string tmpfile_with(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

const char* kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

TEST(Cli, ListFirstColumnIsWorkloadName) {
  Out o = relgpu("list");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_EQ(o.text.find("SystemC"), std::string::npos) << "banner leaked into output";
  std::istringstream s(o.text);
  std::string first;
  s >> first;
  EXPECT_EQ(first, "backprop");
  EXPECT_NE(o.text.find("\nbfs "), std::string::npos);
}

TEST(Cli, HelpForEveryCommand) {
  for (const char* c : {"--help", "run --help", "list --help", "ptx-info --help", "config --help", "rf-age --help"}) {
    Out o = relgpu(c);
    EXPECT_EQ(o.rc, 0) << c;
    EXPECT_NE(o.text.find("usage"), std::string::npos) << c;
  }
}

// --version names the revision campaigns record (12 hex digits, -dirty for a
// tree with uncommitted changes; unknown outside git) and SystemC's release.
TEST(Cli, VersionNamesTheRevision) {
  Out o = relgpu("--version");
  EXPECT_EQ(o.rc, 0) << o.text;
  EXPECT_TRUE(std::regex_search(o.text, std::regex("^relgpu ([0-9a-f]{12}|unknown)(-dirty)?\nSystemC 2\\.3"))) << o.text;
}

// relgpu rf-age: bad input is named, with exit 2, before any chip is built.
TEST(Cli, RfAgeBadInputIsNamed) {
  Out o = relgpu("rf-age");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("--store FILE is required"), std::string::npos) << o.text;
  o = relgpu("rf-age --store x.db --stress sometimes");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("--stress must be access or always"), std::string::npos) << o.text;
  o = relgpu("rf-age --store x.db --runs pv=foo");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("unknown organisation 'pv'"), std::string::npos) << o.text;
  o = relgpu("rf-age --store x.db --ratios 2:3");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("--ratios"), std::string::npos) << o.text;
  const std::string missing = ::testing::TempDir() + "no_such_store.db";
  o = relgpu("rf-age --store " + missing);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(missing), std::string::npos) << o.text;
}

TEST(Cli, MalformedPtxGivesFileLineCol) {
  std::string f = tmpfile_with("bad_semicolon.ptx", std::string(kHeader) +
                                                        ".visible .entry k()\n{\n .reg .b32 %r<3>;\n"
                                                        " mov.u32 %r1, 5\n add.u32 %r2, %r1, 1;\n ret;\n}\n");
  Out o = relgpu("ptx-info " + f);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(f + ":7:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("expected ';' after 'mov.u32' instruction"), std::string::npos) << o.text;
}

TEST(Cli, UnknownOpcodeNamedAtItsLine) {
  std::string f = tmpfile_with("bad_op.ptx", std::string(kHeader) +
                                                 ".visible .entry k()\n{\n .reg .b32 %r<3>;\n"
                                                 " frobnicate.u32 %r1, 5;\n ret;\n}\n");
  Out o = relgpu("ptx-info " + f);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(f + ":7:2:"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("frobnicate"), std::string::npos) << o.text;
}

TEST(Cli, UnsupportedInstructionNamedByPtxInfo) {
  std::string f = tmpfile_with("tex.ptx", std::string(kHeader) +
                                              ".visible .entry k()\n{\n .reg .f32 %f<3>;\n .reg .b64 %rd<3>;\n"
                                              " tex.2d.v4.f32.f32 {%f1,%f2,%f1,%f2}, [%rd1, {%f1,%f2}];\n ret;\n}\n");
  Out o = relgpu("ptx-info " + f);
  EXPECT_NE(o.text.find("unsupported PTX instruction 'tex.2d"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find(f + ":8:"), std::string::npos) << o.text;
}

TEST(Cli, BadInputExitsTwoWithMessage) {
  struct Case {
    std::string args, expect;
  } cases[] = {
      {"run nosuch", "unknown workload 'nosuch'"},
      {"run bfs --size huge", "--size must be"},
      {"run bfs --seed -1", "--seed"},
      {"run bfs --frob", "unknown option '--frob'"},
      {"run bfs --config /nonexistent.json", "/nonexistent.json: cannot open"},
      {"run bfs --set no.such.key=1", "unknown config key 'no.such.key'"},
      {"run bfs --set func.max_warp_insn=0", "out of range"},
      {"ptx-info /nonexistent.ptx", "/nonexistent.ptx: cannot open"},
      {"exec -- /nonexistent-program", "exec: /nonexistent-program: No such file or directory"},
      {"exec --config /nonexistent.json -- /bin/true", "/nonexistent.json: cannot open config file"},
      {"frob", "unknown command 'frob'"},
  };
  for (auto& c : cases) {
    Out o = relgpu(c.args);
    EXPECT_EQ(o.rc, 2) << c.args << "\n" << o.text;
    EXPECT_NE(o.text.find(c.expect), std::string::npos) << c.args << "\n" << o.text;
  }
}

TEST(Cli, ConfigFileErrorsNameFileAndKey) {
  std::string typo = tmpfile_with("typo.json", "{\"func\": {\"max_warp_insns\": 5}}");
  Out o = relgpu("run bfs --size small --config " + typo);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(typo + ": unknown config key 'func.max_warp_insns'"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("did you mean 'func.max_warp_insn'"), std::string::npos) << o.text;

  std::string syntax = tmpfile_with("syntax.json", "{\n  \"func.max_warp_insn\": 5,\n}\n");
  o = relgpu("run bfs --size small --config " + syntax);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(syntax + ":3:1: malformed JSON: syntax error"), std::string::npos) << o.text;

  std::string range = tmpfile_with("range.json", "{\"gpu\": {\"num_sms\": 5000}}");
  o = relgpu("run bfs --size small --config " + range);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(range + ": config key 'gpu.num_sms' = 5000 is out of range [1, 1024]"), std::string::npos)
      << o.text;

  // Found while fuzzing the config loader (docs/hardening.md): these
  // crashed relgpu or ended in an internal error (exit 4).
  std::string deep = tmpfile_with("deep.json", "{\"x\": " + std::string(200000, '[') + std::string(200000, ']') + "}");
  o = relgpu("run bfs --size small --config " + deep);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(deep + ":1:38: objects and arrays nested deeper than 32 levels"), std::string::npos) << o.text;
  std::string huge = tmpfile_with("huge.json", "{\"gpu.sm_clock_mhz\": 1e999}");
  o = relgpu("exec --config " + huge + " -- /bin/true");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find(huge + ": malformed JSON: number overflow parsing '1e999'"), std::string::npos) << o.text;
  o = relgpu("run bfs --size small --set 'sim.trace_rtl=/tmp/caf\xe9.fst'");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("--set sim.trace_rtl: the value is not UTF-8 text"), std::string::npos) << o.text;

  std::string type = tmpfile_with("type.json", "{\"func.max_warp_insn\": \"many\"}");
  o = relgpu("run bfs --size small --config " + type);
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("must be of type int"), std::string::npos) << o.text;
}

// The README's "program linked with the static runtime" row without nvcc:
// an ELF file with device code that does not need libcudart.so.
TEST(Cli, ExecRefusesDeviceCodeWithoutTheSharedRuntime) {
  std::string prog = ::testing::TempDir() + "static_app";
  std::filesystem::copy_file(relgpu::testpaths::source_path("systemc/tests/data/cudart/sample.o"), prog,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::permissions(prog, std::filesystem::perms::owner_all);
  Out o = relgpu("exec -- " + prog);
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find(prog + " is linked with the static CUDA runtime"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("-cudart shared"), std::string::npos) << o.text;
}

TEST(Cli, RunawayKernelIsAKernelError) {
  Out o = relgpu("run bfs --size small --mode functional --set func.max_warp_insn=100");
  EXPECT_EQ(o.rc, 3) << o.text;
  EXPECT_NE(o.text.find("exceeded func.max_warp_insn=100"), std::string::npos) << o.text;
}

TEST(Cli, StatsFileHasTheDocumentedFieldsAndIsDeterministic) {
  std::string a = ::testing::TempDir() + "a.json", b = ::testing::TempDir() + "b.json";
  ASSERT_EQ(relgpu("run spmv --size small --mode functional --seed 4 --quiet --stats " + a).rc, 0);
  ASSERT_EQ(relgpu("run spmv --size small --mode functional --seed 4 --quiet --stats " + b).rc, 0);
  auto ja = nlohmann::json::parse(std::ifstream(a)), jb = nlohmann::json::parse(std::ifstream(b));
  for (const char* k : {"workload", "kernel_launches", "gpu_sim_insn", "gpu_warp_insn", "class_counts", "wall_s",
                        "sim_rate_thread_insn_per_s", "output_check", "config"})
    EXPECT_TRUE(ja.contains(k)) << k;
  EXPECT_EQ(ja["output_check"], "pass");
  EXPECT_EQ(ja["config"]["func.max_warp_insn"], 4000000000LL);
  for (auto* j : {&ja, &jb}) j->erase("host"), j->erase("wall_s"), j->erase("sim_rate_thread_insn_per_s");
  EXPECT_EQ(ja, jb);
}

}  // namespace
