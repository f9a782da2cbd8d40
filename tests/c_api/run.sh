#!/usr/bin/env bash
# The C, Fortran and Python programs against the CLI at NP ranks: the same LIBSVM data, the
# same learner and defaults, so the model files must be identical bytes (the CLI runs the C++ API's
# training loop; the programs step through the C interface, the Fortran module over it, or the
# Python module). A .py program runs under $ADASKETCH_PYTHON.
# Usage: run.sh <adasketch> <mpiexec> <np> <program>...
set -euo pipefail
adasketch="$1"; mpiexec="$2"; np="$3"; shift 3
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
mpirun_() { "$mpiexec" -n "$np" --oversubscribe --allow-run-as-root "$@"; }
"$adasketch" generate --data synthetic:sparse-classification:d=300,n=400,nnz=12,zipf=0.8,noise=0.05 \
  --format libsvm --out "$work/data.svm" >/dev/null
# The same examples as "label nnz j1 v1 j2 v2 ..." (the same value text) for the Fortran program.
awk '{ printf "%s %d", $1, NF - 1; for (i = 2; i <= NF; ++i) { split($i, e, ":"); printf " %s %s", e[1], e[2] } print "" }' \
  "$work/data.svm" >"$work/data.txt"
algorithms=(fast-rfd-son ada-fd oja-son ada-diag comp-adagrad)
[ -z "${ADASKETCH_EXACT_LEARNERS:-}" ] || algorithms+=(full-on)  # a build with ScaLAPACK
for algorithm in "${algorithms[@]}"; do
  # (full-on does not read --ell: the CLI's warning says so on stderr)
  mpirun_ "$adasketch" train --algo "$algorithm" --ell 6 --data "$work/data.svm" --model "$work/cli.model" >/dev/null
  for program in "$@"; do
    name="$(basename "$program")"
    case "$name" in *fortran*) input="$work/data.txt" ;; *) input="$work/data.svm" ;; esac
    runner=()
    case "$name" in *.py) runner=("${ADASKETCH_PYTHON:?the Python interpreter of the module}") ;; esac
    mpirun_ "${runner[@]}" "$program" "$input" "$algorithm" 6 "$work/$name.model" "$work/$name.ckpt"
    if ! cmp -s "$work/cli.model" "$work/$name.model"; then
      echo "run.sh: $name's $algorithm model differs from the CLI's at $np ranks"; exit 1
    fi
  done
done
# Hyperparameters by name (the C and Fortran settings text) against the same CLI options.
settings_cases=("ada-fd|eta=0.25 delta=0.5 lambda2=0.001|--eta 0.25 --delta 0.5 --lambda2 0.001"
  "fast-rfd-son|alpha0=3 eta=0.5 eta_schedule=inv-sqrt-t|--alpha0 3 --eta 0.5 --eta-schedule inv-sqrt-t"
  "ada-fd|auto_tune=true auto_examples=150|--auto --auto-examples 150"
  "rfd-son|auto_tune=true auto_examples=150|--auto --auto-examples 150")
for case in "${settings_cases[@]}"; do
  IFS='|' read -r algorithm settings options <<<"$case"
  read -ra cli_options <<<"$options"
  mpirun_ "$adasketch" train --algo "$algorithm" --ell 6 "${cli_options[@]}" --data "$work/data.svm" \
    --model "$work/cli.model" >/dev/null
  for program in "$@"; do
    name="$(basename "$program")"
    case "$name" in *.py) continue ;; *fortran*) input="$work/data.txt" ;; *) input="$work/data.svm" ;; esac
    mpirun_ "$program" "$input" "$algorithm" 6 "$work/$name.model" "$work/$name.ckpt" "$settings"
    if ! cmp -s "$work/cli.model" "$work/$name.model"; then
      echo "run.sh: $name's $algorithm model with '$settings' differs from the CLI's at $np ranks"; exit 1
    fi
  done
done
# The bias and the caller's labels (the C and Fortran settings) against `adasketch train --bias` on the
# same data with other labels: binary {3, 7} (3 is −1) and softmax {2, 5, 9}, which the CLI maps alike.
awk '{ $1 = ($1 > 0) ? 7 : 3; print }' "$work/data.svm" >"$work/binary.svm"
awk '{ $1 = ($1 < 0) ? 2 : ((NR % 2) ? 5 : 9); print }' "$work/data.svm" >"$work/classes.svm"
bias_cases=("fast-rfd-son|binary|logistic|bias=1 labels=3,7|--bias 1"
  "ada-diag|binary|hinge|bias=2.5 labels=3,7|--bias 2.5 --loss hinge"
  "ada-fd|classes|softmax|bias=1 labels=2,5,9|--bias 1 --loss softmax")
[ -z "${ADASKETCH_EXACT_LEARNERS:-}" ] || bias_cases+=("full-on|binary|logistic|bias=1 labels=3,7|--bias 1")
for case in "${bias_cases[@]}"; do
  IFS='|' read -r algorithm data loss settings options <<<"$case"
  read -ra cli_options <<<"$options"
  mpirun_ "$adasketch" train --algo "$algorithm" --ell 6 "${cli_options[@]}" --data "$work/$data.svm" \
    --model "$work/cli.model" >/dev/null 2>&1
  awk '{ printf "%s %d", $1, NF - 1; for (i = 2; i <= NF; ++i) { split($i, e, ":"); printf " %s %s", e[1], e[2] } print "" }' \
    "$work/$data.svm" >"$work/$data.txt"
  for program in "$@"; do
    name="$(basename "$program")"
    case "$name" in *.py) continue ;; *fortran*) input="$work/$data.txt" ;; *) input="$work/$data.svm" ;; esac
    mpirun_ "$program" "$input" "$algorithm" 6 "$work/$name.model" "$work/$name.ckpt" "$settings" "$loss"
    if ! cmp -s "$work/cli.model" "$work/$name.model"; then
      echo "run.sh: $name's $algorithm model with '$settings' ($loss) differs from the CLI's with '$options' at $np ranks"
      exit 1
    fi
  done
done
echo "run.sh: the models of $* equal the CLI's at $np ranks"
