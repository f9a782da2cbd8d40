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
#
# Every command runs under `timeout 60`. Only POSIX tools and awk are used to read the JSON reports
# (one member per line, as the driver writes them); python3 is used for an extra JSON validity check
# when it is available.
set -u

mode=$1 adasketch=$2 mpiexec=$3 data_dir=$4
shift 4

work=$(mktemp -d "${TMPDIR:-/tmp}/adasketch-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
# --quiet: stop Open MPI's mpirun from adding its own banner when ranks exit non-zero (README).
mpi_flags=(--oversubscribe --quiet)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run NP ARGS...: runs adasketch at NP ranks; sets $rc and writes $out.stdout, $out.stderr
# ($out defaults to $work/run).
run() {
  local np=$1
  shift
  local o=${out:-$work/run}
  timeout 60 "$mpiexec" -n "$np" "${mpi_flags[@]}" "$adasketch" "$@" >"$o.stdout" 2>"$o.stderr"
  rc=$?
}

# expect_error NP CODE SUBSTRING ARGS...: one stderr line, "adasketch: error: ...SUBSTRING...", exit CODE.
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
  elif [[ "$first" != "adasketch: error: "* ]]; then
    fail "$what: stderr does not start with 'adasketch: error: ': $first"
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

case $mode in
  errors) errors "$1" ;;
  a9a) a9a "$@" ;;
  *)
    echo "usage: $0 {errors|a9a} ADASKETCH MPIEXEC DATA_DIR NP..." >&2
    exit 2
    ;;
esac
if [ "$failures" != 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
