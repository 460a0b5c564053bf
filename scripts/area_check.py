#!/usr/bin/env python3
"""ctest area_<block>: scripts/area on the block's small parameter set, then
again with the small file's "_area_grow" overrides. Passes when both
reports are well-formed, the markdown names the block, and the grown block
has more cells, flops and area."""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import area_report  # noqa: E402


def run_area(block, out, sets):
    cmd = [sys.executable, os.path.join(ROOT, "scripts", "area"), "--params", "small", "--block", block,
           "--out", out] + [x for k, v in sets.items() for x in ("--set", f"{block}.{k}={v}")]
    r = subprocess.run(cmd)
    if r.returncode != 0:
        sys.exit(f"area_check: {' '.join(cmd)} failed")
    rep = json.load(open(os.path.join(out, "area.json")))
    bad = area_report.check(rep)
    md = open(os.path.join(out, "area.md")).read()
    if f"| {block} |" not in md:
        bad.append("area.md has no row for the block")
    if bad:
        sys.exit(f"area_check: malformed report in {out}: " + "; ".join(bad))
    return rep["blocks"][block]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--block", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    small = json.load(open(os.path.join(ROOT, "configs", "blocks", f"{a.block}.small.json")))
    grow = small["blocks"][a.block].get("_area_grow")
    if not grow:
        sys.exit(f"area_check: configs/blocks/{a.block}.small.json has no _area_grow overrides")
    base = run_area(a.block, os.path.join(a.out, "small"), {})
    big = run_area(a.block, os.path.join(a.out, "grown"), grow)
    print(f"area_check {a.block}: small {base['cells']} cells {base['flops']} flops {base['area_kge']:.3f} kGE; "
          f"grown {big['cells']} cells {big['flops']} flops {big['area_kge']:.3f} kGE")
    for k in ("cells", "flops", "area_kge"):
        if not big[k] > base[k]:
            sys.exit(f"area_check: {a.block}: {k} did not grow with {grow}: {base[k]} -> {big[k]}")
    print("area_check: OK")


if __name__ == "__main__":
    main()
