"""Derived numbers and the markdown report for scripts/area.

Rules (written down here and in every report; our estimates, not the papers'):
- Gate equivalents (GE): area / area of the liberty's smallest NAND2, the
  node-independent area. FO4: critical path / the liberty's FO4 delay (its
  smallest inverter driving four copies of itself), the node-independent delay.
- Area at a paper's node L: GE x NAND2 area at L, taking NAND2_X1 of the
  NanGate FreePDK45 Open Cell Library (0.798 um^2 at 45 nm) and ideal
  scaling (L/45)^2. Real 28-40 nm cells shrink less than L^2 (wire pitch and
  cell height), so these areas are on the low side.
- Delay at L: FO4 count x 0.36 ps per nm of L (the FO4 rule of thumb in
  Horowitz et al., "Scaling, power, and the future of CMOS", IEDM 2005; the
  simulator's vf.fo4_ps uses the same rule).
- SRAM per bit at L: a 160 F^2 6T cell (published Intel 45/32 nm and TSMC 28 nm
  cells are 162-171 F^2) over a 50% array efficiency, 320 F^2.
"""
import math

NAND2_ANCHOR_UM2, NAND2_ANCHOR_NM = 0.798, 45
FO4_PS_PER_NM = 0.36
SRAM_F2_PER_BIT = 320.0

# Each block's GPU (clock, node) and what its paper states. "claims" are the
# paper's own figures only; "paths" are input-to-output paths that the claims
# time (OpenSTA port globs).
PAPER = {
    "patching_unit": {
        "source": "Tan dissertation Ch6 (GR-Guard)",
        "clock_mhz": 700.0, "clock_from": "Table 6.1: 15 SMs at 700 MHz",
        "node_nm": 28, "node_from": "area with CACTI 6.5 and delays with HSPICE at 28 nm",
        "claims": ["storage 2.629 KB per SM",
                   "0.063 mm^2 per SM at 28 nm: CACTI 6.5 storage plus logic priced at 4x the storage",
                   "selection: a tree of 4-input arbiters over 1K inputs, 0.105 ns, plus 0.018 ns to update "
                   "Index and Patch; modelled as 1 cycle (1.42 ns at 700 MHz)",
                   "map read on every access: +0.0027 ns, 0 cycles"],
        "area_mm2": 0.063,
        "paths": [("map read: rd_row_i -> rd_kind/mask/tgt", "rd_row_i*", "rd_kind_o* rd_mask_o* rd_tgt_o*"),
                  ("selection: wr_row_i -> wr_tgt/kind/retry", "wr_row_i*", "wr_tgt_o* wr_kind_o* wr_retry_o*")],
    },
    "bank_org_table": {
        "source": "Tan et al., TPDS 2016 (PV/NBTI register file)",
        "clock_mhz": 700.0,
        "clock_from": "the paper states no clock; 700 MHz is the GPGPU-Sim GTX 480 configuration it builds on "
                      "(configs/fermi_16bank.json), our assumption",
        "node_nm": 32, "node_from": "overheads from HSPICE at 32 nm",
        "claims": ["PV-opt (16-entry BOT, latches, busy/overflow gates): +0.000691 mm^2, +0.00019 ns access latency",
                   "NBTI-opt (8-entry renaming table and control): +0.002 mm^2, +0.00059 ns",
                   "the BOT is SRAM, read in the register-read stage; its latency is negligible"],
        "area_mm2": 0.000691 + 0.002,
        "paths": [("translation: lk_bank_i -> sub-bank ids and speeds", "lk_bank_i*",
                   "lk_sba_o* lk_sbb_o* lk_spd_o*"),
                  ("FWAS: fw_bank_i -> fw_fast_o", "fw_bank_i*", "fw_fast_o*")],
    },
    "loscache_table": {
        "source": "Tan dissertation Ch7 (LoSCache)",
        "clock_mhz": 1400.0, "clock_from": "Table 7.1: 1.4 GHz",
        "node_nm": 40, "node_from": "area with CACTI 6.5 at 40 nm",
        "claims": ["prediction table 21 x 63 b = 165 B per LD/ST unit",
                   "0.449 mm^2 chip-wide at 40 nm (CACTI 6.5, logic = 3x storage), with the 6-bit count "
                   "per L2 line",
                   "lookup: +1 cycle, hidden behind address generation"],
        "paths": [("lookup: lookup_pc_i -> hit and prediction", "lookup_pc_i*",
                   "lookup_hit_o* lookup_pred_o* lookup_entry_o*")],
    },
    "droop_predictor": {
        "source": "Leng, GPU voltage-guardband thesis §4.5 (local droop predictor)",
        "clock_mhz": 700.0, "clock_from": "Ch4 simulation setup: GTX 480 in GPGPU-Sim, 15 SMs at 700 MHz",
        "node_nm": 40, "node_from": "the GTX 480 is a 40 nm part (thesis GPU table); the thesis gives the "
                                    "predictor no area or delay",
        "claims": ["a prediction every cycle from a 4-entry power history; first-order droops need a response "
                   "within 10 cycles",
                   "no area, flop count or delay is stated"],
        "paths": [("prediction: event counts -> throttle", "n_*", "droop_o throttle_dispatch_o throttle_rf_o")],
    },
}

# Components of a block for the area breakdown: (name, what, register or
# output-port names), the endpoints of scripts/area_netlist.Netlist.cones
# (Yosys may name a register after a wire that aliases it: f_cnt = nf_q/2).
COMPONENTS = {
    "patching_unit": [
        ("Index map", "1,024 x 12 b, valid bit apart", ["index_mem_q"]),
        ("Dead, Patch, Index-valid maps", "3 x 1,024 b and their next state", ["dead_mem_q", "patch_mem_q",
                                                                              "ivalid_mem_q"]),
        ("Faulty map", "8 x 1,024 b, test-ROM write port", ["faulty_mem_q"]),
        ("spill lines", "32 b and the spill-way flag", ["spill_mem_q", "spill_active_o"]),
        ("read ports", "4 x (lookup, redirect)", ["rd_kind_o", "rd_mask_o", "rd_tgt_o"]),
        ("write ports and selection", "4 x lookup; one candidate filter and arbiter tree",
         ["wr_kind_o", "wr_mask_o", "wr_tgt_o", "wr_retry_o"]),
    ],
    "bank_org_table": [
        ("BOT", "16 x 12 b table, write port, re-organization writes, hybrid swaps", ["bot_mem_q"]),
        ("renaming table", "8 x 16 x 4 b table, fill at block dispatch", ["rt_mem_q"]),
        ("translation ports", "8 x (RT read, BOT read, busy), stall", ["lk_vb_o", "lk_sba_o", "lk_sbb_o",
                                                                     "lk_spd_o", "lk_busy_o", "stall_o"]),
        ("FWAS ports", "2 x (RT read, fast bit), fast-bank count", ["fw_fast_o", "nfast_o"]),
        ("sensor sorter", "32 sensor codes, taken mask, sort/swap FSM", ["code_q", "thr_q", "nslow_q", "taken_q",
                                                                       "k_q", "nf_q", "f_cnt", "prev_q", "nhyb_q",
                                                                       "h_cnt", "st_q", "reorg_busy_o"]),
    ],
}
# What the logic of a component depends on: {class: register or input-port
# names}; a cell's classes are those in its fan-in (the split of a row below).
SOURCES = {
    "bank_org_table": {"write port": ["we_i", "widx_i", "wdata_i"],
                       "sorter picks": ["code_q", "taken_q", "k_q", "prev_q", "thr_q", "nslow_q"],
                       "hybrid swaps": ["nhyb_q", "h_cnt", "nf_q", "f_cnt"]},
}
SPLIT = {"bank_org_table": "BOT"}  # the component whose logic is split by SOURCES
# The BOT against the paper's two increments (PV-opt, NBTI-opt; issue 15).
BOT_PAPER = [("PV-opt: BOT, latches, busy gates", 0.000691, 0.00019),
             ("NBTI-opt: renaming table and control", 0.002, 0.00059)]
SHARED_ROW_MIN = 0.01  # shared-logic combinations below this share are summed


def nand2_um2(node_nm):
    return NAND2_ANCHOR_UM2 * (node_nm / NAND2_ANCHOR_NM) ** 2


def fo4_ns(node_nm):
    return FO4_PS_PER_NM * node_nm / 1000.0


def sram_um2_per_bit(node_nm):
    f_um = node_nm / 1000.0
    return SRAM_F2_PER_BIT * f_um * f_um


def cycles(ns, clock_mhz):
    return max(1, math.ceil(ns * clock_mhz / 1000.0 - 1e-9))


def components(name, b):
    """Cone entries summed per component (logic shared by several is its own
    row), and the SPLIT component's logic by source classes."""
    spec = COMPONENTS[name]
    where = {g: comp for comp, _, groups in spec for g in groups}
    zero = {"flops": 0, "flop_area": 0.0, "logic_area": 0.0}
    rows = {comp: dict(zero) for comp, _, _ in spec}
    split = {}
    for c in b["cones"]:
        owners = sorted({where.get(g, "other: " + g) for g in c["groups"]})
        key = owners[0] if len(owners) == 1 else "shared: " + " + ".join(owners)
        r = rows.setdefault(key, dict(zero))
        for k in r:
            r[k] += c[k]
        if key == SPLIT.get(name) and c["logic_area"]:
            cls = " + ".join(c.get("sources", [])) or "none of these"
            split[cls] = split.get(cls, 0.0) + c["logic_area"]
    small = {k: v for k, v in rows.items() if k.startswith("shared: ")
             and v["flop_area"] + v["logic_area"] < SHARED_ROW_MIN * b["area_um2"]}
    if small:
        rest = dict(zero)
        for k, v in small.items():
            del rows[k]
            for f in rest:
                rest[f] += v[f]
        rows[f"shared: {len(small)} other combinations"] = rest
    # Components in spec order, then the rest by area.
    order = [c for c, _, _ in spec] + sorted((k for k in rows if k not in where.values()),
                                             key=lambda k: (k.endswith(" other combinations"),
                                                            -(rows[k]["flop_area"] + rows[k]["logic_area"])))
    return {k: rows[k] for k in order}, split


def finish(report):
    """Adds the per-node estimates, the storage view and the breakdowns."""
    ge, fo4 = report["ge_um2"], report["fo4_ns"]
    for name, b in report["blocks"].items():
        per_flop = b["flop_area_um2"] / b["flops"] if b["flops"] else 0.0
        b["storage_flops_um2"] = b["storage_bits"] * per_flop
        b["logic_um2"] = b["area_um2"] - b["storage_flops_um2"]
        if name in COMPONENTS:
            b["components"], b["component_split"] = components(name, b)
        p = PAPER.get(name)
        if not p:
            continue
        L = p["node_nm"]
        k_area, k_delay = nand2_um2(L) / ge, fo4_ns(L) / fo4
        crit = b["critical_path_ns"] * k_delay
        b["at_node"] = {
            "node_nm": L,
            "clock_mhz": p["clock_mhz"],
            "nand2_um2": nand2_um2(L),
            "fo4_ps": fo4_ns(L) * 1000.0,
            "area_mm2": b["area_um2"] * k_area / 1e6,
            "logic_mm2": b["logic_um2"] * k_area / 1e6,
            "sram_mm2": b["storage_bits"] * sram_um2_per_bit(L) / 1e6,
            "critical_path_ns": crit,
            "latency_cycles": cycles(crit, p["clock_mhz"]),
            "paths_ns": {k: v * k_delay for k, v in b.get("paths_ns", {}).items()},
        }
        b["at_node"]["area_storage_as_sram_mm2"] = b["at_node"]["logic_mm2"] + b["at_node"]["sram_mm2"]


def _f(x, nd=3):
    return "-" if x is None else f"{x:,.{nd}f}"


def _sig(x):
    """Three significant figures, for mm^2 that span 1e-4 .. 1e-1."""
    return f"{x:.3g}" if x else "0"


def markdown(r):
    ge, fo4 = r["ge_um2"], r["fo4_ns"]
    B = r["blocks"]
    mins = r.get("wall_s", 0) / 60.0
    lines = [f"# RTL block area and timing ({r['params']} parameters)", "",
             f"Liberty: `{r['liberty']}` (`{r['library']}`). 1 GE = `{r['ge_cell']}` = {ge:.4f} um^2; "
             f"1 FO4 = `{r['fo4_cell']}` driving four copies of itself = {fo4 * 1000:.1f} ps (NLDM tables, no "
             "wire). Synthesis: Yosys `synth -flatten`, dfflibmap + abc to the liberty without its dont-use "
             "cells (Yosys's default ABC script without `&dch -f`), then buffer trees of "
             f"`{r['buffer_cell']}` on every net of more than {r['max_fanout']} loads. Timing: OpenSTA at each "
             f"block's GPU clock, inputs driven by `{r['buffer_cell']}` at 0 ns, outputs loaded with "
             f"{r['output_load_pf'] * 1000:.0f} fF at 0 ns, reset excluded, the liberty's default wire load. "
             f"Run time: {mins:.1f} min wall.", "",
             "## Node-independent and at SKY130", "",
             "| block | GPU clock MHz | area kGE | area um^2 | cells | of them buffers | flops | storage bits "
             "| critical path ns | FO4 | logic depth | latency cycles |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, b in B.items():
        lines.append(f"| {n} | {b['clock_mhz']:.0f} | {_f(b['area_kge'])} | {_f(b['area_um2'], 0)} | {b['cells']:,} "
                     f"| {b['buffers']:,} | {b['flops']:,} | {b['storage_bits']:,} | {_f(b['critical_path_ns'])} "
                     f"| {_f(b['critical_path_fo4'], 1)} | {b['logic_depth']} | {b['latency_cycles']} |")
    lines += ["", "latency cycles: clock cycles of the block's own GPU that its slowest flop-to-flop or "
              "port path spans (1: fits in one cycle). logic depth: cells on that path other than buffers.", ""]
    nodes = [(n, b) for n, b in B.items() if "at_node" in b]
    if nodes:
        lines += ["## At the paper's node (our estimate)", "",
                  f"Area = GE x NAND2 area at the node: NanGate FreePDK45 NAND2_X1, {NAND2_ANCHOR_UM2} um^2 at "
                  f"{NAND2_ANCHOR_NM} nm, scaled by (L/{NAND2_ANCHOR_NM})^2 (ideal scaling; real 28-40 nm cells "
                  "shrink less, so these areas are on the low side). Delay = FO4 count x FO4 at the node, "
                  f"{FO4_PS_PER_NM} ps per nm (Horowitz et al., IEDM 2005 rule of thumb). Storage as SRAM: "
                  f"{SRAM_F2_PER_BIT:.0f} F^2 per bit (a 160 F^2 6T cell at 50% array efficiency) for the "
                  "`*_mem_q` bits, the rest of the block as synthesized.", "",
                  "| block | node nm | NAND2 um^2 | FO4 ps | area mm^2 | with storage as SRAM mm^2 "
                  "| critical path ns | GPU clock MHz | latency cycles |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for n, b in nodes:
            s = b["at_node"]
            lines.append(f"| {n} | {s['node_nm']} | {s['nand2_um2']:.3f} | {s['fo4_ps']:.1f} | {_sig(s['area_mm2'])} "
                         f"| {_sig(s['area_storage_as_sram_mm2'])} | {_f(s['critical_path_ns'])} "
                         f"| {s['clock_mhz']:.0f} | {s['latency_cycles']} |")
        lines += ["", "GPU clocks and nodes:", ""]
        for n, b in nodes:
            p = PAPER[n]
            lines.append(f"- {n}: {p['source']}. Clock: {p['clock_from']}. Node: {p['node_from']}.")
        lines += ["", "## Named paths", "",
                  "Input port to output port, combinational (the blocks answer in the cycle of the request).", "",
                  "| block | path | ns at SKY130 | FO4 | ns at the paper's node | share of a GPU cycle there |",
                  "|---|---|---:|---:|---:|---:|"]
        for n, b in nodes:
            for k, v in b.get("paths_ns", {}).items():
                at = b["at_node"]["paths_ns"][k]
                lines.append(f"| {n} | {k} | {_f(v)} | {v / fo4:.1f} | {_f(at)} "
                             f"| {at * b['at_node']['clock_mhz'] / 1000.0:.2f} |")
        lines += ["", "## Against the papers", "",
                  "Paper figures only where the paper states them.", "",
                  "| block | the paper states | ours at the paper's node |", "|---|---|---|"]
        for n, b in nodes:
            s = b["at_node"]
            ours = (f"{b['flops']:,} flops, {b['storage_bits']:,} storage bits ({b['storage_bits'] / 8:,.0f} B); "
                    f"{_sig(s['area_mm2'])} mm^2 all flops, {_sig(s['area_storage_as_sram_mm2'])} mm^2 with storage "
                    f"as SRAM; slowest path {_f(s['critical_path_ns'])} ns = {s['latency_cycles']} cycle(s) at "
                    f"{s['clock_mhz']:.0f} MHz")
            claims = "; ".join(PAPER[n]["claims"])
            if PAPER[n].get("area_mm2"):
                ours += f"; area / paper = {s['area_mm2'] / PAPER[n]['area_mm2']:.1f}x all flops, " \
                        f"{s['area_storage_as_sram_mm2'] / PAPER[n]['area_mm2']:.1f}x with SRAM"
            lines.append(f"| {n} | {claims} | {ours} |")
    for n, b in B.items():
        if "components" not in b:
            continue
        at = b.get("at_node")
        k = (at["nand2_um2"] / ge / 1e6) if at else None
        what = {name: w for name, w, _ in COMPONENTS[n]}
        lines += ["", f"## {n}: area by component", "",
                  "Each flop is charged to its register; each other cell to the registers and output ports "
                  "whose input cone holds it; logic in the cones of several components is a row of its own. "
                  "Buffers count with the logic they drive.", "",
                  "| component | what | flops | flops kGE | logic kGE | total kGE | share |" +
                  (f" mm^2 at {at['node_nm']} nm |" if at else ""),
                  "|---|---|---:|---:|---:|---:|---:|" + ("---:|" if at else "")]
        for name, c in b["components"].items():
            t = c["flop_area"] + c["logic_area"]
            if t == 0:
                continue
            lines.append(f"| {name} | {what.get(name, '')} | {c['flops']:,} | {c['flop_area'] / ge / 1000:.2f} | "
                         f"{c['logic_area'] / ge / 1000:.2f} | {t / ge / 1000:.2f} | {100 * t / b['area_um2']:.1f}% |"
                         + (f" {_sig(t * k)} |" if at else ""))
        split = b.get("component_split")
        if split:
            part = SPLIT[n]
            tot = sum(split.values())
            lines += ["", f"The {part} row's logic by what it depends on (its fan-in holds these and no other "
                      "of: " + ", ".join(SOURCES[n]) + "):", "",
                      "| depends on | kGE | share of the row's logic |" +
                      (f" mm^2 at {at['node_nm']} nm |" if at else ""),
                      "|---|---:|---:|" + ("---:|" if at else "")]
            for cls, a in sorted(split.items(), key=lambda kv: -kv[1]):
                lines.append(f"| {cls} | {a / ge / 1000:.2f} | {100 * a / tot:.1f}% |" +
                             (f" {_sig(a * k)} |" if at else ""))
        if n == "bank_org_table" and at:
            lines += _bot_vs_paper(b, ge, k, fo4)
    return "\n".join(lines) + "\n"


def _bot_vs_paper(b, ge, k, fo4):
    """The BOT's area as a multiple of the paper's two increments, by component."""
    at, comp = b["at_node"], b["components"]
    paper = sum(mm2 for _, mm2, _ in BOT_PAPER)
    ours = b["area_um2"] * k
    out = ["", f"Against the paper's increments at {at['node_nm']} nm: "
           + " and ".join(f"{lbl} +{mm2} mm^2" for lbl, mm2, _ in BOT_PAPER)
           + f", {paper:.6f} mm^2 together. Ours: {_sig(ours)} mm^2, {ours / paper:.1f}x. Each component's "
           "part of that multiple, and the same with the two tables priced as SRAM:", "",
           "| component | mm^2 | x the paper's total | storage bits | as SRAM mm^2 | x the paper's total, SRAM |",
           "|---|---:|---:|---:|---:|---:|"]
    # Components made of *_mem_q registers only are storage arrays.
    storage = {nm for nm, _, groups in COMPONENTS["bank_org_table"] if all(g.endswith("_mem_q") for g in groups)}
    tot_sram = 0.0
    for name, c in comp.items():
        t = (c["flop_area"] + c["logic_area"]) * k
        if t == 0:
            continue
        bits = c["flops"] if name in storage else 0
        sram = (c["logic_area"] * k + bits * sram_um2_per_bit(at["node_nm"]) / 1e6) if bits else t
        tot_sram += sram
        out.append(f"| {name} | {_sig(t)} | {t / paper:.2f} | {bits or '-'} | {_sig(sram) if bits else '-'} | "
                   f"{sram / paper:.2f} |")
    out.append(f"| total | {_sig(ours)} | {ours / paper:.2f} | | {_sig(tot_sram)} | {tot_sram / paper:.2f} |")
    paths = at.get("paths_ns", {})
    if paths:
        out += ["", "Delay: the paper adds "
                + " and ".join(f"+{ns} ns ({lbl.split(':')[0]})" for lbl, _, ns in BOT_PAPER)
                + " to an RF access. Ours at the paper's node, input port to output port: "
                + "; ".join(f"{p}: {v:.3f} ns ({b['paths_ns'][p] / fo4:.0f} FO4)" for p, v in paths.items()) + "."]
    return out


def check(r):
    """Problems with a report (empty when well-formed)."""
    bad = []
    keys = ["cells", "flops", "storage_bits", "area_kge", "area_um2", "critical_path_ns", "critical_path_fo4",
            "fmax_mhz", "latency_cycles", "clock_mhz"]
    if not r.get("blocks"):
        bad.append("no blocks")
    if not r.get("ge_um2", 0) > 0 or not r.get("fo4_ns", 0) > 0:
        bad.append("no GE area or FO4 delay")
    for n, b in r.get("blocks", {}).items():
        for k in keys:
            v = b.get(k)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or math.isnan(v) or v < 0:
                bad.append(f"{n}.{k} = {v!r}")
        if b.get("cells", 0) <= 0 or b.get("area_um2", 0) <= 0 or b.get("critical_path_ns", 0) <= 0:
            bad.append(f"{n}: empty design or no timing path")
        if b.get("flops", 0) > b.get("cells", 0):
            bad.append(f"{n}: more flops than cells")
        if b.get("storage_bits", 0) > b.get("flops", 0):
            bad.append(f"{n}: more storage bits than flops")
        if abs(b.get("fmax_mhz", 0) * b.get("critical_path_ns", 0) - 1000.0) > 1e-6 * 1000:
            bad.append(f"{n}: fmax and critical path disagree")
        cone_area = sum(c["flop_area"] + c["logic_area"] for c in b.get("cones", []))
        if abs(cone_area - b.get("area_um2", 0)) > 1e-6 * max(1.0, b.get("area_um2", 0)):
            bad.append(f"{n}: cone breakdown ({cone_area:.1f} um^2) does not add up to the area")
        for k, v in b.get("paths_ns", {}).items():
            if not v > 0:
                bad.append(f"{n}: path {k} = {v!r}")
    return bad
