#!/usr/bin/env bash
#SBATCH --job-name=adasketch-rank-differences
#SBATCH --ntasks=3
#SBATCH --time=01:00:00
#SBATCH --output=rank_differences.%j.out
# What differs across rank counts, measured: every learner trained once over DATA (default a9a) at
# 1, 2 and 3 ranks with the same options, and each model's weights compared with the 1-rank model:
# max_j |w_j(P) − w_j(1)| / max_j |w_j(1)|, plus the online mistakes and the test accuracy of each.
# The differences come from the order of floating-point sums: each rank adds its block's share of
# every dot product and the Allreduce adds the shares, so the rounding depends on the partition.
#
#   bash jobs/rank_differences.sh [ALGO ...]     (default: every learner)
#
# Environment: DATA, TEST (default tests/data/a9a.gz, a9a.t.gz), ELL (default 20), EXTRA (more
# train options), OUT (default results/rank_differences), ADASKETCH_BIN and ADASKETCH_LAUNCHER (jobs/lib/env.sh).
# Needs python3 to read the model files (format in docs/formats.md).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
bin=$ADASKETCH_BIN
out="${OUT:-$here/results/rank_differences}"
data="${DATA:-$here/tests/data/a9a.gz}"
test_data="${TEST:-$here/tests/data/a9a.t.gz}"
ell="${ELL:-20}"
read -r -a extra <<<"${EXTRA:-}"
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=(ada-diag ada-diag-da ada-fd ada-fd-da fast-ada-fd fast-ada-fd-da ada-gp ada-gp-da
  ada-dp ada-dp-da fd-son fast-fd-son rp-son oja-son rfd-son fast-rfd-son)
mkdir -p "$out"

value() { awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }

printf '%-15s %12s %12s %9s %9s %9s %10s %10s %10s\n' algorithm "rel.diff 2" "rel.diff 3" "mist. 1" "mist. 2" \
  "mist. 3" "acc. 1" "acc. 2" "acc. 3"
for algo in "${algos[@]}"; do
  loss=logistic
  [[ "$algo" == *-son ]] && loss=squared
  for np in 1 2 3; do
    launch "$np" "$bin" train --algo "$algo" --loss "$loss" --ell "$ell" "${extra[@]}" --data "$data" \
      --test "$test_data" --model "$out/$algo.np$np.model" --report "$out/$algo.np$np.json" >/dev/null
  done
  diffs=$(python3 - "$out/$algo".np{1,2,3}.model <<'EOF'
import struct, sys
def weights(path):
    raw = open(path, 'rb').read()
    return struct.unpack('<%dd' % ((len(raw) - 128) // 8), raw[128:])
ref = weights(sys.argv[1])
scale = max(max(abs(v) for v in ref), 1e-300)
print(' '.join('%.3g' % (max(abs(a - b) for a, b in zip(weights(p), ref)) / scale) for p in sys.argv[2:]))
EOF
)
  read -r d2 d3 <<<"$diffs"
  printf '%-15s %12s %12s %9s %9s %9s %10.6f %10.6f %10.6f\n' "$algo" "$d2" "$d3" \
    "$(value "$out/$algo.np1.json" online_mistakes)" "$(value "$out/$algo.np2.json" online_mistakes)" "$(value "$out/$algo.np3.json" online_mistakes)" \
    "$(value "$out/$algo.np1.json" test_accuracy)" "$(value "$out/$algo.np2.json" test_accuracy)" \
    "$(value "$out/$algo.np3.json" test_accuracy)"
done
