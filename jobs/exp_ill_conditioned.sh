#!/usr/bin/env bash
#SBATCH --job-name=adasketch-exp-ill
#SBATCH --ntasks=1
#SBATCH --time=01:00:00
#SBATCH --output=exp_ill_conditioned.%j.out
# docs/experiments.md, "Ill-conditioned synthetic data": SON paper §5.1 and Fig. 1. d = 100,
# T = 10,000, x = g + Q diag(λ_i − 1)^{1/2} z, spectrum 1 on d − 10 directions and rising linearly to
# κ on the last 10 (a random orthonormal basis), y = sign(θᵀx); one dataset per κ ∈ {10, 20, …, 200},
# all from the same seed (`synthetic:ill-conditioned:kappa=K`). Squared loss, one pass, and the
# final progressive error (online mistakes / T) of Oja-SON with m = 0, 5, 10 and of ADA-DIAG, each at
# its best parameter (the paper's rule: "report the best results"; the progressive error is measured
# on the training stream itself).
#
#   bash jobs/exp_ill_conditioned.sh [LABEL ...]   (or sbatch; LABELs: oja-son-m0 oja-son-m5
#                                                  oja-son-m10 ada-diag, the default all four)
#
# Grids (jobs/grid.py; OUT/kappaK/LABEL, one JSON report per point, a rerun keeps what is done):
#   Oja-SON   α ∈ 2^j, j ∈ ALPHA_EXPONENTS (default 0 2 4 … 18; the paper's 2^{−3..6} is too small for
#             these unnormalized features, ‖x‖² ≈ 100–1100: below α ≈ 2^9 the step 1/α overshoots);
#             Γ_t = I/t (the paper's), C = 1, σ = 1/(8C²) = 0.125 and η_t = 0 (SON §2: the squared
#             loss is σ-exp-concave on |wᵀx| ≤ C, and then η_t = 0).
#             The sketch's sparse form (--form sparse): the dense form of the Oja sketch breaks down on
#             these rows (docs/experiments.md); the two forms are the same algorithm.
#   ADA-DIAG  η ∈ 2^j, j ∈ ETA_EXPONENTS (default −14 −12 … 4), δ ∈ DELTAS (1e-4 1 100).
# Cost at 1 rank: about 0.5 s a point (mostly the start of the process), 1,200 points, about 11 min.
#
# Environment: OUT (default results/exp_ill_conditioned), NP (default 1), KAPPAS (default 10 20 … 200),
# ADASKETCH_BIN (jobs/lib/env.sh), ALPHA_EXPONENTS, ETA_EXPONENTS, DELTAS.
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
out="${OUT:-$here/results/exp_ill_conditioned}"
np="${NP:-${SLURM_NTASKS:-1}}"
kappas="${KAPPAS:-$(seq -s ' ' 10 10 200)}"
powers() { local s=""; for j in $1; do s+="$(awk -v j="$j" 'BEGIN { printf "%.17g ", 2 ^ j }')"; done; echo "$s"; }
alphas=$(powers "${ALPHA_EXPONENTS:-$(seq -s ' ' 0 2 18)}")
etas=$(powers "${ETA_EXPONENTS:-$(seq -s ' ' -14 2 4)}")
deltas="${DELTAS:-1e-4 1 100}"
labels=("$@")
[ ${#labels[@]} -gt 0 ] || labels=(oja-son-m0 oja-son-m5 oja-son-m10 ada-diag)
py=/usr/bin/python3
[ -x "$py" ] || py=python3

for kappa in $kappas; do
  data="synthetic:ill-conditioned:d=100,n=10000,kappa=$kappa,ill=10,seed=1"
  for label in "${labels[@]}"; do
    case $label in
      oja-son-m0) args=(--vary "alpha0=$alphas" -- --algo oja-son --ell 0 --sigma 0.125 --eta 0 --C 1) ;;
      oja-son-m*) args=(--vary "alpha0=$alphas" -- --algo oja-son --ell "${label#oja-son-m}" --form sparse
                        --sigma 0.125 --eta 0 --C 1) ;;
      ada-diag) args=(--vary "eta=$etas" --vary "delta=$deltas" -- --algo ada-diag) ;;
      *) echo "exp_ill_conditioned.sh: unknown label '$label'" >&2; exit 2 ;;
    esac
    echo "kappa = $kappa, $label: $("$py" "$here/jobs/grid.py" --out "$out/kappa$kappa/$label" --np "$np" \
      "${args[@]}" --loss squared --data "$data" | tail -n 1)"
  done
done
echo
"$py" "$here/jobs/tables.py" ill --results "$out"
