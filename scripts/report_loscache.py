"""docs/results/loscache.{md,html} from the runs of regress/loscache_full.json and
regress/loscache_full_ablation.json in a campaign store."""
import glob
import os
import re

from report_lib import ROOT, bars, campaign_time, cfg, mean, missing_text, ok, pct, save_page, table

SCHEDS = ["gto", "lrr", "two_level"]
# Tan dissertation Ch7 (spec 000 §5); "characterisation" is §7.1.
PAPER = {"acc_adaptive": 0.93, "acc_naive": 0.54, "traffic": 0.02, "time": 0.005,
         "l2_by_sched": {"gto": 0.36, "lrr": 0.32, "two_level": 0.32}, "ideal_below": 0.06,
         "dead": 0.956, "reref": (0.38, 0.27, 0.34), "inter": 0.31, "pcs": 21, "valid": 7}


def l2_total(run):
    return run["l2_energy"]["total_nj"]


def ideal_ratio(run):
    """Ideal-Gating energy over every-line-powered energy, from a LoSCache-off run."""
    return run.get("l2_life", {}).get("ideal_gating_energy_ratio")


def global_pcs():
    """Per workload: the most global-memory instructions of any one kernel
    (static count in its PTX), the prediction table's demand."""
    out = {}
    for path in glob.glob(os.path.join(ROOT, "regress", "workloads", "*", "*.ptx")):
        text = open(path).read()
        counts = [len(re.findall(r"^\s+(?:@!?%p\d+\s+)?(?:ld|st|atom|red)\.global", body, re.M))
                  for body in re.split(r"\.entry\s", text)[1:]]
        out[os.path.basename(os.path.dirname(path))] = max(counts or [0])
    return out


def gen_share(runs, key):
    """Stat `key` of loscache.l2 over the predicted generations, pooled over runs; None if none are
    predicted or a run lacks the stat (a store made before it)."""
    n = sum(r["loscache"]["l2"]["generations_predicted"] for r in runs)
    if not n or any(key not in r["loscache"]["l2"] for r in runs):
        return None
    return sum(r["loscache"]["l2"][key] for r in runs) / n


def accuracy(runs):
    n = sum(r["loscache"]["l2"]["generations_predicted"] for r in runs)
    return gen_share(runs, "exact_adaptive"), gen_share(runs, "exact_naive"), n


def coverage(runs):
    """Line generations that carried a prediction, of all (pooled)."""
    g = sum(r["loscache"]["l2"]["generations"] for r in runs)
    return sum(r["loscache"]["l2"]["generations_predicted"] for r in runs) / g if g else None


def traffic(runs):
    q = sum(r["loscache"]["icnt"]["query_bytes"] for r in runs)
    t = sum(r["loscache"]["icnt"]["total_bytes"] for r in runs)
    return q / (t - q) if t > q else 0.0


def pcs_seen_max(run):
    """The most distinct PCs any SM's predictor CTA issued in one prediction
    phase (the paper's Fig. 7.11, 21 in NW), table full or not: the last
    index of the summed one-hot histogram."""
    h = run["loscache"]["sm"].get("pcs_seen") or []
    return max((i for i, n in enumerate(h) if n), default=0)


def valid_entries(run):
    """Mean valid table entries at the end of the prediction phase (one count
    query per valid entry) per active table: an SM and launch whose predictor
    CTA issued at least one global memory instruction in the phase (the
    pcs_seen histogram past index 0); SMs left without CTAs in a launch would
    otherwise count as empty tables."""
    sm = run["loscache"]["sm"]
    active = sum((sm.get("pcs_seen") or [])[1:])
    return sm["queries"] / active if active else None


def powered_share(run, part):
    """A part of the powered line-time (mem/loscache.h PoweredTime) over all line-cycles; None for runs
    made before the split was recorded."""
    l2 = run["loscache"]["l2"]
    return l2["powered"].get(part, 0) / l2["line_cycles"] if "powered" in l2 and l2["line_cycles"] else None


POWERED = [("live", "live"), ("gating", "waiting to gate"), ("phase", "no prediction: prediction phase"),
           ("uncovered", "no prediction: table miss, read"), ("uncovered_write", "no prediction: table miss, only written"),
           ("over", "over-predicted"), ("under", "woken by an under-prediction"), ("exact", "exact, not gated"),
           ("idle", "not accessed in the kernel")]


def powered_section(on, off):
    """Powered line-time of the LoSCache runs split by why each line was powered
    (mem/loscache.h PoweredTime), beside the oracle's live line-time."""
    rows, sums = [], {k: [] for k, _ in POWERED}
    ideal_live, on_frac = [], []
    for (w, s, size) in sorted(on):
        k = (w, s, size)
        l2 = on[k]["loscache"]["l2"]
        if s != "gto" or k not in off or "powered" not in l2 or not l2["line_cycles"]:
            continue
        n = l2["line_cycles"]
        parts = {p: powered_share(on[k], p) for p, _ in POWERED}
        live = 1 - off[k]["l2_life"]["dead_fraction"] if "l2_life" in off[k] else None
        for p in parts:
            sums[p].append(parts[p])
        on_frac.append(l2["powered_line_cycles"] / n)
        ideal_live.append(live)
        rows.append([f"{w} ({size})", pct(l2["powered_line_cycles"] / n), pct(live)] + [pct(parts[p]) for p, _ in POWERED])
    if not rows:
        return []
    rows.append(["**mean**", pct(mean(on_frac)), pct(mean(ideal_live))] + [pct(mean(sums[p])) for p, _ in POWERED])
    return ["## Where the powered line-time goes (GTO)", "",
            table(["workload", "powered (LoSCache)", "live (Ideal-Gating)"] + [f"{t}" for _, t in POWERED], rows), "",
            "Shares of all line-cycles of the L2 (lines x cycles), LoSCache on, measured line by line in the model "
            "(`loscache.l2.powered`, mem/loscache.h `PoweredTime`; the parts sum to the powered share, checked in "
            "every workload test). *live*: between the first and last access of a line's generation; the rest is "
            "a powered line's time after its last access, charged to why it was still on: *waiting to gate* (the "
            "predicted last access came, the gate waited for the fill or for DRAM room to write the line back), "
            "*no prediction* (no request of the generation carried one: some were counted in a prediction phase, or "
            "every one missed the table; a line only written by the kernel, its stores, apart), "
            "*over-predicted* (fewer accesses came than predicted), *woken by an under-prediction* (gated too early, "
            "refetched, then left on), *exact, not gated*, and *not accessed in the kernel* (resident from an earlier "
            "kernel, or installed by a host copy with `l2.fill_on_memcpy`, off in this config). The Ideal-Gating column is the LoSCache-off run's live share (1 - dead time): the "
            "oracle powers only that.", ""]


def powered_ablation_section(runs, on, off, key):
    """One choice switched at a time: power-off at launch, what a woken line does."""
    grp = lambda g: [r for r in runs if r["_name"].split("/")[0] == g]
    variants = [("default (lines stay on across kernels, a woken line stays on)", on, off),
                ("clean lines off at each launch (`loscache.launch_gating`)",
                 {key(r): r for r in grp("ls_launch_gating")}, off),
                ("a woken line gated again right after its refetch (`loscache.woken_line=regate`)",
                 {key(r): r for r in grp("ls_regate")}, off),
                ("a woken line gated at its next predicted-last access (`loscache.woken_line=next`)",
                 {key(r): r for r in grp("ls_woken_next")}, off),
                ("64 table entries instead of 21 (`blocks.loscache_table.num_entries=64`)",
                 {key(r): r for r in grp("ls_table64")}, off)]
    rows = []
    for label, a, b in variants:
        keys = [k for k in a if k in b and k[1] == "gto" and "powered" in a[k]["loscache"]["l2"]]
        if not keys:
            continue
        share = lambda p: mean([powered_share(a[k], p) for k in keys])
        rows.append([label, len(keys), pct(mean([l2_total(a[k]) / l2_total(b[k]) for k in keys])),
                     pct(mean([ideal_ratio(b[k]) for k in keys])),
                     pct(mean([a[k]["loscache"]["l2"]["powered_line_cycles"] / a[k]["loscache"]["l2"]["line_cycles"] for k in keys])),
                     pct(share("idle")), f"{pct(share('phase'))} / {pct(share('uncovered') + share('uncovered_write'))}", pct(share("under")),
                     f"{sum(a[k]['loscache']['l2']['gated_hits'] for k in keys):,}", pct(accuracy([a[k] for k in keys])[0]),
                     pct(mean([a[k]["gpu_sim_cycle"] / b[k]["gpu_sim_cycle"] - 1 for k in keys]), 2, sign=True)])
    if len(rows) < 2:
        return []
    return ["## Ablations on the powered line-time (GTO)", "",
            table(["variant", "workloads", "L2 energy vs its baseline (paper 36%)", "Ideal-Gating", "powered share",
                   "not accessed in the kernel", "no prediction: phase / table miss", "woken, left on",
                   "refetches (gated hits)",
                   "exact-count accuracy", "LoSCache time"], rows),
            "", "Each row switches one choice, against the default's LoSCache-off runs (the keys act only with "
            "LoSCache on). Shares of line-cycles, means over workloads, as in the section above.", ""]


L1_DESIGNS = [("ls", "baseline L1 (16 KB)", 0.36), ("ls_no_l1", "no L1 (`l1d.cache_global=false`)", 0.35),
              ("ls_ideal_l1", "ideal L1 (4 MB per SM)", 0.30)]


L1_NOTE = ("The dissertation's Fig. 7.16 normalises LoSCache under each L1 design to the L2 of the same design "
           "without LoSCache; so do we. Means over workloads. L1D miss rate: misses (MSHR merges included) over "
           "L1D accesses; with no L1 nothing is an L1D access.")
ISSUE_TIMING = [("ls", "as built", 0.36),
                ("ls_gsissue", "GPGPU-Sim's ALU issue timing (`sm.op_latency=gpgpusim`, `sm.result_delay=4`; "
                               "`regress/loscache_issue.json`)", 0.36)]
ISSUE_NOTE = ("LoSCache and its baseline both with GPGPU-Sim's per-opcode latencies and its latency + 6 "
              "issue-to-writeback pipeline, the timing with which relgpu's validation suite is closest to "
              "GPGPU-Sim (docs/results/correlation.md, \"relgpu ablation\"), each against its own baseline. "
              "Means over workloads.")


def design_section(runs, on, off, key, designs=L1_DESIGNS, title="L1 designs (GTO)", what="L1D",
                   base="the 16 KB L1's", note=L1_NOTE):
    """Fig. 7.16: LoSCache under three L1 designs (or another SM choice), each against its own baseline."""
    rows = []
    for group, label, paper in designs:
        if group == "ls":
            a, b = on, off
        else:
            rs = [r for r in runs if r["_name"].split("/")[0] == group]
            a = {key(r): r for r in rs if cfg(r, "loscache.enable")}
            b = {key(r): r for r in rs if not cfg(r, "loscache.enable")}
        keys = [k for k in a if k in b and k[1] == "gto"]
        if not keys:
            continue
        ad, _, _ = accuracy([a[k] for k in keys])
        rows.append([label, len(keys), pct(mean([l2_total(a[k]) / l2_total(b[k]) for k in keys])), pct(paper, 0),
                     pct(mean([ideal_ratio(b[k]) for k in keys])), pct(ad),
                     pct(mean([b[k]["sm_total"]["l1d"]["miss_rate"] for k in keys])),
                     pct(mean([b[k]["gpu_sim_cycle"] / off[k]["gpu_sim_cycle"] - 1 for k in keys if k in off]), 1, sign=True),
                     pct(mean([a[k]["gpu_sim_cycle"] / b[k]["gpu_sim_cycle"] - 1 for k in keys]), 2, sign=True)])
    if len(rows) < 2:
        return []
    return [f"## {title}", "",
            table([what, "workloads", "L2 energy vs its own baseline", "paper", "Ideal-Gating", "exact-count accuracy",
                   "L1D miss rate (LoSCache off)", f"baseline time vs {base}", "LoSCache time"], rows), "", note, ""]


def write(runs, out, missing=(), store=None):  # noqa: ARG001 (every page takes the store; this one reads only its runs)
    key = lambda r: (r["workload"], cfg(r, "sm.scheduler") or "gto", r["size"])
    main = [r for r in runs if r["_name"].split("/")[0] == "ls"]
    off = {key(r): r for r in main if not cfg(r, "loscache.enable")}
    on = {key(r): r for r in main if cfg(r, "loscache.enable")}
    first = {key(r): r for r in runs if cfg(r, "loscache.predictor_cta") == "first"}
    naive = {key(r): r for r in runs if cfg(r, "blocks.loscache_table.thr_width") == 0}
    thr15 = {key(r): r for r in runs if cfg(r, "blocks.loscache_table.thr_width") == 4}
    nobyp = {key(r): r for r in runs if cfg(r, "loscache.bypass") is False}
    phase = {key(r): r for r in runs if cfg(r, "loscache.phase_count") == "gpu"}
    phase_cta = {key(r): r for r in runs if cfg(r, "loscache.phase_count") == "cta"}
    phase_long = {key(r): r for r in runs if cfg(r, "blocks.loscache_table.phase_limit") == 65535}
    sizes = sorted({k[2] for k in on})
    md = ["# LoSCache: relgpu beside the dissertation", "",
          "Generated by `scripts/report loscache --store FILE` from the runs of `regress/loscache_full.json` and "
          "`regress/loscache_full_ablation.json` in a campaign store (`relgpu campaign run`): every workload at its " + " and ".join(f"**{s}**" for s in sizes) +
          " size on `configs/fermi_1p4ghz.json` (the LoSCache baseline of Table 7.1: 15 SMs at 1.4 GHz, 768 KB "
          "16-way L2), LoSCache off and on, under GTO, LRR and two-level scheduling, with L2 line lifetimes "
          "recorded (`l2.life_stats`). The predictor CTA of each SM is drawn at random (`loscache.seed` 1), as in the "
          "paper; each SM's prediction phase ends at its own 100th L2 access or when its predictor CTA has finished "
          "(`loscache.phase_count=sm`; the paper does not say whose accesses, the GPU-wide reading is an ablation "
          "below); the ablations switch one choice each.", "",
          f"Runs read: {len(runs)}. Runs with no stats (failed or not run yet): {len(missing)}.", ""]
    md += campaign_time(runs, "loscache") + [""]
    md += missing_text(missing) + ([""] if missing else [])
    bad = [r for r in runs if not ok(r)]
    md += ["**Output check failures:** " + (", ".join(f"`{r['_name']}`" for r in bad) if bad else "none: every run "
           "passed its output check with LoSCache on and off."), ""]

    rows = []
    for size, s in [(z, s) for z in sizes for s in SCHEDS]:
        keys = [k for k in on if k[1] == s and k[2] == size and k in off]
        if not keys:
            continue
        e_ratio = mean([l2_total(on[k]) / l2_total(off[k]) for k in keys])
        e_pool = sum(l2_total(on[k]) for k in keys) / sum(l2_total(off[k]) for k in keys)
        ideal = mean([ideal_ratio(off[k]) for k in keys])
        ad, nv, n = accuracy([on[k] for k in keys])
        time = mean([on[k]["gpu_sim_cycle"] / off[k]["gpu_sim_cycle"] - 1 for k in keys])
        active = sum(1 for k in keys if on[k]["loscache"]["icnt"]["query_bytes"] > 0)
        rows.append([f"{s} ({size})", len(keys),
                     f"{pct(e_ratio)} (pooled {pct(e_pool)}; paper {pct(PAPER['l2_by_sched'][s], 0)})",
                     f"{pct(ideal)} (paper {pct(PAPER['l2_by_sched'][s] - PAPER['ideal_below'], 0)})",
                     pct(coverage([on[k] for k in keys])),
                     f"{pct(ad)} / {pct(nv)} / {pct(gen_share([on[k] for k in keys], 'exact_pc_mode'))} ({n:,} gens; paper 93% / 54% / -)",
                     f"{pct(traffic([on[k] for k in keys]), 2, sign=True)} (paper +2%)",
                     f"{pct(time, 2, sign=True)} (paper +0.5%)", f"{active}/{len(keys)}"])
    md += ["## Summary by scheduler", "",
           table(["scheduler", "workloads", "L2 energy vs off", "Ideal-Gating vs off", "generations with a prediction",
                  "accuracy adaptive / naive / best fixed count",
                  "interconnect traffic", "time", "workloads past PREDICT"], rows), "",
           "L2 energy and time: mean over workloads of on/off. Ideal-Gating: every line powered exactly from the "
           "first to the last access of each generation, gated through every dead cycle, no misprediction, no "
           "prediction phase; computed in the model at the end of each kernel from the generations' first and last "
           "access cycles recorded in the LoSCache-off run (`l2.life_stats`), with the same energy model. One pass "
           "suffices: gating only dead line-time changes no access, so the oracle's access stream is the "
           "baseline's (the paper puts it 6 points below LoSCache). Accuracy: exact-count predictions over all predicted L2 "
           "line generations (pooled). Traffic: count-query bytes over all other interconnect bytes (pooled).", ""]

    pcs = global_pcs()
    small_on = {r["workload"]: r for r in runs if r["_name"].startswith("ls_small/") and cfg(r, "loscache.enable")}

    def small_icnt(w):  # the same workload's interconnect overhead at its small size (ls_small), or n/a
        return pct(small_on[w]["loscache"].get("icnt_traffic_increase", 0), 2, sign=True) if w in small_on else "n/a"
    crow = []
    for (w, s, size), b in sorted(off.items()):
        if s != "gto":
            continue
        l = b.get("l2_life")
        if not l:
            continue
        rr = l.get("rereference_fraction", {})
        a = on.get((w, s, size))
        crow.append([f"{w} ({size})", pct(l.get("dead_fraction")),
                     " / ".join(pct(rr.get(x), 0) for x in ("zero", "once", "more")),
                     f"{pct(1 - l['inter_cta_fraction'], 0)} / {pct(l['inter_cta_fraction'], 0)}" if "inter_cta_fraction" in l else "n/a",
                     pcs.get(w, "n/a"), pcs_seen_max(a) if a else "n/a", f"{valid_entries(a):.1f}" if a and valid_entries(a) is not None else "n/a",
                     pct(a["loscache"].get("icnt_traffic_increase", 0), 2, sign=True) if a else "n/a", small_icnt(w)])
    if crow:
        deads = [off[k]["l2_life"]["dead_fraction"] for k in off if k[1] == "gto" and "l2_life" in off[k]]
        lifes = [off[k]["l2_life"] for k in off if k[1] == "gto" and "l2_life" in off[k]]
        rr_mean = {x: mean([l.get("rereference_fraction", {}).get(x) for l in lifes]) for x in ("zero", "once", "more")}
        inter_mean = mean([l.get("inter_cta_fraction") for l in lifes])
        ons = [on[k] for k in on if k[1] == "gto" and k in off]
        crow.append(["**mean** over workloads", pct(mean(deads)),
                     " / ".join(pct(rr_mean[x], 0) for x in ("zero", "once", "more")),
                     f"{pct(1 - inter_mean, 0)} / {pct(inter_mean, 0)}" if inter_mean is not None else "n/a",
                     f"max {max(pcs.get(k[0], 0) for k in off)}",
                     f"max {max(pcs_seen_max(a) for a in ons)}" if ons else "",
                     f"{mean([valid_entries(a) for a in ons]):.1f}" if ons else "",
                     pct(traffic(ons), 2, sign=True) if ons else "",
                     pct(traffic(list(small_on.values())), 2, sign=True) if small_on else "n/a"])
        crow.append(["*paper* (26 apps)", "95.6%", "38% / 27% / 34%", "69% / 31%", "", "<= 21", "7", "+2%",
                     "(its inputs)"])
        md += ["## Characterisation (LoSCache off, GTO)", "",
               table(["workload", "L2 dead time", "re-references 0 / 1 / 2+", "chunks intra / inter-CTA",
                      "global-memory PCs (static, max per kernel)", "predictor PCs in one phase (max)",
                      "valid table entries (mean per active table)", "interconnect overhead",
                      "interconnect overhead, small size"], crow), "",
               "Dead time: line-cycles outside any generation's first-to-last access, over all line-cycles (the "
               "paper's sum DeadTime / (ExecTime x lines)). Re-references: generations by accesses after the first. "
               "Chunks: 128-B lines touched by one CTA or by several (launch-wide CTA ids). PCs: static count of "
               "`ld/st/atom/red.global` in the workload's largest kernel; predictor PCs: distinct PCs one SM's predictor "
               "CTA issued in one prediction phase (LoSCache-on run, `loscache.sm.pcs_seen`), the paper's Fig. 7.11 "
               "measure, counted past a full table. Valid entries: count queries (one per valid entry at the end of the "
               "phase) per active table (an SM and launch whose predictor issued a global memory instruction in the "
               "phase). Interconnect overhead: count-query bytes over all other interconnect bytes; at the small size "
               "from the `ls_small` runs (pooled in the mean row).", ""]

    wrows, er, ir, labels = [], [], [], []
    for (w, s, size) in sorted(on):
        k = (w, s, size)
        if s != "gto" or k not in off:
            continue
        a, b = on[k], off[k]
        l = a["loscache"]
        g = l["l2"]["generations_predicted"]
        labels.append(w)
        gens = l["l2"]["generations"]
        wrows.append([f"{w} ({size})", f"{b['gpu_sim_cycle']:,}", pct(a["gpu_sim_cycle"] / b["gpu_sim_cycle"] - 1, 2, sign=True),
                      pct(l.get("icnt_traffic_increase", 0), 2, sign=True), f"{g:,} ({pct(g / gens if gens else 0, 0)})",
                      pct(l.get("accuracy_adaptive")) if g else "-", pct(l.get("accuracy_naive")) if g else "-",
                      pct(l.get("accuracy_pc_mode")) if g else "-",
                      f"{pct(l['l2']['under_predicted'] / g, 0)} ({pct(l['l2'].get('under_predicted_bypassed', 0) / g, 0)}) / "
                      f"{pct(l['l2']['over_predicted'] / g, 0)}" if g else "-",
                      f"{l['l2']['bypass_reads'] + l['l2']['bypass_writes']:,}", f"{l['l2']['gatings']:,}",
                      pct(l2_total(a) / l2_total(b)), pct(ideal_ratio(b)),
                      pct(b["l2_energy"]["leakage_nj"] / l2_total(b), 0)])
        er.append(100 * l2_total(a) / l2_total(b))
        ir.append(100 * ideal_ratio(b) if ideal_ratio(b) is not None else None)
    md += ["## Per workload, GTO", "",
           table(["workload", "cycles off", "time", "traffic", "predicted gens (of all)", "acc. adaptive", "acc. naive",
                  "acc. best fixed", "under (bypassed) / over", "bypasses", "gatings", "L2 energy vs off", "Ideal-Gating vs off", "leakage share off"], wrows), ""]
    if labels:
        png = bars(os.path.join(out, "loscache_energy.png"), "L2 energy, % of LoSCache off (GTO)", labels,
                   {"LoSCache": er, "Ideal-Gating": ir}, "% of baseline", ref=36, ref_label="paper LoSCache: 36%")
        md += [f"![L2 energy]({png})", ""]

    md += powered_section(on, off)

    arow = []
    keys = [k for k in first if k in on and k in off]
    if keys:
        for name, src in (("random (paper, default)", on), ("first placed", first)):
            ad, nv, n = accuracy([src[k] for k in keys])
            arow.append([name, len(keys), pct(mean([l2_total(src[k]) / l2_total(off[k]) for k in keys])),
                         f"{pct(ad)} / {pct(nv)}", pct(mean([src[k]["gpu_sim_cycle"] / off[k]["gpu_sim_cycle"] - 1
                                                            for k in keys]), 2, sign=True)])
        md += ["## Ablation: which CTA trains the table (GTO)", "",
               table(["predictor CTA", "workloads", "L2 energy vs off", "accuracy adaptive / naive", "time"], arow), ""]
    keys = [k for k in naive if k in on and k in off]
    if keys:
        nrow = []
        variants = [("adaptive (thr_width 2: at most +3)", on, "93%"), ("naive (thr_width 0)", naive, "54%")]
        if all(k in thr15 for k in keys):
            variants.append(("adaptive, thr_width 4: at most +15", thr15, "-"))
        if all(k in nobyp for k in keys):
            variants.append(("adaptive, no bypass (`loscache.bypass=false`)", nobyp, "-"))
        for name, src, paper in variants:
            ad, _, n = accuracy([src[k] for k in keys])
            nrow.append([name, len(keys), f"{pct(ad)} ({n:,} gens; paper {paper})", pct(gen_share([src[k] for k in keys], "exact_pc_mode")),
                         f"{pct(gen_share([src[k] for k in keys], 'under_predicted'))} "
                         f"({pct(gen_share([src[k] for k in keys], 'under_predicted_bypassed'))})",
                         pct(mean([l2_total(src[k]) / l2_total(off[k]) for k in keys])),
                         pct(mean([src[k]["gpu_sim_cycle"] / off[k]["gpu_sim_cycle"] - 1 for k in keys]), 2, sign=True)])
        md += ["## Ablation: adaptive against naive prediction in separate runs (GTO)", "",
               table(["predictor", "workloads", "exact-count accuracy", "best fixed count per SM and PC",
                      "under-predicted (of them bypassed)", "L2 energy vs off", "time"], nrow), "",
               "The summary's naive column reads the same table entry without its threshold inside the adaptive run; "
               "here the naive predictor runs on its own, as the paper compares them. Best fixed count: the share of "
               "predicted generations whose access count is the most common one among the generations predicted by "
               "the same SM's same PC in that kernel and L2 slice (`accuracy_pc_mode`). A table entry's count is "
               "fixed for its kernel, so no naive predictor is exact more often; the adaptive threshold only rises.", ""]
    md += powered_ablation_section(runs, on, off, key)
    md += design_section(runs, on, off, key)
    md += design_section(runs, on, off, key, ISSUE_TIMING, "ALU issue timing (GTO)", "SM timing", "as built",
                         ISSUE_NOTE)
    keys = [k for k in phase if k in on and k in off]
    if keys:
        prow = []
        variants = [("per SM: its own 100 L2 accesses, its own predictor CTA (default)", on),
                    ("GPU-wide: the GPU's 100 L2 accesses, every predictor CTA", phase)]
        if all(k in phase_cta for k in keys):
            variants.append(("per SM: its predictor CTA's own 100 L2 accesses", phase_cta))
        if all(k in phase_long for k in keys):
            variants.append(("per SM: until its predictor CTA is done (limit 65,535 accesses)", phase_long))
        for name, src in variants:
            ad, _, n = accuracy([src[k] for k in keys])
            rs = [src[k] for k in keys]
            prow.append([name, len(keys), f"{mean([valid_entries(src[k]) for k in keys]):.1f}",
                         pct(coverage(rs)), f"{pct(ad)} ({n:,} gens)", pct(gen_share(rs, "exact_pc_mode")),
                         pct(gen_share(rs, "under_predicted")),
                         pct(mean([l2_total(src[k]) / l2_total(off[k]) for k in keys])),
                         pct(mean([src[k]["gpu_sim_cycle"] / off[k]["gpu_sim_cycle"] - 1 for k in keys]), 2, sign=True),
                         " / ".join(pct(mean([sum(powered_share(src[k], p) or 0 for p in ps) for k in keys]))
                                    for ps in (("phase",), ("uncovered", "uncovered_write")))])
        md += ["## Ablation: what ends the prediction phase (GTO)", "",
               table(["prediction phase", "workloads", "valid entries (mean per active table; paper 7)",
                      "generations with a prediction", "exact-count accuracy", "best fixed count",
                      "under-predicted", "L2 energy vs off", "time",
                      "unpredicted powered time: phase / table miss"], prow), ""]
    return save_page(out, "loscache", md)
