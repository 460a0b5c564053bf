#!/usr/bin/env python3
"""Least-squares calibration of the chip power model (GPUWattch's A x = P, Leng thesis Eq. 3.3-3.5).

  scripts/power_fit.py PROBLEM.json [--json OUT.json]     fit, print the factors and each row's error
  scripts/power_fit.py --collect-micro OUT.json [--build DIR]
        run the validation microbenchmarks (regress/validation, built by CMake when nvcc is found)
        under `relgpu exec --set power.enable=true` on configs/gtx480.json and keep each launch's
        "power" section: the rows scripts/report_power.py builds its problem from

Model: each component group g has modelled dynamic power a_g (W, from a run's stats with the current
energies) and an unknown factor x_g, so a run's dynamic power is sum_g a_g x_g (Eq. 3.3-3.4).

PROBLEM.json:
  {"groups":  ["eu", "pipeline", ...],          the unknowns x_g, in order
   "fixed":   ["rf", ...],                      groups kept at x = 1 (sourced values; optional)
   "prior":   0.05,                             weight of the rows x_g = 1 (keeps groups that no row
                                                constrains at their first estimate; optional, default 0.05)
   "rows": [
     {"name": "...", "kind": "power",           a measured total power:
      "a": {"eu": 31.2, ...},                     modelled dynamic W per group at x = 1
      "fixed_w": 59.0,                            power outside the fit (leakage, constant), W
      "target_w": 150.0, "weight": 1.0},          measured W; residual is relative to it
     {"name": "...", "kind": "share",           a share of dynamic power (thesis Fig. 3.12/3.13):
      "a": {...}, "group": "dram", "share": 0.574, "weight": 1.0}   ("group" may be a list: their sum)
   ]}
A power row is  (sum_g a_g x_g + fixed_w - target_w) / target_w,  a share row is
(sum_g a_g x_g (1[g = group] - share)) / sum_g a_g: both are linear in x. The fit minimises the
weighted sum of squares with x_g >= 0.01 (scipy's lsq_linear when installed, else numpy's lstsq).
Output: x per group, and per row the model before (x = 1) and after, against the target.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def selected(row):
    """The groups a share row's target covers ("group": a name or a list of names)."""
    g = row["group"]
    return set(g) if isinstance(g, list) else {g}


def row_vector(row, groups, fixed):
    """(coefficients over the free groups, constant term) of one row's residual."""
    a = row["a"]
    if row["kind"] == "power":
        t = float(row["target_w"])
        coef = [a.get(g, 0.0) / t for g in groups]
        const = (row.get("fixed_w", 0.0) + sum(a.get(g, 0.0) for g in fixed) - t) / t
    elif row["kind"] == "share":
        tot = sum(a.values()) or 1.0
        s = float(row["share"])
        sel = selected(row)
        coef = [a.get(g, 0.0) * ((g in sel) - s) / tot for g in groups]
        const = sum(a.get(g, 0.0) * ((g in sel) - s) for g in fixed) / tot
    else:
        raise ValueError(f"row '{row.get('name')}': kind must be 'power' or 'share', got {row.get('kind')!r}")
    return coef, const


def evaluate(row, x):
    """The row's model value with factors x (dict; missing groups 1): power W or share."""
    a = row["a"]
    scaled = {g: v * x.get(g, 1.0) for g, v in a.items()}
    if row["kind"] == "power":
        return sum(scaled.values()) + row.get("fixed_w", 0.0)
    return sum(v for g, v in scaled.items() if g in selected(row)) / (sum(scaled.values()) or 1.0)


def fit(problem):
    import numpy as np
    groups = list(problem["groups"])
    fixed = list(problem.get("fixed", []))
    prior = float(problem.get("prior", 0.05))
    rows = problem["rows"]
    for r in rows:
        for g in r["a"]:
            if g not in groups and g not in fixed:
                raise ValueError(f"row '{r['name']}': group '{g}' is neither in 'groups' nor in 'fixed'")
    A, b = [], []
    for r in rows:
        coef, const = row_vector(r, groups, fixed)
        w = float(r.get("weight", 1.0))
        A.append([w * c for c in coef])
        b.append(-w * const)
    for i, _ in enumerate(groups):  # prior rows: x_g = 1
        A.append([prior if j == i else 0.0 for j in range(len(groups))])
        b.append(prior)
    A, b = np.array(A), np.array(b)
    try:
        from scipy.optimize import lsq_linear
        sol = lsq_linear(A, b, bounds=(0.01, np.inf)).x
    except ImportError:
        sol = np.linalg.lstsq(A, b, rcond=None)[0]
    x = {g: float(v) for g, v in zip(groups, sol)}
    out = []
    for r in rows:
        before, after = evaluate(r, {}), evaluate(r, x)
        target = r["target_w"] if r["kind"] == "power" else r["share"]
        err = (lambda v: (v - target) / target) if r["kind"] == "power" else (lambda v: v - target)
        out.append({"name": r["name"], "kind": r["kind"], "group": r.get("group"), "target": target,
                    "before": before, "after": after, "error_before": err(before), "error_after": err(after)})
    return {"x": x, "rows": out}


def print_result(res):
    print("factor per group:")
    for g, v in res["x"].items():
        print(f"  {g:12s} x = {v:.3f}")
    print(f"{'row':40s} {'kind':6s} {'target':>9s} {'before':>9s} {'after':>9s}")
    for r in res["rows"]:
        f = (lambda v: f"{v:9.1f}") if r["kind"] == "power" else (lambda v: f"{v * 100:8.1f}%")
        print(f"{r['name'][:40]:40s} {r['kind']:6s} {f(r['target'])} {f(r['before'])} {f(r['after'])}")


def collect_micro(out, build):
    """Every launch's power section of the validation programs."""
    suite = json.load(open(os.path.join(ROOT, "regress/validation/suite.json")))
    relgpu = os.path.join(build, "bin/relgpu")
    rows = []
    for p in suite["programs"]:
        binary = os.path.join(build, "regress/validation", p["name"])
        if not os.access(binary, os.X_OK):
            sys.exit(f"power_fit: {binary} not built (CMake builds regress/validation when nvcc is found)")
        with tempfile.TemporaryDirectory() as tmp:
            stats = os.path.join(tmp, "s.json")
            r = subprocess.run([relgpu, "exec", "--mode", "timing", "--config", os.path.join(ROOT, "configs/gtx480.json"),
                                "--set", "power.enable=true", "--stats", stats, "--", binary],
                               capture_output=True, text=True)
            if r.returncode != 0 or f"{p['name']}: PASS" not in r.stdout:
                sys.exit(f"power_fit: {p['name']} failed (exit {r.returncode}):\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
            s = json.load(open(stats))
        for launch, meta in zip(s["launches"], p["launches"]):
            rows.append({"program": p["name"], "category": p.get("category"), "kernel": launch["kernel"],
                         "kind": meta.get("kind"), "cycles": launch["cycles"], "power": launch["detail"]["power"]})
        print(f"power_fit: {p['name']}: {len(s['launches'])} launches", flush=True)
    json.dump({"config": "configs/gtx480.json", "launches": rows}, open(out, "w"), indent=0)


def main():
    try:
        import numpy  # noqa: F401
    except ImportError:  # e.g. a pyenv python first on PATH: Debian's python3 has numpy and scipy
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("power_fit: needs numpy (Debian: apt-get install python3-numpy python3-scipy)")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("problem", nargs="?")
    ap.add_argument("--json", help="write the result as JSON")
    ap.add_argument("--collect-micro", metavar="OUT", help="run the validation microbenchmarks into OUT")
    ap.add_argument("--build", default=os.environ.get("RELGPU_BUILD", os.path.join(ROOT, "build")))
    a = ap.parse_args()
    if a.collect_micro:
        return collect_micro(a.collect_micro, a.build)
    if not a.problem:
        ap.error("PROBLEM.json or --collect-micro OUT")
    try:
        problem = json.load(open(a.problem))
        res = fit(problem)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"power_fit: {a.problem}: {e}")
    print_result(res)
    if a.json:
        json.dump(res, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
