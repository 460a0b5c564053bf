"""Shared pieces of scripts/report: reading a campaign store, tables, plots, pages."""
import base64
import html
import json
import math
import os
import re
import sqlite3
import sys

import markdown
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from report_specs import SPECS  # noqa: E402,F401  (scripts/report and the pages read it here)


def built_relgpu():
    """The built relgpu binary, or None (plots that need a run are then left out)."""
    relgpu = os.path.join(os.environ.get("RELGPU_BUILD", os.path.join(ROOT, "build")), "bin", "relgpu")
    return relgpu if os.access(relgpu, os.X_OK) else None


def die(msg):
    print(f"scripts/report: {msg}", file=sys.stderr)
    sys.exit(2)


def load_store(path, campaign, mech, optional=False):
    """The campaign's runs in the store: (runs, missing). A run is its stats
    with "config" (the effective config) and "_name" (its name in the spec);
    missing lists (name, status, message) of the runs that left no stats.
    optional: a campaign the store lacks gives ([], [])."""
    if not os.path.isfile(path):
        die(f"{path}: no such store (make one with `relgpu campaign run regress/{mech}.json --store {path}`)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        names = [r[0] for r in db.execute("SELECT name FROM campaigns ORDER BY name")]
    except sqlite3.DatabaseError as e:
        die(f"{path}: not a relgpu campaign store ({e})")
    if campaign not in names and optional:
        return [], []
    if campaign not in names:
        die(f"{path}: no campaign '{campaign}' in the store (it has: {', '.join(names) or 'none'}); "
            f"run `relgpu campaign run regress/{mech}.json --store {path}`")
    runs, missing = [], []
    rows = db.execute("SELECT name, status, coalesce(message, ''), stats, config, wall_s, started_at, finished_at, "
                      "revision FROM results WHERE campaign = ? AND current = 1 ORDER BY id", (campaign,))
    for name, status, message, stats, config, wall, started, finished, revision in rows:
        if status != "done":
            missing.append((name, status, message))
            continue
        s = json.loads(stats)
        s["config"] = json.loads(config)
        s["_name"] = name
        s["_run"] = {"wall_s": wall, "started_at": started, "finished_at": finished, "revision": revision}
        runs.append(s)
    if not runs and not optional:
        die(f"{path}: campaign '{campaign}' has no finished runs yet")
    return runs, missing


def campaign_time(runs, mech):
    """How long the stored runs took, and the command that reruns them."""
    wall = sum(r["_run"]["wall_s"] or 0 for r in runs)
    starts = [r["_run"]["started_at"] for r in runs if r["_run"]["started_at"]]
    ends = [r["_run"]["finished_at"] for r in runs if r["_run"]["finished_at"]]
    span = ""
    if starts and ends:
        span = f", from {min(starts)} to {max(ends)}"
    revs = sorted({r["_run"].get("revision") or "?" for r in runs})
    return [f"Campaign time: {wall / 3600:.2f} h of run wall time over {len(runs)} runs{span}; "
            f"relgpu revision{'s' if len(revs) > 1 else ''} {', '.join(revs)}. "
            f"Rerun (or resume) with `scripts/report {mech} --store FILE --run -j N`, which runs "
            + " and ".join(f"`relgpu campaign run regress/{s}.json --store FILE -j N`" for s in SPECS[mech])
            + " and then writes this page."]


def missing_text(missing):
    """One line per run without stats: its name and why."""
    return ["- `{}`: {}".format(n, m if st == "failed" else f"{st} (not run yet)") for n, st, m in missing]


def run_checks(runs, missing):
    """The page lines on the runs read: how many pass their output check (naming those that fail)
    and each run that left no stats, with why."""
    bad = [r["_name"] for r in runs if not ok(r)]
    md = [f"Output checks: {len(runs) - len(bad)} of {len(runs)} stored runs pass"
          + ("" if not bad else "; failing: " + ", ".join(bad)) + ".", ""]
    if missing:
        md += ["Runs without stats:", ""] + missing_text(missing) + [""]
    return md


def strike_outcome(run=None, message=""):
    """A strike run's outcome: masked (its output check passed), sdc (a wrong output) or stopped."""
    if run is not None:
        return "masked" if run.get("output_check") == "pass" else "sdc"
    return "sdc" if "output check" in message or "wrong output" in message else "stopped"


def split_strikes(runs, missing):
    """The strike campaign's runs (names strikes_*) apart from the others: strike runs, their missing ones,
    the other runs, theirs."""
    def hit(name):
        return name.startswith("strikes_")
    return ([r for r in runs if hit(r["_name"])], [m for m in missing if hit(m[0])],
            [r for r in runs if not hit(r["_name"])], [m for m in missing if not hit(m[0])])


def cfg(run, key):
    return run["config"].get(key)


def ok(run):
    return run.get("output_check") == "pass"


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def geomean(xs):
    """Geometric mean of the positive values (None and non-positive ones left out)."""
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


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
    """Writes OUT/<mech>.md (the generated lines, then scripts/report_<mech>_notes.md
    verbatim) and OUT/<mech>.html, the same page with its plots inlined."""
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"report_{mech}_notes.md")
    with open(notes) as f:
        text = "\n".join(md) + "\n\n" + f.read()
    path = os.path.join(out, f"{mech}.md")
    with open(path, "w") as o:
        o.write(text)
    return path, write_html(out, mech, text)


def write_html(out, mech, text):
    body = markdown.markdown(text, extensions=["tables", "fenced_code"])

    def inline(m):
        with open(os.path.join(out, m.group(2)), "rb") as f:
            return f'{m.group(1)}"data:image/png;base64,{base64.b64encode(f.read()).decode()}"'
    body = re.sub(r'(<img [^>]*src=)"([^":/]+\.png)"', inline, body)
    title = re.search(r"<h1>(.*?)</h1>", body)
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            + (title.group(1) if title else html.escape(mech)) + "</title>\n<style>\n"
            "body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;line-height:1.4}\n"
            "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #bbb;padding:.2em .5em}\n"
            "th{background:#eee}img{max-width:100%}code{background:#f4f4f4}\n"
            "</style></head><body>\n" + body + "\n</body></html>\n")
    path = os.path.join(out, f"{mech}.html")
    with open(path, "w") as o:
        o.write(page)
    return path
