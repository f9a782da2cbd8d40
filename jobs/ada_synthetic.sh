#!/usr/bin/env bash
#SBATCH --job-name=adasketch-ada-synthetic
#SBATCH --ntasks=1
#SBATCH --time=02:00:00
#SBATCH --output=ada_synthetic.%j.out
# ADA-FD paper §4.1 (and ADA-GP/DP paper §4.1): online regression with the absolute loss
# f_t(β) = |βᵀx_t − y_t|, y_t = β*ᵀx_t, d = 500, T = 10,000, x_t ~ N(μ1, Σ), λ_j(Σ) = λ₀ j^{−α} with
# λ₀ = 100, α = 2, μ = 1; τ = ℓ = 10. η and δ over {1e-4, …, 100}, each algorithm at its lowest
# final cumulative loss Σ_t f_t(β_t) (jobs/grid_ada_diag.sh). One JSON report per run under OUT.
#
#   bash jobs/ada_synthetic.sh [ALGO ...]   (default: ada-fd ada-diag ada-fd-da ada-diag-da)
#
# The data are `--data synthetic:low-rank-regression:d=500,n=10000,lambda0=100,decay=2,mean=1,seed=SEED`
# (adasketch::make_low_rank_regression, generated on the fly by every run, the same examples at any
# rank count; `adasketch generate --data SPEC --out FILE` writes them to a file).
# Environment: OUT (default results/ada_synthetic), NP ranks (default 1), ELL (default 10),
# SEED (default 1), DATA (another data file or spec instead).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
out="${OUT:-$here/results/ada_synthetic}"
np="${NP:-${SLURM_NTASKS:-1}}"
ell="${ELL:-10}"
seed="${SEED:-1}"
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=(ada-fd ada-diag ada-fd-da ada-diag-da)
mkdir -p "$out"
data="${DATA:-synthetic:low-rank-regression:d=500,n=10000,lambda0=100,decay=2,mean=1,seed=$seed}"

summary=()
for algo in "${algos[@]}"; do
  log="$out/$algo.txt"
  bash "$here/jobs/grid_ada_diag.sh" --algo "$algo" --loss absolute --data "$data" --test "" --dim "" \
    --np "$np" --out "$out/$algo" -- --ell "$ell" | tee "$log"
  summary+=("$algo: $(grep '^chosen' "$log")")
done
echo
echo "$data, absolute loss, ell = $ell, $np rank(s):"
printf '  %s\n' "${summary[@]}"
