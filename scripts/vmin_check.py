#!/usr/bin/env python3
"""ctest vmin_predict: scripts/vmin.py's predictors and guardbanding on data with a known answer.

Synthetic kernels: Vmin follows the thesis's piecewise-linear shape (bins by IPC, one breakpoint on
DRAM read throughput) plus counters that carry nothing. Checks: the piecewise-linear model recovers it
(RMSE < 0.3%) and beats linear regression; the oracle's saving equals 1 - sum(core (Vmin/Vnom)^2 +
other) / sum(core + other) computed here; a predictor that is always 5% low shows unsafe kernels and
pays their reruns (the guardband pricing bites); shuffled targets (a mutant pairing of counters and
Vmin) lose the fit; a workload far outside the others on one counter is predicted well only with
held-out counters clipped to the training range (--no-clip is the mutant); --seed-spread repeats the
fits over seeds (exact fits on fixed folds do not move, seed 1 is the main table); the learning curve trains
on only k workloads (with k = all it is leave-one-workload-out, and with workloads in disjoint IPC
bins 3 of them predict worse); --ablation tables other rows' errors as they are on their own; power
tracking correlates the IR drop with power; a row without "vmin" is an error naming the row. Exit 0
on success.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def truth(ipc, bw):
    k = min(int(ipc / 2.0 * 4), 3)
    base, slope, knee = [(0.90, 0.0012, 40.0), (0.93, 0.0008, 60.0), (0.95, -0.0004, 30.0), (0.94, 0.0, 50.0)][k]
    return base + slope * bw + (-slope * 0.8) * max(0.0, bw - knee)


def synthetic(seed, shuffle=False):
    rng = random.Random(seed)
    rows = []
    for w in range(12):
        for k in range(12):
            ipc, bw = rng.uniform(0.05, 1.95), rng.uniform(0.0, 120.0)
            f = {"ipc": ipc, "dram_read_gbps": bw, "sp_gflops": rng.uniform(0, 300),
                 "noise_a": rng.uniform(0, 1), "noise_b": rng.uniform(0, 1)}
            rows.append({"name": f"w{w}k{k}", "group": f"w{w}", "features": f, "vmin": truth(ipc, bw),
                         "core_nj": rng.uniform(1e5, 1e6), "other_nj": rng.uniform(1e4, 1e5)})
    if shuffle:
        v = [r["vmin"] for r in rows]
        rng.shuffle(v)
        for r, x in zip(rows, v):
            r["vmin"] = x
    return {"vnom": 1.0, "rows": rows}


def run(doc, *extra):
    with tempfile.TemporaryDirectory() as tmp:
        p, o = os.path.join(tmp, "rows.json"), os.path.join(tmp, "out.json")
        json.dump(doc, open(p, "w"))
        r = subprocess.run([sys.executable, os.path.join(HERE, "vmin.py"), p, "--json", o, *extra],
                           capture_output=True, text=True)
        return r, (json.load(open(o)) if r.returncode == 0 else None)


def main():
    fails = []
    doc = synthetic(7)
    r, res = run(doc)
    if r.returncode != 0:
        sys.exit(f"vmin.py failed: {r.stdout}{r.stderr}")
    pwl, lin = res["models"]["pwl"]["random"], res["models"]["linear"]["random"]
    if not pwl["rmse_pct"] < 0.3:
        fails.append(f"pwl RMSE {pwl['rmse_pct']:.3f}% on its own model's data (want < 0.3%)")
    if not pwl["rmse_pct"] < lin["rmse_pct"]:
        fails.append(f"pwl RMSE {pwl['rmse_pct']:.3f}% not below linear {lin['rmse_pct']:.3f}%")
    rows = doc["rows"]
    base = sum(x["core_nj"] + x["other_nj"] for x in rows)
    oracle = 1 - sum(x["core_nj"] * x["vmin"] ** 2 + x["other_nj"] for x in rows) / base
    if abs(res["oracle"]["saving_pct"] - oracle * 100) > 1e-6 or res["oracle"]["unsafe"] != 0:
        fails.append(f"oracle saving {res['oracle']['saving_pct']} != {oracle * 100}")
    if pwl["unsafe"] != 0:
        fails.append(f"pwl with a 3% margin left {pwl['unsafe']} kernels unsafe on noise-free data")
    if not 0 < pwl["saving_pct"] < res["oracle"]["saving_pct"]:
        fails.append(f"pwl saving {pwl['saving_pct']} not between 0 and the oracle's")
    # A 0% margin on a predictor no better than linear must show unsafe kernels and pay for them.
    r0, res0 = run(doc, "--margin", "0")
    lin0 = res0["models"]["linear"]["workload"]
    if lin0["unsafe"] == 0 or lin0["max_under_pct"] <= 0:
        fails.append("linear with no margin shows no unsafe kernel")
    rs, ress = run(synthetic(7, shuffle=True))
    if not ress["models"]["pwl"]["random"]["rmse_pct"] > 5 * pwl["rmse_pct"]:
        fails.append("shuffled Vmin still fits: the predictors do not use the counters")
    # One workload far outside the others on a counter with a small real effect: a linear fit
    # extrapolates it unless held-out counters are clipped to the training range (the default).
    far = synthetic(7)
    for x in far["rows"]:
        if x["group"] == "w3":
            x["features"]["sp_gflops"] = 1e7
    rc, resc = run(far)
    rn, resn = run(far, "--no-clip")
    clipped, raw = resc["models"]["linear"]["workload"]["rmse_pct"], resn["models"]["linear"]["workload"]["rmse_pct"]
    if not (clipped < 5 and raw > 10 * clipped):
        fails.append(f"clipping held-out counters: linear leave-one-out RMSE {clipped:.2f}% clipped, {raw:.2f}% not")
    if "sp_gflops" not in resc["outside"]["w3"]:
        fails.append(f"w3's far counter not reported outside the others' range: {resc['outside']['w3']}")
    # Learning curve: with each workload's IPC in one bin (w % 4), three training workloads often miss
    # the held-out workload's bin, eleven never do; with all eleven it is plain leave-one-workload-out.
    binned = synthetic(7)
    for x in binned["rows"]:
        w = int(x["group"][1:])
        x["features"]["ipc"] = (w % 4 + 0.1 + 0.8 * (x["features"]["ipc"] / 2.0)) / 2.0
        x["vmin"] = truth(x["features"]["ipc"], x["features"]["dram_read_gbps"])
    rl, resl = run(binned, "--learning-curve")
    lc = resl["learning_curve"]["pwl"] if resl else {}
    if not lc or abs(lc["11"][0] - resl["models"]["pwl"]["workload"]["rmse_pct"]) > 1e-9:
        fails.append(f"learning curve with every other workload != leave-one-workload-out: {lc}, {rl.stderr}")
    elif not min(lc["3"]) > 2 * lc["11"][0]:
        fails.append(f"learning curve: pwl with 3 training workloads {lc['3']}% not above 2x all 11 {lc['11']}%")
    # --ablation: other rows through the same predictors. The shuffled rows, tabled beside these,
    # give the shuffled run's own errors; a spec without LABEL= is an error.
    with tempfile.TemporaryDirectory() as tmp:
        sp = os.path.join(tmp, "shuffled.json")
        json.dump(synthetic(7, shuffle=True), open(sp, "w"))
        ra, resa = run(doc, "--ablation", f"shuffled={sp}", "--seed-spread", "2")
        rx, _ = run(doc, "--ablation", sp)
    ab = resa["ablations"]["shuffled"]["models"]["pwl"]["random"] if resa else None
    if ab is None or abs(ab - ress["models"]["pwl"]["random"]["rmse_pct"]) > 1e-9:
        fails.append(f"--ablation: pwl RMSE {ab} on the shuffled rows, {ress['models']['pwl']['random']['rmse_pct']} "
                     f"run on their own ({ra.stderr.strip()})")
    abs_ = resa["ablations"]["shuffled"].get("seed_spread") if resa else None
    if not abs_ or ab is None or abs(abs_["pwl"]["random"]["rmse_pct"][0] - ab) > 1e-9:
        fails.append(f"--ablation with --seed-spread: the ablation's seed 1 {abs_ and abs_['pwl']['random']} "
                     f"is not its table's {ab}")
    if rx.returncode != 2 or "LABEL=ROWS.json" not in rx.stderr:
        fails.append(f"--ablation without a label: exit {rx.returncode}, {rx.stderr.strip()}")
    # Power tracking: an IR drop proportional to the power correlates 1 with it; rows without
    # an IR drop leave it out.
    pt = synthetic(7)
    for x in pt["rows"]:
        x["features"]["avg_w"] = 50 + 100 * x["features"]["noise_a"]
        x["ir_drop"] = x["features"]["avg_w"] / 2000
        x["droop"] = x["ir_drop"] + 0.01 * x["features"]["noise_b"]
    rp, resp = run(pt)
    p = resp["power_tracking"] if resp else None
    if not p or abs(p["r_ir"] - 1) > 1e-9 or not abs(p["r_dynamic"]) < 0.5 or res.get("power_tracking") is not None:
        fails.append(f"power tracking: {p} with the IR drop proportional to power; {res.get('power_tracking')} "
                     f"without an IR drop ({rp.stderr.strip()})")
    # --seed-spread: seed 1 is the main table's; exact fits on fixed folds (linear, leave one
    # workload out) give one value over the seeds, the random folds' assignment moves.
    rs, ress = run(doc, "--seed-spread", "3")
    sp = ress.get("seed_spread") if ress else None
    lw = sp["linear"]["workload"]["rmse_pct"] if sp else []
    if (not sp or len(lw) != 3 or max(lw) - min(lw) > 1e-9
            or abs(sp["pwl"]["random"]["rmse_pct"][0] - ress["models"]["pwl"]["random"]["rmse_pct"]) > 1e-9
            or len(set(round(x, 9) for x in sp["linear"]["random"]["rmse_pct"])) < 2):
        fails.append(f"--seed-spread 3: {sp and {k: v['workload']['rmse_pct'] for k, v in sp.items()}} "
                     f"({rs.stderr.strip()})")
    bad = synthetic(7)
    del bad["rows"][5]["vmin"]
    rb, _ = run(bad)
    if rb.returncode != 2 or "row 5 (w0k5)" not in rb.stderr or "vmin" not in rb.stderr:
        fails.append(f"a row without vmin: exit {rb.returncode}, {rb.stderr.strip()}")
    for f in fails:
        print("FAIL:", f)
    print(r.stdout)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
