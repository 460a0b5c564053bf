"""docs/results/grguard.{md,html} from the runs of regress/grguard.json in a campaign store.

Default sizes, the paper's 1% point on chips 1-100 per sigma ratio (not picked; regress/grguard_chips.json holds
chips 11-100 and a rerun of chip 1 that must equal the stored one), every stop counted; then the
ablation under which most workloads complete (rf_point floorplan, 768 threads), where time, energy, access
mix, the Vdd sweep and the L1D checks are measured.
"""
import os
import re
from collections import defaultdict

from report_lib import (bars, campaign_time, cfg, geomean, lines, mean, ok, pct, run_checks, save_page, table)

SIGMAS = ["1:4", "1:1", "4:1"]
PAPER = {  # Tan dissertation §6.5, averages over 100 chips at 1% cell failure, 28 nm
    "ipc_loss": "< 2%",
    "energy": {"1:4": 0.15, "1:1": 0.31, "4:1": 0.40},
    "mix": {"normal": 0.56, "normal_patch": 0.30, "patch_occupied": 0.13, "spill": 0.01},
    "l1d": "< 1% (avg)",
    "drop_mv": {"1:4": 62, "1:1": 140, "4:1": 188},
}
MIX = ["normal", "normal_patch", "patch_occupied", "spill"]
STOP = re.compile(r"on SM (\d+): a register write found no patch.*?rf\.vdd=([\d.]+).*?"
                  r"SM census: (\d+)/(\d+) faulty entries, (\d+)/\d+ all-good WRGs")


def group(name):
    """The spec's run set a run (or its name) came from."""
    return (name if isinstance(name, str) else name["_name"]).split("/")[0]


def name_cfg(name, key):
    """A swept key's value from a run's name (runs that stopped have no config)."""
    m = re.search(re.escape(key) + r"=([^/]+)", name)
    return m.group(1) if m else None


def workload(name):
    """The name's part that is not KEY=VALUE (a sweep may list the chip first)."""
    return next(p for p in name.split("/")[1:] if "=" not in p)


def rf_energy(run):
    e = run.get("energy", {})
    return e.get("rf", {}).get("total_nj", 0.0) + e.get("patching_unit", {}).get("total_nj", 0.0)


def rf_energy_at(run, cycles):
    """rf_energy with the leakage scaled to `cycles` instead of the run's own."""
    e, k = run.get("energy", {}), cycles / run["gpu_sim_cycle"]
    return sum(e.get(u, {}).get("dynamic_nj", 0.0) + k * e.get(u, {}).get("leakage_nj", 0.0) for u in ("rf", "patching_unit"))


def faults(run):
    return run.get("sm_total", {}).get("rf_faults", {})


def mix_of(rs, field="accesses"):
    """Fractions of the unit's accesses by class, pooled over runs."""
    tot = defaultdict(int)
    for r in rs:
        for k, v in r["grguard"].get(field, {}).items():
            tot[k] += v
    n = sum(tot.values()) or 1
    return {k: tot[k] / n for k in MIX}


def stops_of(missing, g):
    """(name, parsed message or None, message) of the runs of set g that left no stats."""
    # Runs not run yet are listed at the end of the page, not counted as stops.
    return [(name, STOP.search(msg), msg) for name, status, msg in missing if group(name) == g and status == "failed"]


def paper_point_section(runs, missing, base):
    gg = [r for r in runs if group(r) == "grguard"]
    st = stops_of(missing, "grguard")
    # A chip counts once every workload has finished on it (a campaign stopped part way leaves some not run).
    finished = defaultdict(int)
    for sig, c in [(cfg(r, "pv.sigma_ratio"), cfg(r, "pv.chip_seed")) for r in gg] + \
            [(name_cfg(x[0], "pv.sigma_ratio"), name_cfg(x[0], "pv.chip_seed")) for x in st]:
        finished[(sig, int(c))] += 1
    whole = {k for k, n in finished.items() if n >= len(base)}
    partial = sum(n for k, n in finished.items() if k not in whole)
    gg = [r for r in gg if (cfg(r, "pv.sigma_ratio"), int(cfg(r, "pv.chip_seed"))) in whole]
    st = [x for x in st if (name_cfg(x[0], "pv.sigma_ratio"), int(name_cfg(x[0], "pv.chip_seed"))) in whole]
    rows, chip_rows = [], []
    for s in SIGMAS:
        rs = [r for r in gg if cfg(r, "pv.sigma_ratio") == s]
        ss = [x for x in st if name_cfg(x[0], "pv.sigma_ratio") == s]
        if not rs and not ss:
            continue
        vdd = sorted({round(faults(r)["vdd"], 3) for r in rs} | {round(float(m.group(2)), 3) for _, m, _ in ss if m})
        sm_fe = [int(m.group(3)) / int(m.group(4)) for _, m, _ in ss if m]
        chip_fe = [faults(r).get("faulty_entry_rate") for r in rs]
        other = [x for x in ss if not x[1]]
        tc = geomean([r["gpu_sim_cycle"] / base[r["workload"]]["gpu_sim_cycle"] for r in rs if r["workload"] in base])
        er = mean([1 - rf_energy(r) / rf_energy(base[r["workload"]]) for r in rs if r["workload"] in base])
        rows.append([s, len(rs) + len(ss), len(rs), len(ss) - len(other), len(other),
                     f"{min(vdd):.3f}-{max(vdd):.3f} V" if vdd else "-",
                     pct(mean(chip_fe)) if chip_fe else "-",
                     f"{pct(min(sm_fe), 0)}-{pct(max(sm_fe), 0)}" if sm_fe else "-",
                     pct(tc - 1, sign=True) if tc else "-",
                     f"{pct(er)} (paper {pct(PAPER['energy'][s], 0)})" if er is not None else "-"])
        chips = sorted({int(cfg(r, "pv.chip_seed")) for r in rs} | {int(name_cfg(x[0], "pv.chip_seed")) for x in ss})
        for c in chips:
            done = sorted(r["workload"] for r in rs if int(cfg(r, "pv.chip_seed")) == c)
            cs = [x for x in ss if int(name_cfg(x[0], "pv.chip_seed")) == c]
            fe = [int(m.group(3)) / int(m.group(4)) for _, m, _ in cs if m]
            chip_rows.append([s, c, f"{len(done)} / {len(done) + len(cs)}", ", ".join(done) or "none",
                              f"{pct(min(fe), 0)}-{pct(max(fe), 0)}" if fe else "-"])
    if not rows:
        return []
    chips = sorted({int(cfg(r, "pv.chip_seed")) for r in gg} | {int(name_cfg(x[0], "pv.chip_seed")) for x in st})
    queued = [n for n, status, _ in missing if group(n) == "grguard" and status != "failed"]
    done_rows = []
    for r in sorted(gg, key=lambda r: (SIGMAS.index(cfg(r, "pv.sigma_ratio")), r["workload"], int(cfg(r, "pv.chip_seed")))):
        if r["workload"] not in base:
            continue
        g = r["grguard"]
        n = sum(g["accesses"].values()) or 1
        nsm = int(cfg(r, "gpu.num_sms") or 15)
        done_rows.append([cfg(r, "pv.sigma_ratio"), int(cfg(r, "pv.chip_seed")), r["workload"],
                          pct(faults(r).get("faulty_entry_rate")),
                          pct(r["gpu_sim_cycle"] / base[r["workload"]]["gpu_sim_cycle"] - 1, sign=True),
                          pct(g["write_stall_cycles"] / (r["gpu_sim_cycle"] * nsm)),
                          pct(g["accesses"]["normal_patch"] / n), pct(g["accesses"]["spill"] / n, 2),
                          int(g.get("max_spill_lines", 0))])
    done_md = ["The runs that completed, with where their time went: write stall = SM-cycles in which a register "
               "write waited for a patch (summed over SMs, over cycles x SMs); normal-patch accesses pay a second "
               "bank access, spills an L1D access (35 cycles).", "",
               table(["sigma", "chip", "workload", "faulty entries", "time change", "write stall", "normal-patch",
                      "spill", "most spill lines"], done_rows), ""] if done_rows else []
    return ["## At the paper's operating point: 1% cell failure, 1,536 threads, default floorplan", "",
            f"Every workload on chips {chip_span(chips)} per sigma ratio ({len(chips)} chips, not picked"
            + (f"; {len(queued)} runs of the spec's chips 1-100 not run yet" if queued else "")
            + (f"; {partial} finished runs of chips not yet finished on every workload left out" if partial else "")
            + "). "
            "A run *stops* when a register write "
            "finds no patch for `grguard.stall_limit` cycles (no dead WRG good in the entries it needs, the "
            "L1D spill way full; 200,000 cycles on chips 1-10, 20,000 on chips 11-100, measured below to give the "
            "same outcomes); relgpu then exits with a message naming the SM, and no output is produced. "
            "The paper reports every benchmark running on all 100 chips at 1% with < 2% IPC loss.", "",
            table(["sigma rand:sys", "runs", "completed", "stopped: no patch", "stopped: other", "RF Vdd at 1%",
                   "faulty entries (completed runs, chip)", "faulty entries of the SM that stopped",
                   "time change of the completed (geomean)", "RF energy reduction of the completed (mean)"], rows), "",
            "RF energy: the RF's and the patching unit's dynamic and leakage energy against `base` (nominal Vdd, no "
            "faults, 1,536 threads); only nbody and nw complete, so the column is theirs.", "",
            "Per chip:", "",
            table(["sigma", "chip", "completed", "workloads that completed", "faulty entries of the SMs that stopped"],
                  chip_rows), ""] + done_md


def spill_section(runs, missing, base):
    """regress/grguard_spill.json: the paper's point with 1,024 spill lines (grguard.spill_lines), so that no
    write goes without a patch: how many lines each run needs at once, and what GR-Guard then costs."""
    sp = [r for r in runs if group(r) == "spill1024" and r["workload"] in base]
    st = [x for x in missing if group(x[0]) == "spill1024" and x[1] == "failed"]
    if not sp and not st:
        return []
    paper_pt = {(r["workload"], int(cfg(r, "pv.chip_seed")), cfg(r, "pv.sigma_ratio")): r
                for r in runs if group(r) == "grguard"}
    lines_of = lambda r: int(r["grguard"].get("max_spill_lines", 0))
    spilled = lambda rs: (sum(r["grguard"]["accesses"]["spill"] for r in rs)
                          / (sum(sum(r["grguard"]["accesses"].values()) for r in rs) or 1))
    rows, same, both = [], 0, 0
    for sg in SIGMAS:
        rs = [r for r in sp if cfg(r, "pv.sigma_ratio") == sg]
        ss = [x for x in st if name_cfg(x[0], "pv.sigma_ratio") == sg]
        if not rs and not ss:
            continue
        ls = sorted(lines_of(r) for r in rs)
        chips = sorted({int(cfg(r, "pv.chip_seed")) for r in rs})
        tc = geomean([r["gpu_sim_cycle"] / base[r["workload"]]["gpu_sim_cycle"] for r in rs])
        er = mean([1 - rf_energy(r) / rf_energy(base[r["workload"]]) for r in rs])
        rows.append([sg, chip_span(chips), f"{sum(map(ok, rs))} of {len(rs) + len(ss)}",
                     f"{ls[len(ls) // 2]} / {ls[-1]}" if ls else "-",
                     f"{sum(n > 32 for n in ls)} of {len(ls)}", pct(spilled(rs), 1) if rs else "-",
                     pct(tc - 1, sign=True) if tc else "-",
                     f"{pct(er)} (paper {pct(PAPER['energy'][sg], 0)})" if er is not None else "-"])
    over = 0  # pairs that differ and needed more than 32 lines: the 32-line run waited there
    for r in sp:
        k = (r["workload"], int(cfg(r, "pv.chip_seed")), cfg(r, "pv.sigma_ratio"))
        if k in paper_pt:
            both += 1
            same += paper_pt[k]["gpu_sim_cycle"] == r["gpu_sim_cycle"]
            over += paper_pt[k]["gpu_sim_cycle"] != r["gpu_sim_cycle"] and lines_of(r) > 32
    wrows = []
    for w in sorted({r["workload"] for r in sp}):
        rs = [r for r in sp if r["workload"] == w and cfg(r, "pv.sigma_ratio") == "1:1"]
        if not rs:
            continue
        ls = sorted(lines_of(r) for r in rs)
        tc = geomean([r["gpu_sim_cycle"] / base[w]["gpu_sim_cycle"] for r in rs])
        er = mean([1 - rf_energy(r) / rf_energy(base[w]) for r in rs])
        wrows.append([w, len(rs), f"{ls[0]} / {ls[len(ls) // 2]} / {ls[-1]}", pct(spilled(rs), 1),
                      pct(mix_of(rs)["patch_occupied"], 1), pct(tc - 1, sign=True), pct(er)])
    # The same with a 1-cycle L1D hit, against the fault-free run with that L1D.
    b1 = {r["workload"]: r for r in runs if group(r) == "base_l1lat1"}
    s1 = {(r["workload"], int(cfg(r, "pv.chip_seed"))): r for r in runs if group(r) == "spill1024_l1lat1" and r["workload"] in b1}
    s35 = {(r["workload"], int(cfg(r, "pv.chip_seed"))): r for r in sp if cfg(r, "pv.sigma_ratio") == "1:1"}
    keys = sorted(k for k in s1 if k in s35)
    lat = []
    if keys:
        t35 = {w: geomean([s35[k]["gpu_sim_cycle"] / base[w]["gpu_sim_cycle"] for k in keys if k[0] == w]) for w, _ in keys}
        t1 = {w: geomean([s1[k]["gpu_sim_cycle"] / b1[w]["gpu_sim_cycle"] for k in keys if k[0] == w]) for w, _ in keys}
        ws = sorted(t35)
        lat = ["The same runs (sigma 1:1, chips " + chip_span(sorted({k[1] for k in keys})) + ") with a 1-cycle L1D hit "
               "(`spill1024_l1lat1`, the seeds' GPGPU-Sim 3.x), against the fault-free run with that L1D "
               "(`base_l1lat1`); `configs/gtx480.json` follows GPGPU-Sim 4.0's 35 cycles:", "",
               table(["workload", "time change, L1D hit 35 cycles", "time change, 1 cycle"],
                     [[w, pct(t35[w] - 1, sign=True), pct(t1[w] - 1, sign=True)] for w in ws]
                     + [["geomean", pct(geomean([t35[w] for w in ws]) - 1, sign=True),
                         pct(geomean([t1[w] for w in ws]) - 1, sign=True)]]), ""]
    return ["## The paper's point with as many spill lines as a run needs (`grguard.spill_lines=1024`)", "",
            "`regress/grguard_spill.json` repeats the paper's point (default size, 1% cell failure, 1,536 threads, "
            "default floorplan) with the patching unit allowed 1,024 spill lines instead of the reserved L1D way's "
            "32: lines beyond the way sit in an ideal store beside the L1D, reached like the way (L1D hit latency, "
            "one spill access per cycle on a free L1 port). A write then always finds a patch, so no run stops, and "
            "the run's most spill lines in use at once on one SM is what the paper's point needs (the paper: at "
            "most 23, one way of 32 is enough). Time and RF energy against `base`, as in the first table.", "",
            table(["sigma rand:sys", "chips", "completed (output check passed)", "most spill lines at once: median / "
                   "largest run (paper <= 23)", "runs needing more than the way's 32", "accesses spilled (pooled; "
                   "paper ~1%)", "time change (geomean; paper < 2%)", "RF energy reduction (mean)"], rows), "",
            f"Of these runs, {both} also completed with 32 lines (first table). {same} of them give the same cycles "
            f"with 1,024; {over} of the others needed more than 32 lines at once, where the 32-line run waited for a "
            "patch instead.", "",
            "Per workload, sigma 1:1:", "",
            table(["workload", "chips", "most spill lines at once: fewest / median / most", "accesses spilled",
                   "patch-occupied accesses", "time change (geomean)", "RF energy reduction (mean)"], wrows), ""] + lat


def point_spill_section(runs, base_half):
    """point_half_spill1024 (regress/grguard_spill.json): the rf_point / 768-thread ablation with 1,024 spill
    lines, so every workload completes and RF energy is over all of them (the paper: 15 / 31 / 40%)."""
    sp = [r for r in runs if group(r) == "point_half_spill1024" and r["workload"] in base_half]
    if not sp:
        return []
    ph = {(r["workload"], int(cfg(r, "pv.chip_seed")), cfg(r, "pv.sigma_ratio")): r
          for r in runs if group(r) == "point_half"}
    lines_of = lambda r: int(r["grguard"].get("max_spill_lines", 0))
    rows, wrows = [], []
    for sg in SIGMAS:
        rs = [r for r in sp if cfg(r, "pv.sigma_ratio") == sg]
        if not rs:
            continue
        ls = sorted(lines_of(r) for r in rs)
        pairs = [(r, ph.get((r["workload"], int(cfg(r, "pv.chip_seed")), sg))) for r in rs]
        pairs = [(r, q) for r, q in pairs if q]
        tc = geomean([r["gpu_sim_cycle"] / base_half[r["workload"]]["gpu_sim_cycle"] for r in rs])
        er = mean([1 - rf_energy(r) / rf_energy(base_half[r["workload"]]) for r in rs])
        er8 = mean([1 - rf_energy(r) / rf_energy(base_half[r["workload"]]) for r, _ in pairs])
        rows.append([sg, chip_span(sorted({int(cfg(r, "pv.chip_seed")) for r in rs})), f"{sum(map(ok, rs))} of {len(rs)}",
                     f"{ls[len(ls) // 2]} / {ls[-1]}", pct(tc - 1, sign=True) if tc else "-",
                     f"{pct(er)} (paper {pct(PAPER['energy'][sg], 0)})" if er is not None else "-",
                     pct(er8) if er8 is not None else "-",
                     f"{sum(r['gpu_sim_cycle'] == q['gpu_sim_cycle'] for r, q in pairs)} of {len(pairs)}"])
    for w in sorted({r["workload"] for r in sp}):
        rs = [r for r in sp if r["workload"] == w and cfg(r, "pv.sigma_ratio") == "1:1"]
        if rs:
            ls = sorted(lines_of(r) for r in rs)
            wrows.append([w, len(rs), f"{ls[0]} / {ls[-1]}",
                          pct(geomean([r["gpu_sim_cycle"] / base_half[w]["gpu_sim_cycle"] for r in rs]) - 1, sign=True),
                          pct(mean([1 - rf_energy(r) / rf_energy(base_half[w]) for r in rs]))])
    return ["## The same ablation with 1,024 spill lines: every workload (rf_point, 768 threads, chips 1-3)", "",
            "`point_half_spill1024` in `regress/grguard_spill.json`: the ablation above with `grguard.spill_lines=1024`, "
            "so the six workloads that stop there complete too and the RF energy is over all fourteen. Against "
            "`base_half`. The last column counts the runs that also completed with 32 lines and give the same cycles.", "",
            table(["sigma rand:sys", "chips", "completed (output check passed)", "most spill lines at once: median / "
                   "largest", "time change (geomean)", "RF energy reduction, every workload (mean)",
                   "... the workloads that complete with 32 lines", "same cycles as with 32 lines"], rows), "",
            "Per workload, sigma 1:1:", "",
            table(["workload", "chips", "most spill lines at once: fewest / most", "time change (geomean)",
                   "RF energy reduction (mean)"], wrows), ""]


def chip_span(chips):
    """'1-40' for a contiguous list of chips, else the list."""
    if len(chips) == 1:
        return str(chips[0])
    if chips and chips == list(range(chips[0], chips[-1] + 1)):
        return f"{chips[0]}-{chips[-1]}"
    return ", ".join(map(str, chips))


RUN_FIELDS = {"host", "wall_s", "sim_rate_thread_insn_per_s", "sim_rate_cycle_per_s", "silicon_slowdown", "config",
              "config_sources", "_name", "_run"}


def same_stats(a, b):
    """Two runs' stats agree in all but host, wall time and config."""
    return {k: v for k, v in a.items() if k not in RUN_FIELDS} == {k: v for k, v in b.items() if k not in RUN_FIELDS}


def outcomes(runs, missing, g):
    """(workload, chip, sigma) -> ("done", stats) or ("stop", message) for run set g's finished runs."""
    def key(name):
        return workload(name), int(name_cfg(name, "pv.chip_seed")), name_cfg(name, "pv.sigma_ratio")
    out = {key(r["_name"]): ("done", r) for r in runs if group(r) == g}
    out.update({key(n): ("stop", m) for n, st, m in missing if group(n) == g and st == "failed"})
    return out


def recheck_section(runs, missing):
    """regress/grguard_chips.json's rerun of chip 1 against regress/grguard.json's: the pooled chips ran at
    two revisions, so the stats (all but host and wall time) and the stop messages must be equal."""
    new = outcomes(runs, missing, "recheck")
    if not new:
        return []
    old = outcomes(runs, missing, "grguard")
    differ = []
    for k, (kind, x) in sorted(new.items()):
        ok_kind, y = old.get(k, (None, None))
        if kind != ok_kind or not (same_stats(x, y) if kind == "done" else x == y):
            differ.append("/".join(map(str, k)))
    revs = sorted({x["_run"].get("revision") or "?" for kind, x in new.values() if kind == "done"})
    return ["## Chips run at two revisions", "",
            f"Chips 1-10 ran at an earlier revision than chips 11-100. Chip 1 of the paper's point, rerun at "
            f"{', '.join(revs) or 'the newer revision'} (`recheck` in `regress/grguard_chips.json`): "
            f"{len(new) - len(differ)} of {len(new)} runs give the same stats (all but host and wall time) or the "
            f"same stop message as the stored run." + (f" Differ: {', '.join(differ)}." if differ else ""), ""]


def limit_check_section(runs, missing):
    """regress/grguard_chips.json's chips 1-10 at grguard.stall_limit=20000 against regress/grguard.json's at the
    default 200,000: the same outcome (completed with the same stats, or stopped on the same SM) run by run."""
    short = outcomes(runs, missing, "check20k")
    if not short:
        return []
    long_ = outcomes(runs, missing, "grguard")
    tally = defaultdict(int)
    differ = []
    for k, (kind, x) in sorted(short.items()):
        if k not in long_:
            continue
        lk, lx = long_[k]
        if kind == "done" and lk == "done":
            tally["completed under both, the same stats" if same_stats(x, lx) else "completed under both, other stats"] += 1
        elif kind == "stop" and lk == "stop":
            sm, lsm = STOP.search(x), STOP.search(lx)
            same = sm and lsm and sm.group(1) == lsm.group(1)
            tally["stopped under both, on the same SM" if same else "stopped under both, on another SM"] += 1
        else:
            tally[f"completed only at {'20,000' if kind == 'done' else '200,000'}"] += 1
            differ.append("/".join(map(str, k)))
    rows = [[what, n] for what, n in sorted(tally.items())]
    chips = sorted({k[1] for k in short})
    return ["## The shorter stall limit of chips 11-100", "",
            f"Chips 11-100 stop a run after a write waits 20,000 cycles for a patch (`grguard.stall_limit=20000`), "
            f"not the default 200,000, so that 100 chips fit in a few hours: a stop otherwise spends most of its time "
            f"simulating the other SMs through the wait. Chips {chip_span(chips)} were run both ways "
            f"(`check20k` in `regress/grguard_chips.json` against `regress/grguard.json`):", "",
            table(["outcome at 20,000 against 200,000", "runs"], rows), ""] + \
        ([f"Outcomes that differ: {', '.join(differ)}.", ""] if differ else [])


ABLATIONS = [("grguard", "none (the paper's point)"), ("abl_spill4", "4 L1D ways for spills (`grguard.spill_ways=4`)"),
             ("abl_secded32", "SEC-DED per 32-bit word (`rf.secded_bits=32`)"),
             ("abl_point", "every SM at the chip's field point (`pv.floorplan=rf_point`)"),
             ("abl_half", "768 threads per SM (`sm.max_threads=768`)"),
             ("abl_paper_order", "the paper's patch order (`grguard.patch_order=paper`)"),
             ("abl_entries", "an occupied WRG moves only its needed entries (`grguard.occupied_move=entries`)"),
             ("abl_regs_alloc", "relgpu's allocator's register counts (`gpu.regs_per_thread=allocator`)")]


def stop_ablation_section(runs, missing, base):
    """One choice switched away from the paper's point, on chips 1-3 at sigma 1:1."""
    rows = []
    for g, label in ABLATIONS:
        rs = [r for r in runs if group(r) == g and cfg(r, "pv.sigma_ratio") == "1:1" and int(cfg(r, "pv.chip_seed")) <= 3]
        ss = [x for x in stops_of(missing, g)
              if name_cfg(x[0], "pv.sigma_ratio") == "1:1" and int(name_cfg(x[0], "pv.chip_seed")) <= 3]
        if not rs and not ss:
            continue
        fe = [int(m.group(3)) / int(m.group(4)) for _, m, _ in ss if m]
        good = [int(m.group(5)) for _, m, _ in ss if m]
        tc = geomean([r["gpu_sim_cycle"] / base[r["workload"]]["gpu_sim_cycle"] for r in rs if r["workload"] in base])
        rows.append([label, len(rs) + len(ss), len(rs), ", ".join(sorted({r["workload"] for r in rs})) or "none",
                     f"{pct(min(fe), 0)}-{pct(max(fe), 0)}" if fe else "-",
                     f"{min(good)}-{max(good)}" if good else "-",
                     pct(tc - 1, sign=True) if tc else "-"])
    if len(rows) < 2:
        return []
    return ["## What makes runs stop at the paper's point: one choice switched (sigma 1:1, chips 1-3)", "",
            "Each row switches one modelling choice away from the paper's operating point and reruns the same "
            "42 runs. Time change is against `base` (1,536 threads), geomean of the completed runs.", "",
            table(["switched", "runs", "completed", "workloads that completed", "faulty entries of the SM that stopped",
                   "all-good WRGs of that SM", "time change of the completed"], rows), ""]


def sigma_section(runs, missing, base_half):
    """point_half at each sigma ratio (regress/grguard_sigma.json adds 1:4 and 4:1): the paper's RF energy
    per ratio (Fig. 6.7(b)) under the ablation in which most workloads complete."""
    rows = []
    for sg in SIGMAS:
        rs = [r for r in runs if group(r) == "point_half" and cfg(r, "pv.sigma_ratio") == sg
              and r["workload"] in base_half]
        st = [x for x in stops_of(missing, "point_half") if name_cfg(x[0], "pv.sigma_ratio") == sg]
        if not rs and not st:
            continue
        vd = mean([faults(r).get("vdd") for r in rs])
        tc = geomean([r["gpu_sim_cycle"] / base_half[r["workload"]]["gpu_sim_cycle"] for r in rs])
        er = mean([1 - rf_energy(r) / rf_energy(base_half[r["workload"]]) for r in rs])
        er_iso = mean([1 - rf_energy_at(r, base_half[r["workload"]]["gpu_sim_cycle"]) / rf_energy(base_half[r["workload"]])
                       for r in rs])
        mix = mix_of(rs, "entry_accesses") if rs else None
        done = sorted({r["workload"] for r in rs})
        rows.append([sg, f"{len(rs)} of {len(rs) + len(st)}", ", ".join(w for w in done),
                     f"{vd:.3f} V ({(1 - vd) * 1000:.0f} mV; paper {PAPER['drop_mv'][sg]} mV)" if vd else "-",
                     pct(mean([faults(r).get("faulty_entry_rate") for r in rs])) if rs else "-",
                     pct(tc - 1, sign=True) if tc else "-",
                     f"{pct(er)} (paper {pct(PAPER['energy'][sg], 0)})" if er is not None else "-",
                     pct(er_iso) if er_iso is not None else "-",
                     " / ".join(pct(mix[k], 0) for k in MIX) if mix else "-"])
    if len(rows) < 2:
        return []
    return ["## The three sigma ratios under the same ablation (rf_point, 768 threads, chips 1-10)", "",
            table(["sigma rand:sys", "runs completed", "workloads that completed (on some chip)", "RF Vdd at 1% (drop)",
                   "faulty entries", "time change (geomean)", "RF energy reduction (mean)",
                   "... with the leakage of the baseline's run time",
                   "access mix per entry (normal / normal-patch / patch-occupied / spill)"], rows), "",
            "Against `base_half` (768 threads, nominal Vdd, no faults). *With the leakage of the baseline's run "
            "time*: the same runs' dynamic energy plus their leakage scaled to the baseline's cycles, the "
            "reduction if GR-Guard cost no time (the paper's IPC loss is under 2%). The drop is from the 1.0 V baseline; the "
            "paper's is from the chip's worst cell normalised to 1 V, which is what `rf.vdd` 1.0 is here "
            "(`reliability/chip.h`). 1:4 and 4:1 are `regress/grguard_sigma.json`.", ""]


def ablation_section(runs, missing, base_half):
    ph = [r for r in runs if group(r) == "point_half" and cfg(r, "pv.sigma_ratio") == "1:1"]
    st = [x for x in stops_of(missing, "point_half") if name_cfg(x[0], "pv.sigma_ratio") == "1:1"]
    if not ph and not st:
        return [], None
    rs = [r for r in ph if r["workload"] in base_half]
    tc = geomean([r["gpu_sim_cycle"] / base_half[r["workload"]]["gpu_sim_cycle"] for r in rs])
    ered = mean([1 - rf_energy(r) / rf_energy(base_half[r["workload"]]) for r in rs])
    leak = mean([base_half[r["workload"]]["energy"]["rf"]["leakage_nj"] / base_half[r["workload"]]["energy"]["rf"]["total_nj"]
                 for r in rs])
    l1 = mean([r["grguard"]["l1d_miss_rate"] - base_half[r["workload"]]["sm_total"]["l1d"]["miss_rate"] for r in rs])
    fl = mean([fills(r) - fills(base_half[r["workload"]]) for r in rs])
    fmax = mean([faults(r).get("rf_fmax_mhz") for r in rs])
    vd = mean([faults(r).get("vdd") for r in rs])
    fe = mean([faults(r).get("faulty_entry_rate") for r in rs])
    spill = max(rs, key=lambda r: r["grguard"].get("max_spill_lines", 0)) if rs else None
    summary = [
        ["runs completed", f"{len(rs)} of {len(rs) + len(st)}", "all (100 chips)"],
        ["RF Vdd at 1% (drop)", f"{vd:.3f} V ({(1 - vd) * 1000:.0f} mV)" if vd else "-", f"{PAPER['drop_mv']['1:1']} mV"],
        ["faulty entries", pct(fe) if fe else "-", "31-39%"],
        ["time change (geomean of the completed)", pct(tc - 1, sign=True) if tc else "-", PAPER["ipc_loss"]],
        ["RF energy reduction (mean)", pct(ered) if ered is not None else "-", pct(PAPER["energy"]["1:1"], 0)],
        ["leakage share of the baseline RF energy", pct(leak, 0) if leak is not None else "-", "(not stated)"],
        ["L1D miss rate change (mean; fills per access)", f"{l1 * 100:+.2f} pt; {fl * 100:+.2f} pt"
         if l1 is not None else "-", PAPER["l1d"]],
        ["most L1D spill lines in use on an SM", f"{spill['grguard'].get('max_spill_lines', 0)} ({spill['workload']})"
         if spill else "-", "23"],
        ["RF fmax at that Vdd (SM clock 700 MHz)", f"{fmax:.0f} MHz" if fmax else "-", "(FO4 chain, not stated)"],
    ]
    md = ["## The ablation under which most complete: rf_point floorplan, 768 threads (sigma 1:1, chips 1-10)", "",
          "`pv.floorplan=rf_point` puts every RF cell of a chip at one point of the systematic field, so each SM "
          "has about the chip's share of faulty entries (the default floorplan gives some SMs 50-75%); "
          "`sm.max_threads=768` lets half as many warps reside, so about half the RF holds warp registers. "
          "`docs/results/grguard_deadtime.md` measures why each matters. Time, energy and L1D are against "
          "`base_half` (768 threads, nominal Vdd, no faults), so they are GR-Guard's own cost; what the thread "
          "limit alone costs is in that page.", "",
          table(["quantity", "ours", "paper"], summary), ""]
    mix_a, mix_e = mix_of(rs), mix_of(rs, "entry_accesses")
    md += ["Access mix, pooled over the completed runs (normal / normal-patch / patch-occupied / spill). The paper "
           "does not say whether it counts WRG accesses or entries; we count both:", "",
           table(["counted per", "normal", "normal-patch", "patch-occupied", "spill"],
                 [["WRG access"] + [pct(mix_a[k]) for k in MIX],
                  ["entry"] + [pct(mix_e[k]) for k in MIX],
                  ["paper"] + [pct(PAPER["mix"][k], 0) for k in MIX]]), ""]
    wl = sorted({r["workload"] for r in ph} | {workload(x[0]) for x in st})
    wrows, loss_s, en_s = [], [], []
    for w in wl:
        ws = [r for r in rs if r["workload"] == w]
        nst = len([x for x in st if workload(x[0]) == w])
        if not ws:
            wrows.append([w, f"0 / {nst}", "-", "-", "-", "-", "-"])
            loss_s.append(None), en_s.append(None)
            continue
        b = base_half[w]
        loss = geomean([r["gpu_sim_cycle"] / b["gpu_sim_cycle"] for r in ws]) - 1
        e = mean([1 - rf_energy(r) / rf_energy(b) for r in ws])
        m = mix_of(ws)
        wrows.append([w, f"{len(ws)} / {len(ws) + nst}", f"{b['gpu_sim_cycle']:,}", pct(loss, sign=True), pct(e),
                      pct(1 - m["normal"]), pct(m["spill"], 2)])
        loss_s.append(loss * 100), en_s.append(e * 100)
    md += ["Per workload:", "",
           table(["workload", "chips completed", "base cycles (768 threads)", "time change", "RF energy reduction",
                  "redirected accesses", "spill accesses"], wrows), ""]
    return md, (wl, loss_s, en_s)


def dibl_section(runs, base_half):
    d0 = {r["workload"]: r for r in runs if group(r) == "dibl0"}
    ph = {r["workload"]: r for r in runs if group(r) == "point_half" and int(cfg(r, "pv.chip_seed")) == 1}
    ws = sorted(w for w in d0 if w in ph and w in base_half)
    if not ws:
        return []
    red = lambda rs: mean([1 - rf_energy(r) / rf_energy(base_half[r["workload"]]) for r in rs])
    return ["## Ablation: the leakage model (rf_point, 768 threads, sigma 1:1, chip 1)", "",
            table(["RF leakage power at Vdd", "runs", "RF energy reduction (paper 31%)"],
                  [["V x DIBL factor (`power.dibl` 0.15, default)", len(ws), pct(red([ph[w] for w in ws]))],
                   ["V alone (`power.dibl` 0)", len(ws), pct(red([d0[w] for w in ws]))]]), ""]


def vdd_section(runs, missing, base_half, out):
    vdd = [r for r in runs if group(r) == "vdd"]
    st = stops_of(missing, "vdd")
    if not vdd and not st:
        return []
    xs = sorted({cfg(r, "rf.vdd") for r in vdd} | {float(name_cfg(x[0], "rf.vdd")) for x in st}, reverse=True)
    wl = sorted({r["workload"] for r in vdd} | {workload(x[0]) for x in st})
    val = {(r["workload"], cfg(r, "rf.vdd")): rf_energy(r) / rf_energy(base_half[r["workload"]])
           for r in vdd if r["workload"] in base_half}
    # The mean's workloads: those that complete at every Vdd down to the lowest one where at least half
    # of all complete (below it the mean would be over too few to compare).
    ok_x = [x for x in xs if sum((w, x) in val for w in wl) * 2 >= len(wl)]
    low = min(ok_x) if ok_x else max(xs)
    full = [w for w in wl if all((w, x) in val for x in xs if x >= low)]
    rows, avg = [], []
    for x in xs:
        m = mean([val[(w, x)] for w in full]) if full and x >= low and all((w, x) in val for w in full) else None
        avg.append((x, m))
        rows.append([f"{x:.2f}", sum((w, x) in val for w in wl), len(wl)]
                    + [f"{val[(w, x)]:.3f}" if (w, x) in val else "stopped" for w in wl]
                    + [f"{m:.3f}" if m is not None else "-"])
    md = ["## RF energy versus RF Vdd (rf_point, 768 threads, sigma 1:1, chip 1)", "",
          "RF energy (with the patching unit) over the fault-free run at 1.0 V. The mean is over the workloads "
          f"that complete at every swept Vdd down to {low:.2f} V, the lowest at which at least half of them "
          f"complete ({', '.join(full) or 'none'}).", "",
          table(["Vdd", "completed", "of"] + wl + ["mean"], rows), ""]
    good = [(x, m) for x, m in avg if m is not None]
    if good:
        best = min(good, key=lambda p: p[1])
        png = lines(os.path.join(out, "grguard_vdd.png"), "RF energy vs RF Vdd (rf_point, 768 threads, chip 1)",
                    "RF Vdd (V)", "RF energy / nominal",
                    {w: sorted((x, val[(w, x)]) for x in xs if (w, x) in val) for w in wl} | {"mean": sorted(good)},
                    vline=(0.86, "paper optimum 0.86 V"))
        md += [f"Optimum of the mean: **{best[0]:.2f} V** (energy {best[1]:.3f} of nominal); paper: 0.86 V.", "",
               f"![energy vs vdd]({png})", ""]
    return md


def fills(run):
    """L1D line fills per access: misses that were not merged into a pending miss's MSHR."""
    l1 = run["sm_total"]["l1d"]
    return (l1["misses"] - l1.get("mshr_merges", 0)) / max(1, l1["accesses"])


def l1d_section(runs, missing):
    pairs = []
    for size, bset, gset in [("16 KB (4-way)", "base_half", "point_half"), ("48 KB (6-way)", "base_half_l1d48", "point_half_l1d48")]:
        b = {r["workload"]: r for r in runs if group(r) == bset}
        g = [r for r in runs if group(r) == gset and int(cfg(r, "pv.chip_seed")) == 1 and r["workload"] in b]
        if not g:
            continue
        d = [r["grguard"]["l1d_miss_rate"] - b[r["workload"]]["sm_total"]["l1d"]["miss_rate"] for r in g]
        worst = max(g, key=lambda r: r["grguard"]["l1d_miss_rate"] - b[r["workload"]]["sm_total"]["l1d"]["miss_rate"])
        f = [fills(r) - fills(b[r["workload"]]) for r in g]
        fworst = max(g, key=lambda r: fills(r) - fills(b[r["workload"]]))
        pairs.append([size, len(g), f"{mean([b[r['workload']]['sm_total']['l1d']['miss_rate'] for r in g]) * 100:.2f}%",
                      f"{mean(d) * 100:+.2f} pt", f"{max(d) * 100:+.2f} pt ({worst['workload']})",
                      f"{mean(f) * 100:+.2f} pt", f"{max(f) * 100:+.2f} pt ({fworst['workload']})",
                      len([x for x in stops_of(missing, gset) if name_cfg(x[0], "pv.chip_seed") == "1"])])
    if not pairs:
        return []
    return ["## L1D miss rate with the spill way, 16 and 48 KB L1D (rf_point, 768 threads, sigma 1:1, chip 1)", "",
            "GR-Guard reserves one L1D way while any patch is spilled. The 48 KB L1D is GPGPU-Sim's GTX480 48 KB "
            "L1 (64 sets x 6 ways); shared memory stays 48 KB. Paper: < 1% average, at most 3% (PNS, 16 KB) and 5% "
            "(PNS, 48 KB). relgpu counts an access that merges into a pending miss's MSHR as a miss (GPGPU-Sim's "
            "convention); a slower run finds more of those lines already filled, so its miss rate can fall. Line "
            "fills per access (misses less MSHR merges) is the capacity effect alone.", "",
            table(["L1D", "completed", "baseline miss rate (mean)", "miss rate change (mean)", "largest change",
                   "fills per access change (mean)", "largest change", "stopped"], pairs), ""]


def stop_list(missing):
    """Every run without stats, one line each: the SM and census for a no-patch stop, else the message."""
    if not missing:
        return []
    stopped = [(n, msg) for n, status, msg in missing if status == "failed"]
    waiting = defaultdict(int)
    for n, status, _ in missing:
        if status != "failed":
            waiting[group(n)] += 1
    md = [f"## Every run that stopped ({len(stopped)})", ""]
    for name, msg in stopped:
        m = STOP.search(msg)
        why = (f"no patch on SM {m.group(1)} ({int(m.group(3)):,}/{int(m.group(4)):,} faulty entries, "
               f"{m.group(5)} all-good WRGs, rf.vdd {float(m.group(2)):.3f} V)") if m else msg
        md.append(f"- `{name}`: {why}")
    if waiting:
        md += ["", "Not run yet (the campaign resumes where it stopped): " +
               ", ".join(f"{n} runs of `{g}`" for g, n in sorted(waiting.items())) + "."]
    return md + [""]


def l1lat_section(runs, missing):
    """GR-Guard's time cost with the L1D hit at 35 cycles (GPGPU-Sim 4.0) and at 1 (3.x), chip 1."""
    rows = []
    for label, bset, gset in [("35 cycles (default)", "base_half", "point_half"), ("1 cycle", "base_half_l1lat1", "point_half_l1lat1")]:
        b = {r["workload"]: r for r in runs if group(r) == bset}
        g = {r["workload"]: r for r in runs if group(r) == gset and int(cfg(r, "pv.chip_seed")) == 1 and r["workload"] in b}
        if g:
            rows.append((label, b, g))
    if len(rows) < 2:
        return []
    ws = sorted(set(rows[0][2]) & set(rows[1][2]))
    t = [[w] + [pct(g[w]["gpu_sim_cycle"] / b[w]["gpu_sim_cycle"] - 1, sign=True) for _, b, g in rows]
         + [pct(rows[0][2][w]["grguard"]["accesses"]["spill"] / (sum(rows[0][2][w]["grguard"]["accesses"].values()) or 1), 2)]
         for w in ws]
    t.append(["geomean"] + [pct(geomean([g[w]["gpu_sim_cycle"] / b[w]["gpu_sim_cycle"] for w in ws]) - 1, sign=True)
                            for _, b, g in rows] + [""])
    md = ["## Ablation: what a spilled patch costs, L1D hit 35 vs 1 cycle (rf_point, 768 threads, sigma 1:1, chip 1)", "",
            "GR-Guard's time change against the fault-free run with the same L1D latency. `configs/gtx480.json` "
            "follows GPGPU-Sim 4.0's GTX 480 (35 cycles, the timing correlation); the seeds' GPGPU-Sim 3.x hits in 1.", "",
            table(["workload", "time change, L1D hit 35 cycles", "time change, 1 cycle", "spill accesses"], t), ""]
    # The same at the paper's point, on the runs that complete there at 4:1.
    b35 = {r["workload"]: r for r in runs if group(r) == "base"}
    b1 = {r["workload"]: r for r in runs if group(r) == "base_l1lat1"}
    g1 = {(r["workload"], int(cfg(r, "pv.chip_seed"))): r for r in runs if group(r) == "grguard_l1lat1"}
    g35 = {(r["workload"], int(cfg(r, "pv.chip_seed"))): r for r in runs if group(r) == "grguard"
           and cfg(r, "pv.sigma_ratio") == "4:1"}
    keys = sorted(k for k in g1 if k in g35 and k[0] in b1 and k[0] in b35)
    if keys:
        t = [[w, c, pct(g35[(w, c)]["gpu_sim_cycle"] / b35[w]["gpu_sim_cycle"] - 1, sign=True),
              pct(g1[(w, c)]["gpu_sim_cycle"] / b1[w]["gpu_sim_cycle"] - 1, sign=True),
              pct(g35[(w, c)]["grguard"]["accesses"]["spill"] / (sum(g35[(w, c)]["grguard"]["accesses"].values()) or 1), 2)]
             for w, c in keys]
        md += ["The same at the paper's point (sigma 4:1, where nbody and nw complete on every chip), against the "
               "fault-free run with the same L1D latency:", "",
               table(["workload", "chip", "time change, L1D hit 35 cycles", "time change, 1 cycle", "spill accesses"], t), ""]
    return md


def write(runs, out, missing=(), store=None):  # noqa: ARG001 (every page takes the store; this one reads only its runs)
    base = {r["workload"]: r for r in runs if group(r) == "base"}
    base_half = {r["workload"]: r for r in runs if group(r) == "base_half"}
    md = ["# GR-Guard: relgpu beside the dissertation", "",
          "Generated by `scripts/report grguard --store FILE` from the runs of `regress/grguard.json` in a campaign "
          "store (`relgpu campaign run`): every workload at its **default** size on `configs/gtx480.json` (the "
          "GR-Guard baseline of Table 6.1: 15 SMs, 700 MHz, GTO, 1,536 threads per SM, 128 KB RF as 32 banks x 256 "
          "x 128 bit). Baseline = the RF at nominal Vdd (1.0 V, no faults, GR-Guard off). GR-Guard runs undervolt "
          "each chip's RF to its 1% cell-failure point (the paper's headline point). Chips: the seeds 1-100 per "
          "sigma ratio, as the paper's 100, none picked or dropped (chips 1-10 in `regress/grguard.json`, 11-100 in "
          "`regress/grguard_chips.json`, chip by chip; a page written while that campaign runs counts the "
          "chips whose runs have finished; `regress/grguard_sigma.json` adds the 1:4 and 4:1 runs of the "
          "rf_point, 768-thread ablation).", ""]
    md += campaign_time(runs, "grguard") + [""]
    md += [f"Runs read: {len(runs)}. Runs with no stats (stopped, crashed or not run yet): {len(missing)}, "
           "each listed at the end.", ""]
    md += run_checks(runs, [])
    md += paper_point_section(runs, missing, base) + recheck_section(runs, missing) + limit_check_section(runs, missing)
    md += stop_ablation_section(runs, missing, base) + spill_section(runs, missing, base)
    abl, plot = ablation_section(runs, missing, base_half)
    md += abl
    if plot and any(v is not None for v in plot[1]):
        png = bars(os.path.join(out, "grguard_workloads.png"),
                   "GR-Guard at 1% (rf_point, 768 threads, sigma 1:1, chips 1-10)", plot[0],
                   {"time change %": plot[1], "RF energy reduction %": plot[2]}, "%", ref=31,
                   ref_label="paper: -31% energy")
        md += [f"![per workload]({png})", ""]
    md += sigma_section(runs, missing, base_half) + point_spill_section(runs, base_half)
    md += dibl_section(runs, base_half) + vdd_section(runs, missing, base_half, out) + l1d_section(runs, missing)
    md += l1lat_section(runs, missing) + stop_list(missing)
    return save_page(out, "grguard", md)
