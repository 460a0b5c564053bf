"""Runs one validation program under an installed GPGPU-Sim and parses what it
prints: shared by scripts/correlate (cycles and memory counters) and
scripts/power_correlate (GPUWattch's power). GPGPU-Sim is built outside this
repository; nothing here builds or changes it."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import time

CONFIG_DIR = "configs/tested-cfgs/SM2_GTX480"
CONFIG_FILES = ("gpgpusim.config", "config_fermi_islip.icnt")
POWER_XML = "gpuwattch_gtx480.xml"


def lib_dir(d):
    for root, _, files in os.walk(os.path.join(d, "lib")):
        if "libcudart.so" in files:
            return root
    raise SystemExit(f"no lib/**/libcudart.so under {d}: is GPGPU-Sim built there?")


def run(d, build, cuda, prog, changes, extra_env=None, power=False):
    """Runs build/regress/validation/PROG in a fresh directory holding GPGPU-Sim's
    shipped GTX480 config with CHANGES appended (later options win). power: also
    copy its GPUWattch XML and return the power report it writes.
    Returns (stdout, wall seconds, power report text or None)."""
    binary = os.path.join(build, "regress/validation", prog)
    cfgdir = os.path.join(d, CONFIG_DIR)
    with tempfile.TemporaryDirectory() as tmp:
        for f in CONFIG_FILES + ((POWER_XML,) if power else ()):
            shutil.copy(os.path.join(cfgdir, f), tmp)
        with open(os.path.join(tmp, "gpgpusim.config"), "a") as f:
            f.write("\n" + "\n".join(changes) + "\n")
        # GPGPU-Sim runs $CUDA_INSTALL_PATH/bin/cuobjdump and ptxas on the
        # program; the other three are what its setup_environment exports.
        env = dict(os.environ, LD_LIBRARY_PATH=lib_dir(d) + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
                   CUDA_INSTALL_PATH=cuda, CUOBJDUMP_SIM_FILE="jj", PTX_SIM_USE_PTX_FILE="1.ptx",
                   PTX_SIM_KERNELFILE="_1.ptx", **(extra_env or {}))
        t0 = time.time()
        r = subprocess.run([binary], cwd=tmp, env=env, capture_output=True, text=True)
        wall = time.time() - t0
        report = None
        if power:
            logs = glob.glob(os.path.join(tmp, "gpgpusim_power_report__*.log"))
            if len(logs) == 1:
                with open(logs[0]) as f:
                    report = f.read()
    if r.returncode != 0 or f"{prog}: PASS" not in r.stdout:
        raise RuntimeError(f"GPGPU-Sim on {prog} failed (exit {r.returncode}):\n{r.stdout[-3000:]}{r.stderr[-1000:]}")
    if power and report is None:
        raise RuntimeError(f"GPGPU-Sim on {prog} wrote no single power report (is it built with GPUWattch?)")
    return r.stdout, wall, report


CUMULATIVE = {"l1_accesses": "L1D_total_cache_accesses", "l1_misses": "L1D_total_cache_misses",
              "l2_accesses": "L2_total_cache_accesses", "l2_misses": "L2_total_cache_misses"}


def dram_totals(chunk):
    """DRAM bytes read and written, summed over the channels' n_rd= /
    n_write= / n_wr_bk= counters of one kernel's printout: a read or write
    request moves one 32-B sector, an L2 write-back one 64-B atom (2 per
    line: a full-line write-back of the bw_write kernel counts 2)."""
    rd = wr = 0
    for m in re.finditer(r"n_rd=(\d+) .*?n_write=(\d+) n_wr_bk=(\d+)", chunk):
        rd += 32 * int(m.group(1))
        wr += 32 * int(m.group(2)) + 64 * int(m.group(3))
    return rd, wr


def parse(out, wall):
    """Per-kernel records from GPGPU-Sim's stdout. Cache and DRAM totals are
    printed cumulatively after each kernel: per-kernel values are differences."""
    version = re.search(r"GPGPU-Sim Simulator Version ([^\s]+)", out)
    chunks = re.split(r"\nkernel_name = ", out)[1:]
    launches, prev = [], {k: 0 for k in list(CUMULATIVE) + ["dram_reads", "dram_writes"]}
    for c in chunks:
        rec = {"kernel": c.split()[0], "cycles": int(re.search(r"gpu_sim_cycle = (\d+)", c).group(1)),
               "thread_insn": int(re.search(r"gpu_sim_insn = (\d+)", c).group(1))}
        totals = {k: int(m.group(1)) if (m := re.search(re.escape(name) + r" = (\d+)", c)) else 0
                  for k, name in CUMULATIVE.items()}
        totals["dram_reads"], totals["dram_writes"] = dram_totals(c)
        for k, v in totals.items():
            rec[k] = v - prev[k] if v >= prev[k] else v
            prev[k] = v
        launches.append(rec)
    rate = re.findall(r"gpgpu_simulation_rate = (\d+) \(inst/sec\)", out)
    return {"wall_s": wall, "version": version.group(1) if version else "unknown",
            "sim_rate_inst_per_s": int(rate[-1]) if rate else None, "launches": launches}
