#!/usr/bin/env python3
"""Vmin prediction and predictive guardbanding (Leng thesis Ch5; spec 004 §6).

  scripts/vmin.py ROWS.json [--json OUT.json] [--margin 0.03] [--ipc-max 2] [--seed 1]
        fit the three predictors on per-kernel counters, cross-validated, and price predictive
        guardbanding; prints the tables, --json writes them
  scripts/vmin.py --rows-from-store STORE.db --campaign NAME --out ROWS.json [--vcrit V]
        turn a campaign store's launches (run with pdn.enable) into ROWS.json

ROWS.json: {"vnom": 1.0, "rows": [{"name": "...", "group": "<workload>",
            "features": {"ipc": ..., ...}, "vmin": V, "core_nj": E, "other_nj": E}, ...]}
  vmin      the kernel's Vmin (V); from a store: vcrit / (1 - worst droop at Vnom), since the PDN is
            linear and the SM current scales with Vdd, so the droop is a fixed fraction of Vdd
  core_nj   energy that scales with Vdd^2 (the SMs' dynamic energy and leakage); other_nj does not
            (un-core, DRAM, constant power: on their own rails, as in the thesis)

Predictors (thesis Table 5.3):
  linear  least squares on standardised counters (a tiny ridge keeps collinear counters solvable)
  pwl     the thesis's piecewise-linear model: bins by IPC at quarters of --ipc-max (the thesis's
          [0,1) .. [3,4] of a 4-issue Kepler SM; a Fermi SM issues 2), in each bin one breakpoint on
          DRAM read throughput or SP FLOPS, whichever fits the bin better (grid over the bin's values)
  mlp     counters-10-1, tanh, trained by Adam on standardised data from --seed
Errors are relative to the true Vmin (%), from cross-validation: leave-one-workload-out (kernels of
one program never train their own prediction) and, like the thesis's held-out launches, 5 random folds.
Each held-out counter is clipped to the range of its training rows (--no-clip: not; the page shows both).
Guardbanding: each kernel runs at min(vnom, predicted x (1 + margin)); below its true Vmin it fails,
is detected and reruns at vnom (the kernel-level checkpoint of Ch6), paying both runs' energy.
"""
import argparse
import json
import math
import os
import sqlite3
import sys

try:
    import numpy as np
except ImportError:  # e.g. a pyenv python first on PATH: Debian's python3 has numpy
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("scripts/vmin.py: needs numpy (Debian: apt-get install python3-numpy)")

PWL_CANDIDATES = ("dram_read_gbps", "sp_gflops")


def fail(msg):
    print(f"scripts/vmin.py: {msg}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- counters
def features(detail, num_sms):
    """The per-kernel counters of one launch's stats detail (nvprof-like; thesis §5.3's 28 counters
    where the model has them). Rates are per SM cycle or per second of simulated time."""
    t = detail["sm_total"]
    cyc = max(detail["gpu_sim_cycle"], 1)
    sec = max(detail["sim_time_ps"], 1) * 1e-12
    smc = cyc * num_sms
    cls = t["issued_by_class"]
    l1, l2, dram = t["l1d"], detail["l2"], detail["dram"]
    st = t["scheduler_cycles"]
    slots = max(sum(st.values()), 1)
    pw = detail.get("power", {})
    return {
        "ipc": t["warp_insn"] / smc,
        "int_util": cls["INT"] / smc, "fp_util": cls["FP"] / smc, "sfu_util": cls["SFU"] / smc,
        "ldst_util": cls["LDST"] / smc,
        "sp_gflops": cls["FP"] * 32 / sec / 1e9,
        "occupancy": t["occupancy"],
        "l1_hit_rate": l1["hit_rate"] if l1["accesses"] else 0.0, "l1_miss_per_cycle": l1["misses"] / smc,
        "l2_hit_rate": l2["hit_rate"] if l2["accesses"] else 0.0, "l2_access_per_cycle": l2["accesses"] / cyc,
        "icache_miss_rate": t["icache"]["misses"] / max(t["icache"]["accesses"], 1),
        "smem_per_cycle": t["smem"]["accesses"] / smc,
        "dram_read_gbps": dram["bytes_read"] / sec / 1e9, "dram_write_gbps": dram["bytes_written"] / sec / 1e9,
        "dram_row_hit_rate": dram["row_hit_rate"] if dram["reads"] + dram["writes"] else 0.0,
        "rf_reads_per_cycle": sum(t["rf"]["reads"]) / smc,
        "stall_memory": st["memory"] / slots, "stall_scoreboard": st["scoreboard"] / slots,
        "stall_idle": st["idle"] / slots,
        "avg_w": pw.get("total_nj", 0.0) / max(pw.get("time_ps", 1), 1) * 1e3,
    }


def worst_droop(detail):
    """The launch's worst droop as a fraction of Vnom (the PDN's "pdn" section, power/pdn.h)."""
    p = detail.get("pdn")
    if not p or "max_droop_pct" not in p:
        return None
    return float(p["max_droop_pct"]) / 100


def rows_from_store(path, campaign, vcrit, vmin_max):
    if not os.path.isfile(path):
        fail(f"{path}: no such store")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = []
    q = "SELECT name, stats, config FROM results WHERE campaign = ? AND current = 1 AND status = 'done' ORDER BY id"
    for name, stats, config in db.execute(q, (campaign,)):
        s, c = json.loads(stats), json.loads(config)
        nsm = int(c.get("gpu.num_sms", 15))
        # One row per launch where the campaign kept each launch's detail (--launch-detail); else
        # the run is one row (the program's Vmin, as the thesis measures it per program in Ch5).
        parts = [(f"#{i}:{l['kernel']}", l["detail"]) for i, l in enumerate(s.get("launches", [])) if l.get("detail")]
        for tag, d in parts or [("", s)]:
            w = worst_droop(d)
            if w is None:
                fail(f"{path}: run '{name}'{tag} has no pdn section with a worst droop (needs pdn.enable)")
            pw = d.get("power", {})
            core = pw.get("sm_dynamic_nj", 0.0) + pw.get("sm_leakage_nj", 0.0)
            row = {"name": name + tag, "group": s["workload"], "features": features(d, nsm),
                   "vmin": vcrit / (1 - w), "droop": w, "core_nj": core, "other_nj": pw.get("total_nj", 0.0) - core}
            if "max_mean_ir_drop_pct" in d.get("pdn", {}):  # the worst SM's droop under the launch's mean currents
                row["ir_drop"] = float(d["pdn"]["max_mean_ir_drop_pct"]) / 100
            out.append(row)
    if not out:
        fail(f"{path}: campaign '{campaign}' has no finished runs")
    q = ("SELECT COUNT(*), SUM(wall_s), MIN(started_at), MAX(finished_at), GROUP_CONCAT(DISTINCT revision) "
         "FROM results WHERE campaign = ? AND current = 1 AND status = 'done'")
    n, wall, t0, t1, revs = db.execute(q, (campaign,)).fetchone()
    out_time = {"runs": n, "wall_h": (wall or 0) / 3600, "from": t0, "to": t1, "revisions": revs}
    if vmin_max:  # one constant: the worst kernel's Vmin at vmin_max x Vnom
        vcrit = vmin_max * (1 - max(r["droop"] for r in out))
        for r in out:
            r["vmin"] = vcrit / (1 - r["droop"])
    return out, vcrit, out_time


# ---------------------------------------------------------------- models
class Linear:
    def fit(self, X, y):
        self.mu, self.sd = X.mean(0), X.std(0) + 1e-12
        Z = np.hstack([np.ones((len(X), 1)), (X - self.mu) / self.sd])
        reg = 1e-6 * len(X) * np.eye(Z.shape[1])
        reg[0, 0] = 0
        self.w = np.linalg.solve(Z.T @ Z + reg, Z.T @ y)
        return self

    def predict(self, X):
        return np.hstack([np.ones((len(X), 1)), (X - self.mu) / self.sd]) @ self.w


def _hinge_fit(x, y):
    """Best fit y = a + b x + c max(0, x - k) with at most one breakpoint k: (sse, a, b, c, k).
    Breakpoints lie between the data (two points either side); a straight line wins ties, so a bin
    with no knee does not get one that only extrapolates badly."""
    A = np.column_stack([np.ones_like(x), x])
    w, *_ = np.linalg.lstsq(A, y, rcond=None)
    best = (float(((A @ w - y) ** 2).sum()), w[0], w[1], 0.0, 0.0)
    xs = np.unique(x)
    for k in xs[2:-2]:
        A = np.column_stack([np.ones_like(x), x, np.maximum(0.0, x - k)])
        w, *_ = np.linalg.lstsq(A, y, rcond=None)
        sse = float(((A @ w - y) ** 2).sum())
        if sse < best[0] * (1 - 1e-6) - 1e-15:
            best = (sse, w[0], w[1], w[2], k)
    return best


class PiecewiseLinear:
    def __init__(self, names, ipc_max):
        self.names, self.ipc_max = list(names), ipc_max
        self.cols = [self.names.index(c) for c in PWL_CANDIDATES]
        self.ipc = self.names.index("ipc")

    def bin(self, X):
        return np.clip((X[:, self.ipc] / self.ipc_max * 4).astype(int), 0, 3)

    def fit(self, X, y):
        self.fallback = Linear().fit(X[:, self.cols], y)
        self.bins = {}
        b = self.bin(X)
        for k in range(4):
            m = b == k
            if m.sum() >= 4:
                fits = [(_hinge_fit(X[m, c], y[m]), c) for c in self.cols]
                (sse, a, s, c2, kk), col = min(fits, key=lambda f: f[0][0])
                self.bins[k] = (col, a, s, c2, kk)
            elif m.sum() > 0:
                self.bins[k] = (None, float(y[m].mean()), 0, 0, 0)
        return self

    def predict(self, X):
        out = self.fallback.predict(X[:, self.cols])
        for i, k in enumerate(self.bin(X)):
            if k in self.bins:
                col, a, s, c2, kk = self.bins[k]
                x = X[i, col] if col is not None else 0.0
                out[i] = a + s * x + c2 * max(0.0, x - kk)
        return out


class Mlp:
    def __init__(self, seed, hidden=10, steps=3000, lr=0.01, decay=1e-3):
        self.seed, self.h, self.steps, self.lr, self.decay = seed, hidden, steps, lr, decay

    def fit(self, X, y):
        rng = np.random.default_rng(self.seed)
        self.mu, self.sd = X.mean(0), X.std(0) + 1e-12
        self.ym, self.ys = y.mean(), y.std() + 1e-12
        Z, t = (X - self.mu) / self.sd, (y - self.ym) / self.ys
        n, d = Z.shape
        h = self.h
        # One flat parameter vector (W1, b1, w2, b2) with views into it, so Adam updates it in one
        # pass: the same element-wise arithmetic as per-array updates (identical results), a third
        # of the numpy calls, which dominate at these sizes.
        theta = np.zeros(d * h + 2 * h + 1)
        W1, b1, w2 = theta[:d * h].reshape(d, h), theta[d * h:d * h + h], theta[d * h + h:d * h + 2 * h]
        W1[:] = rng.normal(0, 1 / math.sqrt(d), (d, h))
        w2[:] = rng.normal(0, 1 / math.sqrt(h), h)
        g, m, v = np.zeros_like(theta), np.zeros_like(theta), np.zeros_like(theta)
        gW1, gb1, gw2 = g[:d * h].reshape(d, h), g[d * h:d * h + h], g[d * h + h:d * h + 2 * h]
        for it in range(1, self.steps + 1):
            H = np.tanh(Z @ W1 + b1)
            e = (H @ w2 + theta[-1] - t) / n
            dH = np.outer(e, w2) * (1 - H ** 2)
            gW1[:] = Z.T @ dH + self.decay * W1
            gb1[:] = dH.sum(0)
            gw2[:] = H.T @ e + self.decay * w2
            g[-1] = e.sum()
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g ** 2
            theta -= self.lr * (m / (1 - 0.9 ** it)) / (np.sqrt(v / (1 - 0.999 ** it)) + 1e-8)
        self.p = [W1.copy(), b1.copy(), w2.copy(), float(theta[-1])]
        return self

    def predict(self, X):
        H = np.tanh((X - self.mu) / self.sd @ self.p[0] + self.p[1])
        return (H @ self.p[2] + self.p[3]) * self.ys + self.ym


def med(xs):
    return float(np.median(xs))


def make(kind, names, args):
    return {"linear": lambda: Linear(), "pwl": lambda: PiecewiseLinear(names, args.ipc_max),
            "mlp": lambda: Mlp(args.seed)}[kind]()


def folds(groups, how, seed):
    """Index sets of the test folds: by group (leave one workload out) or 5 random folds."""
    idx = np.arange(len(groups))
    if how == "workload":
        return [idx[np.array(groups) == g] for g in sorted(set(groups))]
    perm = np.random.default_rng(seed).permutation(idx)
    return [np.sort(perm[k::5]) for k in range(5)]


def cross_validate(kind, X, y, groups, names, args, how, clip=True):
    """Held-out predictions. clip: each test counter is held to the range its training rows span, so a
    model never extrapolates past the counters it was fitted on (nbody is the only SFU-heavy workload:
    a linear fit without it is flat in sfu_util and explodes on it)."""
    pred = np.zeros_like(y)
    for test in folds(groups, how, args.seed):
        train = np.setdiff1d(np.arange(len(y)), test)
        if len(train) == 0:
            fail("cross-validation needs rows from at least two workloads")
        Xt = np.clip(X[test], X[train].min(0), X[train].max(0)) if clip else X[test]
        pred[test] = make(kind, names, args).fit(X[train], y[train]).predict(Xt)
    return pred


def learning_curve(kind, X, y, groups, names, args, sizes=(3, 6, 9), draws=5, clip=True):
    """Leave-one-workload-out RMSE % when each held-out workload's model trains on only k of the other
    workloads, for each k in sizes and for all of them (the plain leave-one-workload-out). A draw picks
    one random subset per held-out workload; {k: [RMSE of each draw]} (one draw for all of them)."""
    g = np.array(groups)
    ws = sorted(set(groups))
    rng = np.random.default_rng(args.seed)
    out = {}
    for k in [n for n in sizes if n < len(ws) - 1] + [len(ws) - 1]:
        out[k] = []
        for _ in range(draws if k < len(ws) - 1 else 1):
            rel = []
            for w in ws:
                others = [o for o in ws if o != w]
                train = np.isin(g, list(rng.choice(others, k, replace=False)) if k < len(others) else others)
                test = g == w
                Xt = np.clip(X[test], X[train].min(0), X[train].max(0)) if clip else X[test]
                pred = make(kind, names, args).fit(X[train], y[train]).predict(Xt)
                rel.extend((pred - y[test]) / y[test])
            out[k].append(float(math.sqrt((np.array(rel) ** 2).mean()) * 100))
    return out


def power_tracking(rows):
    """How Vmin follows the launch's average power (the thesis finds it does not: di/dt, not IR drop):
    Pearson r of avg_w with Vmin, with the IR drop, and with the droop less the IR drop; the IR drop's
    mean share of the worst droop. None where the rows carry no ir_drop."""
    if any("ir_drop" not in r or "droop" not in r for r in rows) or len(rows) < 3:
        return None
    w = np.array([r["features"]["avg_w"] for r in rows])
    d = np.array([r["droop"] for r in rows])
    ir = np.array([r["ir_drop"] for r in rows])
    v = np.array([r["vmin"] for r in rows])

    def corr(a, b):
        return float(np.corrcoef(a, b)[0, 1]) if a.std() > 0 and b.std() > 0 else 0.0
    return {"r_vmin": corr(w, v), "r_ir": corr(w, ir), "r_dynamic": corr(w, d - ir),
            "ir_share": float(np.mean(ir / np.maximum(d, 1e-12)))}


def outside(X, groups, names):
    """Per workload: the counters its rows take beyond every other workload's range (5% slack)."""
    g = np.array(groups)
    out = {}
    for w in sorted(set(groups)):
        m = g == w
        lo, hi = X[~m].min(0), X[~m].max(0)
        span = hi - lo
        out[w] = [n for i, n in enumerate(names)
                  if X[m, i].max() > hi[i] + 0.05 * span[i] or X[m, i].min() < lo[i] - 0.05 * span[i]]
    return out


def errors(pred, y):
    rel = (pred - y) / y
    return {"rmse_pct": float(math.sqrt((rel ** 2).mean()) * 100), "max_over_pct": float(max(rel.max(), 0) * 100),
            "max_under_pct": float(max(-rel.min(), 0) * 100)}


def guardband(v_run, vmin, core, other, vnom):
    """Energy saving against vnom when each kernel runs at v_run; a kernel below its Vmin reruns at vnom."""
    base = (core + other).sum()
    e = core * (v_run / vnom) ** 2 + other
    unsafe = v_run < vmin - 1e-12
    e = e + np.where(unsafe, core + other, 0.0)
    return {"saving_pct": float((1 - e.sum() / base) * 100), "unsafe": int(unsafe.sum()),
            "mean_gap_pct": float(((v_run - vmin) / vmin)[~unsafe].mean() * 100) if (~unsafe).any() else 0.0}


def load_rows(path):
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not rows:
        fail(f"{path}: no \"rows\"")
    names = sorted(rows[0].get("features", {}))
    for i, r in enumerate(rows):
        for k in ("name", "group", "features", "vmin", "core_nj", "other_nj"):
            if k not in r:
                fail(f"{path}: row {i} ({r.get('name', '?')}): missing \"{k}\"")
        if sorted(r["features"]) != names:
            fail(f"{path}: row {i} ({r['name']}): its counters differ from row 0's")
        if not r["vmin"] > 0:
            fail(f"{path}: row {i} ({r['name']}): vmin must be > 0")
    for c in ("ipc",) + PWL_CANDIDATES:
        if c not in names:
            fail(f"{path}: the rows have no counter \"{c}\" (the piecewise-linear model bins and splits on it)")
    return doc, rows, names


def arrays(doc, rows, names):
    """Counters X, true Vmin y, core and other energy, workload of each row, Vnom."""
    X = np.array([[r["features"][n] for n in names] for r in rows], dtype=float)
    y = np.array([r["vmin"] for r in rows], dtype=float)
    core = np.array([r["core_nj"] for r in rows], dtype=float)
    other = np.array([r["other_nj"] for r in rows], dtype=float)
    return X, y, core, other, [r["group"] for r in rows], float(doc.get("vnom", 1.0))


def seed_spread(doc, rows, names, args, n):
    """RMSE % and energy saving % of each model and fold kind over seeds 1..n. The seed draws the MLP's
    initial weights and the random folds' assignment; linear and piecewise-linear fits are exact, so
    their leave-one-workload-out figures do not move. How much of one seed's figure is the draw."""
    X, y, core, other, groups, vnom = arrays(doc, rows, names)
    out = {}
    for kind in ("linear", "pwl", "mlp"):
        for how in ("workload", "random"):
            e = out.setdefault(kind, {}).setdefault(how, {"rmse_pct": [], "saving_pct": []})
            for s in range(1, n + 1):
                a = argparse.Namespace(**{**vars(args), "seed": s})
                pred = cross_validate(kind, X, y, groups, names, a, how, clip=not args.no_clip)
                e["rmse_pct"].append(errors(pred, y)["rmse_pct"])
                e["saving_pct"].append(guardband(np.minimum(vnom, pred * (1 + args.margin)), y, core, other,
                                                 vnom)["saving_pct"])
    return out


def analyse(doc, rows, names, args):
    X, y, core, other, groups, vnom = arrays(doc, rows, names)
    res = {"rows": len(rows), "workloads": len(set(groups)), "counters": names, "margin": args.margin,
           "vmin_range": [float(y.min()), float(y.max())], "models": {},
           "oracle": guardband(y, y, core, other, vnom),
           "worst_case": guardband(np.full_like(y, min(y.max(), vnom)), y, core, other, vnom)}
    res["clip"] = not args.no_clip
    res["unclipped"], res["per_workload"] = {}, {}
    g = np.array(groups)
    for kind in ("linear", "pwl", "mlp"):
        m = {}
        for how in ("workload", "random"):
            pred = cross_validate(kind, X, y, groups, names, args, how, clip=res["clip"])
            v = np.minimum(vnom, pred * (1 + args.margin))
            m[how] = dict(errors(pred, y), **guardband(v, y, core, other, vnom))
            if how == "workload":
                res["per_workload"][kind] = {w: errors(pred[g == w], y[g == w])["rmse_pct"] for w in sorted(set(groups))}
            # The ablation: the same folds without clipping.
            raw = cross_validate(kind, X, y, groups, names, args, how, clip=False) if res["clip"] else pred
            res["unclipped"].setdefault(kind, {})[how] = errors(raw, y)
        res["models"][kind] = m
    res["outside"] = outside(X, groups, names)
    res["power_tracking"] = power_tracking(rows)
    if args.learning_curve:
        res["learning_curve"] = {kind: learning_curve(kind, X, y, groups, names, args, clip=res["clip"])
                                 for kind in ("linear", "pwl", "mlp")}
    return res


def print_tables(res):
    print(f"{res['rows']} kernels from {res['workloads']} workloads; Vmin {res['vmin_range'][0]:.3f}-"
          f"{res['vmin_range'][1]:.3f} V; margin {res['margin'] * 100:.0f}%")
    print(f"oracle saving {res['oracle']['saving_pct']:.1f}%, one worst-case Vmin for all "
          f"{res['worst_case']['saving_pct']:.1f}%")
    print(f"{'model':8} {'folds':9} {'RMSE %':>7} {'over %':>7} {'under %':>8} {'saving %':>9} {'unsafe':>7}")
    for kind, m in res["models"].items():
        for how, e in m.items():
            print(f"{kind:8} {how:9} {e['rmse_pct']:7.2f} {e['max_over_pct']:7.2f} {e['max_under_pct']:8.2f} "
                  f"{e['saving_pct']:9.1f} {e['unsafe']:7d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rows", nargs="?")
    ap.add_argument("--json")
    ap.add_argument("--margin", type=float, default=0.03)
    ap.add_argument("--ipc-max", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rows-from-store")
    ap.add_argument("--campaign")
    ap.add_argument("--out")
    ap.add_argument("--vcrit", type=float, default=0.86)
    ap.add_argument("--vmin-max", type=float, default=0.885,
                    help="fit vcrit so that the worst kernel's Vmin is this x Vnom (0.885: the GTX 480's smallest "
                         "guardband, 11.5%%, thesis Ch5); 0 = use --vcrit as given")
    ap.add_argument("--markdown", help="write a results page (docs/results/vmin.md)")
    ap.add_argument("--learning-curve", action="store_true",
                    help="also the leave-one-workload-out error when each model trains on only 3, 6 or 9 of the "
                         "other workloads (5 random draws each; a few minutes)")
    ap.add_argument("--ablation", action="append", default=[], metavar="LABEL=ROWS.json",
                    help="the same predictors on other rows (e.g. another PDN's Vmin), tabled beside these in "
                         "--markdown; repeatable")
    ap.add_argument("--seed-spread", type=int, default=0, metavar="N",
                    help="also each model's figures over seeds 1..N (the MLP's initial weights and the random "
                         "folds follow the seed), tabled in --markdown")
    ap.add_argument("--no-clip", action="store_true",
                    help="let held-out counters outside the training rows' range through (default: clip to it)")
    a = ap.parse_args()
    if a.rows_from_store:
        if not a.campaign or not a.out:
            fail("--rows-from-store needs --campaign and --out")
        rows, vcrit, took = rows_from_store(a.rows_from_store, a.campaign, a.vcrit, a.vmin_max)
        json.dump({"vnom": 1.0, "vcrit": vcrit, "vmin_max": a.vmin_max, "store": os.path.basename(a.rows_from_store),
                   "campaign_time": took,
                   "rows": rows}, open(a.out, "w"), indent=1)
        return
    if not a.rows:
        ap.error("ROWS.json or --rows-from-store")
    if not 0 <= a.margin < 1 or a.ipc_max <= 0:
        fail("--margin must be in [0, 1) and --ipc-max > 0")
    if a.seed_spread < 0:
        fail("--seed-spread must be 0 or more")
    ablations = []
    for spec in a.ablation:  # checked and read before the long analysis
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            fail(f"--ablation {spec}: want LABEL=ROWS.json")
        ablations.append((label, path, load_rows(path)))
    doc, rows, names = load_rows(a.rows)
    res = analyse(doc, rows, names, a)
    print_tables(res)
    if a.seed_spread:
        res["seed_spread"] = seed_spread(doc, rows, names, a, a.seed_spread)
    ab_args = argparse.Namespace(**{**vars(a), "learning_curve": False})
    res["ablations"] = {}
    for label, path, (adoc, arows, anames) in ablations:
        r = analyse(adoc, arows, anames, ab_args)
        res["ablations"][label] = {"rows_file": os.path.basename(path), "store": adoc.get("store"),
                                   "rows": r["rows"], "workloads": r["workloads"],
                                   "vmin_range": r["vmin_range"], "vcrit": adoc.get("vcrit"),
                                   "campaign_time": adoc.get("campaign_time"),
                                   "oracle_saving_pct": r["oracle"]["saving_pct"],
                                   "power_tracking": r.get("power_tracking"),
                                   "models": {k: {h: e["rmse_pct"] for h, e in m.items()} for k, m in r["models"].items()},
                                   "saving_pct": {k: {h: e["saving_pct"] for h, e in m.items()}
                                                  for k, m in r["models"].items()}}
        if a.seed_spread:
            res["ablations"][label]["seed_spread"] = seed_spread(adoc, arows, anames, ab_args, a.seed_spread)
        print(f"ablation {label}:")
        print_tables(r)
    if a.json:
        json.dump(res, open(a.json, "w"), indent=1)
    if a.markdown:
        markdown(res, doc, a)


THESIS = {"linear": (2.2, 10, 10), "mlp": (0.5, 3, 2), "pwl": (0.9, 2.7, 3.3)}  # RMSE, max under (unsafe), max over


def compare_errors(ab, res):
    """How an ablation's random-fold errors compare with these rows', model by model."""
    lower = [ab["models"][k]["random"] < res["models"][k]["random"]["rmse_pct"] for k in res["models"]]
    if all(lower):
        return "every model's random-fold error is lower"
    if not any(lower):
        return "every model's random-fold error is higher"
    return "the random-fold error is lower for " + ", ".join(k for k, x in zip(res["models"], lower) if x) + \
        " and higher for " + ", ".join(k for k, x in zip(res["models"], lower) if not x)


def markdown(res, doc, a):
    n = res["rows"]
    launches = sum("#" in r["name"] for r in doc["rows"])
    runs = len({r["name"].split("#")[0] for r in doc["rows"]})
    what = (f"rows (kernel launches of {runs} runs, see below)" if launches == n else "rows (runs, see below)")
    md = ["# Vmin prediction and predictive guardbanding", "",
          f"Generated by `scripts/vmin.py ROWS.json{' --learning-curve' if res.get('learning_curve') else ''}"
          + (f" --seed-spread {a.seed_spread}" if res.get("seed_spread") else "")
          + "".join(f" --ablation \"{label}={os.path.relpath(path)}\"" for label, _, path in
                    (x.partition("=") for x in a.ablation))
          + (f" --json {os.path.relpath(a.json)}" if a.json else "")
          + f" --markdown {a.markdown}` from `{os.path.basename(a.rows)}`, which "
          f"`scripts/vmin.py --rows-from-store` made from the campaign `regress/vmin.json` (store "
          f"`docs/results/stores/vmin.db.xz`, run with `relgpu campaign run regress/vmin.json --launch-detail`): {n} "
          f"{what} of {res['workloads']} workloads (small size with seeds 1-4, default size with seed 1) on "
          "configs/gtx480.json with the chip power model and the PDN.", ""]
    t = doc.get("campaign_time")
    if t:
        md += [f"Campaign time: {t['wall_h']:.2f} h of run wall time over {t['runs']} runs, from {t['from']} to "
               f"{t['to']}; relgpu revision {t['revisions']}. Rerun with `relgpu campaign run regress/vmin.json "
               "--store FILE --launch-detail -j N`, then the two `scripts/vmin.py` steps above.", ""]
    md += [
          "Vmin per row: the PDN is linear and an SM's current scales with its supply, so a row's worst droop d "
          "(fraction of Vnom) is the same fraction at any Vdd, and it runs while Vdd (1 - d) >= vcrit: "
          f"Vmin = vcrit / (1 - d). One constant, vcrit = {doc.get('vcrit', 0):.4f} Vnom, puts the worst row at "
          f"{doc.get('vmin_max', 0):g} Vnom (the GTX 480's smallest guardband, 11.5%, thesis Ch5). "
          f"Our rows then span Vmin {res['vmin_range'][0]:.3f}-{res['vmin_range'][1]:.3f} Vnom (the GTX 480's "
          "programs: 0.767-0.885, guardbands 11.5-23.3%).", "",
          "## Predictors (cross-validated; errors relative to the true Vmin)", "",
          "| model | folds | RMSE % (thesis) | max under, unsafe % (thesis) | max over, waste % (thesis) | unsafe kernels at +"
          f"{res['margin'] * 100:.0f}% | energy saving |", "|---|---|---:|---:|---:|---:|---:|"]
    for kind, m in res["models"].items():
        t = THESIS[kind]
        for how, e in m.items():
            md.append(f"| {kind} | {'leave one workload out' if how == 'workload' else '5 random folds'} | "
                      f"{e['rmse_pct']:.2f} ({t[0]}) | {e['max_under_pct']:.2f} ({t[1]}) | {e['max_over_pct']:.2f} ({t[2]}) | "
                      f"{e['unsafe']} | {e['saving_pct']:.1f}% |")
    md += ["", "Thesis: 557 launches of 57 programs on real GPUs, 28 nvprof counters, its held-out error. Ours: "
           f"{len(res['counters'])} counters of the model's stats ({', '.join(res['counters'])}). "
           + ("Each held-out counter is clipped to the range of the rows the model was trained on (a deployed "
              "predictor sees counters it was not fitted on; the ablation below removes the clip)."
              if res.get("clip") else "Held-out counters are not clipped (`--no-clip`)."), ""]
    def span(v, f, unit=""):
        """Median (lowest to highest) of v."""
        v = sorted(v)
        return f"{float(np.median(v)):{f}}{unit} ({v[0]:{f}}{unit} to {v[-1]:{f}}{unit})"
    sp = res.get("seed_spread")
    if sp:
        n_s = len(sp["linear"]["workload"]["rmse_pct"])
        md += [f"### Spread over seeds 1-{n_s}", "",
               "The table above is seed 1. The seed draws the MLP's initial weights and which rows fall in each "
               "random fold; the linear and piecewise-linear fits are exact, so only their random folds move. "
               f"Median (lowest to highest) over {n_s} seeds:", "",
               "| model | folds | RMSE %, seed 1 | RMSE % over the seeds | energy saving, seed 1 | energy saving over the seeds |",
               "|---|---|---:|---:|---:|---:|"]
        for kind, m in sp.items():
            for how, e in m.items():
                s1 = res["models"][kind][how]
                md.append(f"| {kind} | {'leave one workload out' if how == 'workload' else '5 random folds'} | "
                          f"{s1['rmse_pct']:.2f} | {span(e['rmse_pct'], '.2f')} | {s1['saving_pct']:.1f}% | "
                          f"{span(e['saving_pct'], '.1f', '%')} |")
        md.append("")
    if res.get("clip"):
        md += ["### Ablation: clipping held-out counters to the training range", "",
               "| model | folds | RMSE %, clipped (default) | RMSE %, not clipped | max over %, clipped | max over %, not clipped |",
               "|---|---|---:|---:|---:|---:|"]
        for kind, m in res["models"].items():
            for how, e in m.items():
                u = res["unclipped"][kind][how]
                md.append(f"| {kind} | {'leave one workload out' if how == 'workload' else '5 random folds'} | "
                          f"{e['rmse_pct']:.2f} | {u['rmse_pct']:.2f} | {e['max_over_pct']:.2f} | {u['max_over_pct']:.2f} |")
        md += ["", "### Leave one workload out, per workload", "",
               "RMSE % of each workload's kernels when no kernel of it trained the model, and the counters its "
               "kernels take outside every other workload's range (by more than 5% of that range): what the model "
               "has to extrapolate to.", "",
               "| workload | rows | " + " | ".join(res["per_workload"]) + " | counters outside the others' range |",
               "|---|---:|" + "---:|" * len(res["per_workload"]) + "---|"]
        rows_of = {}
        for r in doc["rows"]:
            rows_of[r["group"]] = rows_of.get(r["group"], 0) + 1
        for w in sorted(rows_of):
            md.append(f"| {w} | {rows_of[w]} | " + " | ".join(f"{res['per_workload'][k][w]:.2f}" for k in res["per_workload"])
                      + f" | {', '.join(res['outside'][w]) or 'none'} |")
    lc = res.get("learning_curve")
    if lc:
        ks = sorted({k for m in lc.values() for k in m})
        md += ["", "### Leave one workload out, with fewer workloads to train on", "",
               "Each held-out workload's model trained on only k of the other workloads; a draw picks one random "
               "subset per held-out workload. Cells: the median RMSE % of 5 draws (lowest-highest); "
               f"k = {ks[-1]} is the table above. How the error falls as workloads are added; the thesis trains "
               "on 57 programs.", "",
               "| model | " + " | ".join(f"k = {k}" for k in ks) + " | thesis (57 programs) |",
               "|---|" + "---:|" * (len(ks) + 1)]
        for kind, m in lc.items():
            md.append(f"| {kind} | " + " | ".join(f"{med(m[k]):.2f}" + (
                f" ({min(m[k]):.2f}-{max(m[k]):.2f})" if len(m[k]) > 1 else "") for k in ks)
                      + f" | {THESIS[kind][0]} |")
        p0, p1 = med(lc["pwl"][ks[max(0, len(ks) - 2)]]), med(lc["pwl"][ks[-1]])
        mm = [med(lc["mlp"][k]) for k in ks]
        md += ["", f"The piecewise-linear model's median held-out error is {p0:.2f}% with {ks[max(0, len(ks) - 2)]} training workloads "
               f"and {p1:.2f}% with {ks[-1]}; the MLP's lies between {min(mm):.2f}% and {max(mm):.2f}% from {ks[0]} "
               f"to {ks[-1]}."
               + (" Neither falls steadily as workloads are added, so more workloads of the kind we have would "
                  "not by themselves bring the error to the thesis's 0.9% and 0.5%."
                  if p1 > 0.9 * p0 and max(mm) < 1.5 * min(mm) else "")]
    for label, ab in res.get("ablations", {}).items():
        t = ab.get("campaign_time") or {}
        md += ["", f"### Ablation: {label}", "",
               f"The same predictors on `{ab['rows_file']}` ({ab['rows']} rows of {ab['workloads']} workloads"
               + (f" from the store `{ab['store']}`" if ab.get("store") else "")
               + (f"; {t['runs']} runs, {t['wall_h']:.2f} h of run time, relgpu revision {t['revisions']}" if t else "")
               + f"), vcrit refitted the same way. Vmin spans {ab['vmin_range'][0]:.3f}-{ab['vmin_range'][1]:.3f} "
               f"Vnom there, {res['vmin_range'][0]:.3f}-{res['vmin_range'][1]:.3f} here. The oracle saves "
               f"{ab['oracle_saving_pct']:.1f}% there, {res['oracle']['saving_pct']:.1f}% here (thesis, GTX 480: "
               "15.8%).", "",
               "| model | folds | RMSE %, as built | RMSE %, " + label + " | RMSE %, thesis | energy saving at +"
               f"{res['margin'] * 100:.0f}%, as built | the same, {label} |"
               + (" RMSE %, " + label + f", over seeds 1-{len(ab['seed_spread']['linear']['random']['rmse_pct'])} |"
                  if ab.get("seed_spread") else ""),
               "|---|---|---:|---:|---:|---:|---:|" + ("---:|" if ab.get("seed_spread") else "")]
        for kind, m in res["models"].items():
            for how, e in m.items():
                md.append(f"| {kind} | {'leave one workload out' if how == 'workload' else '5 random folds'} | "
                          f"{e['rmse_pct']:.2f} | {ab['models'][kind][how]:.2f} | {THESIS[kind][0]} | "
                          f"{e['saving_pct']:.1f}% | {ab['saving_pct'][kind][how]:.1f}% |"
                          + (f" {span(ab['seed_spread'][kind][how]['rmse_pct'], '.2f')} |" if ab.get("seed_spread")
                             else ""))
    pts = [("as built", res.get("power_tracking"))] + [(label, ab.get("power_tracking"))
                                                       for label, ab in res.get("ablations", {}).items()]
    if all(p for _, p in pts):
        md += ["", "### Does Vmin follow power?", "",
               "The thesis finds it does not on real GPUs (Ch5: Vmin tracks neither IPC nor board power; di/dt "
               "dominates, not IR drop). Pearson r over the rows of each launch's average power (`avg_w`) with its "
               "Vmin, with its IR drop (the worst SM's droop under the launch's mean currents) and with its worst "
               "droop less that IR drop, and the IR drop's mean share of the worst droop:", "",
               "| rows | r(power, Vmin) | r(power, IR drop) | r(power, droop less IR drop) | IR drop of the worst droop |",
               "|---|---:|---:|---:|---:|"]
        for label, p in pts:
            md.append(f"| {label} | {p['r_vmin']:.2f} | {p['r_ir']:.2f} | {p['r_dynamic']:.2f} | "
                      f"{p['ir_share'] * 100:.0f}% |")
        p = pts[0][1]
        md += ["", f"Ours follow power (r = {p['r_vmin']:.2f}): the IR drop, {p['ir_share'] * 100:.0f}% of the worst "
               f"droop on average, tracks it (r = {p['r_ir']:.2f}), and what is left less so (r = {p['r_dynamic']:.2f}). "
               "The thesis's finding is not reproduced."]
    md += ["",
           "## Energy", "", "| policy | saving (ours) | thesis |", "|---|---:|---:|",
           f"| oracle: each kernel at its Vmin | {res['oracle']['saving_pct']:.1f}% | 15.8% (GTX 480), 21% (GTX 680) |",
           f"| one Vmin for all (the worst kernel's) | {res['worst_case']['saving_pct']:.1f}% | 7% (GTX 480) |"]
    for kind, label, t in (("pwl", "piecewise linear", "16.3% (GTX 680)"), ("mlp", "neural network", "16.9% (GTX 680)"),
                           ("linear", "linear regression", "not given")):
        e = res["models"][kind]["random"]
        md.append(f"| predicted Vmin + {res['margin'] * 100:.0f}% ({label}, random folds) | {e['saving_pct']:.1f}% | {t} |")
    md += ["", "Energy here is core energy (the SMs' dynamic energy and leakage, from the power model) scaled by "
           "(V/Vnom)^2; un-core, DRAM and constant power stay (their own rails). A kernel predicted below its true "
           "Vmin fails, is detected and reruns at Vnom (the kernel checkpoint of Ch6, docs/results/resilience.md), "
           "paying both runs. The thesis measures board energy on real cards.", "",
           "Differences, measured here: our droops are about twice the thesis's (docs/results/droop.md), so "
           "the spread of Vmin between kernels is wider and the oracle's saving larger"
           + "".join(f"; with {label} (the ablation above) Vmin spans {ab['vmin_range'][0]:.3f}-"
                     f"{ab['vmin_range'][1]:.3f} and " + compare_errors(ab, res)
                     for label, ab in res.get("ablations", {}).items()) + "; the workloads are 14 "
           "programs of a few kernels each, so leaving one workload out removes a kind of kernel the others do not "
           "show, which is why its errors exceed the random folds' (the per-workload table above: a workload whose "
           "counters lie outside the others' range, or whose Vmin the others' kernels do not span, is predicted "
           "worst). "
           + (f"A row is one kernel launch (its own counters and worst droop): {n} rows for {len(res['counters'])} "
              "counters against the thesis's 557 launches for 28. Launches of one program share its kernels, so "
              "the random folds see a program's other launches (as the thesis's held-out launches would), and "
              "leaving a workload out is the stricter test. "
              if launches == n else
              f"A row is a run (one program at one size and seed), not a launch: {n} rows for "
              f"{len(res['counters'])} counters against the thesis's 557 launches for 28, which leaves the linear "
              "regression nearly as many unknowns as rows in a fold. ")
           + "The rows mix small and default sizes, whose droops differ most. Where a predictor is worse than "
           "using one worst-case Vmin, the reruns of unsafe kernels cost more than the lower voltage saves "
           "(negative savings)."]
    open(a.markdown, "w").write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
