# Sourced by run_cli_tests.sh (which defines run, fail, expect_error_bg, collect_bg, json_value,
# same_number, drop_launcher_noise, $work, $mpiexec, $mpi_flags, $adasketch, $data_dir): the
# `tune_errors` and `tune` modes, described in run_cli_tests.sh's header.

# same_csv A B: the same columns and rows; numbers equal to 1e-9 (relative), other fields exactly;
# the seconds column is not compared.
same_csv() {
  awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
    FNR == 1 { if ($0 != a[1]) { print "header: " $0 " ≠ " a[1]; bad = 1 } for (k = 1; k <= NF; ++k) if ($k == "seconds") skip = k }
    FNR > 1 { split(a[FNR], x, ",")
      for (k = 1; k <= NF; ++k) {
        if (k == skip) continue
        if ($k == x[k]) continue
        if ($k ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ && x[k] ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) {
          d = $k - x[k]; if (d < 0) d = -d; s = x[k] < 0 ? -x[k] : x[k]
          if (d <= 1e-9 * s) continue
        }
        print "row " FNR - 1 ", column " k ": " $k " ≠ " x[k]; bad = 1
      } }
    END { if (FNR != n) { print FNR " lines ≠ " n; bad = 1 } exit bad }' "$1" "$2"
}

tune_errors() {
  local np=$1 d=$work
  gzip -dc "$data_dir/a9a.gz" | head -n 100 >"$d/a9a100.svm"
  local base=(tune --algo ada-diag --data "$d/a9a100.svm" --dim 123)
  expect_error_bg "$np" 2 "option --vary etaa=...: 'adasketch train' has no option --etaa" "${base[@]}" --vary etaa=1,2
  expect_error_bg "$np" 2 "needs 0 < LO < HI" "${base[@]}" --vary eta=0:1
  expect_error_bg "$np" 2 "HI/LO must be a power of 10" "${base[@]}" --vary eta=1e-4:3e2
  expect_error_bg "$np" 2 "N of LO:HI:N must be an integer" "${base[@]}" --vary eta=1e-4:1:1
  expect_error_bg "$np" 2 "expected NAME=LIST" "${base[@]}" --vary eta
  expect_error_bg "$np" 2 "configuration 1 (eta=x): option --eta: expected a finite number" "${base[@]}" --vary eta=1,x
  expect_error_bg "$np" 2 "configuration 1 (loss=bogus): option --loss" "${base[@]}" --vary loss=logistic,bogus
  expect_error_bg "$np" 2 "--eta is also given as a fixed option" "${base[@]}" --eta 1 --vary eta=1,2
  expect_error_bg "$np" 2 "delta varied twice" "${base[@]}" --vary delta=1,2 --vary delta=3
  expect_error_bg "$np" 2 "option --model: not allowed" "${base[@]}" --vary eta=1 --model "$d/m"
  expect_error_bg "$np" 2 "option --select test: needs --test" "${base[@]}" --vary eta=1 --select test
  expect_error_bg "$np" 2 "option --select: expected online or test" "${base[@]}" --vary eta=1 --select best
  expect_error_bg "$np" 2 "missing required option --vary" "${base[@]}"
  expect_error_bg "$np" 2 "option --out-csv: cannot open" "${base[@]}" --vary eta=1 --out-csv "$d/no/such/dir/t.csv"
  expect_error_bg "$np" 2 "option --groups $((np + 1)): must divide the number of ranks ($np)" "${base[@]}" --vary eta=1 \
    --groups $((np + 1))
  collect_bg

  # A checkpoint of one grid refuses another.
  run "$np" "${base[@]}" --vary eta=0.1,1 --checkpoint "$d/grid.ck" --quiet
  [ "$rc" = 0 ] || fail "np=$np tune --checkpoint: exit $rc: $(head -c 400 "$work/run.stderr")"
  expect_error "$np" 2 "option --checkpoint $d/grid.ck: it was written for other train options or another grid" \
    "${base[@]}" --vary eta=0.1,2 --checkpoint "$d/grid.ck"
  expect_error "$np" 2 "another grid" "${base[@]}" --vary eta=0.1,1 --delta 2 --checkpoint "$d/grid.ck"

  # An error inside a configuration (the hook counts ranks in the group): on the last rank of one
  # group of every rank, and on rank 0 of every group of one rank: the job ends (no hang), non-zero.
  local r groups
  for groups in 1 "$np"; do
    r=$((np / groups - 1))
    ADASKETCH_TEST_FAIL_ON_RANK=$r:50:error ADASKETCH_ERROR_TIMEOUT=2 run "$np" "${base[@]}" --vary eta=0.1,1,10 \
      --groups "$groups"
    if [ "$rc" = 124 ] || [ "$rc" = 0 ] || ! grep -q "^adasketch: error.*injected" "$work/run.stderr"; then
      fail "np=$np tune --groups $groups, an error on group rank $r: exit $rc; stderr: $(head -c 400 "$work/run.stderr")"
    else
      echo "ok   np=$np [$rc] tune --groups $groups: an error on group rank $r ends the job: $(head -n 1 "$work/run.stderr")"
    fi
  done
}

# tune_stop NP ARGS...: a checkpointed tune in the background, sent SIGTERM (to the ranks) a moment
# after its checkpoint file appears; sets rc (75 expected). As signal_trial: tried again, the signal
# sooner, when the grid finished first.
tune_stop() {
  local np=$1 trial pause=1.0
  shift
  for trial in 1 2 3; do
    rm -f "$work"/stop.ck*
    "$mpiexec" -n "$np" "${mpi_flags[@]}" "$adasketch" "$@" >"$work/bg.stdout" 2>"$work/bg.stderr" &
    local pid=$!
    local i
    for i in $(seq 600); do
      [ -e "$work/stop.ck" ] || { kill -0 "$pid" 2>/dev/null && sleep 0.1 && continue; }
      break
    done
    sleep "$pause"
    kill -TERM $(pgrep -P "$pid") 2>/dev/null
    wait "$pid"
    rc=$?
    drop_launcher_noise "$work/bg.stderr"
    [ "$rc" = 0 ] || return 0
    echo "     np=$np SIGTERM: the grid ended before the signal (trial $trial)"
    pause=0.1
  done
}

tune() {
  local d=$work np first=$1 last=${!#}
  gzip -dc "$data_dir/a9a.gz" | head -n 300 >"$d/a9a300.svm"
  gzip -dc "$data_dir/a9a.t.gz" | head -n 200 >"$d/a9a200.t.svm"
  local fixed=(--algo ada-diag --data "$d/a9a300.svm" --dim 123 --test "$d/a9a200.t.svm")
  local grid=(--vary eta=0.01:1 --vary delta=1e-3,1)

  # (1) Every row is `adasketch train` alone with that configuration; the best row is the argmin.
  run 1 tune "${fixed[@]}" "${grid[@]}" --out-csv "$d/ref.csv" --report "$d/ref.json" --quiet
  [ "$rc" = 0 ] || fail "np=1 tune: exit $rc: $(head -c 400 "$work/run.stderr")"
  local row eta delta key rows=0 line
  local lines=()
  mapfile -t lines < <(tail -n +2 "$d/ref.csv")  # not read in the loop: mpiexec reads standard input
  for line in "${lines[@]}"; do
    IFS=, read -r row eta delta _ <<<"$line"
    rows=$((rows + 1))
    run 1 train "${fixed[@]}" --eta "$eta" --delta "$delta" --report "$d/alone.json" --quiet
    local csv_line
    csv_line=$(sed -n "$((row + 2))p" "$d/ref.csv")
    local got=(mistakes "$(cut -d, -f5 <<<"$csv_line")" cumulative_loss "$(cut -d, -f7 <<<"$csv_line")"
      test_accuracy "$(cut -d, -f9 <<<"$csv_line")" test_mean_loss "$(cut -d, -f10 <<<"$csv_line")")
    [ "${got[1]}" = "$(json_value "$d/alone.json" online_mistakes)" ] ||
      fail "tune row $row: online mistakes ${got[1]} ≠ train's $(json_value "$d/alone.json" online_mistakes)"
    for key in 2 4 6; do
      same_number "${got[key + 1]}" "$(json_value "$d/alone.json" "${got[key]}")" ||
        fail "tune row $row: ${got[key]} ${got[key + 1]} ≠ train's $(json_value "$d/alone.json" "${got[key]}")"
    done
  done
  [ "$rows" = 6 ] || fail "tune: $rows rows, expected 6"
  local best argmin
  best=$(awk -F, '$NF == 1 { print $1 }' "$d/ref.csv")
  argmin=$(awk -F, 'NR > 1 && (m == "" || $5 < m || ($5 == m && $7 < l)) { m = $5; l = $7; i = $1 } END { print i }' "$d/ref.csv")
  [ -n "$best" ] && [ "$best" = "$argmin" ] || fail "tune: best row '$best', the argmin of (mistakes, loss) is $argmin"
  run 1 tune "${fixed[@]}" "${grid[@]}" --select test --out-csv "$d/test.csv" --quiet
  best=$(awk -F, '$NF == 1 { print $1 }' "$d/test.csv")
  argmin=$(awk -F, 'NR > 1 && (m == "" || $9 > m || ($9 == m && $10 < l)) { m = $9; l = $10; i = $1 } END { print i }' "$d/test.csv")
  [ -n "$best" ] && [ "$best" = "$argmin" ] || fail "tune --select test: best row '$best', the best test accuracy is row $argmin"
  [ "$(grep -c '"index"' "$d/ref.json")" = 7 ] || fail "tune: the report has not 6 rows and a best one"
  [ "$failures" = 0 ] && echo "ok   tune: the 6 rows are train's results; best row $best is the argmin"

  # (2) The same CSV at every rank count, one rank per group and one group of every rank.
  for np in "$@"; do
    for groups in 0 1; do
      run "$np" tune "${fixed[@]}" "${grid[@]}" --groups "$groups" --out-csv "$d/np.csv" --quiet
      if [ "$rc" != 0 ]; then
        fail "np=$np --groups $groups: exit $rc: $(head -c 400 "$work/run.stderr")"
      elif ! same_csv "$d/np.csv" "$d/ref.csv"; then
        fail "np=$np --groups $groups: the CSV differs from np=1's"
      else
        echo "ok   np=$np --groups $groups: the same CSV"
      fi
    done
  done

  # A diverging configuration is a failed row; the grid goes on.
  run "$last" tune "${fixed[@]}" --loss squared --vary eta=0.01,1e200 --out-csv "$d/div.csv" --quiet
  if [ "$rc" != 0 ] || [ "$(cut -d, -f3 "$d/div.csv" | tr '\n' ' ')" != "status ok failed " ] ||
    [ "$(awk -F, '$NF == 1 { print $1 }' "$d/div.csv")" != 0 ]; then
    fail "np=$last diverging configuration: exit $rc; $(cat "$d/div.csv")"
  else
    echo "ok   np=$last the diverging configuration is a failed row"
  fi

  # (3) Stopped by SIGTERM (exit 75), continued by the same command: the uninterrupted run's CSV;
  # configurations stopped mid-run continue from their own checkpoint, at the same or another rank count.
  gzip -dc "$data_dir/a9a.gz" | head -n 4000 >"$d/a9a4k.svm"
  local long=(tune --algo ada-diag --data "$d/a9a4k.svm" --dim 123 --vary eta=0.1,1 --vary delta=1e-3,1)
  run 1 train --algo ada-diag --data "$d/a9a4k.svm" --dim 123 --report "$d/one.json" --quiet
  local passes
  passes=$(awk -v s="$(json_value "$d/one.json" seconds)" 'BEGIN { p = int(1.5 / (s + 1e-4)) + 1; print (p > 2000 ? 2000 : p) }')
  long+=(--passes "$passes")
  for np in "$first" "$last"; do
    run_timeout=180 run "$np" "${long[@]}" --out-csv "$d/long.csv" --quiet
    [ "$rc" = 0 ] || fail "np=$np uninterrupted grid: exit $rc"
    tune_stop "$np" "${long[@]}" --checkpoint "$d/stop.ck" --out-csv "$d/stopped.csv"
    if [ "$rc" != 75 ] || ! grep -q "stopped by SIGTERM with [0-3] of 4 configurations done" "$work/bg.stdout"; then
      fail "np=$np SIGTERM: exit $rc; $(tail -n 2 "$work/bg.stdout") $(head -c 300 "$work/bg.stderr")"
      continue
    fi
    local resume_np=$np
    [ "$np" = "$first" ] || resume_np=$first
    run_timeout=180 run "$resume_np" "${long[@]}" --checkpoint "$d/stop.ck" --out-csv "$d/stopped.csv" --quiet
    if [ "$rc" != 0 ]; then
      fail "np=$np stopped, continued at np=$resume_np: exit $rc: $(head -c 400 "$work/run.stderr")"
    elif ! same_csv "$d/stopped.csv" "$d/long.csv"; then
      fail "np=$np stopped, continued at np=$resume_np: the CSV differs from the uninterrupted run's"
    else
      echo "ok   np=$np stopped by SIGTERM ($(grep -o 'with [0-9] of 4' "$work/bg.stdout")), continued at np=$resume_np: the same CSV"
    fi
  done
}
