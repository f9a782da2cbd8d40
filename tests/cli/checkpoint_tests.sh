# Sourced by run_cli_tests.sh (which defines run, fail, expect_error_bg, collect_bg, json_value,
# same_number, $work, $mpiexec, $mpi_flags, $adasketch, $data_dir): the `checkpoint` mode, described
# in run_cli_tests.sh's header.

# start_bg NP ARGS...: adasketch in the background (no timeout wrapper, so that $bg_pid is mpiexec).
start_bg() {
  local np=$1
  shift
  "$mpiexec" -n "$np" "${mpi_flags[@]}" "$adasketch" "$@" >"$work/bg.stdout" 2>"$work/bg.stderr" &
  bg_pid=$!
}

# wait_for_file FILE PID: until FILE exists or PID has exited (at most 60 s).
wait_for_file() {
  local i
  for i in $(seq 600); do
    [ -e "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# random_sleep MAX: sleeps a random time in [0.05, MAX] seconds.
random_sleep() {
  sleep "$(awk -v r="$RANDOM" -v m="$1" 'BEGIN { printf "%.2f", 0.05 + (r / 32767) * (m - 0.05) }')"
}

# same_run NAME REPORT: REPORT and the uninterrupted run's report agree exactly (examples, online
# mistakes, cumulative loss) and the models are byte-identical.
same_run() {
  local name=$1 report=$2 key
  for key in examples online_mistakes cumulative_loss; do
    [ "$(json_value "$report" $key)" = "$(json_value "$work/ref.json" $key)" ] ||
      fail "$name: $key $(json_value "$report" $key) ≠ $(json_value "$work/ref.json" $key) of the uninterrupted run"
  done
  if cmp -s "$work/ref.model" "$work/run.model"; then
    echo "ok   $name: the model is byte-identical to the uninterrupted run's"
  else
    fail "$name: the model differs from the uninterrupted run's"
  fi
}

# resume_run NP NAME ARGS...: trains with --resume $work/ck (when it exists) and the common options.
resume_run() {
  local np=$1 name=$2
  shift 2
  local resume=()
  [ -e "$work/ck" ] && resume=(--resume "$work/ck")
  rm -f "$work/run.model"
  # The rest of a run calibrated to 4 s at another rank count (3 oversubscribed ranks are slower):
  # a longer timeout than the 60 s of single commands, still far below ctest's.
  run_timeout=180 run "$np" train "${ck_args[@]}" "${resume[@]}" --model "$work/run.model" --report "$work/run.json" "$@"
  if [ "$rc" != 0 ]; then
    fail "np=$np $name: the resumed run exited $rc: $(head -c 400 "$work/run.stderr") (last line out: $(tail -n 1 "$work/run.stdout"))"
    return 1
  fi
  [ ${#resume[@]} = 0 ] || grep -q "^  resumed       $work/ck: " "$work/run.stdout" ||
    fail "np=$np $name: no 'resumed' line in the header"
}

# signal_trial NP SIGNAL ranks|mpiexec ARGS...: a checkpointed run in the background, sent SIGNAL (to
# the ranks, or to mpiexec) a random moment after its first checkpoint; sets rc. A run that has
# finished before the signal came (exit 0, no stop line: the machine was faster than the calibration
# said) proves nothing, so it is tried again, at most 3 times, the signal right after the checkpoint.
signal_trial() {
  local np=$1 sig=$2 target=$3 trial pause=$early
  shift 3
  for trial in 1 2 3; do
    rm -f "$work/ck" "$work/ck.tmp"
    start_bg "$np" train "${ck_args[@]}" "$@"
    wait_for_file "$work/ck" "$bg_pid"  # the ranks have their handlers
    random_sleep "$pause"
    if [ "$target" = mpiexec ]; then
      kill -"$sig" "$bg_pid" 2>/dev/null
    else
      kill -"$sig" $(pgrep -P "$bg_pid") 2>/dev/null
    fi
    wait "$bg_pid"
    rc=$?
    drop_launcher_noise "$work/bg.stderr"
    [ "$rc" = 0 ] && ! grep -q "stopped by SIG" "$work/bg.stdout" || return 0
    echo "     np=$np SIG$sig: the run ended before the signal (trial $trial)"
    pause=0.05
  done
}

checkpoint() {
  local np=$1 d=$work
  gzip -dc "$data_dir/a9a.gz" | head -n 4000 >"$d/a9a4k.svm"
  local train_args=(--algo fast-ada-fd --ell 10 --data "$d/a9a4k.svm" --dim 123)
  ck_args=(--algo fast-ada-fd --ell 10 --data "$d/a9a4k.svm" --dim 123 --checkpoint "$d/ck")

  # As many passes as make the uninterrupted training last about 4 s here, so that signals land
  # mid-run; the signals below come at most a quarter of that run's time after the first checkpoint.
  local passes took early
  run "$np" train "${train_args[@]}" --report "$d/one.json"
  passes=$(awk -v s="$(json_value "$d/one.json" seconds)" 'BEGIN { p = int(4 / (s + 1e-3)) + 1; print (p > 2000 ? 2000 : p) }')
  # A calibration slowed by a busy moment gives too few passes: the uninterrupted run then says so
  # (under 1 s), and is run again with passes scaled to 4 s by its own time (at most twice).
  local calibrations
  for calibrations in 1 2 3; do
    run "$np" train "${train_args[@]}" --passes "$passes" --model "$d/ref.model" --report "$d/ref.json"
    [ "$rc" = 0 ] || fail "np=$np uninterrupted run: exit $rc: $(head -c 400 "$d/run.stderr")"
    took=$(json_value "$d/ref.json" seconds)
    awk -v t="$took" 'BEGIN { exit !(t < 1) }' && [ "$passes" -lt 2000 ] && [ "$calibrations" -lt 3 ] || break
    passes=$(awk -v p="$passes" -v t="$took" 'BEGIN { q = int(p * 4 / (t + 1e-3)) + 1; print (q > 2000 ? 2000 : q) }')
  done
  train_args+=(--passes "$passes")
  ck_args+=(--passes "$passes")
  early=$(awk -v t="$took" 'BEGIN { print (t / 4 > 1 ? 1 : t / 4) }')
  echo "     np=$np uninterrupted: $passes passes of 4000 examples in $took s"

  # SIGKILL of every rank and mpiexec at a random moment after the first checkpoint. Eight
  # checkpoints a pass: each is a dozen collectives and an fsync, which at 3 oversubscribed ranks on a
  # busy machine can cost 0.3 s (every 50 examples made the resumed run outlast its timeout in CI).
  rm -f "$d/ck" "$d/ck.tmp"
  start_bg "$np" train "${ck_args[@]}" --checkpoint-every 500
  wait_for_file "$d/ck" "$bg_pid"
  random_sleep "$took"
  local killed=no
  if kill -0 "$bg_pid" 2>/dev/null; then
    kill -KILL $(pgrep -P "$bg_pid") "$bg_pid" 2>/dev/null
    killed=yes
  fi
  wait "$bg_pid" 2>/dev/null
  echo "     np=$np SIGKILL: killed mid-run: $killed"
  resume_run "$np" "SIGKILL" --checkpoint-every 500 && same_run "np=$np SIGKILL and resume" "$d/run.json"

  # SIGTERM to the ranks (what SLURM does): a final checkpoint, one line, exit 75; time-based checkpoints.
  signal_trial "$np" TERM ranks --checkpoint-every 0.5s
  local line
  line=$(tail -n 1 "$d/bg.stdout")
  if [ "$rc" != 75 ] || [ -s "$d/bg.stderr" ] ||
    [[ "$line" != "adasketch train: stopped by SIGTERM after example "*"continue it with --resume $d/ck" ]]; then
    fail "np=$np SIGTERM: exit $rc, last line '$line', stderr $(head -c 300 "$d/bg.stderr")"
  else
    echo "ok   np=$np [$rc] $line"
  fi
  [ "$(grep -c 'stopped by SIGTERM' "$d/bg.stdout")" = 1 ] || fail "np=$np SIGTERM: the stop line is not printed once"
  cp "$d/ck" "$d/term.ck"
  resume_run "$np" "SIGTERM" --checkpoint-every 0.5s && same_run "np=$np SIGTERM and resume" "$d/run.json"

  # The same checkpoint resumed at another rank count: equal to round-off.
  local other=$((np % 3 + 1))
  cp "$d/term.ck" "$d/ck"
  if resume_run "$other" "SIGTERM at np=$np, resumed at np=$other"; then
    grep -q "resumed at $other: equal to an uninterrupted run to round-off" "$d/run.stdout" ||
      fail "np=$np → $other: no note that the rank count changed"
    [ "$(json_value "$d/run.json" online_mistakes)" = "$(json_value "$d/ref.json" online_mistakes)" ] &&
      same_number "$(json_value "$d/run.json" cumulative_loss)" "$(json_value "$d/ref.json" cumulative_loss)" &&
      echo "ok   np=$np → $other: online mistakes and cumulative loss as uninterrupted" ||
      fail "np=$np → $other: $(json_value "$d/run.json" online_mistakes) mistakes, loss $(json_value "$d/run.json" cumulative_loss)"
  fi

  # SIGUSR1 to mpiexec, which passes it on to the ranks (Open MPI ends the job on its own SIGTERM).
  signal_trial "$np" USR1 mpiexec --checkpoint-every 1000
  if [ "$rc" != 75 ] || ! grep -q "^adasketch train: stopped by SIGUSR1" "$d/bg.stdout"; then
    fail "np=$np SIGUSR1 to mpiexec: exit $rc; $(tail -n 1 "$d/bg.stdout") $(head -c 300 "$d/bg.stderr")"
  else
    echo "ok   np=$np [$rc] SIGUSR1 to mpiexec: $(tail -n 1 "$d/bg.stdout" | cut -c 1-60)..."
  fi
  resume_run "$np" "SIGUSR1" --checkpoint-every 1000 && same_run "np=$np SIGUSR1 and resume" "$d/run.json"

  # Killed inside the 3rd save, after FILE.tmp is complete, before the rename: FILE holds the 2nd.
  rm -f "$d/ck" "$d/ck.tmp"
  ADASKETCH_TEST_CRASH_BEFORE_RENAME=3 run "$np" train "${ck_args[@]}" --checkpoint-every 1000
  if [ "$rc" = 0 ] || [ ! -e "$d/ck" ] || [ ! -e "$d/ck.tmp" ]; then
    fail "np=$np crash before rename: exit $rc, checkpoint $(ls "$d"/ck* 2>&1 | tr '\n' ' ')"
  else
    echo "ok   np=$np [$rc] crash between FILE.tmp and the rename: FILE and FILE.tmp present"
  fi
  resume_run "$np" "crash before rename" --checkpoint-every 1000 &&
    grep -q "^  resumed       $d/ck: pass 1/$passes after example 2000 of 4000" "$d/run.stdout" &&
    same_run "np=$np crash before rename and resume" "$d/run.json" ||
    fail "np=$np crash before rename: not resumed from example 2000: $(grep resumed "$d/run.stdout")"

  # Bad checkpoints and options: one line each.
  cp "$d/term.ck" "$d/good.ck"
  head -c 300 "$d/good.ck" >"$d/short.ck"
  cp "$d/good.ck" "$d/flipped.ck"
  printf '\x55' | dd of="$d/flipped.ck" bs=1 seek=$(($(wc -c <"$d/good.ck") - 5)) conv=notrunc 2>/dev/null
  gzip -dc "$data_dir/a9a.gz" | head -n 3000 >"$d/a9a3k.svm"
  local base=(train --data "$d/a9a4k.svm")
  expect_error_bg "$np" 1 "short.ck: truncated checkpoint file" "${base[@]}" --resume "$d/short.ck"
  expect_error_bg "$np" 1 "flipped.ck: corrupt checkpoint file: checksum mismatch in field" "${base[@]}" --resume "$d/flipped.ck"
  expect_error_bg "$np" 1 "ref.model: not an adasketch checkpoint file" "${base[@]}" --resume "$d/ref.model"
  expect_error_bg "$np" 1 "missing.ck" "${base[@]}" --resume "$d/missing.ck"
  expect_error_bg "$np" 2 "option --algo rfd-son: the checkpoint '$d/good.ck' was written with --algo fast-ada-fd" \
    "${base[@]}" --algo rfd-son --resume "$d/good.ck"
  expect_error_bg "$np" 2 "option --ell 20: the checkpoint '$d/good.ck' was written with --ell 10" \
    "${base[@]}" --ell 20 --resume "$d/good.ck"
  expect_error_bg "$np" 2 "option --dim 200: the checkpoint '$d/good.ck' has d = 123" "${base[@]}" --dim 200 --resume "$d/good.ck"
  expect_error_bg "$np" 1 "a9a3k.svm: has 3000 examples, but the checkpoint" train --data "$d/a9a3k.svm" --resume "$d/good.ck"
  expect_error_bg "$np" 2 "--checkpoint-every" train "${train_args[@]}" --checkpoint "$d/x.ck" --checkpoint-every 1x
  expect_error_bg "$np" 2 "--checkpoint-every" train "${train_args[@]}" --checkpoint "$d/x.ck" --checkpoint-every -5
  expect_error_bg "$np" 2 "--checkpoint-every" train "${train_args[@]}" --checkpoint "$d/x.ck" --checkpoint-every 0s
  expect_error_bg "$np" 2 "option --checkpoint-every: needs --checkpoint" train "${train_args[@]}" --checkpoint-every 10
  expect_error_bg "$np" 2 "--checkpoint" train "${train_args[@]}" --checkpoint "$d/no/such/dir/ck"
  expect_error_bg "$np" 2 "option --checkpoint $d/a9a4k.svm: the same file as --data" train "${train_args[@]}" \
    --checkpoint "$d/a9a4k.svm"
  expect_error_bg "$np" 2 "option --checkpoint $d/m: the same file as --model" train "${train_args[@]}" --checkpoint "$d/m" \
    --model "$d/m"
  expect_error_bg "$np" 2 "--algo" train --data "$d/a9a4k.svm"
  collect_bg
}
