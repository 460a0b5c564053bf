#include <gtest/gtest.h>

#include <cmath>

#include "power/rf_energy.h"
#include "power/vf.h"

using namespace relgpu;
using relgpu::power::RfActivity;
using relgpu::power::RfEnergyModel;

// One warp-register access (8 entries of 128 bits) costs one Table 4.1
// access; dynamic energy scales with Vdd^2, leakage power with Vdd times the
// DIBL factor exp(eta (V - 1) / (n kT/q)) (power/vf.h).
TEST(PowerRfEnergy, Table41PerWarpRegisterAndVddScaling) {
  config::Config cfg;
  RfActivity a;
  a.read_entries = 8 * 1000;
  a.write_entries = 8 * 500;
  RfEnergyModel nom(cfg, 128, 1.0), low(cfg, 128, 0.86);
  config::json n = nom.stats(a, false), l = low.stats(a, false);
  EXPECT_NEAR(n["rf"]["dynamic_nj"].get<double>(), 1000 * 0.131 + 500 * 0.123, 1e-9);
  EXPECT_NEAR(l["rf"]["dynamic_nj"].get<double>(), (1000 * 0.131 + 500 * 0.123) * 0.86 * 0.86, 1e-9);
  EXPECT_NEAR(n["rf"]["leakage_mw"].get<double>(), 130.0, 1e-12);
  const double vt = 1.380649e-23 * 358 / 1.602176634e-19;
  EXPECT_NEAR(l["rf"]["leakage_mw"].get<double>(), 130.0 * 0.86 * std::exp(0.15 * -0.14 / (1.5 * vt)), 1e-9);
  config::Config plain;
  plain.set("power.dibl=0");
  EXPECT_NEAR(RfEnergyModel(plain, 128, 0.86).stats(a, false)["rf"]["leakage_mw"].get<double>(), 130.0 * 0.86, 1e-12);
  EXPECT_FALSE(n.contains("patching_unit"));
  // 1024-bit entries: one entry is one warp register.
  RfActivity b;
  b.read_entries = 1000;
  EXPECT_NEAR(RfEnergyModel(cfg, 1024, 1.0).stats(b, false)["rf"]["dynamic_nj"].get<double>(), 131.0, 1e-9);
}

// Patch accesses cost RF energy at the RF's Vdd; the patching unit and the
// spill accesses are priced at nominal Vdd from its 2.629 KB of storage.
TEST(PowerRfEnergy, PatchAccessesAndPatchingUnit) {
  config::Config cfg;
  RfActivity a;
  a.patch_read_entries = 8;
  a.pu_lookups = 1000;
  a.pu_updates = 10;
  a.l1d_spill_accesses = 2;
  config::json j = RfEnergyModel(cfg, 128, 0.9).stats(a, true);
  EXPECT_NEAR(j["rf"]["dynamic_nj"].get<double>(), 0.131 * 0.81, 1e-9);
  EXPECT_NEAR(j["patching_unit"]["dynamic_nj"].get<double>(),
              1000 * 0.131 * 2.629 / 128 + 10 * 0.123 * 2.629 / 128 + 2 * 0.049, 1e-9);
  EXPECT_NEAR(j["patching_unit"]["leakage_mw"].get<double>(), 130.0 * 2.629 / 128, 1e-9);
}

TEST(PowerRfEnergy, LeakageIntegratedOverSimulatedTime) {
  config::Config cfg;
  cfg.set("power.dibl=0");
  config::json j = RfEnergyModel(cfg, 128, 0.5).stats(RfActivity{}, true);
  power::integrate_leakage(j, 1e-6);  // 1 us
  EXPECT_NEAR(j["rf"]["leakage_nj"].get<double>(), 65.0, 1e-9);  // 130 mW x 0.5 x 1 us
  EXPECT_NEAR(j["rf"]["total_nj"].get<double>(), 65.0, 1e-9);
  EXPECT_NEAR(j["patching_unit"]["leakage_nj"].get<double>(), 130.0 * 2.629 / 128, 1e-9);
  EXPECT_FALSE(j["rf"].contains("leakage_mw"));
  EXPECT_FALSE(j["rf"].contains("vdd"));
}

// The alpha-power law: 50 FO4 of 10 ps at 1 V is 500 ps (2 GHz); the
// delay grows as V / (V - Vth)^alpha; nothing switches at or below Vth.
TEST(PowerVf, AlphaPowerFmax) {
  config::Config cfg;
  power::VfModel vf(cfg);
  EXPECT_NEAR(vf.fmax_mhz(1.0), 2000.0, 1e-9);
  auto g = [](double v) { return v / std::pow(v - 0.35, 1.3); };
  EXPECT_NEAR(vf.fmax_mhz(0.86), 2000.0 * g(1.0) / g(0.86), 1e-9);
  EXPECT_GT(vf.fmax_mhz(0.86), 1400.0) << "the 1% point still makes both baselines' SM clocks";
  EXPECT_LT(vf.fmax_mhz(0.5), 700.0);
  EXPECT_EQ(vf.fmax_mhz(0.35), 0.0);
  EXPECT_NEAR(vf.leakage_scale(1.0), 1.0, 1e-12);
  EXPECT_LT(vf.leakage_scale(0.86), 0.86);
}
