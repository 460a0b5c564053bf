#!/usr/bin/env python3
"""ctest power_fit: scripts/power_fit.py recovers known factors, and its errors bite.

Synthetic problem: three groups with true factors (2.0, 0.5, 1.0 fixed), power rows made from them
exactly and share rows likewise; the fit must return the factors and zero residuals. A mutant target
(one share moved by 10 points) must leave a residual; a row naming an unknown group must be an error
(exit 1 with the row's name). Exit 0 on success.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(problem):
    with tempfile.TemporaryDirectory() as tmp:
        p, o = os.path.join(tmp, "p.json"), os.path.join(tmp, "o.json")
        json.dump(problem, open(p, "w"))
        r = subprocess.run([sys.executable, os.path.join(HERE, "power_fit.py"), p, "--json", o],
                           capture_output=True, text=True)
        return r, (json.load(open(o)) if r.returncode == 0 else None)


def main():
    true = {"eu": 2.0, "dram": 0.5, "rf": 1.0}
    acts = [{"eu": 30, "dram": 5, "rf": 10}, {"eu": 3, "dram": 40, "rf": 4}, {"eu": 10, "dram": 10, "rf": 10},
            {"eu": 1, "dram": 2, "rf": 30}]
    rows = []
    for i, a in enumerate(acts):
        dyn = {g: v * true[g] for g, v in a.items()}
        rows.append({"name": f"p{i}", "kind": "power", "a": a, "fixed_w": 59.0, "target_w": sum(dyn.values()) + 59.0})
        rows.append({"name": f"s{i}", "kind": "share", "a": a, "group": "eu", "share": dyn["eu"] / sum(dyn.values())})
    problem = {"groups": ["eu", "dram"], "fixed": ["rf"], "prior": 0.0, "rows": rows}
    r, res = run(problem)
    fails = []
    if r.returncode != 0:
        sys.exit(f"power_fit failed: {r.stdout}{r.stderr}")
    for g in ("eu", "dram"):
        if abs(res["x"][g] - true[g]) > 1e-6:
            fails.append(f"x[{g}] = {res['x'][g]}, expected {true[g]}")
    if max(abs(x["error_after"]) for x in res["rows"]) > 1e-6:
        fails.append("nonzero residual on an exact problem")
    # Mutant: a target moved by 10 points cannot be met with the others.
    mutant = json.loads(json.dumps(problem))
    mutant["rows"][1]["share"] += 0.10
    _, mres = run(mutant)
    if max(abs(x["error_after"]) for x in mres["rows"]) < 1e-3:
        fails.append("the fit absorbed an inconsistent target without a residual")
    # A list of groups in a share row.
    lst = json.loads(json.dumps(problem))
    lst["rows"].append({"name": "both", "kind": "share", "a": acts[0], "group": ["eu", "rf"],
                        "share": (30 * 2 + 10) / (30 * 2 + 5 * 0.5 + 10)})
    _, lres = run(lst)
    if abs(lres["rows"][-1]["error_after"]) > 1e-6:
        fails.append("share of a group list misevaluated")
    bad = json.loads(json.dumps(problem))
    bad["rows"][0]["a"]["nosuch"] = 1.0
    r, _ = run(bad)
    if r.returncode == 0 or "group 'nosuch'" not in r.stderr + r.stdout:
        fails.append(f"unknown group not reported: exit {r.returncode}: {r.stderr}")
    if fails:
        sys.exit("power_fit_check: " + "; ".join(fails))
    print("power_fit_check: ok")


if __name__ == "__main__":
    try:
        import numpy  # noqa: F401
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        sys.exit("power_fit_check: needs numpy")
    main()
