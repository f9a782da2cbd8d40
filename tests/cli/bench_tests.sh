# Sourced by run_cli_tests.sh (which defines run, fail, expect_error_bg, collect_bg, json_value,
# same_number, $work, $data_dir; $adasketch is the benchmark here): the `bench_learners` mode,
# described in run_cli_tests.sh's header.

# learner_value FILE ALGO KEY: KEY of the object with "algorithm": "ALGO" in the report's learners.
learner_value() {
  awk -v algo="\"$2\"," -v key="\"$3\":" '$1 == "\"algorithm\":" { inside = ($2 == algo) }
    inside && $1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

bench_learners() {
  local first=$1 np d=$work
  # name:R:Allreduce calls per example. Plain FD shrinks at every step once full (one Allreduce for
  # the step, one for the Gram); fast FD at insertions 2ℓ + k(ℓ + 1) = 40, 61, 82, ...: once in the
  # timed steps 51..70 (every gradient of a fresh row is inserted); ADA-DIAG reads its d_p weights.
  # The SON variants also sample their model's own score for the divergence check before every 10th
  # step (steps 60 and 70: 0.1 more per example).
  local expected=(ada-fd:20:2 fast-ada-fd:40:1.05 fd-son:20:2.1 fast-rfd-son:40:1.15 ada-diag:1:1)
  local algos=ada-fd,fast-ada-fd,fd-son,fast-rfd-son,ada-diag
  for np in "$@"; do
    local report="$d/bench.np$np.json" dp=$(((2000 + np - 1) / np)) e
    run "$np" --dim 2000 --examples 20 --algo "$algos" --report "$report"
    if [ "$rc" != 0 ]; then
      fail "np=$np bench: exit $rc; $(head -c 400 "$work/run.stderr")"
      continue
    fi
    if command -v python3 >/dev/null 2>&1 && ! python3 -m json.tool "$report" >/dev/null; then
      fail "np=$np bench: the report is not valid JSON"
    fi
    [ "$(json_value "$report" ranks)" = "$np" ] && [ "$(json_value "$report" d)" = 2000 ] &&
      [ "$(json_value "$report" examples)" = 20 ] && [ "$(json_value "$report" local_dim_max)" = "$dp" ] ||
      fail "np=$np bench: ranks, d, examples or local_dim_max wrong in the report"
    grep -q "^  ada-fd  *logistic " "$work/run.stdout" || fail "np=$np bench: no table row for ada-fd"
    for e in "${expected[@]}"; do
      local name=${e%%:*} rest=${e#*:}
      local rows=${rest%%:*} calls=${rest#*:} key
      for key in seconds_per_example first_round_seconds_per_example last_round_seconds_per_example read_seconds \
                 ratio_example_to_read mpi_share allreduce_bytes_per_example mean_loss; do
        [ -n "$(learner_value "$report" "$name" $key)" ] || fail "np=$np bench $name: no $key"
      done
      [ "$(learner_value "$report" "$name" buffer_bytes)" = $((8 * rows * dp)) ] ||
        fail "np=$np bench $name: buffer_bytes $(learner_value "$report" "$name" buffer_bytes) ≠ 8 × $rows × $dp"
      same_number "$(learner_value "$report" "$name" allreduce_calls_per_example)" "$calls" ||
        fail "np=$np bench $name: $(learner_value "$report" "$name" allreduce_calls_per_example) Allreduce calls per example, expected $calls"
      awk -v s="$(learner_value "$report" "$name" mpi_share)" 'BEGIN { exit !(s >= 0 && s <= 1) }' ||
        fail "np=$np bench $name: MPI share $(learner_value "$report" "$name" mpi_share) outside [0, 1]"
      same_number "$(learner_value "$report" "$name" mean_loss)" "$(learner_value "$d/bench.np$first.json" "$name" mean_loss)" ||
        fail "np=$np bench $name: mean loss differs from np=$first's"
    done
    [ "$(learner_value "$report" fd-son loss)" = '"squared"' ] && [ "$(learner_value "$report" ada-fd loss)" = '"logistic"' ] ||
      fail "np=$np bench: default losses wrong"

    # --reads 0: no read; --allreduce-probe: seconds per Allreduce at each size, after the learners.
    report="$d/probe.np$np.json"
    run "$np" --dim 100 --examples 5 --algo fast-rfd-son --reads 0 --allreduce-probe 1,1000 --report "$report"
    if [ "$rc" != 0 ]; then
      fail "np=$np bench probe: exit $rc; $(head -c 400 "$work/run.stderr")"
      continue
    fi
    [ "$(learner_value "$report" fast-rfd-son read_seconds)" = null ] || fail "np=$np bench --reads 0: read_seconds not null"
    [ "$(awk '$1 == "\"bytes\":" && ($2 == "8," || $2 == "8000,")' "$report" | wc -l)" = 2 ] &&
      [ "$(awk '$1 == "\"seconds\":" && $2 + 0 > 0' "$report" | wc -l)" = 2 ] ||
      fail "np=$np bench --allreduce-probe 1,1000: not two positive timings of 8 and 8000 bytes in the report"
    run "$np" --algo none --allreduce-probe 4
    [ "$rc" = 0 ] && grep -q "^  allreduce 4 doubles (32 B): " "$work/run.stdout" ||
      fail "np=$np bench --algo none --allreduce-probe 4: exit $rc, or no probe line"

    report="$d/a9a.np$np.json"
    run "$np" --data "$data_dir/a9a.gz" --algo fast-rfd-son --examples 100 --report "$report"
    if [ "$rc" != 0 ]; then
      fail "np=$np bench a9a: exit $rc; $(head -c 400 "$work/run.stderr")"
      continue
    fi
    [ "$(json_value "$report" d)" = 123 ] && [ "$(json_value "$report" rows_in_memory)" = 32561 ] &&
      [ "$(json_value "$report" format)" = '"libsvm"' ] ||
      fail "np=$np bench a9a: d, rows_in_memory or format wrong in the report"
    [ "$(learner_value "$report" fast-rfd-son buffer_bytes)" = $((8 * 40 * ((123 + np - 1) / np))) ] ||
      fail "np=$np bench a9a: buffer_bytes $(learner_value "$report" fast-rfd-son buffer_bytes)"
    same_number "$(learner_value "$report" fast-rfd-son mean_loss)" "$(learner_value "$d/a9a.np$first.json" fast-rfd-son mean_loss)" ||
      fail "np=$np bench a9a: mean loss differs from np=$first's"
    echo "     np=$np bench: $(learner_value "$d/bench.np$np.json" ada-fd seconds_per_example) s/example (ada-fd, d = 2000), a9a mean loss $(learner_value "$report" fast-rfd-son mean_loss)"
  done

  expect_error_bg "$first" 2 "option --algo bogus" --dim 100 --algo ada-fd,bogus
  expect_error_bg "$first" 2 "--algo" --dim 100 --algo ada-fd,,fd-son
  expect_error_bg "$first" 2 "--pool" --data "$data_dir/a9a.gz" --pool 4
  expect_error_bg "$first" 2 "--loss" --dim 100 --loss softmax
  expect_error_bg "$first" 2 "--examples" --dim 100 --examples -1
  expect_error_bg "$first" 2 "--allreduce-probe" --algo none --allreduce-probe 0
  expect_error_bg "$first" 2 "--allreduce-probe" --algo none --allreduce-probe 8,x
  expect_error_bg "$first" 2 "--report" --dim 100 --report "$d/no/such/dir/r.json"
  expect_error_bg "$first" 1 "$d/missing.svm" --data "$d/missing.svm"
  collect_bg
  [ "$failures" = 0 ] && echo "ok   bench_learners: reports, buffer sizes, Allreduce counts; losses agree across rank counts ($*)"
}
