#!/usr/bin/env python3
"""ctest report_from_store: scripts/report on a tiny store.

Cuts regress/grguard.json (one of its stop ablations; and grguard_spill.json's first chip at 1:1),
regress/uniform.json, regress/less.json, regress/rise.json, regress/registers_outside.json, regress/loscache_full.json
(with its ablation's first-CTA runs) and regress/rf_variation.json down to two
workloads, one chip per sigma ratio and small sizes (plus one run that fails, to
be listed; GR-Guard's 1:1 runs stop, and are listed too), runs them as
campaigns into one store, and checks that scripts/report builds each
report from it: markdown tables with the numbers the store holds, the plots,
and one self-contained HTML page. Then the errors: a missing store, a file
that is not a store, a campaign the store lacks.
"""
import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS = ["vecops", "matmul"]


sys.path.insert(0, os.path.join(ROOT, "scripts"))
from report_specs import SPECS  # noqa: E402


def tiny(mech):
    with open(os.path.join(ROOT, "regress", f"{SPECS.get(mech, [mech])[0]}.json")) as f:
        spec = json.load(f)
    if mech == "loscache":  # the predictor-CTA ablation, which the report pairs by config
        with open(os.path.join(ROOT, "regress", "loscache_full_ablation.json")) as f:
            spec["runs"] += [r for r in json.load(f)["runs"] if r["name"] == "ls_first"]
    runs = []
    for r in spec["runs"]:
        sw = r.get("sweep", {})
        if "size" in r and r["size"] == "default":
            continue  # minutes per run
        if r["name"].startswith("abl_") and r["name"] != "abl_point":
            continue  # one ablation exercises the section
        if "workload" in sw:
            sw["workload"] = [w for w in sw["workload"] if w in WORKLOADS][:1 if r["name"] == "vdd" else 2]
            if not sw["workload"]:
                continue  # a run set of other workloads only
        if "pv.chip_seed" in sw:
            sw["pv.chip_seed"] = sw["pv.chip_seed"][:1]
        if "rf.vdd" in sw:
            sw["rf.vdd"] = [0.98, 0.92]
        if "sm.scheduler" in sw:
            if "gto" not in sw["sm.scheduler"]:
                continue
            sw["sm.scheduler"] = ["gto"]
        if r["name"] == "ls_phase_gpu":
            continue
        runs.append(r)
    spec["defaults"]["size"] = "small"  # default sizes take minutes per run
    if mech == "loscache":
        runs.append({"name": "broken", "workload": "vecops", "set": {"func.max_warp_insn": 1}})
    if mech == "grguard_spill":  # the 1:1 chip the grguard runs stop on, with as many spill lines as needed
        runs = runs[:1]
    spec["runs"] = runs
    cfg = spec["defaults"]["config"]  # relative to the repository, which the copy is not in
    spec["defaults"]["config"] = os.path.join(ROOT, cfg)
    return spec


def check(cond, what, text=""):
    if not cond:
        print(f"FAILED: {what}\n{text[-3000:]}")
        sys.exit(1)


def report(args):
    cmd = [sys.executable, os.path.join(ROOT, "scripts", "report")] + args
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="the relgpu binary")
    a = ap.parse_args()
    for mech, specs in SPECS.items():  # each campaign a page reads is a spec of that name
        for name in specs:
            path = os.path.join(ROOT, "regress", f"{name}.json")
            check(os.path.exists(path), f"report_specs.SPECS[{mech!r}]: {path} does not exist")
            with open(path) as f:
                check(json.load(f).get("name") == name, f"{path}: its \"name\" is not {name!r}, the campaign the page reads")
    with tempfile.TemporaryDirectory(prefix="relgpu_report_") as tmp:
        store = os.path.join(tmp, "runs.db")
        for mech in ("grguard", "grguard_spill", "loscache", "rf_variation", "uniform", "less", "rise",
                     "registers_outside"):
            spec = os.path.join(tmp, f"{mech}.json")
            with open(spec, "w") as f:
                json.dump(tiny(mech), f)
            r = subprocess.run([a.bin, "campaign", "run", spec, "--store", store, "-j", "2"],
                               capture_output=True, text=True)
            want = 0 if mech in ("rf_variation", "grguard_spill", "uniform", "less", "rise", "registers_outside") else 1  # loscache's "broken" run fails; GR-Guard stops at 1:1
            check(r.returncode == want, f"campaign {mech} exit {r.returncode}", r.stdout + r.stderr)

        db = sqlite3.connect(store)
        done = dict(db.execute("SELECT campaign, count(*) FROM runs WHERE status = 'done' GROUP BY campaign"))
        done["loscache"] = done.pop("loscache_full", 0)
        check(done == {"grguard": 24, "grguard_spill": 2, "loscache": 6, "rf_variation": 12, "uniform": 12, "less": 36,
                      "rise": 40, "registers_outside": 6},
              f"runs done per campaign: {done}")
        done["grguard"] += done.pop("grguard_spill")  # one page reads both
        out = os.path.join(tmp, "out")
        for mech in ("grguard", "loscache", "rf_variation", "uniform", "less", "rise", "registers_outside"):
            r = report([mech, "--store", store, "--out", out])
            check(r.returncode == 0, f"scripts/report {mech} exit {r.returncode}", r.stdout + r.stderr)
            md = open(os.path.join(out, f"{mech}.md")).read()
            html = open(os.path.join(out, f"{mech}.html")).read()
            check(f"Runs read: {done[mech]}." in md or f"Output checks: {done[mech]} of {done[mech]} stored runs pass" in md,
                  f"{mech}.md counts the store's runs", md)
            pngs = re.findall(r"\]\(([^)]+\.png)\)", md)
            check(pngs and all(os.path.getsize(os.path.join(out, p)) > 1000 for p in pngs), f"{mech} plots", md)
            # Self-contained: every image is inlined, nothing else is loaded.
            check(html.startswith("<!DOCTYPE html>") and html.count("<table>") >= 2, f"{mech}.html tables", html)
            srcs = re.findall(r'src="([^"]{0,40})', html)
            check(srcs and all(s.startswith("data:image/png;base64,") for s in srcs), f"{mech}.html inlines: {srcs}")
            check(not re.search(r"(href|src)=\"(?!data:|#|https?:)", html), f"{mech}.html links a local file")

        md = open(os.path.join(out, "grguard.md")).read()
        for sigma in ("4:1", "1:1", "1:4"):  # runs, completed, stopped (no patch, other), Vdd range
            check(re.search(rf"^\| {sigma} \| 2 \| \d \| \d \| 0 \| 0\.\d+-0\.\d+ V", md, re.M),
                  f"grguard sigma {sigma} row", md)
        # The numbers are the store's: base cycles of matmul (768 threads); every stop is listed.
        cyc = db.execute("SELECT json_extract(stats, '$.gpu_sim_cycle') FROM runs WHERE campaign = 'grguard' "
                         "AND name = 'base_half/matmul'").fetchone()
        check(cyc and f"| matmul | 1 / 1 | {cyc[0]:,} |" in md, f"matmul base cycles {cyc}", md)
        stops = db.execute("SELECT count(*) FROM runs WHERE campaign = 'grguard' AND status = 'failed'").fetchone()[0]
        check(stops > 0 and f"## Every run that stopped ({stops})" in md and md.count(": no patch on SM ") == stops,
              f"the {stops} stopped runs listed with their SM", md)
        for section in ("## RF energy versus RF Vdd", "## What makes runs stop", "## L1D miss rate"):
            check(section in md, f"the section {section}", md)
        check("Campaign time: " in md and "scripts/report grguard --store FILE --run" in md, "grguard campaign time", md)
        # The runs that stop at 1:1 complete with 1,024 spill lines, each needing more than the way's 32.
        check(re.search(r"^\| 1:1 \| 1 \| 2 of 2 \| \d+ / \d+ \| 2 of 2 \|", md, re.M), "grguard spill_lines row", md)
        md = open(os.path.join(out, "loscache.md")).read()
        check("- `broken`: ERROR: exit status 3" in md, "the failed run is listed with its reason", md)
        check(re.search(r"^\| gto \(small\) \| 2 \|", md, re.M), "loscache summary row", md)
        check("## Characterisation (LoSCache off, GTO)" in md and "## Ablation: which CTA trains the table" in md,
              "loscache characterisation and ablation sections", md)
        check("Campaign time: " in md and "--run -j N" in md, "loscache campaign time and rerun command", md)

        md = open(os.path.join(out, "rf_variation.md")).read()
        cyc = db.execute("SELECT json_extract(stats, '$.gpu_sim_cycle') FROM runs WHERE campaign = 'rf_variation' "
                         "AND name = 'base/matmul'").fetchone()
        check(cyc and f"| matmul | {cyc[0]:,} |" in md, f"rf_variation matmul base cycles {cyc}", md)
        check(re.search(r"^\| IPC, VL-SB \+ RF-BRO \| -9% \| [-+]\d+\.\d% \|", md, re.M), "rf_variation summary row", md)
        check("Campaign time: " in md and "scripts/report rf_variation --store FILE --run" in md,
              "rf_variation campaign time", md)

        md = open(os.path.join(out, "uniform.md")).read()  # the numbers are the store's: matmul's redundancy
        red = db.execute("SELECT json_extract(stats, '$.uniform.intra_redundancy') FROM runs WHERE campaign = 'uniform' "
                         "AND name = 'gtx480/matmul/uniform.enable=true'").fetchone()
        check(red and red[0] is not None and f"| matmul | {100 * red[0]:.1f}% |" in md, f"uniform matmul row {red}", md)
        check("cycles equal in 2" in md and "`unsound_writes`, a wrong detection): 0." in md, "uniform checks", md)

        md = open(os.path.join(out, "less.md")).read()  # matmul's LESS coverage, as the store has it
        cov = db.execute("SELECT json_extract(stats, '$.less.coverage') FROM runs WHERE campaign = 'less' "
                         "AND name = 'less/matmul'").fetchone()
        row = re.search(r"^\| matmul \|.*$", md, re.M)
        check(cov and cov[0] is not None and row and f" {100 * cov[0]:.1f}% |" in row.group(0), f"less matmul row {cov}", md)
        check("cycles equal in 2" in md, "less checks", md)

        md = open(os.path.join(out, "rise.md")).read()  # matmul's base SP AVF, as the store has it
        avf = db.execute("SELECT json_extract(stats, '$.rise.sp_avf') FROM runs WHERE campaign = 'rise' "
                         "AND name = 'base/matmul'").fetchone()
        check(avf and avf[0] is not None and f"| matmul | {100 * avf[0]:.1f}% |" in md, f"rise matmul row {avf}", md)
        check("cycles equal in 2" in md and "every instruction twice: 0.0%" in md, "rise checks", md)

        md = open(os.path.join(out, "registers_outside.md")).read()  # vecops's cycles both ways, as stored
        cyc = dict(db.execute("SELECT name, json_extract(stats, '$.gpu_sim_cycle') FROM runs "
                              "WHERE campaign = 'registers_outside' AND name IN ('base/vecops', 'base_highest/vecops')"))
        check(len(cyc) == 2 and f"| vecops | {cyc['base_highest/vecops']:,} | {cyc['base/vecops']:,} |" in md,
              f"registers_outside vecops row {cyc}", md)
        check("| vecops | 1 of 1 |" in md, "registers_outside GR-Guard row", md)

        r = report(["grguard", "--store", os.path.join(tmp, "nope.db")])
        check(r.returncode == 2 and "nope.db: no such store" in r.stderr, "missing store", r.stderr)
        bad = os.path.join(tmp, "bad.db")
        with open(bad, "w") as f:
            f.write("not sqlite " * 20)
        r = report(["grguard", "--store", bad])
        check(r.returncode == 2 and "bad.db: not a relgpu campaign store" in r.stderr, "not a store", r.stderr)
        r = report(["loscache", "--store", store, "--campaign", "other"])
        check(r.returncode == 2 and "no campaign 'other' in the store (it has: grguard, grguard_spill, less, loscache_full, registers_outside, rf_variation, rise, uniform)" in r.stderr,
              "missing campaign", r.stderr)
    print("PASSED")


if __name__ == "__main__":
    main()
