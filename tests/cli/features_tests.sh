# Sourced by run_cli_tests.sh (which defines run, fail, json_value, same_number, $work, $adasketch,
# $data_dir): the `features` mode, described in run_cli_tests.sh's header.

# scattered_a9a N FILE OUT: the first N examples of FILE with feature i moved to i·32749, so that
# 123 features spread over d ≈ 4·10⁶ as hashed ones do (the map is increasing: lines stay sorted).
scattered_a9a() {
  gzip -dc "$2" | head -n "$1" | awk '{ line = $1; for (f = 2; f <= NF; f++) { split($f, p, ":"); line = line " " p[1] * 32749 ":" p[2] }; print line }' >"$3"
}

features() {
  local np=$1 d=4194304 algo name model_bytes kept
  scattered_a9a 1500 "$data_dir/a9a.gz" "$work/train.svm"
  scattered_a9a 1000 "$data_dir/a9a.t.gz" "$work/test.svm"
  local common=(--data "$work/train.svm" --test "$work/test.svm" --dim "$d" --quiet)
  for algo in ada-diag fast-rfd-son; do
    # --features auto at d ≥ 2^20 keeps the seen features: the same numbers as all d features.
    train_run "$algo.all" "$np" --algo "$algo" "${common[@]}" --features all || continue
    train_run "$algo.seen" "$np" --algo "$algo" "${common[@]}" --model "$work/$algo.model" || continue
    local all="$work/$algo.all.np$np.json" seen="$work/$algo.seen.np$np.json"
    kept=$(json_value "$seen" learner_features)
    [ "$(json_value "$all" learner_features)" = "$d" ] && [ "$kept" -gt 0 ] && [ "$kept" -le 123 ] ||
      fail "np=$np $algo: learner_features $(json_value "$all" learner_features) (all) and $kept (auto)"
    [ "$(json_value "$seen" d)" = "$d" ] || fail "np=$np $algo: the report's d is $(json_value "$seen" d), not $d"
    [ "$(json_value "$seen" online_mistakes)" = "$(json_value "$all" online_mistakes)" ] ||
      fail "np=$np $algo: online mistakes $(json_value "$seen" online_mistakes) (seen) ≠ $(json_value "$all" online_mistakes) (all)"
    for name in cumulative_loss test_accuracy test_mean_loss; do
      same_number "$(json_value "$seen" $name)" "$(json_value "$all" $name)" ||
        fail "np=$np $algo: $name $(json_value "$seen" $name) (seen) ≠ $(json_value "$all" $name) (all)"
    done
    # The model lists the kept features: 128 + 8·n·K + 16 + 8·n bytes, K = 1, no label values.
    model_bytes=$(wc -c <"$work/$algo.model")
    [ "$model_bytes" = $((128 + 16 * kept + 16)) ] || fail "np=$np $algo: the model has $model_bytes bytes, expected $((128 + 16 * kept + 16))"
    # predict scores the original rows with it, as train scored them.
    run "$np" predict --model "$work/$algo.model" --data "$work/test.svm" --report "$work/p.json" --quiet
    if [ "$rc" != 0 ]; then
      fail "np=$np $algo: predict exited $rc: $(head -c 300 "$work/run.stderr")"
    else
      same_number "$(json_value "$work/p.json" accuracy)" "$(json_value "$seen" test_accuracy)" &&
        [ "$(json_value "$work/p.json" d)" = "$d" ] ||
        fail "np=$np $algo: predict's accuracy $(json_value "$work/p.json" accuracy) (d = $(json_value "$work/p.json" d)) ≠ train's $(json_value "$seen" test_accuracy)"
    fi
    echo "     np=$np $algo: $kept of $d features kept, online mistakes $(json_value "$seen" online_mistakes), test accuracy $(json_value "$seen" test_accuracy)"
  done

  # With an intercept (the bias feature after the kept ones), predict still reproduces train's test.
  train_run bias "$np" --algo fast-rfd-son "${common[@]}" --bias 1 --model "$work/bias.model" || return
  run "$np" predict --model "$work/bias.model" --data "$work/test.svm" --report "$work/pb.json" --quiet
  [ "$rc" = 0 ] && same_number "$(json_value "$work/pb.json" accuracy)" "$(json_value "$work/bias.np$np.json" test_accuracy)" ||
    fail "np=$np --bias 1: predict exited $rc with accuracy $(json_value "$work/pb.json" accuracy), train's $(json_value "$work/bias.np$np.json" test_accuracy)"

  # d up to 2^32 and beyond: the learner's memory follows the kept features.
  train_run big "$np" --algo fast-ada-fd --data "$work/train.svm" --dim 4294967296 --quiet
  [ "$(json_value "$work/big.np$np.json" d)" = 4294967296 ] || fail "np=$np: --dim 2^32: the report's d is $(json_value "$work/big.np$np.json" d)"

  # A checkpoint of seen features resumes (the features rebuilt from the same data) exactly.
  local ck=(--algo fast-rfd-son --data "$work/train.svm" --dim "$d" --quiet)
  train_run ref "$np" "${ck[@]}" --passes 3 --model "$work/ref.model" || return
  rm -f "$work/ck"
  train_run first "$np" "${ck[@]}" --passes 2 --checkpoint "$work/ck" --checkpoint-every 500 || return
  train_run resumed "$np" --resume "$work/ck" --data "$work/train.svm" --passes 3 --model "$work/resumed.model" --quiet || return
  [ "$(json_value "$work/resumed.np$np.json" online_mistakes)" = "$(json_value "$work/ref.np$np.json" online_mistakes)" ] &&
    cmp -s "$work/ref.model" "$work/resumed.model" ||
    fail "np=$np: the resumed run of seen features differs from the uninterrupted one"
  expect_error "$np" 2 "option --features all: the checkpoint" train --resume "$work/ck" --data "$work/train.svm" --features all
  expect_error "$np" 2 "option --features seen: comp-adagrad's SRHT" train --algo comp-adagrad --data "$work/train.svm" --features seen
  expect_error "$np" 2 "option --features: must be auto, seen or all" train --algo ada-diag --data "$work/train.svm" --features some
  expect_error "$np" 2 "MODEL '$work/ada-diag.model' keeps only the" export --format text "$work/ada-diag.model" "$work/w.txt"
  [ "$failures" = 0 ] && echo "ok   features: seen features train, test, predict and resume as all d features (np=$np)"
}
