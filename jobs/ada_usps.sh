#!/usr/bin/env bash
#SBATCH --job-name=adasketch-ada-usps
#SBATCH --ntasks=1
#SBATCH --time=02:00:00
#SBATCH --output=ada_usps.%j.out
# ADA-GP/DP paper §4.1, Table 3 (Usps row): one pass over usps_esl in file order, softmax
# (cross-entropy) loss, 10 classes, τ = ℓ = 15, η and δ (σ there) over {1e-4, …, 100}; test on
# usps_esl.t. Each algorithm's point is chosen on the training stream only (fewest online mistakes,
# jobs/grid_ada_diag.sh) and its test accuracy reported. One JSON report per run under OUT.
#
#   bash jobs/ada_usps.sh [ALGO ...]        (default: ada-fd ada-gp ada-dp; also fast-ada-fd, *-da)
#
# Environment: OUT (default results/ada_usps), NP ranks (default 1; results agree across rank
# counts to round-off), ELL (default 15), ADASKETCH_BIN and ADASKETCH_LAUNCHER (jobs/lib/env.sh).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
out="${OUT:-$here/results/ada_usps}"
np="${NP:-${SLURM_NTASKS:-1}}"
ell="${ELL:-15}"
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=(ada-fd ada-gp ada-dp)
mkdir -p "$out"
summary=()
for algo in "${algos[@]}"; do
  log="$out/$algo.txt"
  bash "$here/jobs/grid_ada_diag.sh" --algo "$algo" --loss softmax --data "$here/tests/data/usps_esl.gz" \
    --test "$here/tests/data/usps_esl.t.gz" --dim 256 --np "$np" --out "$out/$algo" -- --ell "$ell" | tee "$log"
  summary+=("$algo: $(grep '^chosen' "$log")")
done
echo
echo "USPS (usps_esl -> usps_esl.t), softmax, ell = $ell, $np rank(s), one pass in file order:"
printf '  %s\n' "${summary[@]}"
