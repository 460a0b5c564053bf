#!/usr/bin/env bash
# ctest campaign_slurm: brings up Slurm on localhost (munged, slurmctld and
# slurmd, all as the current user, from a slurm.conf written into a
# temporary directory), runs a 20-run campaign with --backend slurm as one
# job array, and checks that all 20 results reach the store through the
# array tasks. Exit 77 (skipped) only when the Slurm or munge programs are
# missing or the daemons do not come up; anything else that goes wrong fails.
#   regress/slurm_campaign_test.sh RELGPU_BIN
set -u
bin=$1
export PATH=$PATH:/usr/sbin:/sbin
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relgpu-slurm-XXXXXX")
chmod 700 "$tmp"

logs() {
  for f in "$tmp"/*.log "$tmp"/runs.db.spool/sub-*/logs/*; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
  done
}
stop() {
  SLURM_CONF=$tmp/slurm.conf scancel --quiet --user "$(id -un)" 2>/dev/null
  for p in slurmd slurmctld munged; do
    [ -f "$tmp/$p.pid" ] && kill "$(cat "$tmp/$p.pid")" 2>/dev/null
  done
  sleep 0.5
  rm -rf "$tmp"
}
trap stop EXIT
skip() { echo "SKIPPED: $*"; logs; exit 77; }
fail() { echo "FAILED: $*"; logs; exit 1; }

for p in munged mungekey slurmctld slurmd sbatch squeue scancel sinfo; do
  command -v "$p" >/dev/null || skip "'$p' not found: install Debian's slurm-wlm and munge (scripts/setup.sh does)"
done

# munge, with its own key and socket.
mungekey --create --keyfile="$tmp/munge.key" || skip "mungekey could not create a key"
chmod 600 "$tmp/munge.key"
munged --force --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" || skip "munged did not start"

# Two free TCP ports for the daemons.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
host=$(hostname -s 2>/dev/null || hostname)
user=$(id -un)
mkdir -p "$tmp/state" "$tmp/slurmd"
: > "$tmp/plugstack.conf"
cat > "$tmp/slurm.conf" <<EOF
ClusterName=relgpu-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/slurmd
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=relgpu-node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=1024 State=UNKNOWN
PartitionName=test Nodes=relgpu-node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -i || skip "slurmctld did not start"
slurmd -N relgpu-node || skip "slurmd did not start"
up=""
for _ in $(seq 1 60); do
  [ "$(sinfo -h -n relgpu-node -o %t 2>/dev/null)" = idle ] && { up=1; break; }
  sleep 0.5
done
[ -n "$up" ] || skip "the Slurm node did not come up in 30 s"

# 20 runs: 10 workloads x 2 seeds, in 4 array tasks of 5.
cat > "$tmp/spec.json" <<'EOF'
{"name": "slurm20", "defaults": {"size": "small", "mode": "functional", "timeout_s": 120},
 "runs": [{"name": "r", "sweep": {"workload": ["bfs", "histogram", "hotspot", "kmeans", "matmul", "nbody", "pathfinder",
                                               "reduce", "scan", "vecops"], "seed": [1, 2]}}]}
EOF
store=$tmp/runs.db
"$bin" campaign run "$tmp/spec.json" --store "$store" --backend slurm --chunk 5 --mem 200M --time 10 --poll 0.5 \
  > "$tmp/campaign.log" 2>&1
rc=$?
cat "$tmp/campaign.log"
[ $rc -eq 0 ] || fail "relgpu campaign run --backend slurm exited $rc"
grep -q "submitted Slurm job [0-9]*: 20 runs in 4 array tasks of up to 5" "$tmp/campaign.log" ||
  fail "no job array submitted"

python3 - "$store" <<'EOF' || fail "the store does not hold the 20 results"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT status, verdict, job, stats FROM runs").fetchall()
assert len(rows) == 20, f"{len(rows)} rows"
assert all(r[0] == "done" and r[1] == "pass" for r in rows), rows
tasks = {r[2].split("_")[1] for r in rows}
assert tasks == {"0", "1", "2", "3"}, f"array tasks {tasks}"
assert all('"gpu_sim_insn"' in r[3] for r in rows)
print(f"20 runs done through array tasks {sorted(tasks)}")
EOF
"$bin" campaign status "$store" | grep -q "20 runs: 20 done" || fail "campaign status disagrees"
[ ! -d "$store.spool/sub-1" ] || fail "the finished submission's spool was left behind"
echo "PASSED"
