"""docs/results/grguard_deadtime.md: register dead time, GR-Guard's characterisation (Tan dissertation §6.2, Fig. 6.5).

Reads the runs of regress/grguard_deadtime.json: every workload at its default size under GTO, LRR and two-level
with grguard.deadtime (sm/dead_time.h), the per-cycle entry shares counted against chip 1's fault maps at about
10% and 30% faulty entries (not applied), how much of the dead time the patching unit can know (dead-bit
coverage), GR-Guard itself at those two points and at the paper's 1% point (GTO), and the RF-occupancy ablation.
"""
from report_lib import campaign_time, geomean, mean, pct, run_checks, save_page, table

SCHEDS = [("gto", "GTO"), ("lrr", "LRR"), ("two_level", "two-level")]
RATES = [("0.0036", "10%", 0.20, 0.03), ("0.0094", "30%", 0.15, 0.08)]  # rate, paper's point, dead+good, live+faulty
POINT = {"gr10": ("0.0036", "rf_block (default)"), "gr30": ("0.0094", "rf_block (default)"),
         "gr10_point": ("0.0042", "rf_point (ablation)"), "gr30_point": ("0.0086", "rf_point (ablation)"),
         "gr10_point_allbits": ("0.0042", "rf_point, `grguard.dead_bits=all`"),
         "gr1pc_point": ("0.01", "rf_point (ablation)"),
         "gr1pc_point_half": ("0.01", "rf_point, `sm.max_threads=768`"),
         "gr1pc_half": ("0.01", "rf_block, `sm.max_threads=768`"),
         "cost_per_group": ("0.01", "rf_point, 768 threads, `grguard.selections=per_group`"),
         "cost_latency": ("0.01", "rf_point, 768 threads, `grguard.patch_cost=latency`"),
         "cost_none": ("0.01", "rf_point, 768 threads, `grguard.patch_cost=none`"),
         "cost_both": ("0.01", "rf_point, 768 threads, per_group and none"),
         "cost_latency_group": ("0.01", "rf_point, 768 threads, per_group and latency"),
         "cost_gsissue": ("0.01", "rf_point, 768 threads, GPGPU-Sim's ALU issue timing"),
         "sched_lrr_half": ("0.01", "rf_point, 768 threads, LRR"),
         "sched_2l_half": ("0.01", "rf_point, 768 threads, two-level")}
SCHED_SETS = [("GTO", "gr1pc_point_half", "base_half"), ("LRR", "sched_lrr_half", "base_half_lrr"),
              ("two-level", "sched_2l_half", "base_half_2l")]
COST = [("gr1pc_point_half", "as built"), ("cost_per_group", "a selection per bank group"),
        ("cost_latency", "patch port free"), ("cost_none", "patch access free"),
        ("cost_latency_group", "patch port free, a selection per group"),
        ("cost_both", "patch access free, a selection per group"),
        ("cost_gsissue", "GPGPU-Sim's ALU issue timing")]
# Each variant's fault-free run, where it is not base_half (the variant changes the baseline too).
COST_BASE = {"cost_gsissue": "base_half_gsissue"}
MIX = ["normal", "normal_patch", "patch_occupied", "spill"]
PAPER_MIX = "56 / 30 / 13 / 1%"
LOST = [("divergent", "last read divergent"), ("later_operand", "last read a 3rd+ operand"),
        ("compiler_live", "not a last use statically"), ("never_read", "never read")]
PAPER_DEAD = "48-51% (CP under two-level: 10%)"


def group(r):
    return r["_name"].split("/")[0]


def sched(r):
    return r["config"].get("sm.scheduler", "gto")


def unwritten_good(d, o):
    """Entry-cycles that are good and not written yet (rows no warp owns, registers before their first write)."""
    return (o["entry_cycles"] - o["faulty_entry_cycles"] - o["dead_good_entry_cycles"]
            - (d["live_entry_cycles"] - o["live_faulty_entry_cycles"])) / o["entry_cycles"]


def pooled(runs, a, b):
    x, y = sum(r["dead_time"][a] for r in runs), sum(r["dead_time"][b] for r in runs)
    return x / y if y else None


def dead_section(dt):
    rows = []
    for s, label in SCHEDS:
        rs = [r for r in dt if sched(r) == s]
        if not rs:
            continue
        sh = [r["dead_time"]["dead_share"] for r in rs]
        lo, hi = min(rs, key=lambda r: r["dead_time"]["dead_share"]), max(rs, key=lambda r: r["dead_time"]["dead_share"])
        rows.append([label, len(rs), pct(mean(sh)), pct(pooled(rs, "dead_cycles", "residency_cycles")),
                     f"{pct(lo['dead_time']['dead_share'])} ({lo['workload']}) - "
                     f"{pct(hi['dead_time']['dead_share'])} ({hi['workload']})",
                     pct(mean([r["dead_time"]["dead_share_with_tails"] for r in rs])), PAPER_DEAD])
    return ["## Dead time: share of residency, by scheduler", "",
            table(["scheduler", "runs", "dead share (mean over workloads)", "pooled (sum dead / sum residency)",
                   "lowest - highest workload", "with launch-end tails (mean)", "paper"], rows), "",
            "Residency: write -> next write of the same warp register (WRG); dead time: its last read -> that "
            "next write (exact: the interval is closed at the next write). Tails: intervals still open when the "
            "launch ends, closed there (counted apart; the headline is over closed intervals, as the paper "
            "defines it).", ""]


def workload_section(dt):
    by = {(sched(r), r["workload"]): r for r in dt}
    rows = []
    for w in sorted({r["workload"] for r in dt}):
        cells = [w]
        for s, _ in SCHEDS:
            r = by.get((s, w))
            cells.append(pct(r["dead_time"]["dead_share"]) if r else "-")
        g = by.get(("gto", w))
        if g:
            d = g["dead_time"]
            cells += [f"{g['gpu_sim_cycle']:,}", f"{d['intervals']:,}", pct(d["dead_share_with_tails"]),
                      pct(d["live_entry_share"]), pct(d["dead_entry_share"]), pct(d["unwritten_entry_share"])]
        else:
            cells += ["-"] * 6
        rows.append(cells)
    return ["## Per workload", "",
            "Dead share under each scheduler; the rest under GTO: cycles, closed intervals, dead share with tails, "
            "and the per-cycle share of RF entries (32 banks x 256 rows per SM) that are live, dead, and not "
            "written yet in the launch (rows no warp owns, or a register before its first write).", "",
            table(["workload", "GTO", "LRR", "two-level", "GTO cycles", "intervals", "with tails", "live entries",
                   "dead entries", "unwritten entries"], rows), ""]


def fault_section(dt):
    rows = []
    for rate, point, p_dead, p_live in RATES:
        for s, label in SCHEDS:
            rs = [r for r in dt if sched(r) == s and rate in r["dead_time"].get("at_rate", {})]
            if not rs:
                continue
            at = [r["dead_time"]["at_rate"][rate] for r in rs]
            f = mean([o["faulty_entry_share"] for o in at])
            exp_dead = mean([r["dead_time"]["dead_entry_share"] * (1 - o["faulty_entry_share"]) for r, o in zip(rs, at)])
            exp_live = mean([r["dead_time"]["live_entry_share"] * o["faulty_entry_share"] for r, o in zip(rs, at)])
            rows.append([f"{point} ({rate})", label, len(rs), pct(f), pct(mean([o["dead_good_share"] for o in at])),
                         pct(exp_dead), pct(mean([unwritten_good(r["dead_time"], o) for r, o in zip(rs, at)])),
                         pct(mean([o["live_faulty_share"] for o in at])), pct(exp_live),
                         f"{p_dead * 100:.0f}% / {p_live * 100:.0f}%"])
    return ["## Per-cycle entry shares at the paper's two fault points", "",
            "Chip 1's fault maps (`pv.chip_seed` 1, sigma 1:1, default floorplan) at cell failure rates 0.0036 and "
            "0.0094, counted against fault-free runs (`grguard.deadtime_fault_rates`: the faults are not applied, "
            "so no run needs GR-Guard or can stop). Shares of entry-cycles over each SM's active cycles, means over "
            "workloads. *If independent*: the same run's dead (live) entry share times the good (faulty) share, "
            "what faults placed without regard to register use would give.", "",
            table(["faulty entries (cell rate)", "scheduler", "runs", "faulty entries (measured)", "dead and good",
                   "(if independent)", "unwritten and good", "live and faulty", "(if independent)",
                   "paper: dead+good / live+faulty"], rows), ""]


def lost_share(d, k):
    return d["lost_dead_cycles"][k] / d["dead_cycles"] if d["dead_cycles"] else None


def pooled_lost(runs, k):
    x, y = sum(r["dead_time"]["lost_dead_cycles"][k] for r in runs), sum(r["dead_time"]["dead_cycles"] for r in runs)
    return x / y if y else None


def coverage_section(dt):
    dt = [r for r in dt if "known_dead_cycles" in r["dead_time"]]
    if not dt:
        return []
    rows = []
    for s, label in SCHEDS:
        rs = [r for r in dt if sched(r) == s]
        if rs:
            rows.append([label, len(rs), pct(mean([r["dead_time"]["known_dead_cycles"] / r["dead_time"]["dead_cycles"]
                                                   for r in rs])),
                         pct(pooled(rs, "known_dead_cycles", "dead_cycles"))] + [pct(pooled_lost(rs, k)) for k, _ in LOST])
    per = []
    for r in sorted((r for r in dt if sched(r) == "gto"), key=lambda r: r["workload"]):
        d = r["dead_time"]
        at = d.get("at_rate", {}).get(RATES[0][0])
        per.append([r["workload"], pct(d["dead_share"]), pct(d["known_dead_cycles"] / d["dead_cycles"])]
                   + [pct(lost_share(d, k)) for k, _ in LOST]
                   + ([pct(at["dead_good_entry_cycles"] / at["entry_cycles"]),
                       pct(at["known_dead_good_entry_cycles"] / at["entry_cycles"])] if at else ["-", "-"]))
    return ["## What the patching unit can know: dead-bit coverage", "",
            "The unit learns that a register is dead from a compiler dead bit on a non-divergent read of one of "
            "the first two source operands (§6.3.1), or, in relgpu, from its warp's exit "
            "(`grguard.exit_deaths`). *Known*: the share of the oracle's dead time (closed intervals) that "
            "falls after such a declaration. The rest is charged to why the last read did not declare it: "
            "divergent (the paper marks only non-divergent reads), a third or later operand (no dead bit), "
            "not a last use by static liveness (e.g. a loop's last iteration, or a use on another path), or "
            "never read after the write. An exit after that read recovers the time from the exit on. Shares "
            "of dead cycles, fault-free runs.", "",
            table(["scheduler", "runs", "known (mean)", "known (pooled)"] + [f"lost: {t} (pooled)" for _, t in LOST],
                  rows), "",
            "Per workload under GTO, and the per-cycle share of RF entries that are dead and good at the 10% "
            "point (chip 1's map at 0.0036) beside the share the unit knows to be dead and good, the patch "
            "supply it can draw from:", "",
            table(["workload", "dead share", "known"] + [f"lost: {t}" for _, t in LOST]
                  + ["dead and good (oracle)", "known dead and good"], per), ""]


def occupancy_section(runs, missing):
    gto = {r["workload"]: r for r in runs if group(r) == "dt" and sched(r) == "gto"}
    half = {r["workload"]: r for r in runs if group(r) == "base_half"}
    rows = []
    for g in ["gr1pc_point", "gr1pc_point_half", "gr1pc_half"]:
        rs = [r for r in runs if group(r) == g]
        stops = [m for m in missing if m[0].split("/")[0] == g]
        if not rs and not stops:
            continue
        threads = int(rs[0]["config"].get("sm.max_threads", 1536)) if rs else (768 if "half" in g else 1536)
        ref = half if threads == 768 else gto
        vs_same = geomean([r["gpu_sim_cycle"] / ref[r["workload"]]["gpu_sim_cycle"] for r in rs if r["workload"] in ref])
        vs_full = geomean([r["gpu_sim_cycle"] / gto[r["workload"]]["gpu_sim_cycle"] for r in rs if r["workload"] in gto])
        occ = geomean([half[w]["gpu_sim_cycle"] / gto[w]["gpu_sim_cycle"] for w in half if w in gto]) if threads == 768 else None
        rows.append([g, POINT[g][1], threads, len(rs) + len(stops), len(rs),
                     ", ".join(sorted(r["workload"] for r in rs)) or "none",
                     pct(vs_same - 1, sign=True) if vs_same else "-", pct(vs_full - 1, sign=True) if vs_full else "-",
                     pct(occ - 1, sign=True) if occ else "-"])
    if not rows:
        return []
    done = {(group(r), r["workload"]) for r in runs}
    per = []
    for w in sorted(half):
        if w not in gto:
            continue
        per.append([w, pct(gto[w]["dead_time"]["unwritten_entry_share"]), pct(half[w]["dead_time"]["unwritten_entry_share"]),
                    pct(half[w]["gpu_sim_cycle"] / gto[w]["gpu_sim_cycle"] - 1, sign=True)]
                   + ["completed" if (g, w) in done else "stopped" for g in ["gr1pc_point", "gr1pc_point_half"]])
    return ["## GR-Guard at the paper's 1% point, and with half the RF holding warps (GTO, chip 1)", "",
            "`rf.cell_failure_rate=0.01` (the paper's headline point). `sm.max_threads=768` lets half as many "
            "warps reside, so about half the RF holds warp registers: the ablation of RF occupancy. Time: "
            "geomean of cycles over the completed runs, against the fault-free run at the same thread limit "
            "(GR-Guard's own cost) and at 1,536 threads (the paper's baseline); the last column is what the "
            "thread limit alone costs (`base_half` against `dt`, all 14 workloads).", "",
            table(["runs", "floorplan", "threads per SM", "runs", "completed", "completed workloads",
                   "time vs fault-free, same threads", "time vs fault-free, 1,536 threads",
                   "thread limit alone"], rows), "",
            "Per workload: the share of RF entries no warp writes (fault-free, per cycle) at each thread limit, "
            "what the limit alone costs, and GR-Guard at 1% (`rf_point`) with each:", "",
            table(["workload", "unwritten entries, 1,536 threads", "unwritten entries, 768 threads",
                   "thread limit alone", "GR-Guard at 1%, 1,536 threads", "GR-Guard at 1%, 768 threads"], per), ""]


def cost_section(runs):
    by = {(group(r), r["workload"]): r for r in runs}
    half = {w: r for (g, w), r in by.items() if g == "base_half"}
    if not any((g, w) in by for g, _ in COST[1:] for w in half):
        return []

    def ratio(g, w):
        r, b = by.get((g, w)), by.get((COST_BASE.get(g, "base_half"), w))
        return r["gpu_sim_cycle"] / b["gpu_sim_cycle"] if r and b else None
    rows, both = [], []
    for w in sorted(half):
        rows.append([w] + [pct(ratio(g, w) - 1, sign=True) if ratio(g, w) else "stopped" for g, _ in COST])
        if all(ratio(g, w) for g, _ in COST):
            both.append(w)
    gm = ["geomean over the workloads no variant stops (" + ", ".join(both) + ")"]
    for g, _ in COST:
        x = geomean([ratio(g, w) for w in both])
        gm.append(pct(x - 1, sign=True) if x else "-")
    return ["## Where GR-Guard's time goes (1% point, `rf_point`, 768 threads, GTO, chip 1)", "",
            "Cycles against the fault-free run at the same thread limit (`base_half`), with one timing choice "
            "switched at a time: `grguard.selections=per_group` (each write port's group selects in its own map "
            "bank, as well as the one global selection), `grguard.patch_cost=latency` (a same-group patch access "
            "still comes a cycle later but leaves the group's port free, as if the banks had a second port), "
            "`grguard.patch_cost=none` (it costs nothing); the next two columns combine a per-group selection with "
            "each (`cost_latency_group` in `regress/grguard_deadtime_cost.json`, `cost_both`). The last column "
            "gives both GR-Guard and its fault-free run GPGPU-Sim's ALU issue timing (`sm.op_latency=gpgpusim`, "
            "`sm.result_delay=4`; `regress/grguard_issue.json`, against `base_half_gsissue`), with which relgpu's "
            "validation suite is closest to GPGPU-Sim (docs/results/correlation.md, \"relgpu ablation\"). The data "
            "moves as built in every variant, and every completed run passes its output check.", "",
            table(["workload"] + [t for _, t in COST], rows + [gm]), ""]


def scheduler_section(runs, missing):
    by = {(group(r), r["workload"]): r for r in runs}
    rows, done = [], {}
    for label, g, b in SCHED_SETS:
        ws = sorted(w for (x, w) in by if x == g)
        stops = [m for m in missing if m[0].split("/")[0] == g]
        if not ws and not stops:
            continue
        done[label] = set(ws)
        rows.append([label, len(ws) + len(stops), len(ws), ", ".join(ws) or "none"])
    if len(rows) < 2:
        return []
    common = sorted(set.intersection(*done.values()))
    def rf_nj(r):  # the RF's and the patching unit's energy, as docs/results/grguard.md counts it
        e = r.get("energy", {})
        return e.get("rf", {}).get("total_nj", 0.0) + e.get("patching_unit", {}).get("total_nj", 0.0)
    for row, (label, g, b) in zip(rows, [s for s in SCHED_SETS if s[0] in done]):
        ws = [w for w in common if (b, w) in by]
        t = geomean([by[(g, w)]["gpu_sim_cycle"] / by[(b, w)]["gpu_sim_cycle"] for w in ws])
        e = geomean([rf_nj(by[(g, w)]) / rf_nj(by[(b, w)]) for w in ws if rf_nj(by[(b, w)])])
        row += [pct(t - 1, sign=True) if t else "-", pct(e - 1, sign=True) if e else "-",
                pct(e * t - 1, sign=True) if e and t else "-"]
    return ["## Schedulers (1% point, `rf_point`, 768 threads, chip 1)", "",
            "GR-Guard under GTO, LRR and two-level, each against the fault-free run under the same scheduler "
            "(the paper: the three give almost equal IPC, energy and EDP). Geomeans over the workloads "
            "every scheduler completes (" + ", ".join(common) + "); RF energy is the RF's and the patching "
            "unit's, EDP that energy times the run's cycles.", "",
            table(["scheduler", "runs", "completed", "completed workloads", "time vs fault-free",
                   "RF energy vs fault-free", "RF EDP vs fault-free"], rows), ""]


def grguard_section(gr, missing):
    rows = []
    for g, (rate, fp) in POINT.items():
        rs = [r for r in gr if group(r) == g]
        stops = [m for m in missing if m[0].split("/")[0] == g and m[1] == "failed"]
        if not rs and not stops:
            continue
        spill = [int(r["grguard"].get("max_spill_lines", 0)) for r in rs]
        rows.append([g, fp, rate, len([m for m in missing if m[0].split("/")[0] == g]) + len(rs), len(rs), len(stops),
                     pct(mean([r["dead_time"]["faulty_entry_share"] for r in rs])),
                     pct(mean([r["dead_time"]["dead_good_share"] for r in rs])),
                     pct(mean([r["dead_time"]["live_faulty_share"] for r in rs])),
                     f"{max(spill)} ({max(rs, key=lambda r: r['grguard'].get('max_spill_lines', 0))['workload']})"
                     if rs else "-"])
    md = ["## GR-Guard running at the two points (GTO, chip 1)", "",
          "The same shares measured with the faults in the run and GR-Guard patching them, and the most L1D "
          "spill lines in use at once on any SM (`grguard.max_spill_lines`; the reserved way has 32; the paper: "
          "at most 23). A run stops when a register write finds no patch for `grguard.stall_limit` cycles (the "
          "reason of each is under Runs without stats). `rf_point` puts every RF cell of the chip at one point "
          "of the systematic field, so each SM has about the chip's share of faulty entries.", "",
          table(["runs", "floorplan", "cell rate", "runs", "completed", "stopped (see Runs without stats)", "faulty entries",
                 "dead and good", "live and faulty", "most spill lines (workload)"], rows), ""]
    per = []
    for r in sorted(gr, key=lambda r: (group(r), r["workload"])):
        g = r["grguard"]
        n = sum(g["accesses"].values()) or 1
        e = g.get("entry_accesses")
        ne = sum(e.values()) if e else 0
        per.append([group(r), r["workload"], f"{r['gpu_sim_cycle']:,}", int(g.get("max_spill_lines", 0)),
                    pct(g["accesses"]["spill"] / n, 2), pct(r["dead_time"]["dead_share"]),
                    " / ".join(f"{g['accesses'][k] / n * 100:.0f}" for k in MIX) + "%",
                    " / ".join(f"{e[k] / ne * 100:.0f}" for k in MIX) + "%" if ne else "-"])
    if per:
        md += ["Completed GR-Guard runs, with the unit's access mix (normal / normal-patch / patch-occupied / "
               "spill) counted per WRG access and per entry (the good entries of a patched WRG count as normal; "
               f"the paper gives {PAPER_MIX} and does not say which it counts):", "",
               table(["runs", "workload", "cycles", "most spill lines", "spill accesses", "dead share",
                      "mix per access", "mix per entry"], per), ""]
    return md


def write(runs, out, missing=(), store=None):  # noqa: ARG001 (every page takes the store; this one reads only its runs)
    dt = [r for r in runs if group(r) == "dt"]
    gr = [r for r in runs if group(r) in POINT]
    md = ["# Register dead time: GR-Guard's characterisation (Tan dissertation §6.2)", "",
          "Generated by `scripts/report grguard_deadtime --store FILE` from the runs of "
          "`regress/grguard_deadtime.json`: every workload at its **default** size on `configs/gtx480.json` (the "
          "GR-Guard baseline of Table 6.1: 15 SMs, 700 MHz, 128 KB RF as 32 banks x 256 rows x 128 bit) under "
          "the GTO, LRR and two-level schedulers, with `grguard.deadtime` (`sm/dead_time.h`) measuring every "
          "warp register's residency and dead time.", ""]
    md += campaign_time(runs, "grguard_deadtime") + [""]
    md += run_checks(runs, missing)
    md += dead_section(dt) + workload_section(dt) + fault_section(dt) + coverage_section(dt)
    md += grguard_section(gr, missing) + occupancy_section(runs, missing) + cost_section(runs)
    md += scheduler_section(runs, missing)
    return save_page(out, "grguard_deadtime", md)
