#!/usr/bin/env python3
"""ctest rerun_store: scripts/rerun_store on a tiny store.

Runs a four-run campaign (two small runs, one that fails and one whose output check
fails) into a fresh store,
checks that rerun_store reproduces all three (one with its paths from another checkout),
then that it catches a float's last digit (passed with --tol), a changed stat
and a changed failure message (exit 1, naming them), and that bad input exits 2.
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "scripts", "rerun_store")


def run(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout + p.stderr


def expect(cond, what, out=""):
    if not cond:
        print(f"FAIL: {what}\n{out}")
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    b = ap.parse_args().bin
    scratch = tempfile.TemporaryDirectory(prefix="rerun_store_check.")
    tmp = scratch.name
    spec = os.path.join(tmp, "spec.json")
    json.dump({"name": "tiny", "defaults": {"size": "small", "mode": "timing", "config": os.path.join(ROOT, "configs", "gtx480.json")},
               "runs": [{"name": "ok", "sweep": {"workload": ["vecops", "matmul"]}},
                        {"name": "broken", "workload": "vecops", "set": {"func.max_warp_insn": 1}},
                        # SEC-DED alone at this point corrupts a result: exit 1, stats written
                        {"name": "wrong", "workload": "nbody",
                         "set": {"rf.cell_failure_rate": 0.0006, "pv.sigma_ratio": "4:1"}}]},
              open(spec, "w"))
    store = os.path.join(tmp, "s.db")
    p = subprocess.run([b, "campaign", "run", spec, "--store", store, "-j", "2"], cwd=ROOT,
                       capture_output=True, text=True)
    expect(p.returncode == 1, "the campaign has one failing run", p.stdout + p.stderr)
    common = ["--bin", b, "-j", "2"]

    db = sqlite3.connect(store)
    # A store made in another checkout: its absolute config path does not exist here.
    db.execute("UPDATE runs SET args = replace(args, ?, '/another/checkout') WHERE name = 'ok/vecops'", (ROOT,))
    db.commit()
    rc, out = run(store, *common)
    expect(rc == 0 and "4 of 4 runs reproduced" in out, "an unchanged store reproduces", out)
    expect("failed again, same message" in out, "the failing run fails the same way", out)
    expect(json.loads(db.execute("SELECT stats FROM runs WHERE name = 'wrong'").fetchone()[0])["output_check"]
           == "fail", "the wrong run is stored with its failed output check")

    # A float's last digits: caught bit-exact, passed within --tol; an integer never is.
    stats = json.loads(db.execute("SELECT stats FROM runs WHERE name = 'ok/vecops'").fetchone()[0])
    stats["ipc"] *= 1 + 1e-12
    db.execute("UPDATE runs SET stats = ? WHERE name = 'ok/vecops'", (json.dumps(stats),))
    db.commit()
    rc, out = run(store, "--runs", "ok/vecops", *common)
    expect(rc == 1 and "ipc" in out, "a float's last digit is caught bit-exact", out)
    rc, out = run(store, "--runs", "ok/vecops", "--tol", "1e-9", *common)
    expect(rc == 0 and "1 of them within --tol" in out, "--tol passes it and says so", out)

    stats = json.loads(db.execute("SELECT stats FROM runs WHERE name = 'ok/matmul'").fetchone()[0])
    stats["gpu_sim_cycle"] += 1
    db.execute("UPDATE runs SET stats = ? WHERE name = 'ok/matmul'", (json.dumps(stats),))
    db.execute("UPDATE runs SET message = 'ERROR: exit status 3: relgpu: error: something else' "
               "WHERE name = 'broken'")
    db.commit()
    rc, out = run(store, "--tol", "1e-9", *common)
    expect(rc == 1 and "2 of 4 runs reproduced, 2 did not" in out, "two tampered runs are caught", out)
    expect("gpu_sim_cycle" in out and "another message" in out, "the differences are named", out)
    rc, out = run(store, "--runs", "ok/matmul", "--tol", "0.5", *common)
    expect(rc == 1 and "gpu_sim_cycle" in out, "--tol does not loosen integers", out)
    rc, out = run(store, "--runs", "ok/vecops", "--tol", "1e-9", *common)
    expect(rc == 0 and "1 of 1 runs reproduced" in out, "--runs selects by name", out)

    for args, what in (([os.path.join(tmp, "none.db")], "no such file"),
                       ([spec], "not a campaign store"),
                       ([store, "--runs", "nothing/%"], "no finished run matches"),
                       ([store, "--campaign", "other"], "no campaign 'other'"),
                       ([store, "--tol", "2"], "--tol 2.0")):
        rc, out = run(*args, *common)
        expect(rc == 2 and what in out, f"bad input exits 2 naming it: {what}", out)
    print("rerun_store: all checks passed")


if __name__ == "__main__":
    main()
