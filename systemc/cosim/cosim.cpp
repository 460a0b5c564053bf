// Registers the Verilated RTL of the four blocks with blocks::make<B>() (see
// rtl_instance.h). The library is linked --whole-archive (relgpu_all), so
// these registrations always run. No SystemC header here: with one, the
// Verilator headers assume a SystemC-wrapped model.
#include "Vbank_org_table.h"
#include "Vbank_org_table___024root.h"
#include "Vdroop_predictor.h"
#include "Vdroop_predictor___024root.h"
#include "Vloscache_table.h"
#include "Vloscache_table___024root.h"
#include "Vpatching_unit.h"
#include "Vpatching_unit___024root.h"
#include "cosim/rtl_instance.h"

// configs/blocks/<block>.json, embedded at build time: the parameters each
// model was verilated with (CMake passes the same file as -G arguments).
extern const char relgpu_rtl_params_patching_unit[];
extern const char relgpu_rtl_params_loscache_table[];
extern const char relgpu_rtl_params_bank_org_table[];
extern const char relgpu_rtl_params_droop_predictor[];

namespace relgpu::cosim {

namespace {
using namespace blocks;
RELGPU_RTL_GLUE(PatchingUnitGlue, "patching_unit", Vpatching_unit, PatchingUnit, RELGPU_PATCHING_UNIT_IN,
                RELGPU_PATCHING_UNIT_OUT);
RELGPU_RTL_GLUE(LoscacheTableGlue, "loscache_table", Vloscache_table, LoscacheTable, RELGPU_LOSCACHE_TABLE_IN,
                RELGPU_LOSCACHE_TABLE_OUT);
RELGPU_RTL_GLUE(BankOrgTableGlue, "bank_org_table", Vbank_org_table, BankOrgTable, RELGPU_BANK_ORG_TABLE_IN,
                RELGPU_BANK_ORG_TABLE_OUT);
RELGPU_RTL_GLUE(DroopPredictorGlue, "droop_predictor", Vdroop_predictor, DroopPredictor, RELGPU_DROOP_PREDICTOR_IN,
                RELGPU_DROOP_PREDICTOR_OUT);

// The parameter file as the C++ model reads it (XParams::from), so that
// check_rtl_params compares like with like. Read once.
template <class B, const char* kJson>
typename B::Params verilated_params() {
  static const typename B::Params p = [] {
    config::Config cfg;
    cfg.load_json_text(kJson, std::string("configs/blocks/") + B::name + ".json (built in)");
    return B::Params::from(cfg);
  }();
  return p;
}

const bool kRegistered = [] {
  register_rtl<PatchingUnitBlock, PatchingUnitGlue>(
      verilated_params<PatchingUnitBlock, relgpu_rtl_params_patching_unit>);
  register_rtl<LoscacheTableBlock, LoscacheTableGlue>(
      verilated_params<LoscacheTableBlock, relgpu_rtl_params_loscache_table>);
  register_rtl<BankOrgTableBlock, BankOrgTableGlue>(
      verilated_params<BankOrgTableBlock, relgpu_rtl_params_bank_org_table>);
  register_rtl<DroopPredictorBlock, DroopPredictorGlue>(
      verilated_params<DroopPredictorBlock, relgpu_rtl_params_droop_predictor>);
  return true;
}();
}  // namespace

}  // namespace relgpu::cosim
