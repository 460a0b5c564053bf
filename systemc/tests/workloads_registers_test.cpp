// Registers per thread of every shipped workload kernel come from ptxas
// (the checked-in <name>.ptxinfo), exactly, and reach the launch records;
// docs/registers.md shows the current table.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "ptx/analysis.h"
#include "ptx/parser.h"
#include "ptx/ptxas.h"
#include "runtime/device.h"
#include "test_paths.h"
#include "workload.h"

using namespace relgpu;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class WorkloadRegisters : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkloadRegisters, LaunchesUsePtxasCounts) {
  const std::string name = GetParam();
  const std::string file = testpaths::source_path("regress/workloads/" + name + "/" + name + ".ptxinfo");
  ptx::PtxasInfo checked_in = ptx::from_json(read_file(file), file);
  const ptx::PtxasInfo& embedded = wl::ptxas_info(name);
  EXPECT_EQ(embedded.registers, checked_in.registers) << "the binary embeds another " << file;

  // Every kernel of the PTX has a count, and every count a kernel.
  auto mod = ptx::parse(wl::ptx_text(name), wl::ptx_path(name));
  ptx::analyse(*mod);
  std::set<std::string> kernels;
  for (auto& f : mod->functions)
    if (f->is_entry) kernels.insert(f->name);
  std::set<std::string> counted;
  for (auto& [k, n] : checked_in.registers) {
    counted.insert(k);
    EXPECT_GE(n, 1u) << k;
  }
  EXPECT_EQ(kernels, counted) << file << " is stale";

  // Outside the banks (at or above ptxas's count) only constant operands,
  // but for pathfinder_rows, whose other values need 16 registers against
  // ptxas's 15. The plain allocation (gpu.regs_outside=highest) puts more
  // of the others there in every kernel that has any (docs/registers.md).
  auto plain = ptx::parse(wl::ptx_text(name), wl::ptx_path(name));
  ptx::analyse(*plain);
  ptx::apply(*plain, checked_in, false);
  ptx::apply(*mod, checked_in);
  for (auto& f : mod->functions) {
    if (!f->is_entry) continue;
    const ptx::Outside out = ptx::registers_outside(*f), before = ptx::registers_outside(*plain->find(f->name));
    EXPECT_EQ(out.regs - out.constant, f->name == "pathfinder_rows" ? 1u : 0u) << f->name;
    if (out.regs) {
      EXPECT_GT(before.regs - before.constant, out.regs - out.constant) << f->name;
    }
    EXPECT_EQ(out.regs > 0, before.regs > 0) << f->name;
  }

  config::Config cfg;
  runtime::Device dev(cfg);
  std::ostringstream log;
  wl::Context ctx{dev, wl::Size::small, 1, wl::ptx_text(name), wl::ptx_path(name), wl::ptxas_info(name), log};
  ASSERT_TRUE(wl::find(name)->run(ctx).pass);
  ASSERT_FALSE(dev.launches().empty());
  for (const auto& l : dev.launches()) {
    const uint32_t ptxas = checked_in.registers.at(l.kernel);
    EXPECT_EQ(l.regs_ptxas, ptxas) << l.kernel;
    EXPECT_EQ(l.regs_allocator, mod->find(l.kernel)->regs_allocator) << l.kernel;
    EXPECT_EQ(l.regs_per_thread, ptxas) << l.kernel;
    EXPECT_TRUE(runtime::register_note(l).empty()) << l.kernel << ": ptxas's count is known";
  }
}

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (auto& w : wl::all()) n.push_back(w.name);
  return n;
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadRegisters, ::testing::ValuesIn(names()),
                         [](const auto& info) { return info.param; });

}  // namespace
