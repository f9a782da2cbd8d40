#!/usr/bin/env bash
#SBATCH --job-name=adasketch-exp-comp
#SBATCH --ntasks=1
#SBATCH --time=01:30:00
#SBATCH --output=exp_comp_adagrad.%j.out
# docs/experiments.md, "CompAdaGrad": the CompAdaGrad paper's §5 "MNIST 4 vs 9" experiment on the
# repository's USPS digits 4 vs 9 (jobs/usps_kernel.py: Gaussian-kernel values against 400 random
# prototypes, 200 per class: dense, correlated features, d = 400; 1,296 training and 377 test
# examples; written to results/data/ when missing). Logistic loss (the paper does not name its loss),
# one pass in file order, composite φ = λ₂/2‖w‖² (the paper's squared ℓ2 regularizer), δ_r = δ_c = δ.
# Each learner's η, δ, λ₂ (and τ) are chosen by the fewest online mistakes on the training stream (the
# paper's rule: "the lowest online zero-one loss"), and its test error reported. Then the ℓ1 variant
# (φ = λ₁‖w‖₁) for a range of λ₁: at each λ₁ the point of a small grid with the fewest online
# mistakes, its nonzero weights against its test accuracy.
#
#   bash jobs/exp_comp_adagrad.sh [LABEL ...]     (or sbatch; LABELs: ada-diag comp-adagrad-k25
#                                                 comp-adagrad-k64 comp-adagrad-k256 ada-full)
#
# Grids (jobs/grid.py; OUT/LABEL and OUT/l1-LABEL, one JSON report per point, a rerun keeps them):
#   comp-adagrad k = 25, 64   η ∈ {1e-2, 1e-1, 1, 10, 100}, δ ∈ {1e-3, 1e-1, 10}, τ ∈ {1, 10, …, 1e6},
#                             λ₂ ∈ {0, 1e-5, 1e-4, 1e-3, 1e-2}: 525 points, about 1 s each
#   comp-adagrad k = 256      coarser (an eigendecomposition of the 256 × 256 block per example,
#                             11–17 s a run): η ∈ {1e-1, 1, 10, 100}, δ ∈ {1e-3, 1e-1}, τ ∈ {10,
#                             100, …, 1e5}, λ₂ ∈ {0, 1e-4}: 80 points, about 15 min
#   ada-diag                  η ∈ {1e-3, …, 10}, δ ∈ {1e-3, 1e-1, 10}, λ₂ as above: 75 points
#   ada-full                  η ∈ {1e-2, …, 10}, δ ∈ {1e-3, 1e-1, 10} (no φ: ADA-FULL takes φ = 0),
#                             12 points of about 30 s; it needs the exact learners (until they are
#                             built its row shows "not run"; rerunning the same command fills it)
#   ℓ1 variant                λ₁ ∈ LAMBDA1S (1e-4 1e-3 3e-3 1e-2 1.5e-2 2e-2 3e-2 0.1) × η ∈ {0.1, 1,
#                             10} × δ ∈ {0.1, 1, 10} (× τ ∈ {1, 10, 100}), λ₂ = 0, for ada-diag and
#                             k = 25, 64 (k = 256 is left out for its cost), in OUT/l1-LABEL. Points
#                             where CompAdaGrad's LASSO step fails to converge count as failed.
# Cost at 1 rank: about 45 min in all.
#
# Environment: OUT (default results/exp_comp_adagrad), NP (default 1), LAMBDA1S, ADASKETCH_BIN (jobs/lib/env.sh).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
out="${OUT:-$here/results/exp_comp_adagrad}"
np="${NP:-${SLURM_NTASKS:-1}}"
lambda1s="${LAMBDA1S:-1e-4 1e-3 3e-3 1e-2 1.5e-2 2e-2 3e-2 0.1}"
labels=("$@")
[ ${#labels[@]} -gt 0 ] || labels=(ada-diag comp-adagrad-k25 comp-adagrad-k64 comp-adagrad-k256 ada-full)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
train="$here/results/data/usps49_kernel.svm" test="$here/results/data/usps49_kernel.t.svm"
[ -f "$train" ] && [ -f "$test" ] || "$py" "$here/jobs/usps_kernel.py" --out "$here/results/data"
data=(--loss logistic --data "$train" --test "$test" --dim 400)

for label in "${labels[@]}"; do
  l1=()
  case $label in
    comp-adagrad-k256)
      vary=(--vary "eta=1e-1 1 10 100" --vary "delta=1e-3 1e-1" --vary "tau=10 100 1000 1e4 1e5" --vary "lambda2=0 1e-4")
      fixed=(--algo comp-adagrad --ell 256) ;;
    comp-adagrad-k*)
      vary=(--vary "eta=1e-2 1e-1 1 10 100" --vary "delta=1e-3 1e-1 10" --vary "tau=1 10 100 1000 1e4 1e5 1e6"
            --vary "lambda2=0 1e-5 1e-4 1e-3 1e-2")
      fixed=(--algo comp-adagrad --ell "${label#comp-adagrad-k}")
      l1=(--vary "lambda1=$lambda1s" --vary "eta=1e-1 1 10" --vary "delta=1e-1 1 10" --vary "tau=1 10 100") ;;
    ada-diag)
      vary=(--vary "eta=1e-3 1e-2 1e-1 1 10" --vary "delta=1e-3 1e-1 10" --vary "lambda2=0 1e-5 1e-4 1e-3 1e-2")
      fixed=(--algo ada-diag)
      l1=(--vary "lambda1=$lambda1s" --vary "eta=1e-1 1 10" --vary "delta=1e-1 1 10") ;;
    ada-full)
      vary=(--vary "eta=1e-2 1e-1 1 10" --vary "delta=1e-3 1e-1 10")
      fixed=(--algo ada-full) ;;
    *) echo "exp_comp_adagrad.sh: unknown label '$label'" >&2; exit 2 ;;
  esac
  echo "$label: $("$py" "$here/jobs/grid.py" --out "$out/$label" --np "$np" "${vary[@]}" -- "${fixed[@]}" "${data[@]}" |
    tail -n 1)"
  if [ ${#l1[@]} -gt 0 ]; then
    echo "$label, l1: $("$py" "$here/jobs/grid.py" --out "$out/l1-$label" --np "$np" "${l1[@]}" -- "${fixed[@]}" \
      "${data[@]}" | tail -n 1)"
  fi
done
echo
"$py" "$here/jobs/tables.py" comp --results "$out"
