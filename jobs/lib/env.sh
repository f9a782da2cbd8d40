# shellcheck shell=bash
# Sourced by every job script, after `set -euo pipefail` (docs/slurm.md, "Job scripts"). The script
# finds this file next to itself; sbatch runs a copy of the script in its spool directory, so there
# it looks next to the submitted one (the job's Command= in `scontrol show job`) or under
# $ADASKETCH_REPO. Sets:
#   ADASKETCH_REPO                    the repository (exported)
#   ADASKETCH_BIN, ADASKETCH_BENCH_LEARNERS, ADASKETCH_BENCH_SKETCH
#                                     the drivers: the variable when set, else the one on PATH, else
#                                     the repository's build/drivers/ (exported)
#   launch NP CMD...                  runs CMD on NP ranks: $ADASKETCH_LAUNCHER NP CMD... when set
#                                     (e.g. "mpiexec -n"), else `srun --mpi=pmix -n NP` inside an
#                                     allocation and `mpirun --oversubscribe -np NP` outside
#   ADASKETCH_JOB                     the job id, or this shell's PID outside SLURM (checkpoint names)
# and, for Open MPI as root (containers, CI) and one OpenBLAS thread per rank, jobs/mpi_env.sh.
ADASKETCH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export ADASKETCH_REPO
source "$ADASKETCH_REPO/jobs/mpi_env.sh"

# adasketch_find NAME: the driver NAME on PATH, else the repository's build.
adasketch_find() { command -v "$1" || echo "$ADASKETCH_REPO/build/drivers/$1"; }
ADASKETCH_BIN=${ADASKETCH_BIN:-$(adasketch_find adasketch)}
ADASKETCH_BENCH_LEARNERS=${ADASKETCH_BENCH_LEARNERS:-$(adasketch_find adasketch-bench-learners)}
ADASKETCH_BENCH_SKETCH=${ADASKETCH_BENCH_SKETCH:-$(adasketch_find adasketch-bench-sketch)}
export ADASKETCH_BIN ADASKETCH_BENCH_LEARNERS ADASKETCH_BENCH_SKETCH

ADASKETCH_JOB=${SLURM_JOB_ID:-$$}

launch() {
  local np=$1 launcher
  shift
  if [ -n "${ADASKETCH_LAUNCHER:-}" ]; then
    read -r -a launcher <<<"$ADASKETCH_LAUNCHER"
  elif [ -n "${SLURM_JOB_ID:-}" ]; then
    launcher=(srun --mpi=pmix -n)
  else
    launcher=(mpirun --quiet --oversubscribe)
    [ "$(id -u)" -ne 0 ] || launcher+=(--allow-run-as-root)
    launcher+=(-np)
  fi
  "${launcher[@]}" "$np" "$@"
}
