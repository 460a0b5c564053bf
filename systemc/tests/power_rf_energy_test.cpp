#include <gtest/gtest.h>

#include "power/rf_energy.h"

using namespace relgpu;
using relgpu::power::RfActivity;
using relgpu::power::RfEnergyModel;

// One warp-register access (8 entries of 128 bits) costs one Table 4.1
// access; dynamic energy scales with Vdd^2, leakage with Vdd.
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
  EXPECT_NEAR(l["rf"]["leakage_mw"].get<double>(), 130.0 * 0.86, 1e-12);
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
  config::json j = RfEnergyModel(cfg, 128, 0.5).stats(RfActivity{}, true);
  power::integrate_leakage(j, 1e-6);  // 1 us
  EXPECT_NEAR(j["rf"]["leakage_nj"].get<double>(), 65.0, 1e-9);  // 130 mW x 0.5 x 1 us
  EXPECT_NEAR(j["rf"]["total_nj"].get<double>(), 65.0, 1e-9);
  EXPECT_NEAR(j["patching_unit"]["leakage_nj"].get<double>(), 130.0 * 2.629 / 128, 1e-9);
  EXPECT_FALSE(j["rf"].contains("leakage_mw"));
  EXPECT_FALSE(j["rf"].contains("vdd"));
}
