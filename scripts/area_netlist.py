"""Liberty and gate-level netlist helpers for scripts/area.

- Liberty: cell areas, pins, flops, the synthesis copy without dont-use
  cells, the NAND2 gate equivalent and the FO4 delay from the NLDM tables.
- Netlist (Yosys `write_verilog -noattr -noexpr`, one bit per net): fanout
  buffering and the area of each register or output port's input cone.
"""
import collections
import gzip
import os
import re
import sys

# Not for logic synthesis: multi-power-domain (lpflow) and probe cells, as in
# OpenROAD-flow-scripts' platforms/sky130hd/config.mk DONT_USE_CELLS.
DONT_USE = re.compile(r"(__lpflow_|__probec?_p_)")
# Buffer trees keep every net at or under this many loads (OpenLane's
# SYNTH_MAX_FANOUT for sky130).
MAX_FANOUT = 10


def die(msg):
    sys.exit(f"scripts/area: {msg}")


def _floats(s):
    return [float(x) for x in re.findall(r"-?[\d.]+(?:[eE][-+]?\d+)?", s)]


def _table(body, name):
    """index_1, index_2 and the value rows of NLDM table `name` in body."""
    m = re.search(name + r'\s*\(\s*"?[\w]*"?\s*\)\s*\{(.*?)\}', body, re.S)
    if not m:
        return None
    t = m.group(1)
    i1 = _floats(re.search(r'index_1\s*\(\s*"([^"]*)"', t).group(1))
    i2 = _floats(re.search(r'index_2\s*\(\s*"([^"]*)"', t).group(1))
    vals = _floats(" ".join(re.findall(r'"([^"]*)"', t[t.index("values"):])))
    return i1, i2, [vals[r * len(i2):(r + 1) * len(i2)] for r in range(len(i1))]


def _interp(tab, x, y):
    """Bilinear interpolation (linear extrapolation at the edges)."""
    i1, i2, v = tab

    def seg(ax, p):
        k = max(0, min(len(ax) - 2, next((j for j in range(len(ax) - 1) if p <= ax[j + 1]), len(ax) - 2)))
        return k, (p - ax[k]) / (ax[k + 1] - ax[k])

    a, fa = seg(i1, x)
    b, fb = seg(i2, y)
    lo = v[a][b] + (v[a][b + 1] - v[a][b]) * fb
    hi = v[a + 1][b] + (v[a + 1][b + 1] - v[a + 1][b]) * fb
    return lo + (hi - lo) * fa


def read_liberty(path, workdir):
    """Parses a liberty (.lib or .lib.gz); writes the synthesis copy into workdir."""
    if not os.path.isfile(path):
        die(f"liberty {path} not found (default: rtl/lib/sky130/sky130hd_tt.lib.gz; --liberty FILE)")
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        die(f"cannot read liberty {path}: {e}")
    if not re.search(r"\blibrary\s*\(", text):
        die(f"{path} is not a liberty file (no library group)")
    name = re.search(r'\blibrary\s*\(\s*"?([\w.$-]+)"?\s*\)', text).group(1)
    starts = [(m.start(), m.group(1)) for m in re.finditer(r'\n\s*cell\s*\(\s*"?([\w$]+)"?\s*\)', text)]
    if not starts:
        die(f"no cells in liberty {path}")
    end = text.rfind("}")
    cells, keep, prev = {}, [], 0
    for i, (pos, cname) in enumerate(starts):
        stop = starts[i + 1][0] if i + 1 < len(starts) else end
        body = text[pos:stop]
        m = re.search(r"\barea\s*:\s*([\d.eE+-]+)", body)
        pins = {}
        pms = list(re.finditer(r'\bpin\s*\(\s*"?(\w+)"?\s*\)\s*\{', body))
        for k, pm in enumerate(pms):
            seg = body[pm.end():pms[k + 1].start() if k + 1 < len(pms) else len(body)]
            d = re.search(r'direction\s*:\s*"?(\w+)"?', seg)
            cap = re.search(r'\bcapacitance\s*:\s*([\d.eE+-]+)', seg)
            fn = re.search(r'\bfunction\s*:\s*"([^"]*)"', seg)
            mc = re.search(r'max_capacitance\s*:\s*([\d.eE+-]+)', seg)
            pins[pm.group(1)] = {"dir": d.group(1) if d else "input",
                                 "cap": float(cap.group(1)) if cap else 0.0,
                                 "function": fn.group(1).replace(" ", "") if fn else None,
                                 "max_cap": float(mc.group(1)) if mc else None}
        cells[cname] = {"area": float(m.group(1)) if m else 0.0, "pins": pins,
                        "flop": bool(re.search(r"\b(ff|ff_bank)\s*\(", body)),
                        "latch": bool(re.search(r"\blatch\s*\(", body)),
                        "dont_use": bool(DONT_USE.search(cname)), "body": body}
        if cells[cname]["dont_use"]:
            keep.append(text[prev:pos])
            prev = stop
    keep.append(text[prev:])
    synth = os.path.join(workdir, re.sub(r"(\.lib)?(\.gz)?$", "", os.path.basename(path)) + ".synth.lib")
    with open(synth, "w") as f:
        f.write("".join(keep))

    usable = {c: v for c, v in cells.items() if not v["dont_use"]}
    nand2 = {c: v["area"] for c, v in usable.items() if re.search(r"nand2(_\d+|_x\d+|x\d+)?$", c, re.I)}
    if not nand2:
        die(f"no NAND2 cell in {path} to define a gate equivalent")
    ge_cell = min(nand2, key=nand2.get)

    def single(c, fn):
        ins = [p for p, v in c["pins"].items() if v["dir"] == "input"]
        outs = [v for v in c["pins"].values() if v["dir"] == "output"]
        return len(ins) == 1 and len(outs) == 1 and outs[0]["function"] in (fn(ins[0]), f"({fn(ins[0])})")

    # Smallest non-clock buffer and inverter (clock-tree cells are left to CTS).
    bufs = [c for c, v in usable.items() if not re.search(r"clk", c, re.I) and single(v, lambda a: a)]
    invs = [c for c, v in usable.items() if not re.search(r"clk", c, re.I) and single(v, lambda a: "!" + a)]
    if not bufs or not invs:
        die(f"liberty {path} has no plain buffer or inverter cell")
    buf = min(bufs, key=lambda c: (usable[c]["area"], c))
    inv = min(invs, key=lambda c: (usable[c]["area"], next(p["cap"] for p in usable[c]["pins"].values()
                                                           if p["dir"] == "input"), c))
    return {"path": path, "name": name, "synth_path": synth, "cells": cells,
            "areas": {c: v["area"] for c, v in cells.items()},
            "flops": {c for c, v in cells.items() if v["flop"] or v["latch"]},
            "ge_cell": ge_cell, "ge_area": nand2[ge_cell], "buffer": buf, "inverter": inv,
            "fo4_ns": fo4_ns(usable[inv], inv)}


def fo4_ns(cell, name):
    """FO4 delay: the inverter driving four copies of itself, input slew equal
    to its own output slew (iterated), mean of rise and fall (NLDM, no wire)."""
    a = next(p for p, v in cell["pins"].items() if v["dir"] == "input")
    y = next(p for p, v in cell["pins"].items() if v["dir"] == "output")
    body = cell["body"]
    ypos = re.search(r'\bpin\s*\(\s*"?' + y + r'"?\s*\)', body).end()
    tabs = {k: _table(body[ypos:], k) for k in ("cell_rise", "cell_fall", "rise_transition", "fall_transition")}
    if any(t is None for t in tabs.values()):
        die(f"{name}: no NLDM delay tables to compute the FO4 delay")
    load = 4 * cell["pins"][a]["cap"]
    slew = 0.0
    for _ in range(50):
        slew = 0.5 * (_interp(tabs["rise_transition"], slew, load) + _interp(tabs["fall_transition"], slew, load))
    return 0.5 * (_interp(tabs["cell_rise"], slew, load) + _interp(tabs["cell_fall"], slew, load))


# ---- netlist ----

_INST = re.compile(r"^  (\S+) (\S+(?: )?) \(\n(.*?)\n  \);\n", re.M | re.S)
_PIN = re.compile(r"\.(\w+)\(([^()]*)\)")


class Netlist:
    """A flat single-module netlist of liberty cells."""

    def __init__(self, path, lib):
        self.lib = lib
        text = open(path).read()
        insts = list(_INST.finditer(text))
        if not insts:
            die(f"{path}: no cell instances")
        self.head = text[:insts[0].start()]
        self.tail = text[insts[-1].end():]
        self.inputs = set(n.strip() for n in re.findall(r"^  input (.*?);", self.head, re.M))
        self.outputs = set(n.strip() for n in re.findall(r"^  output (.*?);", self.head, re.M))
        self.alias = {}  # assign lhs = rhs: lhs is a load of rhs
        for lhs, rhs in re.findall(r"^  assign (.*?) = (.*?);", self.tail, re.M):
            self.alias[lhs.strip()] = rhs.strip()
        self.cells = []  # [type, name, {pin: net}]
        for m in insts:
            ctype = m.group(1)
            if ctype not in lib["cells"]:
                die(f"{path}: cell {ctype} is not in the liberty")
            self.cells.append([ctype, m.group(2).strip(), {p: n.strip() for p, n in _PIN.findall(m.group(3))}])
        self.new_wires = []

    def _dir(self, ctype, pin):
        p = self.lib["cells"][ctype]["pins"].get(pin)
        return p["dir"] if p else "input"

    def drivers_and_loads(self):
        drv, loads = {}, collections.defaultdict(list)
        for i, (ctype, _, pins) in enumerate(self.cells):
            for p, n in pins.items():
                if self._dir(ctype, p) == "output":
                    drv[n] = (i, p)
                else:
                    loads[n].append((i, p))
        return drv, loads

    def buffer(self, skip=()):
        """Splits every net with more than MAX_FANOUT cell loads into a tree
        of the liberty's smallest buffer. Returns the number of buffers."""
        bcell = self.lib["buffer"]
        bin_ = next(p for p, v in self.lib["cells"][bcell]["pins"].items() if v["dir"] == "input")
        bout = next(p for p, v in self.lib["cells"][bcell]["pins"].items() if v["dir"] == "output")
        drv, loads = self.drivers_and_loads()
        added = 0
        for net in list(loads):
            if net in skip or (net not in drv and net not in self.inputs):
                continue
            dcell = self.lib["cells"][self.cells[drv[net][0]][0]] if net in drv else None
            if dcell and not any(v["dir"] == "input" for v in dcell["pins"].values()):
                continue  # tie cell: a constant needs no buffering
            level = loads[net]
            while len(level) > MAX_FANOUT:
                nxt = []
                for k in range(0, len(level), MAX_FANOUT):
                    added += 1
                    w = f"_fobuf_{added}_"
                    self.new_wires.append(w)
                    for ci, p in level[k:k + MAX_FANOUT]:
                        self.cells[ci][2][p] = w
                    self.cells.append([bcell, f"_fobuf_inst_{added}_", {bin_: net, bout: w}])
                    nxt.append((len(self.cells) - 1, bin_))
                level = nxt
        return added

    def write(self, path):
        with open(path, "w") as f:
            f.write(self.head)
            for w in self.new_wires:
                f.write(f"  wire {w};\n")
            for ctype, name, pins in self.cells:
                # An escaped identifier ends at whitespace.
                conns = ",\n".join(f"    .{p}({n}{' ' if n.startswith(chr(92)) else ''})" for p, n in pins.items())
                f.write(f"  {ctype} {name} (\n{conns}\n  );\n")
            f.write(self.tail)

    def counts(self):
        return collections.Counter(c[0] for c in self.cells)

    def cones(self, skip=(), sources=None):
        """Area by endpoint: each flop is charged to its register (Q net name
        without bit indices), each combinational cell to the set of registers
        and output ports whose input cone holds it. With sources ({class:
        [register or input-port names]}) a cell also records the classes in
        its fan-in. Returns {(frozenset(groups), frozenset(classes)):
        {"flops": n, "flop_area": um2, "logic_area": um2}}."""
        lib = self.lib
        drv, loads = self.drivers_and_loads()
        is_flop = [lib["cells"][c[0]]["flop"] or lib["cells"][c[0]]["latch"] for c in self.cells]
        group, gid = {}, {}

        def bit(g):
            if g not in gid:
                gid[g] = len(gid)
            return 1 << gid[g]

        def base(n):
            return re.sub(r"(\[\d+\])+$", "", n.lstrip("\\").strip())

        def outs(i):
            return [n for p, n in self.cells[i][2].items() if self._dir(self.cells[i][0], p) == "output"]

        for i in range(len(self.cells)):
            if is_flop[i]:
                named = [n for n in outs(i) if not re.fullmatch(r"_\w*_", n)]
                group[i] = base(named[0]) if named else "(unnamed flops)"
        sink = collections.defaultdict(int)  # output-port nets
        for o in self.outputs:
            sink[self.alias.get(o, o)] |= bit(base(o))
        # Reverse topological order over combinational cells (Kahn on fanout).
        comb = [i for i in range(len(self.cells)) if not is_flop[i]]
        outnets = {i: outs(i) for i in comb}
        pending = {i: sum(1 for n in outnets[i] for (j, _) in loads.get(n, ()) if not is_flop[j]) for i in comb}
        ready = [i for i in comb if pending[i] == 0]
        mask, order = {}, []
        while ready:
            i = ready.pop()
            order.append(i)
            m = 0
            for n in outnets[i]:
                m |= sink.get(n, 0)
                for j, _ in loads.get(n, ()):
                    m |= bit(group[j]) if is_flop[j] else mask[j]
            mask[i] = m
            ctype, _, pins = self.cells[i]
            for p, n in pins.items():
                if self._dir(ctype, p) == "output" or n in skip or n not in drv:
                    continue
                j = drv[n][0]
                if not is_flop[j]:
                    pending[j] -= 1
                    if pending[j] == 0:
                        ready.append(j)
        if len(mask) != len(comb):
            die("combinational loop in the netlist: cannot attribute area to cones")
        # Source classes, forward in topological order.
        classes = list(sources or {})
        cbit = {g: 1 << k for k, c in enumerate(classes) for g in sources[c]}
        net_src = {n: cbit.get(base(n), 0) for n in self.inputs}
        for i in range(len(self.cells)):
            if is_flop[i]:
                for n in outs(i):
                    net_src[n] = cbit.get(group[i], 0)
        src = {}
        for i in reversed(order):
            ctype, _, pins = self.cells[i]
            m = 0
            for p, n in pins.items():
                if self._dir(ctype, p) != "output":
                    m |= net_src.get(n, 0)
            src[i] = m
            for n in outnets[i]:
                net_src[n] = m
        names = {b: g for g, b in gid.items()}
        out = collections.defaultdict(lambda: {"flops": 0, "flop_area": 0.0, "logic_area": 0.0})
        for i, (ctype, _, _) in enumerate(self.cells):
            a = lib["areas"][ctype]
            if is_flop[i]:
                e = out[(frozenset([group[i]]), frozenset())]
                e["flops"] += 1
                e["flop_area"] += a
            else:
                m = mask[i]
                key = frozenset(names[k] for k in range(m.bit_length()) if m >> k & 1) or frozenset(["(no endpoint)"])
                cls = frozenset(classes[k] for k in range(len(classes)) if src[i] >> k & 1)
                out[(key, cls)]["logic_area"] += a
        return dict(out)
