"""docs/results/grguard_deadtime.md: register dead time, GR-Guard's characterisation (Tan dissertation §6.2, Fig. 6.5).

Reads the runs of regress/grguard_deadtime.json: every workload at its default size under GTO, LRR and two-level
with grguard.deadtime (sm/dead_time.h), the per-cycle entry shares counted against chip 1's fault maps at about
10% and 30% faulty entries (not applied), and GR-Guard itself at those two points (GTO).
"""
from report_lib import campaign_time, mean, pct, run_checks, save_page, table

SCHEDS = [("gto", "GTO"), ("lrr", "LRR"), ("two_level", "two-level")]
RATES = [("0.0036", "10%", 0.20, 0.03), ("0.0094", "30%", 0.15, 0.08)]  # rate, paper's point, dead+good, live+faulty
POINT = {"gr10": ("0.0036", "rf_block (default)"), "gr30": ("0.0094", "rf_block (default)"),
         "gr10_point": ("0.0042", "rf_point (ablation)"), "gr30_point": ("0.0086", "rf_point (ablation)")}
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
        per.append([group(r), r["workload"], f"{r['gpu_sim_cycle']:,}", int(g.get("max_spill_lines", 0)),
                    pct(g["accesses"]["spill"] / n, 2), pct(r["dead_time"]["dead_share"])])
    if per:
        md += ["Completed GR-Guard runs:", "",
               table(["runs", "workload", "cycles", "most spill lines", "spill accesses", "dead share"], per), ""]
    return md


def write(runs, out, missing=()):
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
    md += dead_section(dt) + workload_section(dt) + fault_section(dt) + grguard_section(gr, missing)
    return save_page(out, "grguard_deadtime", md)
