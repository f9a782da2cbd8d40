#!/usr/bin/env bash
#SBATCH --job-name=adasketch-ada-a9a
#SBATCH --ntasks=1
#SBATCH --time=01:00:00
#SBATCH --output=ada_a9a.%j.out
# ADA-FD on a9a → a9a.t (d = 123): one pass in file order, logistic loss, ℓ = 20, η and δ over
# {1e-4, …, 100}, the point chosen on the training stream only (fewest online mistakes,
# jobs/grid_ada_diag.sh), its test accuracy reported. One JSON report per run under OUT.
#
#   bash jobs/ada_a9a.sh [ALGO ...]         (default: ada-fd ada-fd-da)
#
# Environment: OUT (default results/ada_a9a), NP ranks (default 1), ELL (default 20), LOSS
# (default logistic), ADASKETCH_BIN and ADASKETCH_LAUNCHER (jobs/lib/env.sh).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
out="${OUT:-$here/results/ada_a9a}"
np="${NP:-${SLURM_NTASKS:-1}}"
ell="${ELL:-20}"
loss="${LOSS:-logistic}"
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=(ada-fd ada-fd-da)
mkdir -p "$out"
summary=()
for algo in "${algos[@]}"; do
  log="$out/$algo.txt"
  bash "$here/jobs/grid_ada_diag.sh" --algo "$algo" --loss "$loss" --data "$here/tests/data/a9a.gz" \
    --test "$here/tests/data/a9a.t.gz" --dim 123 --np "$np" --out "$out/$algo" -- --ell "$ell" | tee "$log"
  summary+=("$algo: $(grep '^chosen' "$log")")
done
echo
echo "a9a -> a9a.t (d = 123), $loss loss, ell = $ell, $np rank(s), one pass in file order:"
printf '  %s\n' "${summary[@]}"
