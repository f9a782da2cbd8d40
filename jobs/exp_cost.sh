#!/usr/bin/env bash
#SBATCH --job-name=adasketch-exp-cost
#SBATCH --ntasks=2
#SBATCH --time=01:00:00
#SBATCH --output=exp_cost.%j.out
# docs/experiments.md, "Cost per example": seconds per example (the slowest rank's time in step(),
# adasketch-bench-learners) of the exact learners ADA-FULL and FULL-ON against d, at 1 and 2 ranks,
# next to ADA-FD and RFD-SON (ℓ = 10) at the same d. Dense synthetic rows x = z/√d, a fresh row per
# example; logistic loss for ADA-*, squared for FULL-ON and RFD-SON; default hyperparameters.
#
#   bash jobs/exp_cost.sh [GROUP ...]    (or sbatch --ntasks=2; GROUPs: ada-full full-on sketched,
#                                         the default all three)
#
# Steps per measurement: the sketched learners and FULL-ON 200 timed after 50 warm-up, the best of 5
# rounds (the bench's defaults); ADA-FULL, whose step eigendecomposes the d × d G_t (O(d³)),
# min(200, max(3, 2·10⁹/d³)) timed steps after 2, one round, and only up to d = FULL_MAX_DIM.
# One JSON report per (group, d, ranks) under OUT: npP-dD-GROUP.json; an existing report is kept.
# Cost: about 2 min for the sketched learners and FULL-ON; ADA-FULL about 30 s per d up to 2000 at
# 1 rank. Run it on an otherwise idle machine: the numbers are times.
# ADA-FULL and FULL-ON need the exact learners (a build with ScaLAPACK and those learners): until
# then their runs are skipped, and rerunning the same command fills them in.
#
# Environment: OUT (default results/exp_cost), RANKS (default "1 2"), DIMS (default "100 200 500
# 1000 2000 4000"), FULL_MAX_DIM (default 2000), ELL (default 10), ADASKETCH_BENCH_LEARNERS (jobs/lib/env.sh).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
out="${OUT:-$here/results/exp_cost}"
bench=$ADASKETCH_BENCH_LEARNERS
ranks="${RANKS:-1 2}"
dims="${DIMS:-100 200 500 1000 2000 4000}"
full_max="${FULL_MAX_DIM:-2000}"
ell="${ELL:-10}"
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(ada-full full-on sketched)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
mkdir -p "$out"

for np in $ranks; do
  for d in $dims; do
    for group in "${groups[@]}"; do
      case $group in
        ada-full)
          [ "$d" -le "$full_max" ] || continue
          steps=$(awk -v d="$d" 'BEGIN { n = int(2e9 / (d * d * d)); print (n > 200 ? 200 : (n < 3 ? 3 : n)) }')
          args=(--algo ada-full --loss logistic --examples "$steps" --warmup 2 --rounds 1) ;;
        full-on) args=(--algo full-on --loss squared) ;;
        sketched) args=(--algo ada-fd,rfd-son) ;;
        *) echo "exp_cost.sh: unknown group '$group'" >&2; exit 2 ;;
      esac
      report="$out/np$np-d$d-$group.json"
      [ -f "$report" ] && continue
      if launch "$np" "$bench" --dim "$d" --ell "$ell" "${args[@]}" --report "$report.tmp" >"$out/np$np-d$d-$group.log" 2>&1; then
        mv "$report.tmp" "$report"
        echo "$group, d = $d, $np rank(s): $(awk -F'[:,]' '/"seconds_per_example"/ { printf "%s s/example ", $2 }' "$report")"
      else
        rm -f "$report.tmp"
        echo "$group, d = $d, $np rank(s): not run: $(tail -n 1 "$out/np$np-d$d-$group.log")"
      fi
    done
  done
done
echo
"$py" "$here/jobs/tables.py" cost --results "$out"
