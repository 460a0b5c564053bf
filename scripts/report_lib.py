"""Shared pieces of scripts/report: reading runs, grouping, tables, plots."""
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def cfg(run, key):
    return run["config"].get(key)


def ok(run):
    return run.get("output_check") == "pass"


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def pct(x, digits=1, sign=False):
    if x is None:
        return "n/a"
    return f"{x * 100:+.{digits}f}%" if sign else f"{x * 100:.{digits}f}%"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def bars(path, title, labels, series, ylabel, ref=None, ref_label=None):
    """Grouped bar chart: series = {name: [value per label]}."""
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(labels) + 2), 3.6))
    n = len(series)
    w = 0.8 / max(n, 1)
    for i, (name, vals) in enumerate(series.items()):
        xs = [j + (i - (n - 1) / 2) * w for j in range(len(labels))]
        ax.bar(xs, [v if v is not None and not math.isnan(v) else 0 for v in vals], w, label=name)
    if ref is not None:
        ax.axhline(ref, color="k", ls="--", lw=1, label=ref_label)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=40, ha="right")
    return _save(fig, ax, path, title, None, ylabel)


def lines(path, title, xlabel, ylabel, series, vline=None):
    """series = {name: [(x, y), ...]}."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for name, pts in series.items():
        pts = sorted(p for p in pts if p[1] is not None)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    if vline is not None:
        ax.axvline(vline[0], color="k", ls="--", lw=1, label=vline[1])
    return _save(fig, ax, path, title, xlabel, ylabel)


def _save(fig, ax, path, title, xlabel, ylabel):
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return os.path.basename(path)


def save_page(out, mech, md):
    """Writes OUT/<mech>.md: the generated lines, then scripts/report_<mech>_notes.md verbatim."""
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"report_{mech}_notes.md")
    path = os.path.join(out, f"{mech}.md")
    with open(notes) as f, open(path, "w") as o:
        o.write("\n".join(md) + "\n\n" + f.read())
    return path
