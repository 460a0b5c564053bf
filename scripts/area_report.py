"""Derived numbers and the markdown table for scripts/area.

Models (written down here and in every report):
- Node scaling: ideal constant-field scaling (Dennard et al., IEEE JSSC 1974):
  area ~ L^2, gate delay ~ L, from the liberty's node to 28/32/40/45 nm.
  Real nodes scale worse than ideal (wires, Vdd no longer scaling), so the
  scaled delays are optimistic and the areas a lower bound.
- SRAM per bit: 6T cell of 160 F^2, the size of published 6T cells (Intel
  45 nm 0.346 um^2 = 171 F^2, Intel 32 nm 0.171 um^2 = 167 F^2, TSMC 28 nm HD
  0.127 um^2 = 162 F^2), divided by a 50% array efficiency for small macros
  (decoders, sense amplifiers, I/O), i.e. 320 F^2 per bit.
"""
import math

NODES = [28, 32, 40, 45]
SRAM_F2_PER_BIT = 320.0


def sram_um2_per_bit(node_nm):
    f_um = node_nm / 1000.0
    return SRAM_F2_PER_BIT * f_um * f_um


def finish(report):
    """Adds the SRAM view and the node-scaled estimates to every block."""
    node = report["node_nm"]
    for b in report["blocks"].values():
        per_flop = b["flop_area_um2"] / b["flops"] if b["flops"] else 0.0
        storage_flops_um2 = b["storage_bits"] * per_flop
        b["storage_flops_um2"] = storage_flops_um2
        b["logic_um2"] = b["area_um2"] - storage_flops_um2
        if node:
            b["sram_um2"] = b["storage_bits"] * sram_um2_per_bit(node)
            b["area_um2_storage_as_sram"] = b["logic_um2"] + b["sram_um2"]
            b["scaled"] = {}
            for t in NODES:
                a, d = (t / node) ** 2, t / node
                crit = b["critical_path_ns"] * d
                b["scaled"][str(t)] = {
                    "area_um2": b["area_um2"] * a,
                    "area_um2_storage_as_sram": b["logic_um2"] * a + b["storage_bits"] * sram_um2_per_bit(t),
                    "critical_path_ns": crit,
                    "fmax_mhz": 1000.0 / crit if crit > 0 else None,
                }


# The papers' claims, with why our number differs.
PAPER = {
    "patching_unit": ("2.629 KB storage; 0.063 mm^2 per SM at 28 nm (CACTI plus 4x storage for logic); "
                      "0.105 ns selection", 28,
                      "The paper prices storage with CACTI and adds logic as 4x the storage area; we synthesize "
                      "the logic, which comes to about 11x our SRAM-priced storage: four read and four write ports "
                      "each look up the Index, Faulty, valid and Patch maps (one entry per WRG), and every WRG has "
                      "next-state logic for eight writers. Our storage is 9.5% larger: an Index valid and a "
                      "whole bit per WRG (2,048 bits). "
                      "Delay: the paper's figure is one arbiter stage; ours is the whole flop-to-flop path (map "
                      "lookup, candidate filter, the one-input-per-WRG tree, map update), which a 1.4 GHz design "
                      "would pipeline."),
    "bank_org_table": ("BOT +0.000691 mm^2, renaming +0.002 mm^2; +0.00019 ns and +0.00059 ns at 32 nm", 32,
                       "The paper reports increments over an existing RF pipeline; we report the stand-alone "
                       "block including its registers and ports."),
    "loscache_table": ("165 B table per LD/ST unit; 0.449 mm^2 chip-wide at 40 nm (CACTI 6.5, logic = 3x storage)",
                       40,
                       "The paper's 165 B (21 x 63 b) omits the 2-bit thresholds we store (21 x 65 b = 171 B). "
                       "Its 0.449 mm^2 is chip-wide (15 SMs) and includes the 6-bit count per L2 line (768 KB / 128 B x 6 b = 4.5 KB), which "
                       "is not part of this block. The PC match is a 21-way comparator array, priced here as "
                       "synthesized logic."),
    "droop_predictor": ("about 60 flops and 3 comparators", None,
                        "The thesis counts the history and comparators only; our block also holds the six "
                        "weights, three thresholds and the mask as CSRs, and the weighted sum (six small "
                        "multipliers) dominates the area and the critical path."),
}


def _f(x, nd=3):
    return "-" if x is None else f"{x:.{nd}f}"


def markdown(r):
    node = r["node_nm"]
    lines = [f"# RTL block area ({r['params']} parameters)", "",
             f"Liberty: `{r['liberty']}` (node: {node or 'unknown'} nm). SM clock: {r['clock_mhz']:.0f} MHz "
             f"(period {1000.0 / r['clock_mhz']:.3f} ns). Synthesis: Yosys `synth -flatten`, dfflibmap + abc "
             "to the liberty (Yosys's default ABC script without `&dch -f`); timing: OpenSTA, inputs and "
             "outputs at 0 ns external delay, reset excluded.", "",
             "| block | cells | flops | storage bits | area kGE | area um^2 | logic depth | critical path ns "
             "| fmax MHz | latency cycles |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, b in r["blocks"].items():
        lines.append(f"| {n} | {b['cells']} | {b['flops']} | {b['storage_bits']} | {_f(b['area_kge'])} | "
                     f"{_f(b['area_um2'], 1)} | {b['logic_depth']} | {_f(b['critical_path_ns'])} | "
                     f"{_f(b['fmax_mhz'], 0)} | {b['latency_cycles']} |")
    lines += ["", "latency cycles = SM clock cycles the critical path spans (1: fits in one cycle).", ""]
    if node:
        lines += ["## Storage as flops and as SRAM", "",
                  f"SRAM model: {SRAM_F2_PER_BIT:.0f} F^2 per bit ({sram_um2_per_bit(node):.3f} um^2 at {node} nm): "
                  "a 160 F^2 6T cell (published Intel 45/32 nm and TSMC 28 nm cells are 162-171 F^2) over a 50% "
                  "array efficiency. Storage arrays are the `*_mem_q` registers.", "",
                  "| block | storage bits | as flops um^2 | as SRAM um^2 | block um^2 with SRAM |",
                  "|---|---:|---:|---:|---:|"]
        for n, b in r["blocks"].items():
            lines.append(f"| {n} | {b['storage_bits']} | {_f(b['storage_flops_um2'], 1)} | {_f(b['sram_um2'], 1)} | "
                         f"{_f(b['area_um2_storage_as_sram'], 1)} |")
        lines += ["", "## Scaled to other nodes", "",
                  f"Rule: ideal constant-field scaling from {node} nm (Dennard et al., IEEE JSSC 1974): area x (L/{node})^2, "
                  "delay x L/{0}; SRAM re-priced with the per-bit model at each node. Optimistic: real nodes scale "
                  "worse than ideal.".format(node), "",
                  "| block | node nm | area um^2 (flops) | area um^2 (storage as SRAM) | critical path ns | fmax MHz |",
                  "|---|---:|---:|---:|---:|---:|"]
        for n, b in r["blocks"].items():
            for t, s in b["scaled"].items():
                lines.append(f"| {n} | {t} | {_f(s['area_um2'], 1)} | {_f(s['area_um2_storage_as_sram'], 1)} | "
                             f"{_f(s['critical_path_ns'])} | {_f(s['fmax_mhz'], 0)} |")
        lines += ["", "## Against the papers", "",
                  "| block | paper | ours | why they differ |", "|---|---|---|---|"]
        for n, b in r["blocks"].items():
            if n not in PAPER:
                continue
            claim, pnode, why = PAPER[n]
            ours = f"{b['flops']} flops, {b['storage_bits']} storage bits ({b['storage_bits'] / 8:.0f} B)"
            if pnode:
                s = b["scaled"][str(pnode)]
                ours += (f"; at {pnode} nm: {s['area_um2_storage_as_sram'] / 1e6:.6f} mm^2 (storage as SRAM), "
                         f"{s['area_um2'] / 1e6:.6f} mm^2 (all flops), {s['critical_path_ns']:.3f} ns")
            else:
                ours += f"; {b['area_kge']:.2f} kGE, {b['critical_path_ns']:.3f} ns at {node} nm"
            lines.append(f"| {n} | {claim} | {ours} | {why} |")
    return "\n".join(lines) + "\n"


def check(r):
    """Problems with a report (empty when well-formed)."""
    bad = []
    keys = ["cells", "flops", "storage_bits", "area_kge", "area_um2", "critical_path_ns", "fmax_mhz",
            "latency_cycles"]
    if not r.get("blocks"):
        bad.append("no blocks")
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
    return bad
