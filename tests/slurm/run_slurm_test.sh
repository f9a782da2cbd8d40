#!/usr/bin/env bash
# A one-node SLURM on this machine (munged, slurmctld, slurmd as root, everything in a temporary
# directory) running the job scripts as a user would (docs/slurm.md, "The SLURM test"):
#   (a) sbatch --wait jobs/rfd_figure1.sbatch from another directory (one small file, ℓ ∈ {5, 10}): exit
#       status 0, its lines, its reports and its three outputs (CSV, PNG, Markdown);
#   (b) srun --mpi=pmix -n 2 adasketch train: one run on 2 ranks (the report says 2);
#   (c) jobs/train_resumable.slurm stopped by SIGTERM to its step (scancel --signal=TERM), requeued by
#       itself, resumed: its model equals (b)'s uninterrupted run byte for byte;
#   (d) the same job with --signal=TERM@50, a 1-minute limit and --no-requeue: SIGTERM from SLURM's
#       timer, a checkpoint and exit status 75;
#   (e) sbatch --wait jobs/tune.sbatch: exit status 0, its table;
#   (f) jobs/grid.py --jobs 2 in a job, from a loop over a here-document: every grid runs.
# Usage: run_slurm_test.sh ADASKETCH_BINARY. Needs root; daemons that do not start fail the test.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export ADASKETCH_BIN
ADASKETCH_BIN=$(readlink -f "${1:?usage: run_slurm_test.sh ADASKETCH_BINARY}")
source "$repo/jobs/mpi_env.sh"

fail() { echo "slurm test: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (it starts slurmctld and slurmd); configure with -DADASKETCH_TEST_SLURM=OFF to leave it out"
for c in munged slurmctld slurmd sbatch srun scontrol scancel sinfo; do
  command -v "$c" >/dev/null || fail "$c not found: bash jobs/setup.sh installs slurm-wlm and munge"
done

work=$(mktemp -d /tmp/adasketch-slurm.XXXXXX)
pids=()
logs() {
  local f
  for f in "$work"/munged.log "$work"/slurmctld.log "$work"/slurmd.log; do
    [ -f "$f" ] && { echo "---- $f (last 60 lines)"; tail -n 60 "$f"; }
  done
}
finish() {
  local status=$?
  [ "$status" -eq 0 ] || logs >&2
  if [ ${#pids[@]} -gt 0 ]; then
    # Jobs first (slurmctld retries a job's RPCs to a stopped slurmd for minutes), then the daemons.
    scancel --full --quiet --user root 2>/dev/null || true
    for _ in $(seq 30); do
      [ -z "$(squeue -h -o %i 2>/dev/null || true)" ] && break
      sleep 1
    done
    kill "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 20); do
      alive=0
      for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
      [ "$alive" = 0 ] && break
      sleep 1
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap finish EXIT
trap 'echo "slurm test: FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR

# munge with its own key and socket, so that a system munged (if any) plays no part.
mkdir -m 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --socket="$work/munge/socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" --seed-file="$work/munge/seed" >/dev/null 2>&1 &
pids+=($!)

host=$(hostname -s)
node=$(slurmd -C | sed -n 's/^NodeName=[^ ]* //p')  # CPUs, sockets, cores, threads, RealMemory
[ -n "$node" ] || fail "slurmd -C printed no node line"
port=$((20000 + $$ % 20000))
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=adasketch-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket,cred_expire=10
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
mkdir -p "$work/state" "$work/spool"
slurmctld -D -i >/dev/null 2>&1 &
pids+=($!)
slurmd -D >/dev/null 2>&1 &
pids+=($!)

for _ in $(seq 60); do
  [ "$(sinfo -h -N -o %t 2>/dev/null || true)" = idle ] && break
  sleep 1
done
[ "$(sinfo -h -N -o %t 2>/dev/null || true)" = idle ] || fail "the node is not idle after 60 s: $(sinfo -N 2>&1 || true)"
echo "slurm test: node $host idle ($(srun --version))"

# (a) A job script submitted from another directory, with the binary from ADASKETCH_BIN.
gzip -dc "$repo/tests/data/a9a.gz" | awk "NR <= 2000" >"$work/a9a2k.svm"
mkdir "$work/submit"
cd "$work/submit"
status=0
OUT="$work/rfd" RESULTS="$work/tables" DATA="$work/a9a2k.svm" ELLS="5 10" \
  sbatch --wait --quiet --ntasks=2 "$repo/jobs/rfd_figure1.sbatch" || status=$?
out=$(ls rfd_figure1.*.out)
[ "$status" -eq 0 ] || fail "(a) sbatch --wait jobs/rfd_figure1.sbatch: exit status $status; its output: $(cat "$out")"
rows=$(awk '$1 == "a9a2k.svm" && NF == 5 && $3 ~ /^(5|10)$/ && $4 > 0 && $4 < 1' "$out" | wc -l)
reports=$(ls "$work"/rfd/a9a2k.svm/*.np2.json | wc -l)
[ "$rows" -eq 8 ] && [ "$reports" -eq 8 ] || fail "(a) expected 8 lines and 8 reports, got $rows and $reports: $(cat "$out")"
for f in csv png md; do
  [ -s "$work/tables/rfd_figure1/rfd_figure1.$f" ] || fail "(a) no $work/tables/rfd_figure1/rfd_figure1.$f: $(cat "$out")"
done
[ "$(grep -c '^| a9a2k.svm | ' "$work/tables/rfd_figure1/rfd_figure1.md")" -eq 2 ] ||
  fail "(a) the Markdown table has not 2 rows: $(cat "$work/tables/rfd_figure1/rfd_figure1.md")"
echo "slurm test: (a) sbatch --wait jobs/rfd_figure1.sbatch from $PWD: exit 0, 8 lines, 8 reports, CSV, PNG and table"

# (b) srun --mpi=pmix: one run of 2 ranks, enough passes for (c) to stop it mid-run.
value() { awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }
gzip -dc "$repo/tests/data/a9a.gz" | awk "NR <= 4000" >"$work/a9a4k.svm"
train=(--algo fast-ada-fd --ell 10 --data "$work/a9a4k.svm" --dim 123)
srun --mpi=pmix -n 2 "$ADASKETCH_BIN" train "${train[@]}" --report "$work/one.json" >/dev/null
[ "$(value "$work/one.json" ranks)" = 2 ] || fail "(b) srun --mpi=pmix -n 2: the report says $(value "$work/one.json" ranks) ranks"
passes=$(awk -v s="$(value "$work/one.json" seconds)" 'BEGIN { p = int(8 / (s + 1e-3)) + 1; print (p > 2000 ? 2000 : p) }')
train+=(--passes "$passes")
srun --mpi=pmix -n 2 "$ADASKETCH_BIN" train "${train[@]}" --model "$work/ref.model" --report "$work/ref.json" >/dev/null
echo "slurm test: (b) srun --mpi=pmix -n 2 adasketch train: 2 ranks, $passes passes in $(value "$work/ref.json" seconds) s"

# (c) The resumable job: SIGTERM to its step after the first checkpoint, a requeue, a resumed run.
job=$(CHECKPOINT="$work/resumable.ckpt" EVERY=500 sbatch --parsable --ntasks=2 "$repo/jobs/train_resumable.slurm" \
  "${train[@]}" --model "$work/resumed.model")
out="$work/submit/train_resumable.$job.out"
state() { scontrol show job "$job" | sed -n 's/^ *JobState=\([A-Z_]*\).*/\1/p'; }
running() { case $(state) in PENDING | RUNNING | REQUEUED | CONFIGURING | COMPLETING | "") return 0 ;; esac; return 1; }
for _ in $(seq 120); do
  [ -f "$work/resumable.ckpt" ] || ! running && break
  sleep 0.5
done
[ -f "$work/resumable.ckpt" ] || fail "(c) job $job wrote no checkpoint (state $(state)): $(cat "$out")"
scancel --signal=TERM "$job"
for _ in $(seq 240); do
  running || break
  sleep 0.5
done
[ "$(state)" = COMPLETED ] || fail "(c) job $job is $(state): $(cat "$out")"
restarts=$(scontrol show job "$job" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')
for line in "stopped by SIGTERM after example" "train_resumable: stopped before the time limit; requeueing job $job" \
  "train_resumable: resuming from $work/resumable.ckpt (restart 1)" "train_resumable: done"; do
  grep -qF "$line" "$out" || fail "(c) no '$line' in the job's output: $(cat "$out")"
done
[ "$restarts" = 1 ] || fail "(c) job $job restarted $restarts times, not once"
cmp "$work/ref.model" "$work/resumed.model" || fail "(c) the resumed model differs from the uninterrupted run's"
echo "slurm test: (c) job $job: SIGTERM, $(grep -o 'stopped by SIGTERM after example [0-9]* of pass [0-9/]*' "$out"), requeued, resumed: the model equals the uninterrupted run's"
# (d) SLURM's own timer: --signal=TERM@50 with a 1-minute limit signals the step at slurmctld's first
# time-limit check (every 30 s) after 10 s; not requeueable, the script exits 75.
status=0
CHECKPOINT="$work/timed.ckpt" EVERY=0 sbatch --wait --quiet --ntasks=2 --no-requeue --time=1 --signal=TERM@50 \
  --output="$work/timed.out" "$repo/jobs/train_resumable.slurm" \
  --algo fast-ada-fd --ell 10 --data "$work/a9a4k.svm" --dim 123 --passes 2000 || status=$?
[ "$status" = 75 ] || fail "(d) sbatch --wait --signal=TERM@50: exit status $status, not 75: $(cat "$work/timed.out")"
for line in "stopped by SIGTERM after example" "train_resumable: stopped; run it again with CHECKPOINT=$work/timed.ckpt"; do
  grep -qF "$line" "$work/timed.out" || fail "(d) no '$line' in the job's output: $(cat "$work/timed.out")"
done
[ -f "$work/timed.ckpt" ] || fail "(d) no checkpoint $work/timed.ckpt"
echo "slurm test: (d) --signal=TERM@50 --time=1: $(grep -o 'stopped by SIGTERM after example [0-9]* of pass [0-9/]*' "$work/timed.out"), exit 75"
# (e) adasketch tune in one allocation: jobs/tune.sbatch's two grids on two groups of one rank.
status=0
OUT="$work/tune" RESULTS="$work/results" sbatch --wait --quiet --ntasks=2 --output="$work/tune.out" \
  "$repo/jobs/tune.sbatch" || status=$?
[ "$status" = 0 ] || fail "(e) sbatch --wait jobs/tune.sbatch: exit status $status: $(cat "$work/tune.out")"
grep -q "adasketch tune: 49 configurations, 2 groups of 1 rank" "$work/tune.out" &&
  [ "$(grep -c '^| ADA-DIAG\|^| FD-SON' "$work/results/tune/tune.md")" = 2 ] ||
  fail "(e) jobs/tune.sbatch: no grid on 2 groups or no table: $(cat "$work/tune.out")"
echo "slurm test: (e) sbatch --wait jobs/tune.sbatch: 70 configurations on 2 groups, $work/results/tune/tune.md"
# (f) jobs/grid.py inside an allocation, called from a loop over a here-document (as the jobs do): two
# points at a time as `srun --exact` steps, and srun must not eat the loop's input (every grid runs).
cat >"$work/grids.sh" <<SCRIPT
#!/usr/bin/env bash
set -euo pipefail
while read -r eta; do
  /usr/bin/python3 "$repo/jobs/grid.py" --out "$work/grids/eta=\$eta" --jobs 2 --vary delta=0.1,1 -- \\
    --algo ada-diag --eta "\$eta" --data "$work/a9a2k.svm" --dim 123 --quiet
done <<'ETAS'
0.01
0.1
1
ETAS
SCRIPT
status=0
sbatch --wait --quiet --ntasks=2 --output="$work/grids.out" "$work/grids.sh" || status=$?
[ "$status" = 0 ] || fail "(f) sbatch --wait of a grid.py loop: exit status $status: $(cat "$work/grids.out")"
[ "$(ls "$work"/grids/eta=*/delta=*.json | wc -l)" = 6 ] && grep -q -- "--exact -n 1" "$work/grids/eta=1/delta=1.log" ||
  fail "(f) expected 6 reports of srun --exact steps (3 grids of 2 points): $(ls -R "$work/grids"; cat "$work/grids.out")"
echo "slurm test: (f) grid.py --jobs 2 in a here-document loop: 3 grids of 2 points as srun --exact steps"
echo "slurm test: passed"
