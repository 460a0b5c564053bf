// The Verilated RTL behind blocks::make<B>() (systemc/cosim): Impl::rtl and
// Impl::check instances of every block agree with the C++ model under seeded
// random stimulus; --rtl-check stops at the first mismatch with a full
// report; parameter and key errors; --trace-rtl files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <unistd.h>

#include "blocks/instance.h"
#include "common/config.h"
#include "test_paths.h"

using namespace relgpu;
using namespace relgpu::blocks;

namespace {

class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  uint64_t bits(unsigned w) { return g_() & mask(w); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(g_) < p; }
  Wide wide(unsigned w) {
    Wide v((w + 31) / 32);
    for (unsigned i = 0; i < w; i += 32) v[i / 32] = uint32_t(bits(std::min(32u, w - i)));
    return v;
  }

 private:
  std::mt19937_64 g_;
};

// Paper-size parameters, the ones the RTL is verilated with.
template <class B>
typename B::Params paper() {
  config::Config cfg;
  cfg.load_file(testpaths::source_path(std::string("configs/blocks/") + B::name + ".json"));
  return B::Params::from(cfg);
}

// Seeded random inputs of the port widths, denser where a block needs it to
// reach its interesting states (fault maps, table phases, re-organizations).
struct Stimulus {
  Rng r;
  uint64_t k = 0;  // cycle
  explicit Stimulus(uint64_t seed) : r(seed) {}

  PatchingUnitIn next(const PatchingUnitParams& p) {
    PatchingUnitIn in;
    const unsigned g = p.groups();
    if (k < p.num_wrg()) {  // load a fault map first, ~10% faulty entries
      in.fm_we_i = true;
      in.fm_wrg_i = uint32_t(k);
      for (unsigned i = 0; i < p.group_banks; ++i) in.fm_data_i |= uint64_t(r.chance(0.1)) << i;
    } else {
      in.kernel_start_i = r.chance(0.002);
      in.rd_valid_i = r.bits(g);
      in.rd_row_i = r.bits(g * p.row_w());
      in.rd_dead_i = r.bits(g) & r.bits(g);
      in.rd_div_i = r.bits(g) & r.bits(g);
      in.wr_valid_i = r.bits(g);
      in.wr_row_i = r.bits(g * p.row_w());
      in.wr_div_i = r.bits(g) & r.bits(g);
    }
    ++k;
    return in;
  }
  LoscacheTableIn next(const LoscacheTableParams& p) {
    LoscacheTableIn in;
    auto pc = [&] { return uint32_t(0x100 + 8 * r.bits(5)) & uint32_t(mask(p.pc_width)); };  // 32 PCs
    in.start_i = r.chance(0.003);
    in.predictor_done_i = r.chance(0.001);
    in.l2_access_i = r.chance(0.3);
    in.insert_valid_i = r.chance(0.3);
    in.insert_pc_i = pc();
    in.insert_blk_i = uint32_t(r.bits(p.blk_width));
    in.lookup_valid_i = r.chance(0.5);
    in.lookup_pc_i = pc();
    in.query_ready_i = r.chance(0.6);
    in.fill_valid_i = r.chance(0.4);
    in.fill_entry_i = uint32_t(r.bits(p.entry_width()));
    in.fill_count_i = uint32_t(r.bits(p.cnt_width));
    in.mispredict_valid_i = r.chance(0.1);
    in.mispredict_entry_i = uint32_t(r.bits(p.entry_width()));
    ++k;
    return in;
  }
  BankOrgTableIn next(const BankOrgTableParams& p) {
    BankOrgTableIn in;
    in.we_i = r.chance(0.05);
    in.widx_i = uint32_t(r.bits(p.vb_w()));
    in.wdata_i = uint32_t(r.bits(2 * p.sb_w() + 2));
    in.reorg_i = r.chance(0.01);
    in.sensors_i = r.wide(p.num_sbs() * p.code_width);
    in.slow_thr_i = uint32_t(r.bits(p.code_width));
    in.nslow_min_i = uint32_t(r.bits(p.sb_w() + 1));
    in.nhyb_i = uint32_t(r.bits(p.vb_w() + 1));
    in.disp_i = r.chance(0.05);
    in.disp_slot_i = uint32_t(r.bits(p.slot_w()));
    in.disp_warp_i = uint32_t(r.bits(p.vb_w()));
    in.lk_valid_i = uint32_t(r.bits(p.num_lookups));
    in.lk_slot_i = r.bits(p.num_lookups * p.slot_w());
    in.lk_bank_i = r.bits(p.num_lookups * p.vb_w());
    in.lk_act_i = r.wide(p.num_lookups * 32);
    in.fw_slot_i = r.bits(p.num_fwas * p.slot_w());
    in.fw_bank_i = r.bits(p.num_fwas * p.vb_w());
    ++k;
    return in;
  }
  DroopPredictorIn next(const DroopPredictorParams& p) {
    DroopPredictorIn in;
    const bool burst = (k / 64) % 2;  // alternate quiet and busy stretches
    in.n_int_i = uint32_t(burst ? r.bits(p.cnt_width) : 0);
    in.n_fp_i = uint32_t(burst ? r.bits(p.cnt_width) : 0);
    in.n_sfu_i = uint32_t(r.bits(p.cnt_width) & r.bits(p.cnt_width));
    in.n_ldst_i = uint32_t(r.bits(p.cnt_width));
    in.n_rf_rd_i = uint32_t(burst ? r.bits(p.rf_cnt_width) : 0);
    in.n_rf_wr_i = uint32_t(r.bits(p.rf_cnt_width) >> 1);
    in.csr_we_i = r.chance(0.005);
    in.csr_addr_i = uint32_t(r.bits(4));
    in.csr_wdata_i = uint32_t(r.bits(p.power_width));
    ++k;
    return in;
  }
};

config::Config cfg_with(std::initializer_list<const char*> sets) {
  config::Config cfg;
  for (auto s : sets) cfg.set(s);
  return cfg;
}

// `cycles` cycles of random stimulus into a make<B>() instance of the given
// impl at SM `sm`, and into a C++ model; every output must agree.
template <class B>
void agrees_with_cpp(const char* rtl_key, Impl want, unsigned sm, uint64_t seed, uint64_t cycles) {
  const auto p = paper<B>();
  config::Config cfg = cfg_with({rtl_key});
  ASSERT_EQ(impl_for(cfg, B::name), want);
  auto inst = make<B>(p, Site{sm, &cfg});
  CppInstance<B> ref(p);
  Stimulus st(seed);
  Rng hold_rng(seed + 1);
  uint64_t nonzero = 0, hold = 0;
  typename B::In in{};
  for (uint64_t c = 0; c < cycles; ++c) {
    // Stretches of repeated inputs, as an idle SM presents them: the RTL
    // side answers settled cycles without evaluating (rtl_instance.h).
    if (hold) --hold;
    else if (c > 1200 && hold_rng.chance(0.05)) {
      hold = hold_rng.bits(6);
      if (hold_rng.chance(0.5)) in = typename B::In{};  // idle ports
    }
    if (!hold) in = st.next(p);
    const auto a = ref.cycle(in), b = inst->cycle(in);
    ASSERT_TRUE(same_ports(a, b)) << B::name << " cycle " << c << "\n  inputs:\n"
                                  << show_all(in) << "  outputs:\n" << diff_ports(a, b, "cpp", "made");
    nonzero += !same_ports(a, typename B::Out{});
  }
  // The stimulus must make the block do something, or agreement is vacuous.
  EXPECT_GT(nonzero, cycles / 20) << B::name;
  // reset() returns both to the reset state.
  ref.reset();
  inst->reset();
  for (uint64_t c = 0; c < 200; ++c) {
    const auto in = st.next(p);
    ASSERT_TRUE(same_ports(ref.cycle(in), inst->cycle(in))) << B::name << " after reset, cycle " << c;
  }
}

}  // namespace

TEST(CosimBlocks, PatchingUnitRtlAndCheckAgreeWithCpp) {
  agrees_with_cpp<PatchingUnitBlock>("sim.rtl=patching_unit", Impl::rtl, 0, 11, 5000);
  agrees_with_cpp<PatchingUnitBlock>("sim.rtl_check=true", Impl::check, 1, 12, 5000);
}
TEST(CosimBlocks, LoscacheTableRtlAndCheckAgreeWithCpp) {
  agrees_with_cpp<LoscacheTableBlock>("sim.rtl=loscache_table", Impl::rtl, 0, 21, 5000);
  agrees_with_cpp<LoscacheTableBlock>("sim.rtl_check=true", Impl::check, 1, 22, 5000);
}
TEST(CosimBlocks, BankOrgTableRtlAndCheckAgreeWithCpp) {
  agrees_with_cpp<BankOrgTableBlock>("sim.rtl=all", Impl::rtl, 0, 31, 5000);
  agrees_with_cpp<BankOrgTableBlock>("sim.rtl_check=true", Impl::check, 1, 32, 5000);
}
TEST(CosimBlocks, DroopPredictorRtlAndCheckAgreeWithCpp) {
  agrees_with_cpp<DroopPredictorBlock>("sim.rtl=bank_org_table, droop_predictor", Impl::rtl, 0, 41, 5000);
  agrees_with_cpp<DroopPredictorBlock>("sim.rtl_check=true", Impl::check, 1, 42, 5000);
}

// Several instances of one Verilated class (one per SM), interleaved, each
// with its own state: two SMs fed different streams each match their model.
TEST(CosimBlocks, InstancesPerSmAreIndependent) {
  const auto p = paper<LoscacheTableBlock>();
  config::Config cfg = cfg_with({"sim.rtl=all"});
  std::vector<std::unique_ptr<Instance<LoscacheTableBlock>>> rtl;
  std::vector<CppInstance<LoscacheTableBlock>> ref;
  std::vector<Stimulus> st;
  for (unsigned sm = 0; sm < 3; ++sm) {
    rtl.push_back(make<LoscacheTableBlock>(p, Site{sm, &cfg}));
    ref.emplace_back(p);
    st.emplace_back(100 + sm);
  }
  for (int c = 0; c < 3000; ++c)
    for (unsigned sm = 0; sm < 3; ++sm) {
      const auto in = st[sm].next(p);
      ASSERT_TRUE(same_ports(ref[sm].cycle(in), rtl[sm]->cycle(in))) << "SM " << sm << " cycle " << c;
    }
}

// A checked pair whose C++ side diverges (phase_limit 5 instead of the
// RTL's 100): the C++ table leaves PREDICT after 5 L2 accesses, so phase_o
// differs in the cycle after the 5th access, and the report says where.
TEST(CosimBlocks, CheckStopsAtFirstMismatchWithReport) {
  const auto p = paper<LoscacheTableBlock>();
  auto p5 = p;
  p5.phase_limit = 5;
  config::Config cfg = cfg_with({"sim.rtl=loscache_table"});
  const uint64_t owner_cycle = 777;
  const Site site{3, &cfg, &owner_cycle};
  CheckedInstance<LoscacheTableBlock> chk(std::make_unique<CppInstance<LoscacheTableBlock>>(p5),
                                          make<LoscacheTableBlock>(p, site), site);
  LoscacheTableIn start;
  start.start_i = true;
  chk.cycle(start);  // cycle 0
  LoscacheTableIn acc;
  acc.l2_access_i = true;
  acc.insert_valid_i = true;
  acc.insert_pc_i = 0x40;
  acc.insert_blk_i = 0x1234;
  for (int i = 0; i < 5; ++i) chk.cycle(acc);  // cycles 1..5: the 5th ends the C++ phase
  EXPECT_EQ(chk.cycles(), 6u);
  try {
    chk.cycle(acc);
    FAIL() << "no mismatch reported";
  } catch (const RtlMismatch& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("loscache_table"), std::string::npos) << m;
    EXPECT_NE(m.find("SM 3"), std::string::npos) << m;
    EXPECT_NE(m.find("SM cycle 777"), std::string::npos) << m;
    EXPECT_NE(m.find("block cycle 6 (6 since reset)"), std::string::npos) << m;
    EXPECT_NE(m.find("SystemC time"), std::string::npos) << m;
    EXPECT_NE(m.find("    insert_pc_i = 0x40 (64)"), std::string::npos) << m;  // inputs, all ports
    EXPECT_NE(m.find("    mispredict_entry_i = 0x0 (0)"), std::string::npos) << m;
    EXPECT_NE(m.find("    phase_o: cpp=0x2 (2) rtl=0x1 (1)   <-- differs"), std::string::npos) << m;  // UPDATE vs PREDICT
    EXPECT_NE(m.find("    full_o: cpp=0x0 (0) rtl=0x0 (0)\n"), std::string::npos) << m;  // every output
  }
}

// The Verilated parameters are fixed: other block parameters are refused by
// make<B>() with both sets named.
TEST(CosimBlocks, ParamsMismatchIsInputErrorNamingBlock) {
  config::Config cfg = cfg_with({"sim.rtl=all"});
  auto p = paper<PatchingUnitBlock>();
  p.rows = 128;
  try {
    make<PatchingUnitBlock>(p, Site{0, &cfg});
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--rtl patching_unit: the Verilated RTL has banks=32 rows=256 group_banks=8 l1_lines=32; "
                     "this config gives banks=32 rows=128 group_banks=8 l1_lines=32"),
              std::string::npos)
        << m;
  }
  auto d = paper<DroopPredictorBlock>();
  d.thr_reset[1] = 161;
  EXPECT_THROW(make<DroopPredictorBlock>(d, Site{0, &cfg}), InputError);
  // The C++ model takes any valid parameters.
  config::Config cpp;
  EXPECT_NO_THROW(make<PatchingUnitBlock>(p, Site{0, &cpp}));
}

TEST(CosimBlocks, UnknownBlockAndTraceWithoutRtlAreInputErrors) {
  config::Config cfg = cfg_with({"sim.rtl=patching_unit,loscache_tabel"});
  try {
    make<PatchingUnitBlock>(paper<PatchingUnitBlock>(), Site{0, &cfg});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sim.rtl: unknown block 'loscache_tabel' (did you mean 'loscache_table'?)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_rtl_keys(cfg), InputError);
  config::Config trace = cfg_with({"sim.trace_rtl=x.fst"});
  try {
    check_rtl_keys(trace);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sim.trace_rtl"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(check_rtl_keys(cfg_with({"sim.trace_rtl=x.fst", "sim.rtl_check=true"})));
  EXPECT_NO_THROW(check_rtl_keys(cfg_with({"sim.rtl=droop_predictor"})));
}

// --trace-rtl: one FST per instance, FILE.sm<N>.<block>.fst, with content.
TEST(CosimBlocks, TraceWritesOneFstPerInstance) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("relgpu_cosim_trace_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string base = (dir / "w.fst").string();
  config::Config cfg = cfg_with({"sim.rtl=loscache_table"});
  cfg.set("sim.trace_rtl=" + base);
  EXPECT_EQ(trace_path(Site{2, &cfg}, "loscache_table"), (dir / "w.sm2.loscache_table.fst").string());
  {
    const auto p = paper<LoscacheTableBlock>();
    auto a = make<LoscacheTableBlock>(p, Site{2, &cfg});
    auto b = make<LoscacheTableBlock>(p, Site{5, &cfg});
    Stimulus st(7);
    for (int c = 0; c < 500; ++c) {
      const auto in = st.next(p);
      a->cycle(in);
      b->cycle(in);
    }
  }  // closed here
  for (const char* f : {"w.sm2.loscache_table.fst", "w.sm5.loscache_table.fst"}) {
    ASSERT_TRUE(fs::exists(dir / f)) << f;
    EXPECT_GT(fs::file_size(dir / f), 1000u) << f;
  }
  fs::remove_all(dir);
}
