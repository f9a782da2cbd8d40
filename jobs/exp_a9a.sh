#!/usr/bin/env bash
#SBATCH --job-name=adasketch-exp-a9a
#SBATCH --ntasks=1
#SBATCH --time=02:00:00
#SBATCH --output=exp_a9a.%j.out
# docs/experiments.md, "a9a": the RFD paper's Table 2 (§5.2). Squared loss f_t(w) = (wᵀx_t − y_t)² on
# the ±1 labels, K_t = {w : |wᵀx_t| ≤ C = 1}, one pass in file order, the test accuracy of sign(wᵀx).
# Two splits: the paper's, 70% of a9a for training and the rest for test (jobs/a9a_split.py, a seeded
# permutation, written to results/data/ when missing), and a9a → a9a.t. Learners: ADA-DIAG, FULL-ON
# and FD-, RP-, Oja-, RFD-SON with m ∈ {5, 10, 20}, the SON variants with and without SON §5.2's
# diagonal rescaling (--diag-rescale).
#
#   bash jobs/exp_a9a.sh [ALGO ...]     (or sbatch; default: ada-diag full-on fd-son rp-son oja-son rfd-son)
#
# Grids (jobs/grid.py; OUT/SPLIT/NAME with NAME = ada-diag, full-on, fd-son-m5, fd-son-m5-rescaled, …;
# one JSON report per point, a rerun keeps what is done):
#   SON variants and FULL-ON   α₀ ∈ {1e-10, 1e-9, …, 1e10} (the paper's grid); σ = 1/(8C²) = 0.125 and
#                              η_t = 100/t, chosen for jobs/son_a9a.sh on the a9a training stream
#   ADA-DIAG                   η, δ ∈ {1e-4, …, 100}, the same squared loss
# Each grid's point is the one with the fewest online mistakes on its training stream (the paper
# picks "the best α₀"; here the test set plays no part in the choice).
# Cost at 1 rank: about 1 s a point (0.4–3 s), 1,106 points, about 22 min.
# FULL-ON comes with the exact learners (a build with ScaLAPACK and the `full-on` learner): until then
# its rows show "not run", and rerunning the same command fills them in.
#
# Environment: OUT (default results/exp_a9a), NP (default 1), SPLITS (default "split70 a9a"), ELLS
# (default "5 10 20"), RESCALE (default "0 1"), ALPHAS, ETAS, DELTAS, ADASKETCH_BIN (jobs/lib/env.sh).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
out="${OUT:-$here/results/exp_a9a}"
np="${NP:-${SLURM_NTASKS:-1}}"
splits="${SPLITS:-split70 a9a}"
ells="${ELLS:-5 10 20}"
rescale="${RESCALE:-0 1}"
alphas="${ALPHAS:-$(for e in $(seq -10 10); do printf '1e%d ' "$e"; done)}"
grid10="1e-4 1e-3 1e-2 1e-1 1 10 100"
etas="${ETAS:-$grid10}" deltas="${DELTAS:-$grid10}"
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=(ada-diag full-on fd-son rp-son oja-son rfd-son)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
[ -f "$here/results/data/a9a_70.svm" ] && [ -f "$here/results/data/a9a_30.svm" ] ||
  "$py" "$here/jobs/a9a_split.py" --out "$here/results/data"
son=(--loss squared --C 1 --sigma 0.125 --eta 100 --eta-schedule inv-t)

# grid SPLIT NAME GRID.PY-ARGUMENTS...: one grid, its chosen point on one line.
grid() {
  local split=$1 name=$2
  shift 2
  case $split in
    split70) local data=(--data "$here/results/data/a9a_70.svm" --test "$here/results/data/a9a_30.svm") ;;
    a9a) local data=(--data "$here/tests/data/a9a.gz" --test "$here/tests/data/a9a.t.gz") ;;
    *) echo "exp_a9a.sh: unknown split '$split' (split70 or a9a)" >&2; exit 2 ;;
  esac
  echo "$split, $name: $("$py" "$here/jobs/grid.py" --out "$out/$split/$name" --np "$np" "$@" "${data[@]}" --dim 123 |
    tail -n 1)"
}

for split in $splits; do
  for algo in "${algos[@]}"; do
    case $algo in
      ada-diag) grid "$split" ada-diag --vary "eta=$etas" --vary "delta=$deltas" -- --algo ada-diag --loss squared ;;
      full-on) grid "$split" full-on --vary "alpha0=$alphas" -- --algo full-on "${son[@]}" ;;
      *-son)
        for m in $ells; do
          for r in $rescale; do
            if [ "$r" = 1 ]; then name="$algo-m$m-rescaled" flag=(--diag-rescale); else name="$algo-m$m" flag=(); fi
            grid "$split" "$name" --vary "alpha0=$alphas" -- --algo "$algo" --ell "$m" "${son[@]}" "${flag[@]}"
          done
        done ;;
      *) echo "exp_a9a.sh: unknown algorithm '$algo'" >&2; exit 2 ;;
    esac
  done
done
echo
"$py" "$here/jobs/tables.py" a9a --results "$out"
