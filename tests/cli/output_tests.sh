# Sourced by run_cli_tests.sh (which defines run, fail, expect_error_bg, collect_bg, json_value,
# $work, $mpiexec, $mpi_flags, $adasketch, $data_dir): the `outputs` mode, described in
# run_cli_tests.sh's header.

# no_temporaries DIR WHAT: fails when a temporary output file (*.tmp, *.tmp.PID) is left in DIR.
no_temporaries() {
  local left
  left=$(find "$1" -maxdepth 1 -name '*.tmp*' | tr '\n' ' ')
  [ -z "$left" ] || fail "$2: temporary files left behind: $left"
}

# complete_or_absent REPORT MODEL WHAT: the report is absent or valid JSON with its last member; the
# model absent or exactly 128 + 8·123 + 16 bytes (a9a, d = 123, one output, no label values; the
# trailer: docs/formats.md).
complete_or_absent() {
  local report=$1 model=$2 what=$3
  if [ -e "$report" ] && ! { grep -q '"nonzero_weights": ' "$report" && python3 -m json.tool "$report" >/dev/null; }; then
    fail "$what: a partial report ($(wc -c <"$report") bytes)"
  fi
  if [ -e "$model" ] && [ "$(wc -c <"$model")" != $((128 + 8 * 123 + 16)) ]; then
    fail "$what: a partial model ($(wc -c <"$model") bytes)"
  fi
}

outputs() {
  local np=$1 d=$work/out
  mkdir -p "$d"
  gzip -dc "$data_dir/a9a.gz" | head -n 4000 >"$d/a9a4k.svm"
  head -n 200 "$d/a9a4k.svm" >"$d/a9a200.svm"  # the long runs: many passes over few examples
  local base=(train --algo ada-diag --eta 0.1 --delta 0.3 --data "$d/a9a4k.svm" --dim 123)

  # `adasketch` alone: the usage, status 0. --version, alone and after a command: one line with the
  # version of the project (CMakeLists.txt) and the build's options.
  run "$np"
  if [ "$rc" != 0 ] || [ "$(grep -c '^usage: adasketch <command>' "$work/run.stdout")" != 1 ] || [ -s "$work/run.stderr" ]; then
    fail "np=$np adasketch alone: exit $rc, or usage not printed once: $(head -c 300 "$work/run.stderr")"
  else
    echo "ok   np=$np adasketch alone prints its usage"
  fi
  local version
  version=$(sed -n 's/^project(adasketch VERSION \([0-9.]*\) .*/\1/p' "$data_dir/../../CMakeLists.txt")
  local args
  for args in "--version" "train --version" "predict --data x --version"; do
    # shellcheck disable=SC2086  # the words of $args
    run "$np" $args
    if [ "$rc" != 0 ] || [ "$(wc -l <"$work/run.stdout")" != 1 ] ||
      ! grep -qE "^adasketch $version \(MPI [0-9]+\.[0-9]+, ScaLAPACK (on|off)\)$" "$work/run.stdout"; then
      fail "np=$np adasketch $args: exit $rc; $(head -c 200 "$work/run.stdout") $(head -c 200 "$work/run.stderr")"
    else
      echo "ok   np=$np adasketch $args: $(cat "$work/run.stdout")"
    fi
  done

  # Numbers in a report read back as given: 0.1, not 0.10000000000000001. The report and the model
  # are written through temporary files, none of which is left.
  run "$np" "${base[@]}" --report "$d/cli.json" --model "$d/cli.model"
  if [ "$rc" != 0 ] || [ "$(json_value "$d/cli.json" eta)" != 0.1 ] || [ "$(json_value "$d/cli.json" delta)" != 0.3 ]; then
    fail "np=$np report numbers: exit $rc, eta $(json_value "$d/cli.json" eta), delta $(json_value "$d/cli.json" delta)"
  else
    echo "ok   np=$np --eta 0.1 --delta 0.3: the report says 0.1 and 0.3"
  fi
  python3 -m json.tool "$d/cli.json" >/dev/null || fail "np=$np: the report is not valid JSON"
  no_temporaries "$d" "np=$np a completed run"

  # --config: the same options from a file give the same run; the command line wins over the file.
  printf '# train options\nalgo = "ada-diag"\neta = 0.1\ndelta = 0.3\ndim = 123\npasses = 2\n' >"$d/opts.toml"
  run "$np" train --config "$d/opts.toml" --data "$d/a9a4k.svm" --passes 1 --report "$d/config.json"
  local key
  if [ "$rc" != 0 ]; then
    fail "np=$np --config: exit $rc; $(head -c 300 "$work/run.stderr")"
  else
    for key in eta delta passes online_mistakes cumulative_loss; do
      [ "$(json_value "$d/config.json" $key)" = "$(json_value "$d/cli.json" $key)" ] ||
        fail "np=$np --config: $key $(json_value "$d/config.json" $key) ≠ $(json_value "$d/cli.json" $key) of the command line's run"
    done
    echo "ok   np=$np --config: the same report numbers as the options on the command line"
  fi
  printf 'eta = fast\n' >"$d/bad.toml"
  printf 'etta = 0.1\n' >"$d/unknown.toml"
  expect_error_bg "$np" 2 "option --eta: expected a finite number, got 'fast'" train --algo ada-diag --data "$d/a9a4k.svm" \
    --config "$d/bad.toml"
  expect_error_bg "$np" 2 "option --config $d/unknown.toml: unknown option 'etta'" "${base[@]}" --config "$d/unknown.toml"
  expect_error_bg "$np" 2 "option --config: cannot read '$d/missing.toml'" "${base[@]}" --config "$d/missing.toml"
  expect_error_bg "$np" 2 "option --progress-every: must be ≥ 0" "${base[@]}" --progress-every -1
  expect_error_bg "$np" 2 "option --quiet: expected true or false" "${base[@]}" --quiet=maybe
  collect_bg

  # --quiet: nothing on stdout or stderr, the files still written.
  rm -f "$d/quiet.json" "$d/quiet.model"
  run "$np" "${base[@]}" --quiet --report "$d/quiet.json" --model "$d/quiet.model"
  if [ "$rc" != 0 ] || [ -s "$work/run.stdout" ] || [ -s "$work/run.stderr" ] || [ ! -s "$d/quiet.json" ] ||
    ! cmp -s "$d/quiet.model" "$d/cli.model"; then
    fail "np=$np train --quiet: exit $rc, stdout $(wc -c <"$work/run.stdout") bytes, stderr $(head -c 200 "$work/run.stderr")"
  else
    echo "ok   np=$np train --quiet: silent, report and model written"
  fi
  run "$np" predict --model "$d/cli.model" --data "$d/a9a4k.svm" --quiet --report "$d/qpredict.json"
  if [ "$rc" != 0 ] || [ -s "$work/run.stdout" ] || [ -s "$work/run.stderr" ] || [ ! -s "$d/qpredict.json" ]; then
    fail "np=$np predict --quiet: exit $rc, stdout $(wc -c <"$work/run.stdout") bytes"
  else
    echo "ok   np=$np predict --quiet: silent, report written"
  fi

  # A run of a few seconds: enough passes, from the time of 20 (a single pass misses the per-pass
  # costs, which dominate at 3 oversubscribed ranks).
  local passes took
  local short=(train --algo ada-diag --eta 0.1 --delta 0.3 --data "$d/a9a200.svm" --dim 123)
  run "$np" "${short[@]}" --passes 20 --quiet --report "$d/calibrate.json"
  [ "$rc" = 0 ] || fail "np=$np train --passes 20: exit $rc"
  passes=$(awk -v s="$(json_value "$d/calibrate.json" seconds)" \
    'BEGIN { p = int(20 * 3 / (s + 1e-3)) + 1; print (p > 100000 ? 100000 : p < 20 ? 20 : p) }')
  local long=("${short[@]}" --passes "$passes")

  # --progress-every: 0 prints no progress line; 0.25 at least one and at most one per 0.25 s.
  run "$np" "${long[@]}" --progress-every 0 --report "$d/long.json"
  took=$(json_value "$d/long.json" seconds)
  [ "$rc" = 0 ] && ! grep -q 'examples/s .*mistake rate' "$work/run.stdout" ||
    fail "np=$np --progress-every 0: exit $rc, $(grep -c 'examples/s' "$work/run.stdout") progress lines"
  run "$np" "${long[@]}" --progress-every 0.25 --report "$d/long.json"
  local lines
  lines=$(grep -c 'examples/s .*mistake rate .*s left' "$work/run.stdout")
  took=$(json_value "$d/long.json" seconds)
  if [ "$rc" != 0 ] || [ "$lines" -lt 1 ] || ! awk -v n="$lines" -v s="$took" 'BEGIN { exit !(n <= s / 0.25 + 1) }'; then
    fail "np=$np --progress-every 0.25: exit $rc, $lines progress lines in $took s"
  else
    echo "ok   np=$np --progress-every 0.25: $lines progress lines in $took s ($passes passes); 0: none"
  fi

  # SIGTERM to the ranks mid-run (without --checkpoint: the signal ends the run; with it: exit 75):
  # neither an empty nor a partial report or model, and no temporary file.
  local trial ck
  for ck in "" "--checkpoint $d/ck"; do
    rm -f "$d/term.json" "$d/term.model" "$d/ck"
    # shellcheck disable=SC2086  # the words of $ck
    "$mpiexec" -n "$np" "${mpi_flags[@]}" "$adasketch" "${long[@]}" --report "$d/term.json" --model "$d/term.model" \
      $ck >"$work/bg.stdout" 2>"$work/bg.stderr" &
    local pid=$!
    for trial in $(seq 600); do
      grep -q '^adasketch train: ' "$work/bg.stdout" && break  # the header: training starts
      sleep 0.1
    done
    sleep "$(awk -v r="$RANDOM" -v t="$took" 'BEGIN { printf "%.2f", 0.1 + (r / 32767) * t / 3 }')"
    kill -TERM $(pgrep -P "$pid") 2>/dev/null
    wait "$pid"
    rc=$?
    local what="np=$np SIGTERM${ck:+ with --checkpoint}"
    if [ "$rc" = 0 ]; then
      echo "     $what: the run ended before the signal"
    elif [ -n "$ck" ] && [ "$rc" != 75 ]; then
      fail "$what: exit $rc, expected 75: $(head -c 300 "$work/bg.stderr")"
    elif [ -e "$d/term.json" ] || [ -e "$d/term.model" ]; then
      fail "$what: exit $rc, yet the report or the model was written: $(ls "$d"/term.* | tr '\n' ' ')"
    else
      echo "ok   $what: exit $rc, no report, no model"
    fi
    complete_or_absent "$d/term.json" "$d/term.model" "$what"
    no_temporaries "$d" "$what"
  done

  # A run failing mid-file (a bad line 3001) writes no report or model, and an older report stays.
  { head -n 3000 "$d/a9a4k.svm"; echo "+1 5:x"; tail -n 999 "$d/a9a4k.svm"; } >"$d/bad.svm"
  rm -f "$d/fail.model"
  echo "an older report" >"$d/fail.json"
  expect_error "$np" 1 "bad.svm:3001" train --algo ada-diag --data "$d/bad.svm" --dim 123 --report "$d/fail.json" \
    --model "$d/fail.model"
  [ "$(cat "$d/fail.json")" = "an older report" ] || fail "np=$np failed run: the older report was replaced"
  [ -e "$d/fail.model" ] && fail "np=$np failed run: a model was written"
  no_temporaries "$d" "np=$np failed run"
}
