"""Draws the die's voltage map, one frame of a voltage trace with grid nodes
(relgpu run --voltage-trace FILE.csv --set pdn.trace_nodes=true).

scripts/report voltage-map FILE.csv [--out FILE.png] [--frames N] [--vnom V]

A frame is one trace row: each of the 12x12 grid nodes' lowest voltage in
that row's window, drawn as droop (% of Vnom) on the floorplan of
systemc/power/pdn_circuit.h (SM sites 2x3 nodes, the L2/NoC/MC band in rows
4-7). The frame shown is the row with the deepest node droop; --frames N
draws N consecutive rows ending there, side by side (animation frames).
"""
import argparse
import csv
import sys

SIDE = 12
SITE_ROW = [0, 2, 8, 10]  # the first grid row of each row of four SM sites


def read(path):
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    with f:
        r = csv.reader(f)
        head = next(r, None)
        if head is None or "n0" not in head:
            sys.exit(f"{path}: no grid-node columns (run with --voltage-trace FILE --set pdn.trace_nodes=true)")
        first = head.index("n0")
        if len(head) < first + SIDE * SIDE:
            sys.exit(f"{path}: {len(head) - first} grid-node columns, expected {SIDE * SIDE}")
        rows = []
        for line_no, row in enumerate(r, start=2):
            try:
                rows.append((float(row[head.index("start_ps")]), [float(x) for x in row[first:first + SIDE * SIDE]]))
            except (ValueError, IndexError):
                sys.exit(f"{path}:{line_no}: not a trace row")
    if not rows:
        sys.exit(f"{path}: no rows (was the run in timing mode?)")
    return rows


def outline(ax, droop, top):
    """SM sites and the un-core band, labelled as in pdn_circuit.h."""
    from matplotlib.patches import Rectangle
    for s in range(16):
        r0, c0 = SITE_ROW[s // 4], 3 * (s % 4)
        ax.add_patch(Rectangle((c0 - 0.5, r0 - 0.5), 3, 2, fill=False, lw=0.8, ec="k"))
        dark = max(droop[(r0 + r) * SIDE + c0 + c] for r in range(2) for c in range(3)) > 0.6 * top
        ax.text(c0 + 1, r0 + 0.5, f"S{s}", ha="center", va="center", fontsize=6, color="w" if dark else "k")
    for g in range(2):
        ax.add_patch(Rectangle((6 * g - 0.5, 3.5), 6, 4, fill=False, lw=0.8, ec="k", ls="--"))
        ax.text(6 * g + 2.5, 5.5, "L2/NoC/MC", ha="center", va="center", fontsize=6)


def main(argv):
    ap = argparse.ArgumentParser(prog="scripts/report voltage-map", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--out", help="PNG to write (default: the trace's name with _map.png)")
    ap.add_argument("--frames", type=int, default=1, help="consecutive rows ending at the deepest droop")
    ap.add_argument("--vnom", type=float, default=1.0, help="nominal supply (power.vdd; default 1 V)")
    ap.add_argument("--title", default="")
    a = ap.parse_args(argv)
    if a.frames < 1:
        sys.exit("--frames: must be at least 1")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = read(a.trace)
    deepest = min(range(len(rows)), key=lambda i: min(rows[i][1]))
    pick = list(range(max(0, deepest - a.frames + 1), deepest + 1))
    droop = [[(a.vnom - v) / a.vnom * 100 for v in rows[i][1]] for i in pick]
    top = max(max(d) for d in droop)
    fig, axes = plt.subplots(1, len(pick), figsize=(3.3 * len(pick) + 1, 3.4), squeeze=False)
    for ax, i, d in zip(axes[0], pick, droop):
        im = ax.imshow([d[r * SIDE:(r + 1) * SIDE] for r in range(SIDE)], cmap="inferno_r", vmin=0, vmax=top,
                       interpolation="nearest")
        outline(ax, d, top)
        ax.set_title(f"t = {rows[i][0] / 1e6:.3f} us", fontsize=8)
        ax.set_xticks([]), ax.set_yticks([])
    fig.colorbar(im, ax=list(axes[0]), label="droop (% of Vnom)", shrink=0.8)
    if a.title:
        fig.suptitle(a.title, fontsize=9)
    out = a.out or a.trace.rsplit(".", 1)[0] + "_map.png"
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(f"{a.trace}: {len(rows)} rows; deepest node droop {top:.2f}% at t = {rows[deepest][0] / 1e6:.3f} us; "
          f"wrote {out}")
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
