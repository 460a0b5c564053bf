"""docs/results/less.md: LESS, the hybrid STT-RAM/SRAM register file (Tan dissertation Ch4, DATE'15), from the
campaign regress/less.json: execution time, RF error coverage and RF energy of LA-LESS, LESS (LA + NWA) and an
all-STT-RAM RF against an all-SRAM one (Fig. 4.5, Fig. 4.6), value lifetimes (Fig. 4.1), narrow writes
(Fig. 4.3), and the ablations of the modelling choices. The explanations are in scripts/report_less_notes.md."""
import os

from report_lib import bars, campaign_time, cfg, mean, pct, run_checks, save_page, split_strikes, strike_outcome, table

# Spec 000 §2 (Tan dissertation §4.2, §4.4): averages over the chapter's benchmarks.
PAPER = {"less_time": 0.04, "la_time": 0.11, "all_time": 0.70, "coverage": 0.86, "energy": -0.60,
         "all_energy": 0.14, "short": 0.80, "long_ace": 0.87, "narrow": 0.63, "combined": 0.43, "stt_regs": 0.75}


def less(run, key):
    return (run or {}).get("less", {}).get(key)


def slower(base, run):
    """Execution time of `run` over `base`, minus 1 (the same clock)."""
    if not base or not run or not run.get("gpu_sim_cycle"):
        return None
    return run["gpu_sim_cycle"] / base["gpu_sim_cycle"] - 1


def energy(base, run, key="energy_nj"):
    e, b = less(run, key), less(base, key)
    return None if e is None or not b else e / b - 1


def accesses_per_sm_cycle(run):
    """RF warp-register accesses per SM per cycle: what sets dynamic against leakage energy."""
    if not run:
        return None
    n = sum(less(run, k) or 0 for k in ("sram_reads", "stt_reads", "sram_writes", "stt_writes"))
    sms = cfg(run, "gpu.num_sms") or 1
    return n / (run["gpu_sim_cycle"] * sms) if run.get("gpu_sim_cycle") else None




def strikes_section(runs, missing, wls):
    """regress/less_upsets.json: the outcomes of the same strike sequences under an all-SRAM RF and LESS."""
    res = {}  # (design, workload) -> outcome counts and strike counts
    for r in runs:
        design, w = r["_name"].split("/")[0].split("_")[1], r["workload"]
        c = res.setdefault((design, w), {"masked": 0, "sdc": 0, "stopped": 0, "flipped": 0, "immune": 0})
        c[strike_outcome(r)] += 1
        for k in ("flipped", "immune"):
            c[k] += (r.get("upsets") or {}).get(k, 0)
    for name, status, message in missing:
        if status != "failed":
            continue  # not run yet
        design, w = name.split("/")[0].split("_")[1], name.split("/")[1]
        c = res.setdefault((design, w), {"masked": 0, "sdc": 0, "stopped": 0, "flipped": 0, "immune": 0})
        c[strike_outcome(message=message)] += 1
    if not res:
        return []
    rows, tot = [], {d: {"masked": 0, "sdc": 0, "stopped": 0, "flipped": 0, "immune": 0} for d in ("sram", "less")}
    for w in wls:
        cells = [w]
        for d in ("sram", "less"):
            c = res.get((d, w))
            if not c:
                cells += ["n/a"] * 3
                continue
            for k in tot[d]:
                tot[d][k] += c[k]
            cells += [f"{c['masked']} / {c['sdc']} / {c['stopped']}", str(c["flipped"]), str(c["immune"])]
        rows.append(cells)
    rows.append(["**all**"] + [x for d in ("sram", "less") for x in
                              (f"{tot[d]['masked']} / {tot[d]['sdc']} / {tot[d]['stopped']}", str(tot[d]["flipped"]),
                               str(tot[d]["immune"]))])
    bad = {d: tot[d]["sdc"] + tot[d]["stopped"] for d in tot}
    n = {d: tot[d]["masked"] + bad[d] for d in tot}
    red = 1 - (bad["less"] / n["less"]) / (bad["sram"] / n["sram"]) if n["sram"] and n["less"] and bad["sram"] else None
    return ["## Particle strikes on the data (regress/less_upsets.json)", "",
            "The coverage above is an ACE count. Here strikes flip real RF cells (`rf.upset_rate`, `sm/upsets.h`) "
            "and the workload's own output check judges the run: masked (pass) / silent data corruption (a wrong "
            "output) / stopped (a corrupted address or a loop past the cycle limit). The same seeds give the same "
            "strike times and cells to both RFs; STT-RAM cells take none (`immune`). Flipped / immune count the "
            "strikes that hit a live warp's register, in the runs that left stats (a stopped run leaves none).", "",
            table(["workload", "all SRAM: masked / SDC / stopped", "flipped", "immune",
                   "LESS: masked / SDC / stopped", "flipped", "immune"], rows), "",
            f"Runs that went wrong: all SRAM {bad['sram']} of {n['sram']}, LESS {bad['less']} of {n['less']}: "
            f"LESS removes {pct(red)} of the failures (the ACE coverage above is the paper's measure of the same "
            "thing).", ""]


def write(runs, out, missing=(), store=None):  # noqa: ARG001 (every page takes the store; this one reads only its runs)
    strike_runs, strike_missing, runs, missing = split_strikes(runs, missing)
    by = {}
    for r in runs:
        name = r["_name"].split("/")[0]
        if name == "less_threshold":
            name = f"less_threshold_{cfg(r, 'less.lifetime_threshold')}"
        by[(name, r["workload"])] = r
    wls = sorted({k[1] for k in by})

    def get(name, w):
        return by.get((name, w))

    md = ["# LESS: a hybrid STT-RAM / SRAM register file (Tan dissertation Ch4)", "",
          "Generated by `scripts/report less` from a campaign store; the paper's numbers beside ours. Timing runs "
          "at default sizes on the chapter's GPU (`configs/less.json`: 16 SMs at 600 MHz, a 128 KB RF per SM as "
          "16 banks x 64 x 1024 bits, round-robin). `sm/less_unit.h` describes the mechanism. The baseline (`base`) "
          "is the same path with every register SRAM (`less.placement=none`): the same result buses and accounting, "
          "Table 4.1's SRAM 128 KB energies. LESS = LA-LESS + NWA-LESS (`less.placement=lifetime`, "
          "`less.narrow=true`), LA-LESS = without narrow-write pairing, all STT-RAM = `less.placement=all`.", ""]
    md += campaign_time(runs + strike_runs, "less") + [""]
    md += run_checks(runs, missing)

    cols = {k: [] for k in ("t_less", "t_la", "t_all", "cov", "cov_la", "e_less", "e_la", "e_all", "d_all", "short",
                            "long_ace", "narrow", "shared", "stt_regs", "stt_writes", "acc", "leak")}
    rows = []
    for w in wls:
        base, ls, la, al = get("base", w), get("less", w), get("la_less", w), get("all_stt", w)
        v = {"t_less": slower(base, ls), "t_la": slower(base, la), "t_all": slower(base, al),
             "cov": less(ls, "coverage"), "cov_la": less(la, "coverage"),
             "e_less": energy(base, ls), "e_la": energy(base, la), "e_all": energy(base, al),
             "d_all": energy(base, al, "dynamic_nj"),
             "short": less(base, "short_value_share"), "long_ace": less(base, "long_value_ace_share"),
             "narrow": less(ls, "narrow_share"), "shared": less(ls, "shared_bus_share"),
             "stt_regs": less(ls, "stt_reg_share"), "stt_writes": less(ls, "stt_write_share"),
             "acc": accesses_per_sm_cycle(base),
             "leak": (less(base, "leakage_nj") / less(base, "energy_nj")) if less(base, "energy_nj") else None}
        for k in cols:
            cols[k].append(v[k])
        rows.append([w, pct(v["t_la"], 1, True), pct(v["t_less"], 1, True), pct(v["t_all"], 1, True),
                     pct(v["cov_la"]), pct(v["cov"]), pct(v["e_la"], 1, True), pct(v["e_less"], 1, True),
                     pct(v["e_all"], 1, True), pct(v["d_all"], 1, True)])
    rows.append(["**mean**"] + [pct(mean(cols[k]), 1, k.startswith(("t_", "e_", "d_"))) for k in
                                ("t_la", "t_less", "t_all", "cov_la", "cov", "e_la", "e_less", "e_all", "d_all")])
    rows.append(["paper (its benchmarks, GPGPU-Sim 3.1.0)", pct(PAPER["la_time"], 0, True),
                 pct(PAPER["less_time"], 0, True), "about " + pct(PAPER["all_time"], 0, True),
                 pct(PAPER["coverage"], 0), pct(PAPER["coverage"], 0), pct(PAPER["energy"], 0, True),
                 pct(PAPER["energy"], 0, True), pct(PAPER["all_energy"], 0, True), ""])
    md += ["## Execution time, coverage and RF energy (Fig. 4.5, §4.2)", "",
           "Time = cycles / the baseline's - 1. Coverage = the share of ACE register-cycles (from a value's write "
           "to its last read, per warp register) held in STT-RAM cells, which take no soft error; 1 - coverage "
           "is the RF's vulnerability left. RF energy = Table 4.1's per-access energies for the segment sizes of "
           "each design (SRAM 128 KB; SRAM 32 KB + STT-RAM 96 KB; STT-RAM 128 KB) times the run's warp-register "
           "reads and writes of each segment, plus the segments' leakage over the run's time, against the "
           "baseline's; the last column is the all-STT-RAM RF's dynamic energy alone (leakage left out).", "",
           table(["workload", "time, LA-LESS", "time, LESS", "time, all STT-RAM", "coverage, LA-LESS",
                  "coverage, LESS", "RF energy, LA-LESS", "RF energy, LESS", "RF energy, all STT-RAM",
                  "RF dynamic, all STT-RAM"], rows), ""]
    md += ["![Execution time and RF energy per workload](less_workloads.png)", ""]
    bars(os.path.join(out, "less_workloads.png"), "LESS per workload (against all SRAM)", wls,
         {"time, LESS": [100 * (x or 0) for x in cols["t_less"]],
          "time, all STT-RAM": [100 * (x or 0) for x in cols["t_all"]],
          "RF energy, LESS": [100 * (x or 0) for x in cols["e_less"]],
          "coverage, LESS": [100 * (x or 0) for x in cols["cov"]]},
         "%", ref=100 * PAPER["coverage"], ref_label="paper: coverage 86%")

    crow = []
    for i, w in enumerate(wls):
        crow.append([w, pct(cols["stt_regs"][i]), pct(cols["stt_writes"][i]), pct(cols["short"][i]),
                     pct(cols["long_ace"][i]), pct(cols["narrow"][i]), pct(cols["shared"][i]),
                     f"{cols['acc'][i]:.2f}" if cols["acc"][i] is not None else "n/a", pct(cols["leak"][i])])
    crow.append(["**mean**"] + [pct(mean(cols[k])) for k in ("stt_regs", "stt_writes", "short", "long_ace", "narrow",
                                                            "shared")]
                + [f"{mean(cols['acc']):.2f}" if mean(cols["acc"]) is not None else "n/a", pct(mean(cols["leak"]))])
    crow.append(["paper", pct(PAPER["stt_regs"], 0) + " (96 KB of 128 KB)", "", pct(PAPER["short"], 0),
                 f"about {pct(PAPER['long_ace'], 0)}", pct(PAPER["narrow"], 0), pct(PAPER["combined"], 0) +
                 " combinable", "", ""])
    md += ["## Characterisation (Fig. 4.1, Fig. 4.3)", "",
           "STT-RAM registers = the kernels' STT-RAM namespace over all their registers (the compiler's split, "
           "`ptx::split_namespaces`, averaged over launches and SMs). STT-RAM writes = their share of all RF "
           "writes under LESS. Short values = values read for the last time at most 10 of the warp's instructions "
           "after their write, measured in the baseline run (Fig. 4.1a); long values' ACE share = their part of "
           "the ACE register-cycles (Fig. 4.1b). Narrow = STT-RAM writes whose upper 16 bits are zero in every "
           "written lane; sharing = STT-RAM writes that took the free half of a bus another narrow write held "
           "(the paper counts writes that *could* combine, two consecutive cycles to different banks). "
           "Accesses / SM-cycle and the leakage share are the baseline's: they set how much the cheap STT-RAM "
           "leakage and its dear writes weigh.", "",
           table(["workload", "STT-RAM registers", "STT-RAM writes", "short values", "long values' ACE share",
                  "narrow STT-RAM writes", "sharing a bus", "RF accesses / SM-cycle", "leakage share (base)"], crow),
           ""]

    def abl(label, name, ref, key):
        xs = [(slower if key == "time" else energy)(get(ref, w), get(name, w)) if key != "coverage"
              else less(get(name, w), "coverage") for w in wls]
        return [label, pct(mean(xs), 1, key != "coverage")]

    arows = []
    for label, name, ref in (("all SRAM with LA-LESS's split allocation (against base)", "base_split", "base"),
                             ("LA-LESS against all SRAM with the same allocation", "la_less", "base_split"),
                             ("LESS against all SRAM with the same allocation", "less", "base_split"),
                             ("LESS, result-bus limit off (against base off)", "less_no_bus_limit", "base_no_bus_limit"),
                             ("LESS, one result bus (against base, one bus)", "less_one_bus", "base_one_bus"),
                             ("LESS, threshold 5 instructions", "less_threshold_5", "base"),
                             ("LESS, threshold 10 (the paper's)", "less", "base"),
                             ("LESS, threshold 20 instructions", "less_threshold_20", "base"),
                             ("LESS, STT-RAM write 2 cycles", "less_stt_write_2", "base"),
                             ("all STT-RAM, one result bus (against base, one bus)", "all_stt_one_bus", "base_one_bus"),
                             ("all SRAM, allocator's register count (against base)", "base_alloc", "base"),
                             ("LA-LESS, allocator's count (against base, allocator's count)", "la_less_alloc", "base_alloc"),
                             ("LESS, allocator's count (against base, allocator's count)", "less_alloc", "base_alloc"),
                             ("all SRAM with the split allocation, allocator's count (against the same, unsplit)",
                              "base_split_alloc", "base_alloc"),
                             ("base, result-bus limit off (against base)", "base_no_bus_limit", "base")):
        arows.append(abl(label, name, ref, "time") + abl("", name, ref, "coverage")[1:] + abl("", name, ref, "energy")[1:])
    md += ["## Ablations", "",
           "Each row switches one modelling choice; means over the workloads. Time and RF energy against the "
           "reference named (the baseline with the same choice where the choice changes it too).", "",
           table(["design", "time", "coverage", "RF energy"], arows), ""]

    md += strikes_section(strike_runs, strike_missing, wls)

    same = [(w, get("plain", w), get("base_no_bus_limit", w)) for w in wls]
    same = [(w, a["gpu_sim_cycle"], b["gpu_sim_cycle"]) for w, a, b in same if a and b]
    diff = [w for w, a, b in same if a != b]
    base_cov = [less(get("base", w), "coverage") for w in wls]
    md += ["## Checks", "",
           f"- The LESS path with every register SRAM and no result-bus limit against relgpu without it: "
           f"{len(same)} workloads compared, cycles equal in {len(same) - len(diff)}"
           + (f"; different: {', '.join(diff)}" if diff else "") + ".",
           f"- Coverage of the all-SRAM baseline: {', '.join(sorted({pct(c) for c in base_cov if c is not None}))} "
           "(nothing is in STT-RAM).", ""]
    return save_page(out, "less", md)
