#!/usr/bin/env bash
#SBATCH --job-name=adasketch-son-a9a
#SBATCH --ntasks=2
#SBATCH --time=00:30:00
#SBATCH --output=son_a9a.%j.out
# RFD paper §5.2 (Table 2, Figure 2) on a9a: one pass over a9a in file order, then the test accuracy on
# a9a.t, for RFD-SON and FD-SON (ℓ = 20) over α₀ ∈ {1e-10, 1e-5, 1, 10}: RFD-SON should be robust to
# α₀ (the paper reports 83.94% with the best α₀), FD-SON is not. Squared loss ℓ(p, y) = (p − y)² on
# the ±1 labels, K_t = {w : |wᵀx_t| ≤ C = 1}; accuracy is that of sign(wᵀx).
#
# The other hyperparameters are fixed for every α₀ and sketch: σ = 1/(8C²) = 0.125 (SON §2: the
# curvature of the squared loss on |wᵀx|, |y| ≤ C) and η_t = η/t with η = 100 (RFD paper Alg. 5:
# η_t = O(1/t)). The scale η and the schedule were chosen on a small grid — σ ∈ {0, 0.01, 0.03, 0.125},
# η ∈ {1, 10, 100, 1000}, η_t ∈ {η, η/t, η/√t}, fast RFD-SON — as the setting with the smallest
# worst-case (over α₀) online loss, a training-only criterion: `GRID=1 bash jobs/son_a9a.sh` reruns it.
# SIGMA=, ETA=, SCHEDULE= and ALPHAS= override the setting of the main table.
#
# Run under SLURM (sbatch jobs/son_a9a.sh) or directly (bash jobs/son_a9a.sh): srun inside an
# allocation, mpirun otherwise. One JSON report per run in $OUT (default results/son_a9a).
# With the squared loss on ±1 labels, `adasketch train` reports sign mistakes and the sign accuracy.
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
bin=$ADASKETCH_BIN
train="${TRAIN:-$here/tests/data/a9a.gz}"
test="${TEST:-$here/tests/data/a9a.t.gz}"
out="${OUT:-$here/results/son_a9a}"
ranks="${SLURM_NTASKS:-2}"
ell="${ELL:-20}"
mkdir -p "$out"

# run ALGO ALPHA0 SIGMA ETA SCHEDULE → one table row
run() {
  local algo=$1 a0=$2 sigma=$3 eta=$4 sched=$5
  local name="$out/$algo.ell$ell.a$a0.s$sigma.e$eta.$sched.np$ranks"
  launch "$ranks" "$bin" train --algo "$algo" --loss squared --ell "$ell" --alpha0 "$a0" --C 1 --scale none \
    --sigma "$sigma" --eta "$eta" --eta-schedule "$sched" --data "$train" --test "$test" --dim 123 \
    --report "$name.json" >/dev/null
  local acc mean_loss spe
  acc=$(awk -F'[:,]' '/"test_accuracy"/ {printf "%.4f", 100 * $2; exit}' "$name.json")
  mean_loss=$(awk -F'[:,]' '/"mean_loss"/ {print $2; exit}' "$name.json")
  spe=$(awk -F'[:,]' '/"seconds_per_example"/ {print $2; exit}' "$name.json")
  printf '%-13s %6s %6s %6s %-10s %9s %12.6g %12.4g\n' "$algo" "$a0" "$sigma" "$eta" "$sched" "$acc" "$mean_loss" "$spe"
}

printf '%-13s %6s %6s %6s %-10s %9s %12s %12s\n' algorithm alpha0 sigma eta schedule test_acc% online_loss s/example
if [ "${GRID:-0}" = 1 ]; then
  # Every setting for every α₀, then per setting the worst online loss and the worst test accuracy.
  for sigma in 0 0.01 0.03 0.125; do
    for eta in 1 10 100 1000; do
      for sched in constant inv-t inv-sqrt-t; do
        for a0 in 1e-10 1e-5 1 10; do run "${GRID_ALGO:-fast-rfd-son}" "$a0" "$sigma" "$eta" "$sched"; done
      done
    done
  done | tee "$out/grid.txt"
  echo "worst over alpha0 (sorted by online loss):"
  awk '{k="sigma="$3" eta="$4" schedule="$5; if (!(k in L) || $7 > L[k]) L[k]=$7; if (!(k in A) || $6 < A[k]) A[k]=$6}
       END {for (k in L) printf "  %-36s online_loss %-10.6g test_acc %s\n", k, L[k], A[k]}' \
    "$out/grid.txt" | sort -g -k5 | head -8
else
  # α₀ ∈ {1e-10, 1e-5, 1, 10} is the RFD paper's robustness claim; 1e2..1e4 show where FD-SON recovers.
  for algo in rfd-son fast-rfd-son fd-son fast-fd-son; do
    for a0 in ${ALPHAS:-1e-10 1e-5 1 10 100 1000 10000}; do
      run "$algo" "$a0" "${SIGMA:-0.125}" "${ETA:-100}" "${SCHEDULE:-inv-t}"
    done
  done
fi
