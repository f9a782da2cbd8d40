#!/usr/bin/env bash
#SBATCH --job-name=adasketch-grid
#SBATCH --ntasks=1
#SBATCH --time=01:00:00
#SBATCH --output=grid.%j.out
# Hyperparameter grid of `adasketch train` as in the ADA-FD paper §4: η and δ over
# {1e-4, 1e-3, …, 100}, one pass in file order, for any learner (--algo) and any extra train options
# (after --, e.g. `-- --ell 20`). One JSON report per run in OUT, a table on stdout, and the chosen
# point: the fewest online mistakes (classification) or the lowest cumulative loss (regression), both
# measured on the training stream only; the test accuracy is reported for that point, and the grid's
# best test accuracy is shown for reference.
#
#   bash jobs/grid_ada_diag.sh [--algo ada-diag] [--loss logistic] [--data FILE] [--test FILE]
#                              [--dim D] [--np RANKS] [--out DIR] [--eta "LIST"] [--delta "LIST"]
#                              [-- extra train options]
#
# Defaults: ada-diag, logistic loss, tests/data/a9a.gz → a9a.t.gz with d = 123 (for other data, d
# comes from the training file unless --dim is given), 1 rank, OUT =
# results/grid/<algo>-<loss>-<data name>. ADASKETCH_BIN and ADASKETCH_LAUNCHER as in jobs/lib/env.sh.
# Under SLURM (sbatch) the runs use srun with the allocation's tasks; otherwise mpirun.
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
bin=$ADASKETCH_BIN

algo=ada-diag loss=logistic data="$here/tests/data/a9a.gz" test="$here/tests/data/a9a.t.gz" dim=auto
ranks="${SLURM_NTASKS:-1}" out="" etas="1e-4 1e-3 1e-2 1e-1 1 10 100" deltas="1e-4 1e-3 1e-2 1e-1 1 10 100"
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --algo) algo=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --test) test=$2; shift 2 ;;
    --dim) dim=$2; shift 2 ;;
    --np) ranks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --eta) etas=$2; shift 2 ;;
    --delta) deltas=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "grid_ada_diag.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
if [ "$dim" = auto ]; then
  dim=""
  [ "$data" = "$here/tests/data/a9a.gz" ] && dim=123  # a9a.t's largest index is 122
fi
[ -x "$bin" ] || { echo "grid_ada_diag.sh: $bin not found: build first (bash jobs/setup.sh) or set ADASKETCH_BIN" >&2; exit 2; }
name=$(basename "$data"); name=${name%.gz}
out="${out:-$here/results/grid/$algo-$loss-$name}"
mkdir -p "$out"
test_args=()
[ -n "$test" ] && test_args=(--test "$test")
dim_args=()
[ -n "$dim" ] && dim_args=(--dim "$dim")

# value FILE KEY: a top-level member of a report (one member per line, as the driver writes them).
value() { awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }

echo "grid: $algo, $loss loss, $data -> ${test:-(no test)}, $ranks rank(s), extra: ${extra[*]:-none}"
printf '%-8s %-8s %10s %12s %14s %12s\n' eta delta mistakes mistake_rate cum_loss test_acc
table="$out/table.tsv"
: >"$table"
for eta in $etas; do
  for delta in $deltas; do
    report="$out/eta$eta-delta$delta.json"
    if ! launch "$ranks" "$bin" train --algo "$algo" --loss "$loss" --scale none --data "$data" "${test_args[@]}" "${dim_args[@]}" \
      --eta "$eta" --delta "$delta" --report "$report" "${extra[@]}" >"$out/eta$eta-delta$delta.log" 2>&1; then
      printf '%-8s %-8s %s\n' "$eta" "$delta" "failed: $(tail -n 1 "$out/eta$eta-delta$delta.log")"
      continue
    fi
    row=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$eta" "$delta" "$(value "$report" online_mistakes)" \
      "$(value "$report" mistake_rate)" "$(value "$report" cumulative_loss)" "$(value "$report" test_accuracy)")
    echo "$row" >>"$table"
    echo "$row" | awk -F'\t' '{ printf "%-8s %-8s %10s %12s %14.6g %12s\n", $1, $2, $3,
      ($4 == "null" ? "-" : sprintf("%.6f", $4)), $5, ($6 == "null" ? "-" : sprintf("%.6f", $6)) }'
  done
done
# Selection on the training stream: fewest mistakes (ties: lower cumulative loss), or lowest loss
# for regression (mistakes null).
awk -F'\t' '
  { key = ($3 == "null") ? $5 : $3 + $5 / 1e18
    if (NR == 1 || key < best) { best = key; chosen = $0 }
    if ($6 != "null" && (top == "" || $6 > top)) { top = $6; top_row = $0 } }
  END {
    split(chosen, c, "\t")
    printf "chosen (training stream only): eta = %s, delta = %s: online mistakes %s, cumulative loss %s, test accuracy %s\n", c[1], c[2], c[3], c[5], c[6]
    if (top_row != "") { split(top_row, t, "\t"); printf "best test accuracy on the grid (reference): %s at eta = %s, delta = %s\n", t[6], t[1], t[2] }
  }' "$table"
