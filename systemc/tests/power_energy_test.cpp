#include <gtest/gtest.h>

#include "power/energy.h"

using relgpu::power::EnergyAccount;

TEST(PowerEnergy, DynamicScalesWithVddSquaredLeakageWithVdd) {
  EnergyAccount nom("rf", 1.0, 1.0), low("rf", 1.0, 0.8);
  for (EnergyAccount* a : {&nom, &low}) {
    unsigned rd = a->event("read", 0.131);
    a->count(rd, 1000);
    a->set_leakage_mw(130);
    a->leak(1e-6);
  }
  EXPECT_NEAR(nom.dynamic_nj(), 131.0, 1e-9);
  EXPECT_NEAR(low.dynamic_nj(), 131.0 * 0.64, 1e-9);
  EXPECT_NEAR(nom.leakage_nj(), 130.0, 1e-9);  // 130 mW x 1 us
  EXPECT_NEAR(low.leakage_nj(), 104.0, 1e-9);
  EXPECT_EQ(low.stats()["events"]["read"]["count"], 1000);
}

TEST(PowerEnergy, GatedLeakageCountsOnlyThePoweredFraction) {
  EnergyAccount a("l2", 1.0, 1.0);
  a.set_leakage_mw(100);
  a.leak(1e-6, 0.25);
  EXPECT_NEAR(a.leakage_nj(), 25.0, 1e-9);
}
