#!/usr/bin/env bash
# Command-line tests of the `adasketch` driver, run under mpiexec.
#
#   run_cli_tests.sh errors ADASKETCH MPIEXEC DATA_DIR NP
#       Bad input and bad options at NP ranks: each must exit non-zero (1 for bad data, 2 for usage)
#       within the timeout, with exactly one line on stderr, `adasketch: error: ...`, naming the file
#       and line or the option. Also --help, a tiny dense binary file, and (NP > 1) an error raised
#       on one rank only, which must end the whole job instead of hanging it.
#   run_cli_tests.sh a9a ADASKETCH MPIEXEC DATA_DIR NP...
#       `adasketch sketch` on DATA_DIR/a9a.gz with fd and rfd, ℓ = 10, at every NP: the relative
#       error agrees across rank counts to 1e-9 (relative), both are within their bounds, and RFD's
#       error is at most 0.55 × FD's.
#   run_cli_tests.sh train_errors ADASKETCH MPIEXEC DATA_DIR NP
#       `adasketch train` and `predict` with bad options, labels, test files and model files at NP
#       ranks: one error line each, as for `errors`; --help of both. A diverging run (ADA-FD, squared
#       loss, default η on a small regression set; FD-SON with α₀ = 0.01): exit 1 with one line naming
#       the steps and the hyperparameter to change; --divergence 0 trains it to the end.
#   run_cli_tests.sh train ADASKETCH MPIEXEC DATA_DIR NP...
#       `adasketch train` with ada-diag and ada-diag-da on a9a → a9a.t (logistic) and ada-diag on
#       USPS → usps_esl.t (softmax, K = 10), at the hyperparameters the grid chose (docs/results.md), at every
#       NP: the same online mistakes, and cumulative loss and test accuracy to 1e-9 (relative),
#       accuracies at least 83.5% (a9a) and 90% (USPS); `predict` at the largest NP on the model
#       saved at the first reproduces the test accuracy and mean loss; rank 0 prints progress lines
#       (at most one a second) on a run of a few seconds.
#   run_cli_tests.sh checkpoint ADASKETCH MPIEXEC DATA_DIR NP
#       `adasketch train --checkpoint` on the first 4000 examples of a9a at NP ranks, against an
#       uninterrupted run: killed with SIGKILL at a random moment and resumed; stopped by SIGTERM sent to
#       the ranks (exit 75, one line naming the checkpoint) and by SIGUSR1 sent to mpirun, and resumed;
#       killed inside a save, between the temporary file and the rename (ADASKETCH_TEST_CRASH_BEFORE_RENAME),
#       and resumed from the previous checkpoint: each final model file is byte-identical to the
#       uninterrupted run's, with the same online mistakes and cumulative loss. Resumed at another rank
#       count: the same to 1e-9. Truncated, corrupt, foreign and mismatched checkpoints and bad options:
#       one error line each.
#   run_cli_tests.sh faults ADASKETCH MPIEXEC DATA_DIR NP
#       A failure injected on one chosen rank at a chosen example of `adasketch train` on a9a
#       (ADASKETCH_TEST_FAIL_ON_RANK=R:N:KIND, drivers/fault_injection.hpp) for KIND error, alloc and
#       lapack on the last rank and on rank 0: the job ends (no timeout), non-zero, and the first
#       stderr line names the rank and the failure; at 1 rank it is the ordinary one-line error.
#       KIND nan (NaN values on one rank's block) fails on every rank together: one line from rank 0
#       naming the file, line and the non-finite value.
#   run_cli_tests.sh determinism ADASKETCH MPIEXEC DATA_DIR NP
#       The same command twice gives byte-identical model files (oja-son, rp-son, ada-gp and
#       fast-rfd-son); another --seed gives a different model for rp-son and ada-gp, which draw
#       random projections.
#   run_cli_tests.sh synthetic_errors ADASKETCH MPIEXEC DATA_DIR NP
#       Bad synthetic specs (unknown generator or key, bad or missing value, repeated key, out of
#       range, d against --dim or the training d) for train, sketch, predict and generate, and bad
#       generate options and input at NP ranks: one error line each, as for `errors`; generate --help.
#   run_cli_tests.sh synthetic ADASKETCH MPIEXEC DATA_DIR NP...
#       At every NP: `train --data synthetic:...` (ada-fd on low-rank regression with the absolute
#       loss, ada-diag on ill-conditioned classification with the logistic loss, each with a
#       synthetic --test from the same distribution) reports exactly the numbers of `generate` (dense
#       binary; LIBSVM for the classification data) + `train --data FILE`; `sketch` likewise; the
#       files have the documented size; and the numbers agree across rank counts (online mistakes
#       exactly, the rest to 1e-9 relative). `predict` on the synthetic test spec reproduces the test
#       accuracy of the training run.
#   run_cli_tests.sh features ADASKETCH MPIEXEC DATA_DIR NP
#       --features on 1,500 a9a examples whose features are spread over d = 2^22 (feature i at i·32749):
#       ada-diag and fast-rfd-son with --features auto (which keeps the seen features at this d)
#       give the online mistakes of --features all and its loss and test accuracy to 1e-9; the model
#       lists the kept features (its size says so) and predict reproduces the test accuracy, also
#       with --bias 1; --dim
#       2^32 trains; a checkpoint of seen features resumes to the uninterrupted run's model, byte
#       for byte; and the errors of --features, comp-adagrad with seen features, and export.
#   run_cli_tests.sh hostile ADASKETCH MPIEXEC DATA_DIR NP
#       The hostile input corpus at NP ranks: tests/hostile/run_hostile.sh (cases in
#       tests/hostile/manifest.txt).
#   run_cli_tests.sh outputs ADASKETCH MPIEXEC DATA_DIR NP
#       The command-line conventions on 4000 a9a examples at NP ranks: `adasketch` alone prints the
#       usage (exit 0); --version (alone, after a command) prints the project's version; a report
#       says --eta 0.1 as 0.1; --config FILE gives the run of the same options on the command line
#       (bad value, unknown name, missing file: one error line); --quiet prints nothing and still
#       writes the files; --progress-every 0 prints no progress line, 0.25 at most one per 0.25 s.
#       SIGTERM to the ranks mid-run, with and without --checkpoint, and a run failing on a bad
#       line leave no report or model (an older report stays as it was) and no temporary file.
#   run_cli_tests.sh bench_learners BENCH MPIEXEC DATA_DIR NP...
#       adasketch-bench-learners (BENCH) on 20 synthetic rows of d = 2000 and 100 a9a examples at every
#       NP: the report's fields, each learner's buffer size (R × ceil(d/NP) doubles, R = ℓ or 2ℓ) and
#       Allreduce calls per example (one, plus one per FD shrink), the mean loss the same at every NP
#       to 1e-9; bad options (one error line each). Timings are never compared.
#   run_cli_tests.sh predict_io_errors ADASKETCH MPIEXEC DATA_DIR NP
#       --predictions, --data - and HDF5 input with bad options and files at NP ranks: one error line
#       each, as for `errors`; a failed predict leaves neither the predictions file nor its temporary.
#   run_cli_tests.sh predict_io ADASKETCH MPIEXEC DATA_DIR NP...
#       `predict --predictions` (a9a logistic, USPS softmax) at every NP: byte-identical files, one
#       line per example whose labels and probabilities agree with the report's mistakes (awk);
#       `train --test --predictions` equals `predict` with the saved model; `--data -` (plain, gzip)
#       gives the model file, numbers and predictions of the file; HDF5 (float64, float32) trains to the
#       model file of the same rows in LIBSVM form.
#   run_cli_tests.sh labels_export ADASKETCH MPIEXEC DATA_DIR NP
#       On tiny generated data (d = 4) at NP ranks: --bias 1 takes the test mistakes of a boundary away
#       from the origin from ≥ 50 to ≤ 16 of 200, on sparse and dense rows alike, and equals an explicit
#       constant feature (ada-diag, and full-on, whose equal blocks move entries); labels {1,3} map to
#       ±1 and {2,5,7} to K = 3 classes; `export --format liblinear` loads in liblinear-predict with
#       adasketch predict's accuracy and the labels of the text export's W; numpy.load of the npy
#       export equals the text export; a resumed run keeps bias and labels; errors (unknown label,
#       three binary labels, bad --bias, bad export arguments): one line each.
#   run_cli_tests.sh tune_errors ADASKETCH MPIEXEC DATA_DIR NP
#       `adasketch tune` with bad options at NP ranks (unknown option, bad log range, bad value in a
#       configuration, --groups not dividing NP, a checkpoint of another grid): one error line each;
#       an error on one rank inside a configuration ends the job.
#   run_cli_tests.sh tune ADASKETCH MPIEXEC DATA_DIR NP...
#       `tune` of ada-diag η × δ (6 configurations, 300 a9a examples, 200 test): each CSV row equals
#       `train` alone with that configuration and the best row is the argmin; the same CSV (1e-9) at
#       every NP with one rank per group and with --groups 1; a diverging configuration is a failed
#       row; a grid stopped by SIGTERM (exit 75) and run again gives the uninterrupted CSV, continued
#       at the same and at another NP.
#
# Every command runs under `timeout 60` (the long progress run of `train`: 300). Only POSIX tools
# and awk are used to read the JSON reports
# (one member per line, as the driver writes them); python3 is used for an extra JSON validity check
# when it is available.
set -u

mode=$1 adasketch=$2 mpiexec=$3 data_dir=$4
shift 4

work=$(mktemp -d "${TMPDIR:-/tmp}/adasketch-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
# --quiet: stop Open MPI's mpirun from adding its own banner when ranks exit non-zero (docs/cli.md).
mpi_flags=(--oversubscribe --quiet)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run NP ARGS...: runs adasketch at NP ranks under `timeout ${run_timeout:-60}`; sets $rc and writes
# $out.stdout, $out.stderr ($out defaults to $work/run).
run() {
  local np=$1
  shift
  local o=${out:-$work/run}
  timeout "${run_timeout:-60}" "$mpiexec" -n "$np" "${mpi_flags[@]}" "$adasketch" "$@" >"$o.stdout" 2>"$o.stderr"
  rc=$?
  drop_launcher_noise "$o.stderr"
}

# expect_error NP CODE SUBSTRING ARGS...: one stderr line, "PROGRAM: error: ...SUBSTRING...", exit CODE
# (PROGRAM: the executable's name, `adasketch` except for the benchmark's mode).
expect_error() {
  local np=$1 code=$2 needle=$3
  shift 3
  run "$np" "$@"
  local o=${out:-$work/run}
  local what="np=$np adasketch $*"
  local lines
  lines=$(wc -l <"$o.stderr")
  local first
  first=$(head -n 1 "$o.stderr")
  if [ "$rc" = 124 ]; then
    fail "$what: timed out (hang)"
  elif [ "$rc" != "$code" ]; then
    fail "$what: exit code $rc, expected $code; stderr: $(head -c 400 "$o.stderr")"
  elif [ "$lines" != 1 ]; then
    fail "$what: $lines lines on stderr, expected 1:"
    sed 's/^/    | /' "$o.stderr"
  elif [[ "$first" != "$(basename "$adasketch"): error: "* ]]; then
    fail "$what: stderr does not start with '$(basename "$adasketch"): error: ': $first"
  elif [[ "$first" != *"$needle"* ]]; then
    fail "$what: stderr does not mention '$needle': $first"
  else
    echo "ok   np=$np [$rc] $first"
  fi
}

# Error cases run a few at a time: Open MPI's mpirun idles 1-2 s after a rank exits non-zero before
# it returns, so running them one by one would take minutes.
jobs_max=${ADASKETCH_CLI_TEST_JOBS:-4}
case_count=0
expect_error_bg() {
  case_count=$((case_count + 1))
  local id
  id=$(printf '%03d' "$case_count")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  (out=$work/case$id expect_error "$@" >"$work/case$id.result") &
}
collect_bg() {
  wait
  local f
  for f in "$work"/case*.result; do
    [ -e "$f" ] || continue
    cat "$f"
    failures=$((failures + $(grep -c '^FAIL:' "$f")))
  done
}

# json_value FILE KEY: the value of the member KEY, written one per line as `  "KEY": value,`
json_value() {
  awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

errors() {
  local np=$1 d=$work
  printf '+1 1:1 3:2\n-1 2:abc\n' >"$d/nonnumeric.svm"
  printf '+1 1:1\n-1 0:1 2:1\n' >"$d/index0.svm"
  printf '+1 1:1\n+1 2:1\n-1 5:1 3:1\n' >"$d/descending.svm"
  printf '+1 2:1 2:3\n' >"$d/duplicate.svm"
  printf '+1 1:1 200:1\n' >"$d/beyond.svm"
  printf '+1 1:1\n-1 1:nan\n' >"$d/nan.svm"
  printf '+1 1:1\n-1 2:1\n+1 2:inf\n' >"$d/inf.svm"
  : >"$d/empty.svm"
  printf '+1 1:1\n-1 2:1\n+1 3:x\n' | gzip -c >"$d/bad.svm.gz"
  # Dense binary: header claims 2 rows of d = 2 but holds only one.
  printf 'ADSKDNS1\x02\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' >"$d/short.bin"
  printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\0\x40' >>"$d/short.bin"
  # Dense binary with a NaN in row 2 (the format can carry it; the driver must name file and row).
  printf 'ADSKDNS1\x02\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' >"$d/nan.bin"
  printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\0\x40' >>"$d/nan.bin"
  printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\xf8\x7f\0\0\0\0\0\0\xf0\x3f' >>"$d/nan.bin"
  local fd=(sketch --method fd --ell 4)

  expect_error_bg "$np" 1 "$d/missing.svm" "${fd[@]}" --data "$d/missing.svm"
  expect_error_bg "$np" 1 "nonnumeric.svm:2" "${fd[@]}" --data "$d/nonnumeric.svm"
  expect_error_bg "$np" 1 "index0.svm:2" "${fd[@]}" --data "$d/index0.svm"
  expect_error_bg "$np" 1 "descending.svm:3" "${fd[@]}" --data "$d/descending.svm"
  expect_error_bg "$np" 1 "duplicate.svm:1" "${fd[@]}" --data "$d/duplicate.svm"
  expect_error_bg "$np" 1 "beyond.svm:1" "${fd[@]}" --data "$d/beyond.svm" --dim 100
  expect_error_bg "$np" 1 "nan.svm:2" "${fd[@]}" --data "$d/nan.svm"
  expect_error_bg "$np" 1 "inf.svm:3" "${fd[@]}" --data "$d/inf.svm"
  expect_error_bg "$np" 1 "empty.svm" "${fd[@]}" --data "$d/empty.svm"
  expect_error_bg "$np" 1 "bad.svm.gz:3" "${fd[@]}" --data "$d/bad.svm.gz"
  expect_error_bg "$np" 1 "short.bin" "${fd[@]}" --data "$d/short.bin"
  expect_error_bg "$np" 1 "nan.bin: row 2" "${fd[@]}" --data "$d/nan.bin"
  expect_error_bg "$np" 2 "--ell" sketch --method fd --ell 0 --data "$d/inf.svm"
  expect_error_bg "$np" 2 "--ell" sketch --method fd --ell -3 --data "$d/inf.svm"
  expect_error_bg "$np" 2 "--ell" sketch --method fd --ell 3.5 --data "$d/inf.svm"
  expect_error_bg "$np" 2 "--ell" sketch --method fd --data "$d/inf.svm" --ell
  expect_error_bg "$np" 2 "--method" sketch --method svd --ell 4 --data "$d/inf.svm"
  expect_error_bg "$np" 2 "--bogus" "${fd[@]}" --data "$d/inf.svm" --bogus 1
  expect_error_bg "$np" 2 "--data" "${fd[@]}"
  expect_error_bg "$np" 2 "--seed" "${fd[@]}" --data "$d/inf.svm" --seed -1
  expect_error_bg "$np" 2 "--alpha0" sketch --method rfd --ell 4 --data "$d/inf.svm" --alpha0 inf
  expect_error_bg "$np" 2 "--report" "${fd[@]}" --data "$d/inf.svm" --report "$d/no/such/dir/r.json"
  expect_error_bg "$np" 2 "unknown command 'skecth'" skecth --method fd

  collect_bg

  run "$np" sketch --help
  if [ "$rc" != 0 ] || ! grep -q '^usage: adasketch sketch' "$work/run.stdout" || [ -s "$work/run.stderr" ]; then
    fail "np=$np adasketch sketch --help: exit $rc"
  elif [ "$(grep -c '^usage:' "$work/run.stdout")" != 1 ]; then
    fail "np=$np adasketch sketch --help: usage printed by more than one rank"
  else
    echo "ok   np=$np --help"
  fi

  # A valid 3 × 2 dense binary file.
  printf 'ADSKDNS1\x03\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' >"$d/ok.bin"
  printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\0\x40' >>"$d/ok.bin"       # +1, (1, 2)
  printf '\0\0\0\0\0\0\xf0\xbf\0\0\0\0\0\0\0\x40\0\0\0\0\0\0\xf0\x3f' >>"$d/ok.bin"       # -1, (2, 1)
  printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\x08\x40\0\0\0\0\0\0\0\0' >>"$d/ok.bin"         # +1, (3, 0)
  run "$np" sketch --method fast-fd --ell 1 --data "$d/ok.bin" --report "$d/dense.json"
  if [ "$rc" != 0 ] || [ "$(json_value "$d/dense.json" format)" != '"dense-binary"' ] ||
    [ "$(json_value "$d/dense.json" rows)" != 3 ] || [ "$(json_value "$d/dense.json" d)" != 2 ]; then
    fail "np=$np dense binary run: exit $rc; $(cat "$work/run.stderr")"
  else
    echo "ok   np=$np dense binary file"
  fi

  if [ "$np" -gt 1 ]; then
    # An error on one rank only (the others wait in the reader's collectives): the failing rank must
    # report itself and end the job.
    local r=$((np - 1))
    ADASKETCH_TEST_FAIL_ON_RANK=$r ADASKETCH_ERROR_TIMEOUT=1 run "$np" "${fd[@]}" --data "$data_dir/a9a.gz"
    if [ "$rc" = 124 ]; then
      fail "np=$np error on rank $r only: timed out (hang)"
    elif [ "$rc" = 0 ] || ! head -n 1 "$work/run.stderr" | grep -q "^adasketch: error on rank $r: injected"; then
      fail "np=$np error on rank $r only: exit $rc; stderr: $(head -c 400 "$work/run.stderr")"
    else
      echo "ok   np=$np [$rc] $(head -n 1 "$work/run.stderr")"
    fi
  fi
}

a9a() {
  local np method ref_fd="" ref_rfd=""
  for np in "$@"; do
    for method in fd rfd; do
      local report="$work/$method.np$np.json"
      run "$np" sketch --method "$method" --ell 10 --data "$data_dir/a9a.gz" --report "$report"
      if [ "$rc" != 0 ]; then
        fail "np=$np $method on a9a: exit $rc; $(head -c 400 "$work/run.stderr")"
        continue
      fi
      if command -v python3 >/dev/null 2>&1 && ! python3 -m json.tool "$report" >/dev/null; then
        fail "np=$np $method: the report is not valid JSON"
      fi
      local rel within guaranteed ranks rows
      rel=$(json_value "$report" relative_error)
      within=$(json_value "$report" within_bound)
      guaranteed=$(json_value "$report" bound_guaranteed)
      ranks=$(json_value "$report" ranks)
      rows=$(json_value "$report" rows)
      echo "     np=$np $method: relative error $rel, relative bound $(json_value "$report" relative_bound), within $within"
      [ "$within" = true ] && [ "$guaranteed" = true ] || fail "np=$np $method: not within its bound"
      [ "$ranks" = "$np" ] || fail "np=$np $method: report says ranks = $ranks"
      [ "$rows" = 32561 ] || fail "np=$np $method: report says rows = $rows"
      [ "$(json_value "$report" seed)" = 1 ] || fail "np=$np $method: default --seed missing from the report"
      if [ "$method" = fd ]; then
        [ -z "$ref_fd" ] && ref_fd=$rel
        ref=$ref_fd
        fd_rel=$rel
      else
        [ -z "$ref_rfd" ] && ref_rfd=$rel
        ref=$ref_rfd
        awk -v r="$rel" -v f="$fd_rel" 'BEGIN { exit !(r <= 0.55 * f) }' ||
          fail "np=$np: RFD error $rel is not ≤ 0.55 × FD error $fd_rel"
      fi
      awk -v a="$rel" -v b="$ref" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(d <= 1e-9 * s) }' ||
        fail "np=$np $method: relative error $rel differs from the first rank count's $ref"
    done
  done
  [ "$failures" = 0 ] && echo "ok   a9a: fd and rfd agree across rank counts ($*), RFD ≤ 0.55 × FD, both within bounds"
}

# same_number A B: |A − B| ≤ 1e-9 |B|
same_number() {
  awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(d <= 1e-9 * s) }'
}

train_errors() {
  local np=$1 d=$work
  printf '+1 1:1 3:2\n-1 2:1\n' >"$d/small.svm"
  printf '+1 1:1 3:2\n3 2:1\n' >"$d/label3.svm"  # 3 is not a label of small.svm's model: line 2
  printf '+1 1:1 3:2\n3 2:1\n-1 3:1\n' >"$d/labels3.svm"  # three labels for a binary loss
  printf '5 1:1\n5 2:1\n' >"$d/frac.svm"         # softmax needs two labels at least
  printf '+1 1:1\n-1 5:1\n' >"$d/wide.svm"       # index 5 beyond d = 3: line 2
  local diag=(train --algo ada-diag --data "$d/small.svm")

  expect_error_bg "$np" 2 "unknown algorithm 'ada-bogus'" train --algo ada-bogus --data "$d/small.svm"
  expect_error_bg "$np" 2 "--passes" "${diag[@]}" --passes 0
  expect_error_bg "$np" 2 "--data" train --algo ada-diag
  expect_error_bg "$np" 2 "--algo" train --data "$d/small.svm"
  expect_error_bg "$np" 2 "--loss" "${diag[@]}" --loss cubic
  expect_error_bg "$np" 2 "--ell" "${diag[@]}" --ell -1
  expect_error_bg "$np" 2 "--eta" "${diag[@]}" --eta abc
  expect_error_bg "$np" 2 "eta = -1" "${diag[@]}" --eta -1
  expect_error_bg "$np" 2 "--dim" "${diag[@]}" --dim -4
  expect_error_bg "$np" 2 "--model" "${diag[@]}" --model "$d/no/such/dir/m.bin"
  expect_error_bg "$np" 2 "--report" "${diag[@]}" --report "$d/no/such/dir/r.json"
  expect_error_bg "$np" 1 "labels3.svm: the logistic loss needs two distinct label values" train --algo ada-diag --data "$d/labels3.svm"
  expect_error_bg "$np" 1 "frac.svm" train --algo ada-diag --loss softmax --data "$d/frac.svm"
  expect_error_bg "$np" 1 "$d/missing.svm" train --algo ada-diag --data "$d/missing.svm"
  expect_error_bg "$np" 1 "wide.svm:2" "${diag[@]}" --test "$d/wide.svm"
  expect_error_bg "$np" 1 "label3.svm:2: label 3" "${diag[@]}" --test "$d/label3.svm"
  expect_error_bg "$np" 1 "missing.model" predict --model "$d/missing.model" --data "$d/small.svm"
  expect_error_bg "$np" 1 "not an adasketch model" predict --model "$d/small.svm" --data "$d/small.svm"
  expect_error_bg "$np" 2 "--model" predict --data "$d/small.svm"
  # A finite divergence (Learner::step's check, docs/design.md §2): one line naming the steps and eta (the papers'
  # absolute settings, --scale none: relative to the data's scale the defaults do not diverge here).
  local diverging=(train --algo ada-fd --ell 5 --loss squared --scale none --data synthetic:low-rank-regression:d=17,n=1000)
  expect_error_bg "$np" 1 "n=1000:1000: ada-fd: diverged: over steps 1-1000, the mean online loss" "${diverging[@]}"
  expect_error_bg "$np" 1 "lower eta (now 0.1), or set divergence 0 to train on" "${diverging[@]}"
  expect_error_bg "$np" 1 "raise alpha0 (now 0.01)" train --algo fd-son --alpha0 0.01 --scale none --data synthetic:ill-conditioned:d=17,n=1000
  expect_error_bg "$np" 2 "divergence must be >= 0, got -1" "${diag[@]}" --divergence -1
  collect_bg
  run "$np" "${diverging[@]}" --divergence 0
  [ "$rc" = 0 ] || fail "np=$np train --divergence 0 on the diverging run: exit $rc; $(head -c 400 "$work/run.stderr")"

  run "$np" "${diag[@]}" --model "$d/small.model"
  if [ "$rc" != 0 ] || [ ! -s "$d/small.model" ] || [ -e "$d/small.model.tmp" ]; then
    fail "np=$np train --model: exit $rc; $(head -c 400 "$work/run.stderr")"
  else
    echo "ok   np=$np train --model"
  fi
  head -c 150 "$d/small.model" >"$d/short.model"
  expect_error "$np" 1 "short.model: truncated" predict --model "$d/short.model" --data "$d/small.svm"
  expect_error "$np" 1 "wide.svm:2" predict --model "$d/small.model" --data "$d/wide.svm"
  expect_error "$np" 1 "label3.svm:2: label 3" predict --model "$d/small.model" --data "$d/label3.svm"

  local command
  for command in train predict; do
    run "$np" "$command" --help
    if [ "$rc" != 0 ] || [ "$(grep -c "^usage: adasketch $command" "$work/run.stdout")" != 1 ] || [ -s "$work/run.stderr" ]; then
      fail "np=$np adasketch $command --help: exit $rc, or usage not printed once"
    else
      echo "ok   np=$np $command --help"
    fi
  done
}

# train_run NAME NP ARGS...: adasketch train with a report in $work/NAME.npNP.json; checks exit and JSON.
train_run() {
  local name=$1 np=$2
  shift 2
  report="$work/$name.np$np.json"
  run "$np" train "$@" --report "$report"
  if [ "$rc" != 0 ]; then
    fail "np=$np train $name: exit $rc; $(head -c 400 "$work/run.stderr")"
    return 1
  fi
  if command -v python3 >/dev/null 2>&1 && ! python3 -m json.tool "$report" >/dev/null; then
    fail "np=$np train $name: the report is not valid JSON"
  fi
  [ "$(json_value "$report" ranks)" = "$np" ] || fail "np=$np train $name: report says ranks = $(json_value "$report" ranks)"
}

# compare_runs NAME NP REF_NP MIN_ACCURACY: the run at NP has the first run's numbers; accuracy ≥ MIN.
compare_runs() {
  local name=$1 np=$2 ref=$3 min=$4 key
  local a="$work/$name.np$np.json" b="$work/$name.np$ref.json"
  [ "$(json_value "$a" online_mistakes)" = "$(json_value "$b" online_mistakes)" ] ||
    fail "np=$np $name: online mistakes $(json_value "$a" online_mistakes) ≠ $(json_value "$b" online_mistakes) at np=$ref"
  for key in cumulative_loss test_accuracy test_mean_loss; do
    same_number "$(json_value "$a" $key)" "$(json_value "$b" $key)" ||
      fail "np=$np $name: $key $(json_value "$a" $key) differs from np=$ref's $(json_value "$b" $key)"
  done
  awk -v a="$(json_value "$a" test_accuracy)" -v m="$min" 'BEGIN { exit !(a >= m) }' ||
    fail "np=$np $name: test accuracy $(json_value "$a" test_accuracy) < $min"
  echo "     np=$np $name: online mistakes $(json_value "$a" online_mistakes), test accuracy $(json_value "$a" test_accuracy)"
}

train() {
  local first=$1 np last
  for np in "$@"; do last=$np; done
  local a9a=(--algo ada-diag --loss logistic --eta 0.1 --delta 0.01 --data "$data_dir/a9a.gz"
    --test "$data_dir/a9a.t.gz" --dim 123)
  local a9a_da=(--algo ada-diag-da --loss logistic --eta 1 --delta 10 --data "$data_dir/a9a.gz"
    --test "$data_dir/a9a.t.gz" --dim 123)
  local usps=(--algo ada-diag --loss softmax --eta 0.1 --delta 1 --scale none --data "$data_dir/usps_esl.gz"
    --test "$data_dir/usps_esl.t.gz")
  for np in "$@"; do
    local model=()
    [ "$np" = "$first" ] && model=(--model "$work/a9a.model")
    train_run a9a "$np" "${a9a[@]}" "${model[@]}" && compare_runs a9a "$np" "$first" 0.835
    [ "$(json_value "$work/a9a.np$np.json" examples)" = 32561 ] || fail "np=$np a9a: examples ≠ 32561"
    # The LIBSVM reader's throughput: a summary line and three positive numbers in the report.
    grep -qE '^  parse         [0-9.e+]+ MB/s, [0-9.e+]+ examples/s \([0-9.e+-]+ s\)$' "$work/run.stdout" ||
      fail "np=$np a9a: no parse line in the summary"
    local key
    for key in parse_seconds parse_megabytes_per_second parse_examples_per_second; do
      awk -v v="$(json_value "$work/a9a.np$np.json" $key)" 'BEGIN { exit !(v + 0 > 0) }' ||
        fail "np=$np a9a: $key = $(json_value "$work/a9a.np$np.json" $key), expected a positive number"
    done
    train_run a9a-da "$np" "${a9a_da[@]}" && compare_runs a9a-da "$np" "$first" 0.835
    train_run usps "$np" "${usps[@]}" && compare_runs usps "$np" "$first" 0.90
    # --auto: FD-SON at its defaults scores 76.5% here; its race (α up to 1000) reaches 82%, the same
    # at every rank count, and the summary and the report say what it chose.
    train_run a9a-auto "$np" --algo fd-son --auto --data "$data_dir/a9a.gz" --test "$data_dir/a9a.t.gz" --dim 123 &&
      compare_runs a9a-auto "$np" "$first" 0.80
    grep -qE '^  auto          the race chose alpha0 [0-9.e+]+ eta [0-9.e+]+ over the first 2000 examples, of 8 candidates:$' \
      "$work/run.stdout" || fail "np=$np a9a --auto: no race in the summary"
    python3 -c 'import json, sys; a = json.load(open(sys.argv[1]))["auto"]; sys.exit(not (a["decided"] and len(a["candidates"]) == 8))' \
      "$work/a9a-auto.np$np.json" || fail "np=$np a9a --auto: the report has no decided race"
    [ "$(json_value "$work/usps.np$np.json" classes)" = 10 ] || fail "np=$np usps: classes ≠ 10"
  done

  run "$last" predict --model "$work/a9a.model" --data "$data_dir/a9a.t.gz" --report "$work/predict.json"
  if [ "$rc" != 0 ]; then
    fail "np=$last predict: exit $rc; $(head -c 400 "$work/run.stderr")"
  else
    local key
    for key in accuracy mean_loss; do
      same_number "$(json_value "$work/predict.json" $key)" "$(json_value "$work/a9a.np$first.json" test_$key)" ||
        fail "np=$last predict: $key $(json_value "$work/predict.json" $key) ≠ the training run's test_$key"
    done
    grep -q '^  labels        {-1,+1} as is' "$work/run.stdout" || fail "np=$last predict: label map not printed"
    echo "     np=$last predict on the np=$first model: accuracy $(json_value "$work/predict.json" accuracy)"
  fi

  # A run of a few seconds (2 ranks if tested, else 1): progress lines on stdout, from rank 0 only,
  # at most one a second. The passes double until the training lasts 2.5 s (a quiet machine does
  # 40 passes at 2 ranks in 0.8 s; a sanitizer build is many times slower).
  local pnp=1 passes=40 lines wall=0 tries=0
  for np in "$@"; do [ "$np" = 2 ] && pnp=2; done
  while :; do
    run_timeout=300 run "$pnp" train "${a9a[@]}" --passes "$passes" --report "$work/long.json"
    wall=$(json_value "$work/long.json" seconds)
    tries=$((tries + 1))
    if [ "$rc" != 0 ] || [ "$tries" = 5 ] || awk -v s="${wall:-0}" 'BEGIN { exit !(s >= 2.5) }'; then break; fi
    passes=$((passes * 2))
  done
  lines=$(grep -c 'examples/s .*mistake rate .*s left' "$work/run.stdout")
  if [ "$rc" != 0 ] || [ "$lines" -lt 1 ] || ! awk -v n="$lines" -v s="$wall" 'BEGIN { exit !(n <= s + 1) }'; then
    fail "np=$pnp progress: exit $rc, $lines progress lines in $wall s ($passes passes)"
  else
    echo "     np=$pnp progress: $lines lines in $wall s ($passes passes)"
  fi
  [ "$failures" = 0 ] && echo "ok   train: ada-diag and ada-diag-da agree across rank counts ($*); predict reproduces the test accuracy"
}


# The checkpoint mode (SIGKILL, SIGTERM, SIGUSR1, a crash inside a save, bad checkpoints).
source "$(dirname "${BASH_SOURCE[0]}")/launcher_noise.sh"
source "$(dirname "${BASH_SOURCE[0]}")/checkpoint_tests.sh"
# The faults and determinism modes (a failure injected on one rank at one example; run after run).
source "$(dirname "${BASH_SOURCE[0]}")/reliability_tests.sh"
# The synthetic_errors and synthetic modes (data specs, adasketch generate).
source "$(dirname "${BASH_SOURCE[0]}")/synthetic_tests.sh"
# The outputs mode (--version, --config, --quiet, --progress-every, atomic result files).
source "$(dirname "${BASH_SOURCE[0]}")/output_tests.sh"
# The bench_learners mode (adasketch-bench-learners).
source "$(dirname "${BASH_SOURCE[0]}")/bench_tests.sh"
# The predict_io_errors and predict_io modes (--predictions, --data -, HDF5 input).
source "$(dirname "${BASH_SOURCE[0]}")/predict_io_tests.sh"
# The labels_export mode (--bias, label maps, adasketch export).
source "$(dirname "${BASH_SOURCE[0]}")/labels_export_tests.sh"
# The tune_errors and tune modes (adasketch tune).
source "$(dirname "${BASH_SOURCE[0]}")/tune_tests.sh"
# The features mode (--features seen: learners on the features the data holds).
source "$(dirname "${BASH_SOURCE[0]}")/features_tests.sh"

case $mode in
  errors) errors "$1" ;;
  a9a) a9a "$@" ;;
  train_errors) train_errors "$1" ;;
  train) train "$@" ;;
  checkpoint) checkpoint "$1" ;;
  faults) faults "$1" ;;
  determinism) determinism "$1" ;;
  synthetic_errors) synthetic_errors "$1" ;;
  synthetic) synthetic "$@" ;;
  hostile) bash "$(dirname "${BASH_SOURCE[0]}")/../hostile/run_hostile.sh" "$adasketch" "$mpiexec" "$1" || failures=$((failures + 1)) ;;
  bench_learners) bench_learners "$@" ;;
  outputs) outputs "$1" ;;
  predict_io_errors) predict_io_errors "$1" ;;
  predict_io) predict_io "$@" ;;
  labels_export) labels_export "$1" ;;
  tune_errors) tune_errors "$1" ;;
  tune) tune "$@" ;;
  features) features "$1" ;;
  *)
    echo "usage: $0 {errors|a9a|train_errors|train|checkpoint|faults|determinism|synthetic_errors|synthetic|hostile|bench_learners|outputs|predict_io_errors|predict_io|labels_export|tune_errors|tune|features} PROGRAM MPIEXEC DATA_DIR NP..." >&2
    exit 2
    ;;
esac
if [ "$failures" != 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
