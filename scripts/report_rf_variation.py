"""docs/results/rf_variation.md: the PV-tolerant register file (Tan et al., TPDS 2016) from the
campaigns regress/rf_variation.json and its specs listed in scripts/report_specs.py, with the clock
side from the RF delay model's calibration (docs/results/rf_delay_calibration.md) and the NBTI aging of `relgpu rf-age`
(STORE_aging.json beside the store, made from it: docs/results/stores/rf_variation_aging.json)."""
import json
import math
import os
import re
import statistics

from report_lib import ROOT, bars, campaign_time, cfg, mean, pct, run_checks, save_page, table

CONFIGS = [("bot", "BOT, no slow sub-bank"), ("vlsb", "VL-SB"), ("vlsb_bro", "VL-SB + RF-BRO"),
           ("pvopt", "+ FWAS (PV-opt)"), ("ren", "+ renaming"), ("vlrf", "70% VL-RF")]


def kind(run):
    return run["_name"].split("/")[0]


def cycles(run):
    return run["gpu_sim_cycle"]


def bot(run, key):
    b = run.get("sm_total", {}).get("bot", {})
    return b.get(key, 0)


def fast_sbs(run):
    """Mean over the SMs of the sub-banks the block's sorter counted fast (None for runs made before the stat)."""
    xs = [sm.get("bot", {}).get("max_fast_sbs") for sm in run.get("sms", [])]
    return mean(xs) if xs and None not in xs else None


def calibration():
    """rf_block rows of rf_delay_calibration.md's full table: ratio -> (f_base, VL-RV gain, VL-SB gain, f_vlrf)."""
    path = os.path.join(ROOT, "docs", "results", "rf_delay_calibration.md")
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path):
        m = re.match(r"\| rf_block \| (\d:\d) \| ([0-9.]+) \[.*?\] \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+) \| "
                     r"[0-9.]+ \(([-+0-9.]+) %\) \| [0-9.]+ \(([-+0-9.]+) %\)", line)
        if m:  # baseline f, VL-RV gain, VL-SB gain, VL-RF f (means over the chips)
            rows[m.group(1)] = (float(m.group(2)), float(m.group(4)) / 100, float(m.group(5)) / 100,
                                float(m.group(3)))
    return rows


ORGS = [("baseline", "baseline (no BOT)"), ("pv_opt", "PV-opt"), ("nbti_opt", "PV-opt + NBTI-opt"),
        ("nbti_opt_reorg_only", "NBTI-opt, re-organisation only"),
        ("nbti_opt_hot_first", "NBTI-opt, hottest vbs to the fastest")]


# Ablations of the NBTI model's two readings of the paper (same command at 1:1 with one flag).
AGING_ABLATIONS = [("--recovery literal", "_aging_literal.json",
                    "Eq. (2)'s recovery on all of dVth, the PV offset included"),
                   ("--stress always", "_aging_always.json",
                    "every sub-bank always under stress (no access profile)")]
STORE = [None]  # the store the page is made from; its aging JSONs sit beside it


def aging(suffix="_aging.json"):
    """relgpu rf-age's JSON for this store (STORE without .db + suffix), or None."""
    if not STORE[0]:
        return None
    path = os.path.splitext(STORE[0])[0] + suffix
    return json.load(open(path)) if os.path.exists(path) else None


def aged(ag, ratio, org, key="f"):
    """Mean over workloads of the 100-chip means."""
    per = ag["ratios"].get(ratio, {})
    vals = [o[org][key] for o in per.values() if org in o]
    return mean(vals) if vals else None


def rand_slow_banks(banks=16, slow=10):
    """Expected share of banks with a slow half when `slow` of the 2 x banks halves are slow at random."""
    return 1 - math.comb(2 * banks - 2, slow) / math.comb(2 * banks, slow)


def rand_distinct(banks=16, slow=10):
    """Chance that `slow` random slow halves fall in `slow` different banks."""
    return math.comb(banks, slow) * 2 ** slow / math.comb(2 * banks, slow)


def aging_section(ag, ipc):
    md = [f"## NBTI aging over {ag['years']:g} years, {ag['chips']} chips per sigma ratio", "",
          "`relgpu rf-age` (`reliability/rf_aging.h`): Eq. (1)-(2) with n = 1/6, eta = 0.35, each sub-bank "
          "stressed in the cycles it is accessed (a slow access 2 cycles), from each workload's per-SM, per-vb "
          "access counts in this page's timing runs (baseline: `base`, PV-opt: `pvopt`, PV-opt + NBTI-opt: `ren`), "
          f"chips `pv.chip_seed` {ag['first_seed']}-{ag['first_seed'] + ag['chips'] - 1}. NBTI-opt re-organises "
          f"the BOT from the sub-bank delays {ag['epochs']} times over the life and once at the end. Clock = mean "
          "over the 15 SMs, no PV = 1; each cell is the mean over chips and workloads. Guardband = aged clock "
          "period / the period at time 0 - 1. Kv = "
          f"{ag['kv']:.4g} V^3/s^0.5" + (f", fitted so the baseline's aged clock at 1:1 is {ag['fit_target']}"
                                        if "fit_target" in ag else "") + ". "
          + (f"It took {ag['wall_s'] / 60:.1f} min with {ag['threads']} threads; " if "wall_s" in ag else "")
          + "rerun: `relgpu rf-age --store docs/results/stores/rf_variation.db --fit-kv 0.45 --out "
          "docs/results/stores/rf_variation_aging.json`.", ""]
    rows = []
    for ratio in ag["ratios"]:
        b = aged(ag, ratio, "baseline")
        for org, title in ORGS:
            f0, f7, g = aged(ag, ratio, org, "f0"), aged(ag, ratio, org), aged(ag, ratio, org, "guardband")
            if f7 is None:
                continue
            ipcx = {"baseline": 1, "pv_opt": ipc.get("pvopt"), "nbti_opt": ipc.get("ren")}.get(org)
            rows.append([ratio, title, f"{f0:.3f}", f"{f7:.3f}", pct(g), pct(f7 / b - 1, 1, True),
                         pct(ipcx * f7 / b - 1, 1, True) if ipcx else "-"])
    md += [table(["sigma", "organisation", "clock, time 0", "clock, aged", "guardband", "clock vs baseline",
                  "IPC x f vs baseline"], rows), ""]
    rows = []
    for flag, suffix, what in [("(none)", None, "the model above")] + AGING_ABLATIONS:
        a = ag if suffix is None else aging(suffix)
        if not a or "1:1" not in a["ratios"]:
            continue
        b, p, n, h = (aged(a, "1:1", o) for o in ("baseline", "pv_opt", "nbti_opt", "nbti_opt_hot_first"))
        gb, gp = aged(a, "1:1", "baseline", "guardband"), aged(a, "1:1", "pv_opt", "guardband")
        rows.append([f"`{flag}`", what, f"{a['kv']:.3g}", f"{b:.3f}", pct(gp / gb - 1, 1, True),
                     pct(n / p - 1, 1, True), pct(h / p - 1, 1, True)])
    if len(rows) > 1:
        md += ["Ablations of the aging model (sigma 1:1, Kv refitted to the same 0.45 each time; "
               "`relgpu rf-age --store docs/results/stores/rf_variation.db --fit-kv 0.45 --ratios 1:1 FLAG --out "
               "docs/results/stores/rf_variation_aging_{literal,always}.json`):", "",
               table(["flag", "what changes", "Kv", "baseline aged clock", "guardband, PV-opt vs baseline",
                      "NBTI-opt clock vs PV-opt", "hot-first clock vs PV-opt"], rows), ""]
    sb = ag.get("slow_banks", {})
    if sb:
        rows = [[r, x["sms"], pct(x["vl_sb"]), f"{pct(x['vl_sb_min'])} - {pct(x['vl_sb_max'])}",
                 pct(x["vl_sb_all_distinct"]), pct(x["rf_bro"], 2)] for r, x in sb.items()]
        md += ["Banks with a slow sub-bank (the paper's Fig. 4 measure) over the same chips' SMs: each SM's slowest 10 "
               "of 32 sub-banks; under VL-SB's identity pairing a bank is slow if either half is, RF-BRO pairs the "
               "slow halves into ceil(10 / 2) = 5 of 16 vbs. The paper's 62.5% is the case where the 10 fall in 10 "
               f"different banks. Were the 10 slow halves placed at random, {pct(rand_slow_banks())} of the banks "
               f"would have one and the 10 would fall in 10 banks on {pct(rand_distinct())} of the SMs.", "",
               table(["sigma", "SMs", "VL-SB (mean)", "lowest - highest SM", "SMs with the 10 in 10 banks",
                      "RF-BRO"], rows), ""]
    per = ag["ratios"].get("1:1", {})
    if per:
        rows = [[w] + [pct(per[w][o]["guardband"]) if o in per[w] else "-" for o, _ in ORGS] for w in sorted(per)]
        md += ["Guardband per workload (sigma 1:1):", "", table(["workload"] + [t for _, t in ORGS], rows), ""]
    return md


def sched_rows(by, wls, pre, sched):
    """Per-workload IPC of VL-SB + RF-BRO under round robin, a scheduler alone and the two together, against
    the same campaign's no-BOT round-robin runs (`{pre}_base`, `{pre}_bro`, `{sched}_nobot`, `{sched}`)."""
    names = (pre + "_bro", sched + "_nobot", sched)
    sets = {g: {k[0]: r for k, r in by.get(g, {}).items()} for g in (pre + "_base",) + names}
    b = sets[pre + "_base"]
    keys = [w for w in wls if w in b and all(w in sets[g] for g in names)]
    if not keys:
        return []
    ipc = lambda g, w: b[w]["gpu_sim_cycle"] / cycles(sets[g][w])
    rows = [[w] + [pct(ipc(g, w) - 1, 1, True) for g in names]
            + [pct(ipc(sched, w) / ipc(names[1], w) - 1, 1, True)] for w in keys]
    rows.append(["mean"] + [pct(mean([ipc(g, w) for w in keys]) - 1, 1, True) for g in names]
                + [pct(mean([ipc(sched, w) / ipc(names[1], w) for w in keys]) - 1, 1, True)])
    return rows


# Schemes run over many chips: (title, spec, base group, run groups, the BOT counter of 2-cycle accesses, intro).
CHIP_SWEEPS = {
    "vlrf": ("70% VL-RF", "rf_variation_vlrf_chips", "vlrf_base", ("vlrf_chips", "vlrf_ratios"), "vl_rf_slow_accesses",
             "Which 30% of the registers are slow follows each chip's process variation, so VL-RF's IPC could depend "
             "on the chip (the paper's -23% is a mean over 100 chips)."),
    "vlsb": ("Plain VL-SB", "rf_variation_chips", "vlsb_base", ("vlsb_chips", "vlsb_ratio"), "slow_accesses",
             "RF-BRO's IPC does not depend on the chip (its 10 slow sub-banks always pair into vbs 11-15); plain "
             "VL-SB's does, through which banks get a slow half."),
}


def bro_chips_section(by, wls, base):
    """regress/rf_variation_bro_chips.json: VL-SB + RF-BRO and PV-opt on other chips and ratios, each run's cycles
    against chip 1 at 1:1 (regress/rf_variation.json's runs of the same configuration)."""
    rows = []
    for title, one, groups in (("VL-SB + RF-BRO", "vlsb_bro", ("bro_chips", "bro_ratio")),
                               ("PV-opt (+ FWAS)", "pvopt", ("pvopt_chips", "pvopt_ratio"))):
        ref = {k[0]: r for k, r in by.get(one, {}).items() if k[1:] == (1, "1:1")}
        runs = {k: r for g in groups for k, r in by.get(g, {}).items()}
        for ratio in ("1:4", "1:1", "4:1"):
            chips = sorted({c for (w, c, q) in runs if q == ratio and all((x, c, q) in runs for x in wls)})
            if not chips or not all(w in ref and w in base for w in wls):
                continue
            rs = [(w, runs[(w, c, ratio)]) for c in chips for w in wls]
            same = sum(cycles(r) == cycles(ref[w]) for w, r in rs)
            per_chip = [mean([cycles(base[w]) / cycles(runs[(w, c, ratio)]) for w in wls]) for c in chips]
            rows.append([title, ratio, f"{chips[0]}-{chips[-1]}", f"{same} of {len(rs)}", pct(mean(per_chip) - 1, 2, True),
                         f"{pct(min(per_chip) - 1, 2, True)} / {pct(max(per_chip) - 1, 2, True)}",
                         pct(mean([bot(r, 'slow_accesses') / max(1, bot(r, 'lookups')) for _, r in rs]))])
        if ref and all(w in base for w in wls):
            rows.append([title, "1:1", "1 (`" + one + "`)", "-", pct(mean([cycles(base[w]) / cycles(ref[w]) for w in wls]) - 1, 2, True),
                         "-", pct(mean([bot(ref[w], 'slow_accesses') / max(1, bot(ref[w], 'lookups')) for w in wls]))])
    if not rows:
        return []
    return ["## VL-SB + RF-BRO and PV-opt across chips (`regress/rf_variation_bro_chips.json`)", "",
            "RF-BRO pairs each SM's sub-banks fastest first, so its 10 slow ones always fill vbs 11-15 and the timing "
            "should not depend on the chip. Measured: each run's cycles against the same workload's run on chip 1 at "
            "1:1 (`vlsb_bro`, `pvopt` above); IPC per chip: the mean over every workload against the no-BOT runs.", "",
            table(["scheme", "sigma", "chips", "runs with chip 1's cycles", "IPC, mean over chips", "lowest / highest chip",
                   "slow accesses"], rows), ""]


def chip_means(by, wls, scheme):
    """Per (chip, ratio) of a CHIP_SWEEPS scheme: the mean IPC over the workloads against the same campaign's
    no-BOT runs, the worst workload and the share of 2-cycle accesses. Chips missing a workload are left out."""
    _, _, base_group, groups, slow_key, _ = CHIP_SWEEPS[scheme]
    base = {k[0]: r for k, r in by.get(base_group, {}).items()}
    runs = {k: r for g in groups for k, r in by.get(g, {}).items()}
    out = {}
    for chip, rt in sorted({(k[1], k[2]) for k in runs}):
        rs = [(w, runs[(w, chip, rt)]) for w in wls if (w, chip, rt) in runs and w in base]
        if len(rs) < len(wls):
            continue
        vals = [base[w]["gpu_sim_cycle"] / cycles(r) for w, r in rs]
        look = sum(bot(r, "lookups") for _, r in rs)
        out[(chip, rt)] = (mean(vals), min(vals), sum(bot(r, slow_key) for _, r in rs) / look if look else None)
    return out


def chips_section(by, wls, scheme):
    title, spec, *_, intro = CHIP_SWEEPS[scheme]
    m = chip_means(by, wls, scheme)
    if not m:
        return []
    rows = []
    for rt in ("1:4", "1:1", "4:1"):
        xs = [(c, v) for (c, r), v in m.items() if r == rt]
        if not xs:
            continue
        ipcs = [v[0] for _, v in xs]
        sd = statistics.stdev(ipcs) if len(ipcs) > 1 else None
        rows.append([rt, f"{min(c for c, _ in xs)}-{max(c for c, _ in xs)}", len(xs), pct(mean(ipcs) - 1, 1, True),
                     pct(sd, 2) if sd is not None else "-",
                     f"{pct(min(ipcs) - 1, 1, True)} / {pct(max(ipcs) - 1, 1, True)}",
                     pct(min(v[1] for _, v in xs) - 1, 1, True), pct(mean([v[2] for _, v in xs if v[2] is not None]))])
    return [f"## {title} across chips and sigma ratios (`regress/{spec}.json`)", "",
            intro + " Each chip's IPC is its mean over every workload against the same campaign's no-BOT runs; "
            "chips are consecutive `pv.chip_seed` values, none left out.", "",
            table(["sigma", "chips", "n", "mean IPC", "sd over chips", "lowest / highest chip", "worst workload on any chip",
                   "2-cycle accesses"], rows), ""]


def twolevel_section(by, wls):
    """regress/rf_variation_fetchgroup.json and _twolevel.json: two-level scheduling with VL-SB + RF-BRO (the
    paper's -5%) under fetch groups (the paper's scheduler) and under GPGPU-Sim's active pools."""
    head = ["workload", "VL-SB + RF-BRO (round robin)", "{} alone (no BOT)", "VL-SB + RF-BRO, {}",
            "slow sub-banks under {}"]
    md = []
    paper = ["paper", "-9%", "(not stated)", "-5%", ""]
    fg = sched_rows(by, wls, "fg", "fg")
    if fg:
        fg.append(paper)
        md += ["## Two-level scheduling with VL-SB + RF-BRO (`regress/rf_variation_fetchgroup.json`, chip 1, 1:1)", "",
               "The paper's Fig. 11 runs VL-SB + RF-BRO under two-level scheduling (Narasiman et al., MICRO 2011: "
               "fetch groups of 8 warps) as a point of comparison for FWAS. `sm.scheduler=fetch_group` is that "
               "scheduler: warp slots 0-7, 8-15, ... form the groups; the group with priority issues in round robin "
               "and a lower group issues only in a cycle where it cannot; priority passes to the next group once "
               "each warp of the group waits on memory or a barrier or has exited. IPC against the same campaign's "
               "no-BOT runs under round robin; the last column is what the slow sub-banks cost under fetch groups, "
               "against fetch groups alone.", "",
               table([h.format("fetch groups of 8") for h in head], fg), ""]
        rows = []
        for n in (4, 8, 16):
            r = sched_rows(by, wls, "fg", "fg" if n == 8 else f"fg{n}")
            if r:
                rows.append([str(n)] + r[-1][1:])
        oc = sched_rows(by, wls, "fg_oc_min", "fg_oc_min")
        if oc:
            rows.append(["8, one operand collector of each kind"] + oc[-1][1:])
        if len(rows) > 1:
            md += ["Group size (the paper's is 8) and latency exposure (`fg_oc_min*`: one SP, one SFU and one LD/ST "
                   "operand collector, as `oc_min` in the latency table, each against the no-BOT round-robin run with "
                   "the same collectors); means over the same workloads:", "",
                   table(["warps per group", "VL-SB + RF-BRO (round robin)", "fetch groups alone",
                          "VL-SB + RF-BRO, fetch groups", "slow sub-banks under fetch groups"], rows), ""]
    tl = sched_rows(by, wls, "tl", "tl")
    if tl:
        tl.append(paper)
        md += ["## Two-level scheduling as an active pool (`regress/rf_variation_twolevel.json`, chip 1, 1:1)", "",
               "The other two-level scheduler, not the paper's for this figure: relgpu's `two_level` is "
               "GPGPU-Sim's active-pool scheduler (Gebhart et al., the one the GR-Guard and LoSCache chapters "
               "use; a pool per scheduler, demoted on a long-latency wait; only pool warps may issue); 4 warps per "
               "pool and 2 schedulers make 8 warps per SM.", "",
               table([h.format("two-level") for h in head], tl), ""]
    return md


def write(runs, out, missing=(), store=None):
    STORE[0] = store
    by = {}
    for r in runs:
        by.setdefault(kind(r), {})[(r["workload"], cfg(r, "pv.chip_seed"), cfg(r, "pv.sigma_ratio"))] = r
    base = {k[0]: r for k, r in by.get("base", {}).items()}
    wls = sorted(base)

    def rel(name, w):  # IPC relative to the no-BOT baseline (same instructions: cycle ratio)
        r = by.get(name, {}).get((w, 1, "1:1"))
        return base[w]["gpu_sim_cycle"] / cycles(r) if r and w in base else None

    def share(name):  # slow accesses / lookups over every workload
        rs = [r for r in by.get(name, {}).values() if cfg(r, "pv.chip_seed") == 1 and cfg(r, "pv.sigma_ratio") == "1:1"]
        look = sum(bot(r, "lookups") for r in rs)
        return sum(bot(r, "slow_accesses") for r in rs) / look if look else None

    ipc = {n: mean([rel(n, w) for w in wls]) for n, _ in CONFIGS}
    cal = calibration()
    f = cal.get("1:1")
    md = ["# PV-tolerant register file: VL-SB, RF-BRO, FWAS and the BOT in the loop (Tan et al., TPDS 2016)", "",
          "Generated by `scripts/report rf_variation` from a campaign store; the paper's numbers beside ours. "
          "Timing runs: `configs/fermi_16bank.json` (the paper's RF: 15 SMs, 16 banks x 64 entries x 1,024 "
          "bits, 2 sub-banks per bank, LRR, 8 CTAs per SM), every workload at its default size, chip "
          "`pv.chip_seed=1` at sigma 1:1 unless a table says otherwise. Each SM's slow sub-banks are its slowest "
          "10 of 32 under the chip's process variation (`bot.slow_sbs=pv`, `reliability/rf_delay.h`). "
          "IPC is relative to the no-BOT run of the same workload (same instructions, so the cycle ratio). "
          "Clock figures come from the RF delay model's 100-chip calibration "
          "(`docs/results/rf_delay_calibration.md`, rf_block floorplan).", ""]
    md += campaign_time(runs, "rf_variation") + [""]
    md += [f"Runs read: {len(runs)}. Runs with no stats (failed or not run yet): {len(missing)}.", ""]
    md += run_checks(runs, missing)

    # ---- summary ----
    rows = []
    sb = (aging() or {}).get("slow_banks", {}).get("1:1")
    if sb:
        rows.append(["banks with a slow sub-bank, VL-SB -> + RF-BRO (Fig. 4)", "62.5% -> 31.25%",
                     f"{pct(sb['vl_sb'])} -> {pct(sb['rf_bro'], 2)}",
                     f"mean over the SMs of {sb['sms'] // 15} chips at 1:1 (SMs {pct(sb['vl_sb_min'])} to "
                     f"{pct(sb['vl_sb_max'])}; {pct(rand_slow_banks())} if placed at random); the paper's case, 10 "
                     f"slow sub-banks in 10 banks, on {pct(sb['vl_sb_all_distinct'])} of the SMs"])
    rows.append(["slow accesses, VL-SB -> + RF-BRO", "(not stated)" if sb else "62.5% -> 31.25% (slow banks, Fig. 4)",
                 f"{pct(share('vlsb'))} -> {pct(share('vlsb_bro'))}",
                 "share of RF accesses" + ("; the paper counts banks (row above)" if sb else "")])
    few = lat_ipc(by, wls, "vlsb_bro", "oc_min")
    rows.append(["IPC, VL-SB + RF-BRO", "-9%", pct(ipc["vlsb_bro"] - 1 if ipc["vlsb_bro"] else None, 1, True),
                 f"{pct(few - 1, 1, True)} with one operand collector of each kind (latency table)" if few else ""])
    few_pv = lat_ipc(by, wls, "pvopt", "oc_min")
    rows.append(["IPC, PV-opt (+ FWAS)", "+1%", pct(ipc["pvopt"] - 1 if ipc["pvopt"] else None, 1, True),
                 "paper: FWAS alone -1%" + (f"; {pct(few_pv - 1, 1, True)} with one operand collector of each kind"
                                            if few_pv else "")])
    rows.append(["IPC, the BOT with no slow sub-bank", "(not stated; +0.00019 ns)",
                 pct(ipc["bot"] - 1 if ipc["bot"] else None, 1, True), "8 translation ports"])
    vlrf = {k[0]: r for k, r in by.get("vlrf", {}).items()}
    vlrf_ipc = mean([base[w]["gpu_sim_cycle"] / cycles(vlrf[w]) for w in wls if w in vlrf]) if vlrf else None
    few_vl = lat_ipc(by, wls, "vlrf", "oc_min")
    vcm = {c: v[0] for (c, rt), v in chip_means(by, wls, "vlrf").items() if rt == "1:1"}
    vc = list(vcm.values())
    if vc:
        rows.append(["IPC, 70% VL-RF", "-23%", pct(mean(vc) - 1, 1, True),
                     f"mean over {len(vc)} chips ({min(vcm)}-{max(vcm)}) at 1:1 (chips {pct(min(vc) - 1, 1, True)} to "
                     f"{pct(max(vc) - 1, 1, True)}); 14 workloads" + (f"; {pct(few_vl - 1, 1, True)} with one operand "
                                                                      "collector of each kind on chip 1" if few_vl else "")])
    else:
        rows.append(["IPC, 70% VL-RF", "-23%", pct(vlrf_ipc - 1 if vlrf_ipc else None, 1, True),
                     f"chip 1; {len(vlrf)} workloads" + (f"; {pct(few_vl - 1, 1, True)} with one operand collector of "
                                                         "each kind" if few_vl else "")])
    nobot = {k[0]: r for k, r in by.get("fba_base", {}).items()}

    def rel_to(name):  # IPC against the FBA-RM campaign's own no-BOT runs (one revision)
        xs = [nobot[k[0]]["gpu_sim_cycle"] / cycles(r) for k, r in by.get(name, {}).items() if k[0] in nobot]
        return (mean(xs), len(xs)) if xs else (None, 0)
    fba_ipc, n_fba = rel_to("fba")
    fbro_ipc, _ = rel_to("fba_bro")
    # Hybrid banks with lane compaction (rf_variation_compaction.json) when stored, else without.
    pre = "cmp_" if by.get("cmp_hyb") else "hyb_"
    hb = {k[0]: r for k, r in by.get(pre + "base", {}).items()}
    hy = [hb[k[0]]["gpu_sim_cycle"] / cycles(r) for k, r in by.get("cmp_hyb" if pre == "cmp_" else "hyb", {}).items()
          if k[0] in hb]
    hp = [hb[k[0]]["gpu_sim_cycle"] / cycles(r) for k, r in by.get(pre + "pvopt", {}).items() if k[0] in hb]
    if hy:
        rows.append(["IPC, PV-opt with hybrid banks", "+1%", pct(mean(hy) - 1, 1, True),
                     f"{len(hy)} workloads; {'with' if pre == 'cmp_' else 'without'} lane compaction; in the same "
                     f"campaign PV-opt without hybrid banks {pct(mean(hp) - 1, 1, True) if hp else 'n/a'}"])
    for pre, what in (("fg", "fetch groups of 8 warps (the paper's scheduler)"),
                      ("tl", "active pools of 4 warps per scheduler (8 per SM)")):
        sr = sched_rows(by, wls, pre, pre)
        if sr:  # its mean row: round robin, the scheduler alone, the two together
            rows.append([f"IPC, two-level scheduling with VL-SB + RF-BRO: {what}", "-5%", sr[-1][3],
                         f"{len(sr) - 1} workloads; in the same campaign VL-SB + RF-BRO under round robin {sr[-1][1]}"])
    rows.append(["IPC, FBA-RM", "-7%", pct(fba_ipc - 1, 1, True) if fba_ipc else "not run",
                 f"{n_fba} workloads; slow accesses {pct(share('fba'))}; in the same campaign VL-SB + RF-BRO "
                 f"{pct(fbro_ipc - 1, 1, True) if fbro_ipc else 'n/a'}" if fba_ipc else ""])
    if f:
        fb, grv, gsb, _ = f
        rows.append(["baseline frequency (of no PV)", "0.60", f"{fb:.3f}", "the model's one fitted constant"])
        rows.append(["VL-SB frequency over baseline", "+15%", pct(gsb, 1, True), "mean over 100 chips"])
        rows.append(["VL-RV frequency over baseline", "+10%", pct(grv, 1, True), "mean over 100 chips"])
        if ipc["pvopt"]:
            rows.append(["IPC x f, PV-opt over baseline", "+15%", pct(ipc["pvopt"] * (1 + gsb) - 1, 1, True),
                         "IPC above x the VL-SB clock gain"])
    ag = aging()
    if ag:
        b7, p7, n7 = (aged(ag, "1:1", o) for o in ("baseline", "pv_opt", "nbti_opt"))
        gb, gp, gn = (aged(ag, "1:1", o, "guardband") for o in ("baseline", "pv_opt", "nbti_opt"))
        yrs = f"{ag['years']:g} years"
        rows.append([f"baseline clock, PV + NBTI after {yrs} (of ideal)", "0.45", f"{b7:.3f}",
                     f"the fitted NBTI constant Kv = {ag['kv']:.3g}"])
        # What the paper's own Fig. 13 implies (notes): PV-opt's aged clock 1.15 x 0.45 / 1.01 against
        # 0.60 x 1.15 at time 0, the baseline's 0.45 against 0.60; NBTI-opt +7% of clock over PV-opt.
        g13b, g13p = 0.60 / 0.45 - 1, 0.69 / (1.15 * 0.45 / 1.01) - 1
        g13n = 0.69 / (1.07 * 1.15 * 0.45 / 1.01) - 1
        rows.append(["guardband, PV-opt vs baseline", f"-27% (Fig. 13 implies {pct(g13p / g13b - 1, 1, True)})",
                     pct(gp / gb - 1, 1, True), f"period growth: baseline {pct(gb)}, PV-opt {pct(gp)}"])
        rows.append(["guardband, PV-opt + NBTI-opt vs baseline",
                     f"to 56% (or -56%; Fig. 13 implies to {pct(g13n / g13b, 0)})", f"to {pct(gn / gb)}",
                     f"NBTI-opt period growth {pct(gn)}"])
        rows.append(["frequency after aging, NBTI-opt over PV-opt", "+7%", pct(n7 / p7 - 1, 1, True), ""])
        if ipc["pvopt"]:
            rows.append([f"IPC x f after {yrs}, PV-opt over baseline", "+15%",
                         pct(ipc["pvopt"] * p7 / b7 - 1, 1, True), "aged clocks x IPC above"])
        if ipc["ren"]:
            rows.append([f"IPC x f after {yrs}, PV-opt + NBTI-opt over baseline", "+22%",
                         pct(ipc["ren"] * n7 / b7 - 1, 1, True), "IPC with renaming"])
        if "1:4" in ag["ratios"]:
            rows.append(["sigma 1:4, PV-opt + NBTI-opt clock loss vs ideal (Fig. 14)", "16%",
                         f"{pct(1 - aged(ag, '1:4', 'nbti_opt', 'f0'))} at time 0, "
                         f"{pct(1 - aged(ag, '1:4', 'nbti_opt'))} aged", "the paper does not say which"])
        if "4:1" in ag["ratios"] and ipc["ren"]:
            rows.append(["sigma 4:1, IPC x f of PV-opt + NBTI-opt over baseline (Fig. 14)", "+13%",
                         pct(ipc["ren"] * aged(ag, "4:1", "nbti_opt") / aged(ag, "4:1", "baseline") - 1, 1, True),
                         "aged; IPC of chip 1 at 1:1"])
    vl = mean(vc) if vc else vlrf_ipc  # over the chips where they ran
    if f and vl and ipc["pvopt"]:
        rows.append(["IPC x f, PV-opt over 70% VL-RF (no aging)", "+12%",
                     pct(ipc["pvopt"] * f[0] * (1 + f[2]) / (vl * f[3]) - 1, 1, True),
                     f"VL-RF clock {f[3]:.3f}, VL-SB {f[0] * (1 + f[2]):.3f}; VL-RF IPC "
                     + (f"over {len(vc)} chips" if vc else "of chip 1")])
    md += ["## Summary", "", table(["quantity", "paper", "ours", "note"], rows), ""]
    if ag:
        md += aging_section(ag, ipc)

    # ---- per workload ----
    rows = []
    for w in wls:
        rows.append([w, f"{base[w]['gpu_sim_cycle']:,}"] + [f"{rel(n, w):.3f}" if rel(n, w) else "-" for n, _ in CONFIGS])
    rows.append(["mean", ""] + [f"{ipc[n]:.3f}" if ipc[n] else "-" for n, _ in CONFIGS])
    md += ["## IPC per workload, relative to no BOT (chip 1, 1:1)", "",
           table(["workload", "cycles, no BOT"] + [t for _, t in CONFIGS], rows), ""]
    if wls:
        png = bars(os.path.join(out, "rf_variation_ipc.png"), "IPC relative to no BOT (chip 1, sigma 1:1)", wls,
                   {t: [rel(n, w) for w in wls] for n, t in CONFIGS if n != "bot"}, "IPC / IPC without BOT",
                   ref=0.91, ref_label="paper VL-SB + RF-BRO: 0.91")
        md += [f"![IPC]({png})", ""]

    md += chips_section(by, wls, "vlsb") + chips_section(by, wls, "vlrf") + bro_chips_section(by, wls, base)

    # ---- FBA-RM (its own campaign) ----
    fba = {k[0]: r for k, r in by.get("fba", {}).items()}
    fbro = {k[0]: r for k, r in by.get("fba_bro", {}).items()}
    keys = [w for w in wls if w in fba and w in fbro and w in nobot]
    if keys:
        def conflicts(r):  # RF bank conflicts per RF read
            rf = r["sm_total"]["rf"]
            return sum(rf["bank_conflicts"]) / max(1, sum(rf["reads"]))
        rows = [[w, pct(conflicts(nobot[w])), pct(conflicts(fbro[w])), pct(conflicts(fba[w])),
                 pct(bot(fbro[w], "slow_accesses") / bot(fbro[w], "lookups")),
                 pct(bot(fba[w], "slow_accesses") / bot(fba[w], "lookups")),
                 pct(nobot[w]["gpu_sim_cycle"] / cycles(fbro[w]) - 1, 1, True),
                 pct(nobot[w]["gpu_sim_cycle"] / cycles(fba[w]) - 1, 1, True)] for w in keys]
        rows.append(["mean"] + [pct(mean([conflicts(x[w]) for w in keys])) for x in (nobot, fbro, fba)]
                    + [pct(mean([bot(x[w], "slow_accesses") / bot(x[w], "lookups") for w in keys])) for x in (fbro, fba)]
                    + [pct(mean([nobot[w]["gpu_sim_cycle"] / cycles(x[w]) for w in keys]) - 1, 1, True) for x in (fbro, fba)])
        md += ["## FBA-RM against VL-SB + RF-BRO (`regress/rf_variation_fba.json`, chip 1, 1:1)", "",
               "`bot.fba_rm=11`: each warp's registers on RF-BRO's 11 fast vbs while its rows there hold them, "
               "the large ids on the 5 slow ones (the paper's mapping; its split point is unspecified: here the "
               "rows the warp already owns). Bank conflicts: RF read requests that lost their bank to another, "
               "per RF read. IPC against the same campaign's no-BOT runs.", "",
               table(["workload", "conflicts, no BOT", "conflicts, VL-SB + RF-BRO", "conflicts, FBA-RM",
                      "slow accesses, VL-SB + RF-BRO", "slow accesses, FBA-RM", "IPC, VL-SB + RF-BRO",
                      "IPC, FBA-RM"], rows), ""]

    md += twolevel_section(by, wls)
    md += hybrid_section(by, wls)
    md += compaction_section(by, wls)

    # ---- ablations ----
    alls = {k[0]: r for k, r in by.get("all_slow", {}).items()}
    if alls:
        rows = [[w, f"{base[w]['gpu_sim_cycle'] / cycles(alls[w]):.3f}", f"{rel('vlsb_bro', w):.3f}"]
                for w in wls if w in alls and rel("vlsb_bro", w)]
        vals = [base[w]["gpu_sim_cycle"] / cycles(alls[w]) for w in wls if w in alls]
        rows.append(["mean", f"{mean(vals):.3f}", f"{ipc['vlsb_bro']:.3f}"])
        md += ["## Ablation: every sub-bank slow (how much a 2-cycle RF can cost here)", "",
               table(["workload", "IPC, all 32 sub-banks slow", "IPC, VL-SB + RF-BRO"], rows), ""]
    md += latency_section(by, wls)
    p4 = {k[0]: r for k, r in by.get("ports4", {}).items()}
    keys = [w for w in wls if w in p4 and rel("bot", w)]
    if keys:
        eight = {k[0]: r for k, r in by.get("bot", {}).items()}
        rows = [[w, f"{rel('bot', w):.3f}", f"{base[w]['gpu_sim_cycle'] / cycles(p4[w]):.3f}",
                 pct(bot(eight[w], "port_waits") / bot(eight[w], "lookups")),
                 pct(bot(p4[w], "port_waits") / bot(p4[w], "lookups"))] for w in keys]
        md += ["## Ablation: translation ports of the BOT (no slow sub-bank)", "",
               "Each granted RF access spends one lookup port of the block; accesses beyond the ports wait a cycle.", "",
               table(["workload", "IPC, 8 ports (default)", "IPC, 4 ports", "waits per access, 8", "waits per access, 4"],
                     rows), ""]
    cb = {k[0]: r for k, r in by.get("clk_base", {}).items()}
    cp = {k[0]: r for k, r in by.get("clk_pvopt", {}).items()}
    keys = [w for w in wls if w in cb and w in cp]
    if keys:
        rows = [[w, f"{cb[w]['sim_time_ps'] / 1e6:,.1f}", f"{cp[w]['sim_time_ps'] / 1e6:,.1f}",
                 f"{cb[w]['sim_time_ps'] / cp[w]['sim_time_ps']:.3f}"] for w in keys]
        sp = mean([cb[w]["sim_time_ps"] / cp[w]["sim_time_ps"] for w in keys])
        rows.append(["mean", "", "", f"{sp:.3f}"])
        md += ["## Ablation: per-SM clocks in the simulation instead of IPC x f", "",
               "Each SM at its own PV-limited clock (`pv.sm_clock`): the baseline (no BOT) at its slowest cell, "
               "PV-opt at its VL-SB clock; the memory side keeps its own clock. Speed-up = baseline time / PV-opt "
               "time (chip 1).", "",
               table(["workload", "baseline time, us", "PV-opt time, us", "speed-up"], rows), ""]
    return save_page(out, "rf_variation", md)


# regress/rf_variation_latency.json: the SM choice switched, and its label.
LATENCY = [("ctl", "as built: 6 SP, 8 SFU, 2 LD/ST collectors, 8 CTAs"), ("oc_half", "collectors halved: 3 / 4 / 1"),
           ("oc_min", "one collector of each kind"), ("cta2", "2 CTAs per SM"),
           ("shared", "one port per bank, writes first (GPGPU-Sim's arbitration, `rf.shared_port`; `regress/rf_variation_port.json`)"),
           ("gsissue", "GPGPU-Sim's ALU issue timing: its per-opcode latencies, latency + 6 to writeback "
                       "(`sm.op_latency=gpgpusim`, `sm.result_delay=4`; `regress/rf_variation_issue.json`)"),
           ("gsissue3", "the same with GPGPU-Sim 3.x's table, the seeds' simulator: integer mul and mad on the SFU "
                        "(`sm.op_latency=gpgpusim3`, `sm.result_delay=4`)")]


def latency_section(by, wls):
    """What a slow sub-bank costs as the SM's latency hiding shrinks; each IPC against the
    no-BOT run with the same choice, all at one revision."""
    ctl = {k[0]: r for k, r in by.get("base_ctl", {}).items()}
    if not ctl:
        return []

    def cell(name, v):
        m = lat_ipc(by, wls, name, v)
        return pct(m - 1, 1, True) if m else "-"
    rows = []
    for v, label in LATENCY:
        b = {k[0]: r for k, r in by.get("base_" + v, {}).items()}
        keys = [w for w in wls if w in b and w in ctl]
        slow = mean([ctl[w]["gpu_sim_cycle"] / b[w]["gpu_sim_cycle"] for w in keys]) if keys else None
        rows.append([label, len(keys), pct(slow - 1, 1, True) if slow else "-"] +
                    [cell(n, v) for n in ("vlsb_bro", "pvopt", "vlrf", "all_slow")])
    rows.append(["paper (GPGPU-Sim 3.1; collectors not stated)", "", "", "-9%", "+1%", "-23%", ""])
    md = ["## What the IPC loss depends on: the SM's latency hiding (`regress/rf_variation_latency.json`)", "",
          "The no-BOT baseline and VL-SB + RF-BRO with one choice of the SM switched (chip 1, 1:1, one revision; "
          "PV-opt, 70% VL-RF and every sub-bank slow with one collector of each kind). Each IPC is against the "
          "no-BOT run with the same choice; the baseline column is that run's IPC against the as-built baseline.",
          "", table(["SM", "workloads", "baseline IPC vs as built", "IPC, VL-SB + RF-BRO", "IPC, PV-opt (+ FWAS)",
                     "IPC, 70% VL-RF", "IPC, every sub-bank slow"], rows), ""]
    b = {k[0]: r for k, r in by.get("base_oc_min", {}).items()}
    as_built, few = lat_rel(by, "vlsb_bro", "ctl"), lat_rel(by, "vlsb_bro", "oc_min")
    keys = [w for w in wls if w in few and w in as_built and w in ctl]
    if keys:
        rows = [[w, f"{as_built[w]:.3f}", f"{few[w]:.3f}", f"{ctl[w]['gpu_sim_cycle'] / b[w]['gpu_sim_cycle']:.3f}"]
                for w in keys]
        md += ["Per workload, VL-SB + RF-BRO as built and with one collector of each kind:", "",
               table(["workload", "IPC, as built", "IPC, one collector each", "baseline IPC, one collector vs as built"],
                     rows), ""]
    return md


def lat_rel(by, name, v):
    """Per workload, the IPC of run name_v against base_v in the latency campaign."""
    b = {k[0]: r for k, r in by.get("base_" + v, {}).items()}
    return {k[0]: b[k[0]]["gpu_sim_cycle"] / cycles(r) for k, r in by.get(f"{name}_{v}", {}).items() if k[0] in b}


def lat_ipc(by, wls, name, v):
    """Mean over the workloads of lat_rel, or None."""
    r = lat_rel(by, name, v)
    return mean([r[w] for w in wls if w in r]) if any(w in r for w in wls) else None


def share_of(run):
    """Hybrid registers as a share of the registers per thread."""
    h = bot(run, "hybrid")
    return h["regs"] / max(1, h["of_regs"])


def compaction_section(by, wls):
    """Hybrid banks with and without lane compaction, from regress/rf_variation_compaction.json."""
    names = ("cmp_base", "cmp_pvopt", "cmp_hyb_keep", "cmp_hyb")
    sets = {n: {k[0]: r for k, r in by.get(n, {}).items()} for n in names}
    keys = [w for w in wls if all(w in sets[n] for n in names)]
    if not keys:
        return []
    base = sets["cmp_base"]

    def ipc(n, w):
        return cycles(base[w]) / cycles(sets[n][w])

    def slow(n, w):
        return bot(sets[n][w], "slow_accesses") / max(1, bot(sets[n][w], "lookups"))

    def left(n, w):
        return bot(sets[n][w], "hybrid").get("slow_compactable", 0) / max(1, bot(sets[n][w], "lookups"))
    sets["cmp_hyb_launch"] = {k[0]: r for k, r in by.get("cmp_hyb_launch", {}).items()}
    launch = all(w in sets["cmp_hyb_launch"] for w in keys)  # the namespace ablation, when stored

    def share(n, w):
        return share_of(sets[n][w])
    rows = []
    for w in keys:
        h = bot(sets["cmp_hyb"][w], "hybrid")
        rows.append([w, int(h.get("max_lane_branches", 0)),
                     f"{h.get('permuted_warps', 0):,} / {h.get('planned_warps', 0):,}",
                     pct(left("cmp_hyb_keep", w), 2), pct(left("cmp_hyb", w), 2),
                     pct(slow("cmp_hyb_keep", w)), pct(slow("cmp_hyb", w)),
                     pct(ipc("cmp_pvopt", w) - 1, 1, True), pct(ipc("cmp_hyb_keep", w) - 1, 1, True),
                     pct(ipc("cmp_hyb", w) - 1, 1, True)]
                    + ([pct(share("cmp_hyb", w)), pct(share("cmp_hyb_launch", w)),
                        pct(ipc("cmp_hyb_launch", w) - 1, 1, True)] if launch else []))
    names = ("cmp_pvopt", "cmp_hyb_keep", "cmp_hyb") + (("cmp_hyb_launch",) if launch else ())
    ipcs = [pct(mean([ipc(n, w) for w in keys]) - 1, 1, True) for n in names]
    rows.append(["mean", "", "", pct(mean([left("cmp_hyb_keep", w) for w in keys]), 2),
                 pct(mean([left("cmp_hyb", w) for w in keys]), 2),
                 pct(mean([slow("cmp_hyb_keep", w) for w in keys])), pct(mean([slow("cmp_hyb", w) for w in keys]))]
                + ipcs[:3] + (["", "", ipcs[3]] if launch else []))
    ablation = (["IPC, hybrid with", "hybrid registers, tainted", "hybrid registers, launch", "IPC, launch namespace"]
                if launch else ["IPC, hybrid with"])
    prog = {k[0]: r for k, r in by.get("cmp_hyb_prog", {}).items()}
    same = [w for w in keys if w in prog and cycles(prog[w]) == cycles(sets["cmp_hyb"][w])
            and share_of(prog[w]) == share_of(sets["cmp_hyb"][w])]
    prog_line = ([f"The paper's reading of the namespace (`cmp_hyb_prog`, `bot.hybrid_regs=programmatic`: branches on "
                  f"the ids by arithmetic alone, loop variables included, no loaded value): {len(same)} of "
                  f"{sum(w in prog for w in keys)} workloads give `cmp_hyb`'s cycles and hybrid registers"
                  + (": the branches on loaded data add no register, since they sit inside bounds checks on the "
                     "ids, whose bodies are hybrid already (`relgpu ptx-info` prints both register counts per kernel)."
                     if len(same) == sum(w in prog for w in keys) else
                     "; the others differ (`relgpu ptx-info` prints both register counts per kernel)."), ""]
                 if any(w in prog for w in keys) else [])
    return ["## Lane compaction (`regress/rf_variation_compaction.json`, chip 1, 1:1)", "",
            "`bot.compaction` (`sm/lane_compaction.h`): at each CTA's launch every warp gets a thread-to-slot "
            "permutation, fixed for its life, that puts the threads of the longest thread-dependent branch path with "
            "at most 16 threads in slots 0-15, the hybrid vbs' fast halves. Only branches a launch can evaluate "
            "qualify (condition from thread and CTA ids, immediates and kernel parameters; `relgpu ptx-info` lists "
            "them). Branches: the most such branches in one kernel of the workload. Warps permuted: warps given a "
            "permutation other than the identity, of all warps launched (a path of threads 0..k-1 is compact "
            "already). Compactable: slow hybrid lookups touching at most 16 slots, per lookup (what a compaction "
            "that followed every branch would make fast), without and with compaction. All four configurations "
            "ran in one campaign at one revision; IPC against its no-BOT runs. The namespace ablation "
            "(`cmp_hyb_launch`, `bot.hybrid_regs=launch`): hybrid registers are only those used under branches a "
            "launch can evaluate, not every register the taint analysis finds (which follows loaded data too); "
            "hybrid registers as a share of the registers per thread.", "",
            table(["workload", "branches", "warps permuted", "compactable, without", "compactable, with",
                   "slow accesses, hybrid without", "slow, hybrid with", "IPC, PV-opt", "IPC, hybrid without"]
                  + ablation, rows), ""] + prog_line + all_together_chips(by, keys, base)


def all_together_chips(by, wls, base):
    """IPC of PV-opt + hybrid banks + lane compaction (the paper's All-Together) over chips and sigma ratios."""
    runs = {}
    for n in ("cmp_hyb", "cmp_hyb_chips", "cmp_hyb_ratio"):
        for (w, chip, ratio), r in by.get(n, {}).items():
            runs[(w, chip, ratio)] = r
    rows = []
    for ratio in ("1:4", "1:1", "4:1"):
        chips = sorted({c for (w, c, q) in runs if q == ratio})
        # A chip counts once every workload ran on it.
        chips = [c for c in chips if all((w, c, ratio) in runs for w in wls)]
        if not chips:
            continue
        per_chip = [mean([cycles(base[w]) / cycles(runs[(w, c, ratio)]) for w in wls]) for c in chips]
        slow = mean([bot(runs[(w, c, ratio)], "slow_accesses") / max(1, bot(runs[(w, c, ratio)], "lookups"))
                     for w in wls for c in chips])
        fs = [fast_sbs(runs[(w, c, ratio)]) for w in wls for c in chips]
        rows.append([ratio, len(chips), pct(mean(per_chip) - 1, 2, True), pct(min(per_chip) - 1, 2, True),
                     pct(max(per_chip) - 1, 2, True), pct(slow), "-" if None in fs else f"{mean(fs):.2f}"])
    if not rows:
        return []
    return ["All-Together (PV-opt + hybrid banks + lane compaction) across chips and sigma ratios "
            "(`cmp_hyb`, `cmp_hyb_chips`, `cmp_hyb_ratio`). IPC per chip: the mean over the workloads against the "
            "no-BOT runs, whose timing no chip changes. Paper: All-Together IPC +1% over the baseline.", "",
            table(["sigma", "chips", "IPC, mean over chips", "lowest chip", "highest chip", "slow accesses",
                   "fast sub-banks per SM"], rows), ""]


def hybrid_section(by, wls):
    """Hybrid banks against PV-opt and the launch-time sorter alone, all from regress/rf_variation_hybrid.json."""
    sets = {n: {k[0]: r for k, r in by.get(n, {}).items()} for n in ("hyb_base", "hyb_pvopt", "hyb_reorg", "hyb")}
    keys = [w for w in wls if all(w in sets[n] for n in sets)]
    if not keys:
        return []
    base = sets["hyb_base"]

    def ipc(r, w):
        return cycles(base[w]) / cycles(r)

    def slow(r):
        return bot(r, "slow_accesses") / max(1, bot(r, "lookups"))
    rows = []
    for w in keys:
        h = sets["hyb"][w]
        hs = bot(h, "hybrid")
        rows.append([w, pct(hs["regs"] / max(1, hs["of_regs"])), hs["max_vbs"],
                     pct(hs["lookups"] / max(1, bot(h, "lookups"))),
                     pct(hs["slow"] / max(1, hs["lookups"])),
                     pct(hs.get("slow_compactable", 0) / max(1, bot(h, "lookups")), 2)]
                    + [pct(slow(sets[n][w])) for n in ("hyb_pvopt", "hyb_reorg", "hyb")]
                    + [pct(ipc(sets[n][w], w) - 1, 1, True) for n in ("hyb_pvopt", "hyb_reorg", "hyb")])
    rows.append(["mean", "", "", "", "", ""] + [pct(mean([slow(sets[n][w]) for w in keys])) for n in ("hyb_pvopt", "hyb_reorg", "hyb")]
                + [pct(mean([ipc(sets[n][w], w) for w in keys]) - 1, 1, True) for n in ("hyb_pvopt", "hyb_reorg", "hyb")])
    return ["## Hybrid banks (`regress/rf_variation_hybrid.json`, chip 1, 1:1)", "",
            "`bot.hybrid`: a physical register is hybrid when it holds a register the PTX taint analysis finds under a "
            "thread-dependent branch; N_hyb = floor(16 x hybrid / all registers per thread) per kernel; the block's "
            "launch-time sorter pairs the sub-banks from their sensor codes and swaps floor(N_hyb / 2) fast and slow "
            "pairs into hybrid vbs (fast sub-bank on lanes 0-15, at most as many swaps as slow pairs); hybrid registers "
            "go over the hybrid vbs, the others over the rest. An access is slow only if it touches a slow half. "
            "These runs predate lane compaction: threads keep their lanes (`bot.compaction=false`; the next "
            "section adds it). `hyb_reorg` is PV-opt with the "
            "same launch-time sorter and no swaps, which this column separates from the hybrid banks themselves; "
            "the sorter counts the fastest 22 sub-banks fast (`bot.fast_rule=rank`; the table after this one "
            "measures the other rule). "
            "Hybrid registers: share of the registers per thread (summed over SMs and launches); hybrid lookups: "
            "share of all lookups that hit a hybrid vb, and of those the share that touched its slow half; compactable: "
            "slow hybrid lookups with at most 16 active lanes (what lane compaction would make fast), per lookup. IPC "
            "against the same campaign's no-BOT runs.", "",
            table(["workload", "hybrid registers", "hybrid vbs (most)", "hybrid lookups", "slow among them", "compactable",
                   "slow accesses, PV-opt", "slow, + launch sorter", "slow, + hybrid",
                   "IPC, PV-opt", "IPC, + launch sorter", "IPC, + hybrid"], rows), ""] + fast_rule_section(by, keys, base)


def fast_rule_section(by, wls, base):
    """The sorter's fast class by rank (bot.fast_rule=rank, the default) and by threshold, from the same campaign."""
    groups = [("hyb_reorg", "launch sorter, no swaps", "rank"), ("hyb_reorg_thr", "launch sorter, no swaps", "threshold"),
              ("hyb", "hybrid banks", "rank"), ("hyb_thr", "hybrid banks", "threshold")]
    sets = {g: {k[0]: r for k, r in by.get(g, {}).items()} for g, _, _ in groups}
    if not all(all(w in sets[g] for w in wls) for g in sets):
        return []
    rows = []
    for g, what, rule in groups:
        rs = [sets[g][w] for w in wls]
        fs = [fast_sbs(r) for r in rs]
        hv = [mean([sm["bot"]["hybrid"]["max_vbs"] for sm in r["sms"]]) for r in rs] if g in ("hyb", "hyb_thr") else None
        rows.append([f"`{g}`", what, rule, "-" if None in fs else f"{mean(fs):.2f}", "-" if hv is None else f"{mean(hv):.2f}",
                     pct(mean([bot(r, "slow_accesses") / max(1, bot(r, "lookups")) for r in rs])),
                     pct(mean([cycles(base[w]) / cycles(sets[g][w]) for w in wls]) - 1, 2, True)])
    return ["Which sub-banks the launch-time sorter counts fast (`bot.fast_rule`, same campaign and revision). *rank* "
            "(the default): the fastest 22 of 32 in sensor-code order, the paper's fixed 22 / 10 split; *threshold*: "
            "every sub-bank whose 8-bit code is at most the 22nd fastest's, so codes that tie there count fast too (the "
            "block's only rule before the key). Fast sub-banks and hybrid vbs: per SM, the mean over SMs and workloads; "
            "slow accesses and IPC: the mean over the workloads.", "",
            table(["group", "what", "fast rule", "fast sub-banks per SM", "hybrid vbs per SM", "slow accesses", "IPC"],
                  rows), ""]
