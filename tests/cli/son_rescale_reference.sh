#!/usr/bin/env bash
# SON's diagonal rescaling (--diag-rescale, SON §5.2) against tests/cli/son_rescale_reference.py, a numpy
# reference written from the paper and Vowpal Wabbit's OjaNewton (the projection and prediction on
# D_t^{-1/2}x, the step on D_{t+1}^{-1/2}x): oja-son with --ell 0 (A = αI) and full-on (A = αI +
# Σσḡḡᵀ) on the first 600 a9a examples (d = 123, squared loss, ±1 labels), D₁ = 0.1·I and 0.5·I, at
# every NP. The exported weights agree to 1e-8 relative to their largest: both are the same
# double-precision recursion; full-on keeps A⁻¹ by Sherman–Morrison where the reference solves with A,
# which differ by about κ(A)·ε per step, κ(A) ≤ 1 + σ·Σ_t‖ḡ_t‖²/α ≤ 1 + 0.125·14·600/0.5 ≈ 2,100
# (each |ḡ_j| ≤ 1, since D_{t+1,j} ≥ (ℓ'x_j)², and a9a rows have at most 14 nonzeros): 600 steps ×
# 2,100 × 2.2e-16 ≈ 3e-10 of the largest weight. The other order (D updated after the step, which
# the step then takes on D_t^{-1/2}x: adasketch before this test; the reference's `after`) ends 1.1 to
# 5.2 times the largest weight away in these four cases; the projection is active on 160 (oja-son) and
# 127 (full-on) of the 600 examples at D₁ = 0.1.
#
#   son_rescale_reference.sh ADASKETCH MPIEXEC PYTHON REPO NP...
set -euo pipefail
adasketch=$1 mpiexec=$2 python=$3 repo=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gzip -dc "$repo/tests/data/a9a.gz" | awk 'NR <= 600' >"$work/train.svm"  # not head: gzip would end on SIGPIPE
mpi_flags=(--quiet --oversubscribe)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
failures=0
# compare NAME REFERENCE EXPORT: max |a − b| ≤ 1e-8 · max |b|, the files' one weight per line in order.
compare() {
  if "$python" - "$2" "$3" <<'PY'; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
import sys
ref = [float(v) for v in open(sys.argv[1]) if not v.startswith("#")]
got = [float(v) for v in open(sys.argv[2]) if not v.startswith("#")]  # the text export: "#" comments, a weight per line
scale = max(abs(v) for v in ref)
diff = max(abs(a - b) for a, b in zip(ref, got)) if len(ref) == len(got) else float("inf")
print(f"  {len(got)} weights (reference {len(ref)}), max |difference| {diff:.3g}, max |w| {scale:.3g}")
sys.exit(0 if diff <= 1e-8 * scale else 1)
PY
}
for d1 in 0.1 0.5; do
  for variant in plain full; do
    case $variant in
      plain) algo=(--algo oja-son --ell 0) ;;
      full) algo=(--algo full-on) ;;
    esac
    "$python" "$repo/tests/cli/son_rescale_reference.py" "$work/train.svm" 123 0.5 0.125 1 "$d1" "$variant" \
      >"$work/ref.txt"
    for np in "$@"; do
      name="np=$np $variant D1=$d1"
      if ! "$mpiexec" "${mpi_flags[@]}" -np "$np" "$adasketch" train "${algo[@]}" --loss squared --alpha0 0.5 \
          --sigma 0.125 --eta 0 --C 1 --diag-rescale --rescale-d1 "$d1" --scale none --dim 123 --data "$work/train.svm" \
          --model "$work/m.model" >"$work/out" 2>"$work/err" ||
         ! "$mpiexec" "${mpi_flags[@]}" -np "$np" "$adasketch" export --format text "$work/m.model" "$work/w.txt" \
          >"$work/out" 2>"$work/err"; then
        echo "FAIL $name: $(head -c 400 "$work/err")"
        failures=$((failures + 1))
        continue
      fi
      compare "$name" "$work/ref.txt" "$work/w.txt"
    done
  done
done
[ "$failures" = 0 ]
