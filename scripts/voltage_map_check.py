#!/usr/bin/env python3
"""ctest voltage_map: scripts/report voltage-map draws the die's droop map.

Runs a small workload with every grid node traced, draws the map, and checks
the deepest droop it reports against the trace's own lowest node voltage;
then the errors: a trace without node columns, a missing file.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    report = [sys.executable, os.path.join(ROOT, "scripts", "report"), "voltage-map"]
    with tempfile.TemporaryDirectory() as tmp:
        trace, png = os.path.join(tmp, "v.csv"), os.path.join(tmp, "map.png")
        run = [a.bin, "run", "vecops", "--size", "small", "--quiet", "--stats", os.devnull,
               "--voltage-trace", trace, "--set", "pdn.trace_nodes=true"]
        subprocess.run(run, check=True)
        with open(trace) as f:
            rows = list(csv.DictReader(f))
        lowest = min(float(r[f"n{i}"]) for r in rows for i in range(144))
        out = subprocess.run(report + [trace, "--out", png, "--frames", "3"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        m = re.search(r"deepest node droop ([0-9.]+)%", out.stdout)
        assert m, out.stdout
        assert abs(float(m.group(1)) - (1 - lowest) * 100) < 0.006, (m.group(1), lowest)
        assert os.path.getsize(png) > 10000, "no plot"
        plain = os.path.join(tmp, "plain.csv")
        subprocess.run(run[:-2] + ["--voltage-trace", plain], check=True)
        out = subprocess.run(report + [plain], capture_output=True, text=True)
        assert out.returncode != 0 and "pdn.trace_nodes=true" in out.stderr + out.stdout, out
        out = subprocess.run(report + [os.path.join(tmp, "none.csv")], capture_output=True, text=True)
        assert out.returncode != 0 and "none.csv: No such file" in out.stderr and "Traceback" not in out.stderr, out
    print("voltage_map: OK")


if __name__ == "__main__":
    main()
