"""docs/results/rise.md: RISE, soft-error detection in SP idle time (Tan dissertation Ch3, PACT'12), from the
campaigns regress/rise.json (SP AVF and time of RP-FRISE, IS-FRISE, Partial-RISE, RISE and full redundancy, the
SPs' idle time, the ablations) and regress/rise_upsets.json (strikes on SP lanes judged by the workloads' output
checks). The explanations are in scripts/report_rise_notes.md."""
import os

from report_lib import bars, campaign_time, mean, pct, run_checks, save_page, split_strikes, strike_outcome, table

# Spec 000 §1 (Tan dissertation §3.1, §3.3): averages over the chapter's benchmark categories.
PAPER = {"avf": 0.53, "idle_all": 0.35, "idle_part": 0.11, "rp": (0.57, 0.08), "is": (0.37, 0.0),
         "full": (0.39, 0.04), "partial": (0.32, 0.0), "rise": (0.43, 0.04), "all": (1.0, 0.58),
         "sched": (0.42, 0.06)}
# The chapter's categories (§3.2), by the benchmark abbreviations our workloads share (not the same inputs).
CATS = {"Cat1 (memory-intensive)": ("rp", ["backprop", "bfs", "nw"]),
        "Cat2 (load imbalance)": ("is", ["kmeans", "nw", "stencil3d"]),
        "Cat3 (partial SP use)": ("partial", ["backprop", "bfs", "hotspot", "nw", "stencil3d"])}


def rise(run, key):
    return (run or {}).get("rise", {}).get(key)


def slower(base, run):
    if not base or not run or not run.get("gpu_sim_cycle"):
        return None
    return run["gpu_sim_cycle"] / base["gpu_sim_cycle"] - 1


def avf_cut(base, run):
    """SP AVF reduction of `run` against `base` (1 - AVF / base AVF)."""
    a, b = rise(run, "sp_avf"), rise(base, "sp_avf")
    return None if a is None or not b else 1 - a / b


def dram_per_insn(run):
    n, r = rise(run, "sp_insn"), (run or {}).get("dram", {}).get("reads")
    return f"{r / n:.3f}" if n and r is not None else "n/a"


def idle(run):
    """Shares of the SP unit-cycles with every lane idle and with some lanes idle."""
    cap = rise(run, "capacity_lane_cycles")
    if not cap:
        return None, None
    units = cap / 32
    return 1 - (rise(run, "busy_unit_cycles") or 0) / units, (rise(run, "partly_idle_unit_cycles") or 0) / units




DESIGNS = ("plain", "rise", "all")


def strikes_section(runs, missing, wls):
    """regress/rise_upsets.json: the same strike sequences under no protection, RISE and full redundancy."""
    keys = ("masked", "sdc", "stopped", "original", "unprotected", "mismatches")
    res = {}
    for r in runs:
        d, w = r["_name"].split("/")[0].split("_")[1], r["workload"]
        c = res.setdefault((d, w), dict.fromkeys(keys, 0))
        c[strike_outcome(r)] += 1
        up = r.get("sp_upsets") or {}
        c["original"] += up.get("original", 0) - up.get("no_result", 0)
        c["unprotected"] += up.get("original_unprotected", 0)
        c["mismatches"] += rise(r, "mismatches") or 0
    for name, status, message in missing:
        if status != "failed":
            continue
        d, w = name.split("/")[0].split("_")[1], name.split("/")[1]
        res.setdefault((d, w), dict.fromkeys(keys, 0))[strike_outcome(message=message)] += 1
    if not res:
        return []
    tot = {d: dict.fromkeys(keys, 0) for d in DESIGNS}
    rows = []
    for w in wls:
        cells = [w]
        for d in DESIGNS:
            c = res.get((d, w))
            if not c:
                cells += ["n/a", "n/a"]
                continue
            for k in keys:
                tot[d][k] += c[k]
            cells += [f"{c['masked']} / {c['sdc']} / {c['stopped']}", f"{c['original']} / {c['unprotected']}"]
        rows.append(cells)
    rows.append(["**all**"] + [x for d in DESIGNS for x in
                              (f"{tot[d]['masked']} / {tot[d]['sdc']} / {tot[d]['stopped']}",
                               f"{tot[d]['original']} / {tot[d]['unprotected']}")])
    bad = {d: tot[d]["sdc"] + tot[d]["stopped"] for d in DESIGNS}
    n = {d: tot[d]["masked"] + bad[d] for d in DESIGNS}

    def cut(d):
        return 1 - (bad[d] / n[d]) / (bad["plain"] / n["plain"]) if n[d] and n["plain"] and bad["plain"] else None

    return ["## Strikes on SP lanes (regress/rise_upsets.json)", "",
            "The AVF above is an ACE count. Here strikes flip one bit of what an SP lane computes in the cycle they "
            "hit (`sp.upset_rate`, `sm/sp_upsets.h`): an original's result, a copy's (a false alarm: the vote "
            "keeps the original), or nothing (an idle unit or lane). The workload's own output check judges the "
            "run: masked (pass) / silent data corruption (a wrong output) / stopped (a corrupted address, a loop "
            "past the cycle limit). The same seed gives the same strike times, units, lanes and bits to each "
            "design (until their timing differs). Struck results / unprotected = strikes on an original's "
            "lane result, and those no copy checked, in the runs that left stats (a stopped run leaves none).", "",
            table(["workload", "no RISE: masked / SDC / stopped", "struck / unprotected",
                   "RISE: masked / SDC / stopped", "struck / unprotected",
                   "every instruction twice: masked / SDC / stopped", "struck / unprotected"], rows), "",
            f"Runs that went wrong: no RISE {bad['plain']} of {n['plain']}, RISE {bad['rise']} of {n['rise']} "
            f"({pct(cut('rise'))} fewer), every instruction twice {bad['all']} of {n['all']} "
            f"({pct(cut('all'))} fewer). Mismatches detected and voted out: RISE {tot['rise']['mismatches']}, "
            f"every instruction twice {tot['all']['mismatches']}.", ""]


def write(runs, out, missing=(), store=None):  # noqa: ARG001
    strike_runs, strike_missing, runs, missing = split_strikes(runs, missing)
    by = {(r["_name"].split("/")[0], r["workload"]): r for r in runs}
    wls = sorted({k[1] for k in by})

    def get(name, w):
        return by.get((name, w))

    md = ["# RISE: recycling SP idle time for soft-error detection (Tan dissertation Ch3)", "",
          "Generated by `scripts/report rise` from a campaign store; the paper's numbers beside ours. Timing runs "
          "at default sizes on the chapter's GPU (`configs/rise.json`: 28 SMs, 1,024 threads and 8 CTAs per SM, "
          "16K registers, round-robin, 8 DRAM controllers with 32-entry FR-FCFS queues). `sm/rise.h` describes "
          "the mechanism. The baseline (`base`) counts the SP AVF with every mechanism off. SP AVF = the ACE "
          "lane-cycles (an executed lane of an SP instruction that computes lane results, for its initiation "
          "interval, unless a copy checks it) over every SM's SP lanes for the whole launch; AVF reduction = "
          "1 - AVF / the baseline's (the longer run's lanes count in its AVF); time = cycles / the baseline's - 1.",
          ""]
    md += campaign_time(runs + strike_runs, "rise") + [""]
    md += run_checks(runs, missing)

    designs = (("rp", "RP-FRISE"), ("is", "IS-FRISE"), ("partial", "Partial-RISE"), ("full_rise", "Full-RISE"),
               ("rise", "RISE"), ("all", "every instruction twice"))
    cols = {d: {"cut": [], "time": []} for d, _ in designs}
    base_cols = {"avf": [], "util": [], "idle_all": [], "idle_part": []}
    rows = []
    for w in wls:
        base = get("base", w)
        ia, ip = idle(base)
        b = {"avf": rise(base, "sp_avf"), "util": rise(base, "sp_utilization"), "idle_all": ia, "idle_part": ip}
        for k in base_cols:
            base_cols[k].append(b[k])
        cells = [w, pct(b["avf"])]
        for d, _ in designs:
            c, t = avf_cut(base, get(d, w)), slower(base, get(d, w))
            cols[d]["cut"].append(c)
            cols[d]["time"].append(t)
            cells += [f"{pct(c)} / {pct(t, 1, True)}"]
        rows.append(cells)
    rows.append(["**mean**", pct(mean(base_cols["avf"]))] +
                [f"{pct(mean(cols[d]['cut']))} / {pct(mean(cols[d]['time']), 1, True)}" for d, _ in designs])
    rows.append(["paper (its benchmarks)", pct(PAPER["avf"], 0)] +
                [f"{pct(PAPER[k][0], 0)} / {pct(PAPER[k][1], 0, True)}" + (" (Cat1)" if k == "rp" else " (Cat2)"
                 if k == "is" else " (Cat3)" if k == "partial" else "")
                 for k in ("rp", "is", "partial", "full", "rise", "all")])
    md += ["## SP AVF reduction and time (§3.3.1)", "",
           "Each cell: AVF reduction / time. The paper averages RP-FRISE over its memory-intensive benchmarks "
           "(Cat1), IS-FRISE over its load-imbalanced ones (Cat2) and Partial-RISE over those with partly used "
           "SPs (Cat3); the category means of the workloads that share a benchmark's name follow the table.", "",
           table(["workload", "base SP AVF"] + [label for _, label in designs], rows), ""]
    crows = []
    for cat, (d, members) in CATS.items():
        idx = [wls.index(w) for w in members if w in wls]
        cut = mean([cols[d]["cut"][i] for i in idx])
        t = mean([cols[d]["time"][i] for i in idx])
        p = PAPER[d]
        crows.append([cat, ", ".join(members), dict(designs)[d], pct(cut), pct(p[0], 0), pct(t, 1, True),
                      pct(p[1], 0, True)])
    md += [table(["category", "our workloads of the same name", "design", "AVF reduction", "paper",
                  "time", "paper"], crows), ""]
    bars(os.path.join(out, "rise_workloads.png"), "RISE per workload (against the baseline)", wls,
         {"AVF reduction, RISE": [100 * (x or 0) for x in cols["rise"]["cut"]],
          "time, RISE": [100 * (x or 0) for x in cols["rise"]["time"]],
          "AVF reduction, Full-RISE": [100 * (x or 0) for x in cols["full_rise"]["cut"]],
          "time, every instruction twice": [100 * (x or 0) for x in cols["all"]["time"]]},
         "%", ref=100 * PAPER["rise"][0], ref_label="paper: RISE AVF -43%")
    md += ["![AVF reduction and time per workload](rise_workloads.png)", ""]

    # Characterisation: idle SPs and what each mechanism found.
    chrows, same, free = [], [], []
    for i, w in enumerate(wls):
        r, p = get("rise", w), get("partial", w)
        used, setp = rise(p, "pairs_used") or 0, rise(p, "pairs_set") or 0
        q = get("pairs_partial", w)
        n = rise(q, "pair_searches")
        same.append(rise(q, "pair_same_pc") / n if n else None)
        free.append(rise(q, "pairs_set") / n if n else None)
        chrows.append([w, pct(base_cols["util"][i]), pct(base_cols["idle_all"][i]), pct(base_cols["idle_part"][i]),
                       str(rise(get("rp", w), "rc_set") or 0), str(rise(get("is", w), "is_blocks") or 0),
                       str((rise(p, "copies") or {}).get("intra", 0)),
                       f"{setp} / {pct(used / setp) if setp else 'n/a'}", f"{n or 0}", pct(same[-1]), pct(free[-1]),
                       dram_per_insn(get("base", w)), pct(rise(r, "protected_fraction"))])
    chrows.append(["**mean**", pct(mean(base_cols["util"])), pct(mean(base_cols["idle_all"])),
                   pct(mean(base_cols["idle_part"])), "", "", "", "", "", pct(mean(same)), pct(mean(free)), "", ""])
    chrows.append(["paper", "", pct(PAPER["idle_all"], 0) + " (all SPs idle)", pct(PAPER["idle_part"], 0), "", "",
                   "", "", "", "over 50%", "16%", "", ""])
    md += ["## Where the SPs idle, and what RISE finds there (§3.1)", "",
           "Utilization = executed SP lane-cycles over all SP lanes; idle = SP unit-cycles with no instruction "
           "(every lane idle) and with some lanes idle (the paper: all SPs idle 35% of the time, partly 11%). "
           "RC counters set = RP-FRISE responses that set a block's counter; IS blocks = blocks run twice by "
           "IS-FRISE; intra = instructions of warps with at most 16 threads copied into their own idle lanes; "
           "pairings = diverged warps that ran another warp's lanes, and the share whose partner then issued "
           "within the window; diverged = the diverged instructions that looked for a partner, with the share "
           "that found a ready warp of their scheduler at the same PC, and the share whose partner had lanes where "
           "they were idle (no lane conflict; from `regress/rise_pairs.json`); DRAM reads / SP instruction = the "
           "baseline's line reads from DRAM per SP instruction (only a DRAM-served response carries an RC); "
           "protected = the lane-cycles RISE checks.", "",
           table(["workload", "SP utilization", "idle", "partly idle", "RC counters set", "IS blocks",
                  "intra copies", "pairings / used", "diverged", "same PC", "no lane conflict",
                  "DRAM reads / SP instruction", "protected (RISE)"], chrows), ""]

    # Partner search: the diverged warp's scheduler (as built) against the whole SM.
    def share(name, key):
        xs = []
        for w in wls:
            n = rise(get(name, w), "pair_searches")
            xs.append(rise(get(name, w), key) / n if n and rise(get(name, w), key) is not None else None)
        return pct(mean(xs))

    prow = [["its scheduler (as built)", "n/a", share("pairs_partial", "pair_same_pc"),
             share("pairs_partial", "pairs_set"),
             pct(mean([avf_cut(get("base", w), get("pairs_partial", w)) for w in wls]))],
            ["the whole SM (`rise.pair_scope=sm`)", share("pairs_partial_sm", "pair_same_pc_any"),
             share("pairs_partial_sm", "pair_same_pc"), share("pairs_partial_sm", "pairs_set"),
             pct(mean([avf_cut(get("base", w), get("pairs_partial_sm", w)) for w in wls]))],
            ["paper", "", "over 50%", "16%", f"{pct(PAPER['partial'][0], 0)} (Cat3)"]]
    md += ["## Partner search (§3.1.2, regress/rise_pairs.json)", "",
           "Shares of the diverged SP instructions that look for a partner (means over the workloads that have "
           "any): a warp at the same PC, ready or not; a ready one; one without a lane conflict (a pairing). "
           "The last column is Partial-RISE's AVF reduction with that search.", "",
           table(["partners among", "same PC", "same PC, ready", "no lane conflict", "AVF reduction"], prow), ""]

    def abl(label, name, ref, base="base"):
        cut = mean([avf_cut(get(base, w), get(name, w)) for w in wls])
        t = mean([slower(get(base, w), get(name, w)) for w in wls])
        rcut = mean([avf_cut(get("base", w), get(ref, w)) for w in wls])
        rt = mean([slower(get("base", w), get(ref, w)) for w in wls])
        return [label, pct(cut), pct(t, 1, True), pct(rcut), pct(rt, 1, True)]

    arows = [abl("RP-FRISE, T_thr_pend 0 (against 16)", "rp_thr0", "rp"),
             abl("RP-FRISE, T_thr_pend 64", "rp_thr64", "rp"),
             abl("RP-FRISE, T_ref_lat 64 (against 128)", "rp_ref64", "rp"),
             abl("RP-FRISE, T_ref_lat 256", "rp_ref256", "rp"),
             abl("Partial-RISE, pairing window 1 cycle (against 2)", "partial_window1", "partial"),
             abl("RISE under GTO (against its own baseline)", "rise_gto", "rise", "base_gto"),
             abl("RISE under two-level (against its own baseline)", "rise_two_level", "rise", "base_two_level"),
             abl("RISE, one SP unit per SM (against its own baseline)", "rise_sp1", "rise", "base_sp1"),
             abl("every instruction twice, one SP unit per SM", "all_sp1", "all", "base_sp1")]
    avf1 = mean([rise(get("base_sp1", w), "sp_avf") for w in wls])
    md += ["## Ablations", "",
           "Each row switches one choice; means over the workloads, against the baseline with the same choice "
           "(scheduler, SP units); the last two columns are the design it varies, as built (against `base`). The paper's sensitivity study (Fair, FRFS, LWM, "
           f"two-level) found about {pct(PAPER['sched'][0], 0)} AVF reduction at {pct(PAPER['sched'][1], 0, True)}.",
           "", table(["design", "AVF reduction", "time", "reference: AVF reduction", "time"], arows), "",
           f"The baseline's SP AVF with one SP unit per SM: {pct(avf1)} (two units: "
           f"{pct(mean(base_cols['avf']))}; paper {pct(PAPER['avf'], 0)}).", ""]

    md += strikes_section(strike_runs, strike_missing, wls)

    same = [(w, get("plain", w), get("base", w)) for w in wls]
    same = [(w, a["gpu_sim_cycle"], b["gpu_sim_cycle"]) for w, a, b in same if a and b]
    diff = [w for w, a, b in same if a != b]
    full = [rise(get("all", w), "sp_avf") for w in wls]
    md += ["## Checks", "",
           f"- RISE's accounting with every mechanism off against relgpu without RISE: {len(same)} workloads "
           f"compared, cycles equal in {len(same) - len(diff)}" + (f"; different: {', '.join(diff)}" if diff else "")
           + ".",
           f"- SP AVF with every instruction twice: {', '.join(sorted({pct(x) for x in full if x is not None}))} "
           "(every lane result checked).", ""]
    return save_page(out, "rise", md)
