"""The campaign specs behind each page of scripts/report (no imports: report_check.py reads it
under any python)."""

# The campaigns each page reads and `scripts/report MECH --run` runs, its main one first
# (regress/<spec>.json); the rest are ablations with specs of their own. loscache's main campaign
# has another name: a newer spec beside the old one, whose store keeps its identity.
SPECS = {
    "argo": ["argo", "argo_ablation"],
    "droop": ["droop", "droop_issue", "droop_shares"],
    "grguard": ["grguard", "grguard_chips", "grguard_sigma", "grguard_spill"],
    "grguard_ablation": ["grguard_ablation"],
    "grguard_deadtime": ["grguard_deadtime", "grguard_deadtime_cost", "grguard_issue"],
    "less": ["less", "less_upsets"],
    "loscache": ["loscache_full", "loscache_full_ablation", "loscache_issue"],
    "power": ["power", "power_shares"],
    "resilience": ["resilience"],
    "registers_outside": ["registers_outside"],
    "rise": ["rise", "rise_upsets", "rise_pairs"],
    "rf_variation": ["rf_variation", "rf_variation_chips", "rf_variation_ablation", "rf_variation_vlrf",
                     "rf_variation_fba", "rf_variation_hybrid", "rf_variation_compaction",
                     "rf_variation_latency", "rf_variation_port", "rf_variation_twolevel",
                     "rf_variation_fetchgroup", "rf_variation_vlrf_chips", "rf_variation_bro_chips",
                     "rf_variation_issue"],
    "smoothing": ["smoothing", "smoothing_regime", "smoothing_guardband", "smoothing_issue",
                  "smoothing_shares", "smoothing_trained_small"],
    "uniform": ["uniform"],
}
