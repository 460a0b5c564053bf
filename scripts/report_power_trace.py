"""Plots a per-SM power trace (relgpu run --power-trace FILE.csv).

scripts/report power-trace FILE.csv [--out FILE.png] [--bins N]

Top: the SMs' summed power (dynamic + leakage) over simulated time; bottom:
each SM's power as a heat map. Rows are binned by time: a row's energy goes
to the bins its [start_ps, end_ps) overlaps, in proportion, so each bin's
power is exact for the rows it holds. Also prints the trace's totals, which
equal the stats' power.sm_dynamic_nj and sm_leakage_nj.
"""
import argparse
import csv
import sys


def read(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.append({k: float(v) for k, v in r.items()})
    if not rows:
        sys.exit(f"{path}: no rows (was the run in timing mode with --power-trace?)")
    return rows


def binned(rows, nsm, bins):
    t0 = min(r["start_ps"] for r in rows)
    t1 = max(r["end_ps"] for r in rows)
    width = (t1 - t0) / bins or 1.0
    grid = [[0.0] * bins for _ in range(nsm)]
    for r in rows:
        e = r["dynamic_nj"] + r["leakage_nj"]
        a, b = r["start_ps"] - t0, r["end_ps"] - t0
        i = int(a // width)
        while a < b and i < bins:
            hi = min(b, (i + 1) * width)
            grid[int(r["sm"])][i] += e * (hi - a) / (r["end_ps"] - r["start_ps"])
            a, i = hi, i + 1
    # nJ per bin -> W: nJ / ps = 1e3 W
    return t0, width, [[e / width * 1e3 for e in row] for row in grid]


def main(argv):
    ap = argparse.ArgumentParser(prog="scripts/report power-trace", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--out", help="PNG to write (default: the trace's name with .png)")
    ap.add_argument("--bins", type=int, default=400)
    a = ap.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = read(a.trace)
    nsm = int(max(r["sm"] for r in rows)) + 1
    t0, width, grid = binned(rows, nsm, a.bins)
    us = [(t0 + (i + 0.5) * width) * 1e-6 for i in range(a.bins)]
    fig, (top, bot) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, gridspec_kw={"height_ratios": [1, 2]})
    top.plot(us, [sum(g[i] for g in grid) for i in range(a.bins)], lw=0.8)
    top.set_ylabel("SMs' power (W)")
    top.grid(alpha=0.3)
    im = bot.imshow(grid, aspect="auto", origin="lower", interpolation="nearest",
                    extent=[us[0] - width * 0.5e-6, us[-1] + width * 0.5e-6, -0.5, nsm - 0.5])
    bot.set_ylabel("SM")
    bot.set_xlabel("simulated time (us)")
    fig.colorbar(im, ax=[top, bot], label="W", shrink=0.6)
    out = a.out or a.trace.rsplit(".", 1)[0] + ".png"
    fig.savefig(out, dpi=110)
    dyn = sum(r["dynamic_nj"] for r in rows)
    leak = sum(r["leakage_nj"] for r in rows)
    print(f"{a.trace}: {len(rows)} rows, {nsm} SMs; dynamic {dyn / 1e3:.3f} uJ, leakage {leak / 1e3:.3f} uJ; wrote {out}")
