# Sourced by run_cli_tests.sh (which defines run, fail, expect_error_bg, collect_bg, json_value,
# same_number, $work, $adasketch, $data_dir): the `synthetic_errors` and `synthetic` modes, described
# in run_cli_tests.sh's header.

synthetic_errors() {
  local np=$1 d=$work
  local lr=synthetic:low-rank-regression ill=synthetic:ill-conditioned
  local diag=(train --algo ada-diag --loss absolute)
  printf 'ADSKDNS1\x02\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0' >"$d/nan.bin"
  printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\0\x40' >>"$d/nan.bin"
  printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\xf8\x7f\0\0\0\0\0\0\xf0\x3f' >>"$d/nan.bin"

  expect_error_bg "$np" 2 "option --data: $lr: unknown key 'dd'" "${diag[@]}" --data "$lr:dd=3"
  expect_error_bg "$np" 2 "option --data: $lr: key d: missing value" "${diag[@]}" --data "$lr:d="
  expect_error_bg "$np" 2 "option --data: $lr: key n: missing value" "${diag[@]}" --data "$lr:d=5,n"
  expect_error_bg "$np" 2 "option --data: $lr: empty item" "${diag[@]}" --data "$lr:"
  expect_error_bg "$np" 2 "option --data: $lr: empty item" "${diag[@]}" --data "$lr:d=5,,n=3"
  expect_error_bg "$np" 2 "option --data: $lr: key d given more than once" "${diag[@]}" --data "$lr:d=5,d=6"
  expect_error_bg "$np" 2 "option --data: $lr: key n: expected an integer, got '1e4'" "${diag[@]}" --data "$lr:n=1e4"
  expect_error_bg "$np" 2 "option --data: $lr: key lambda0: expected a finite number, got 'inf'" "${diag[@]}" --data "$lr:lambda0=inf"
  expect_error_bg "$np" 2 "option --data: $lr: key seed: expected a non-negative integer, got '-1'" "${diag[@]}" --data "$lr:seed=-1"
  expect_error_bg "$np" 2 "option --data: $lr: key rank: must be ≤ d = 5, got 6" "${diag[@]}" --data "$lr:d=5,rank=6"
  expect_error_bg "$np" 2 "option --data: $lr: key d: must be ≥ 1, got 0" "${diag[@]}" --data "$lr:d=0"
  expect_error_bg "$np" 2 "option --data: $ill: key kappa: must be ≥ 1, got 0.5" "${diag[@]}" --data "$ill:kappa=0.5"
  expect_error_bg "$np" 2 "option --data: $ill: key ill: must be ≤ d = 4, got 10 (the default)" "${diag[@]}" --data "$ill:d=4"
  expect_error_bg "$np" 2 "option --data: unknown synthetic generator 'low-rank'" "${diag[@]}" --data synthetic:low-rank
  expect_error_bg "$np" 2 "option --dim: 6 does not match d = 5" "${diag[@]}" --data "$lr:d=5,n=10" --dim 6
  expect_error_bg "$np" 2 "option --test (with the training d): 5 does not match d = 6" "${diag[@]}" --data "$lr:d=5,n=10" \
    --test "$lr:d=6"
  expect_error_bg "$np" 2 "option --test: $lr: unknown key 'sed'" "${diag[@]}" --data "$lr:d=5,n=10" --test "$lr:sed=2"
  expect_error_bg "$np" 2 "option --data: $ill: key skip: must be ≥ 0, got -1" sketch --method fd --ell 2 --data "$ill:skip=-1"
  expect_error_bg "$np" 2 "option --data: $lr: unknown key 'kappa'" generate --data "$lr:kappa=2" --out "$d/x.bin"
  expect_error_bg "$np" 2 "option --format: unknown format 'csv'" generate --data "$ill" --out "$d/x.bin" --format csv
  expect_error_bg "$np" 2 "option --out: cannot open '$d/no/such/dir/x.bin.tmp'" generate --data "$ill" --out "$d/no/such/dir/x.bin"
  expect_error_bg "$np" 2 "--out" generate --data "$ill"
  expect_error_bg "$np" 1 "nan.bin: row 2: a value or the label is not finite" generate --data "$d/nan.bin" --out "$d/nan.svm" --format libsvm
  collect_bg
  [ -e "$d/nan.svm" ] || [ -e "$d/nan.svm.tmp" ] && fail "np=$np generate left a file behind after an error"

  # Training ran first, so the model's d (7) is what a spec without d= gets in predict.
  run "$np" train --algo ada-diag --loss logistic --data "$ill:d=7,n=20,ill=2" --model "$d/m.model"
  [ "$rc" = 0 ] || fail "np=$np train for predict: exit $rc; $(head -c 400 "$work/run.stderr")"
  expect_error "$np" 2 "option --data (with the model's d): 7 does not match d = 8" predict --model "$d/m.model" --data "$ill:d=8,ill=2"

  run "$np" generate --help
  if [ "$rc" != 0 ] || [ "$(grep -c '^usage: adasketch generate' "$work/run.stdout")" != 1 ] || [ -s "$work/run.stderr" ] ||
    ! grep -q 'synthetic:low-rank-regression\[:d=500,n=10000,lambda0=100,decay=2,mean=1,rank=0,seed=1,skip=0\]' "$work/run.stdout"; then
    fail "np=$np adasketch generate --help: exit $rc, usage not printed once, or the spec defaults missing"
  else
    echo "ok   np=$np generate --help"
  fi
}

# same_text A B WHAT: A and B are the same text (exact numbers).
same_text() {
  [ "$1" = "$2" ] || fail "$3: $1 ≠ $2"
}

synthetic() {
  local first=$1 np key
  local lr=synthetic:low-rank-regression:d=40,n=1500,rank=20,seed=7
  local lr_test=synthetic:low-rank-regression:d=40,n=500,rank=20,seed=7,skip=1500
  local ill=synthetic:ill-conditioned:d=30,n=2000,kappa=50,ill=5,seed=4
  local ill_test=synthetic:ill-conditioned:n=800,kappa=50,ill=5,seed=4,skip=2000  # d: the training d
  local fd=(--algo ada-fd --loss absolute --ell 5 --eta 0.01 --delta 1)
  local diag=(--algo ada-diag --loss logistic --eta 0.1 --delta 1 --scale none)
  for np in "$@"; do
    local w=$work/np$np
    mkdir -p "$w"
    run "$np" generate --data "$lr" --out "$w/lr.bin" && [ "$rc" = 0 ] || fail "np=$np generate lr: exit $rc"
    run "$np" generate --data "$lr_test" --out "$w/lr_test.bin"
    run "$np" generate --data "$ill" --out "$w/ill.svm" --format libsvm
    run "$np" generate --data "$ill_test" --dim 30 --out "$w/ill_test.bin"
    [ "$rc" = 0 ] || fail "np=$np generate: exit $rc; $(head -c 400 "$work/run.stderr")"
    [ "$(wc -c <"$w/lr.bin")" = $((24 + 8 * 1500 * 41)) ] || fail "np=$np lr.bin: $(wc -c <"$w/lr.bin") bytes"
    [ "$(wc -l <"$w/ill.svm")" = 2000 ] || fail "np=$np ill.svm: $(wc -l <"$w/ill.svm") lines"
    ls "$w"/*.tmp >/dev/null 2>&1 && fail "np=$np generate left a .tmp file"

    train_run lr-spec "$np" "${fd[@]}" --data "$lr" --test "$lr_test"
    train_run lr-file "$np" "${fd[@]}" --data "$w/lr.bin" --test "$w/lr_test.bin"
    train_run ill-spec "$np" "${diag[@]}" --data "$ill" --test "$ill_test" --model "$w/ill.model"
    train_run ill-file "$np" "${diag[@]}" --data "$w/ill.svm" --test "$w/ill_test.bin"
    local name
    for name in lr ill; do
      local a="$work/$name-spec.np$np.json" b="$work/$name-file.np$np.json"
      for key in d examples online_mistakes cumulative_loss test_examples test_accuracy test_mean_loss; do
        same_text "$(json_value "$a" $key)" "$(json_value "$b" $key)" "np=$np $name: $key from the spec vs the generated file"
      done
      [ "$(json_value "$a" format)" = '"synthetic"' ] || fail "np=$np $name: format $(json_value "$a" format)"
      [ "$(json_value "$a" parse_seconds)" = null ] || fail "np=$np $name: parse_seconds for a spec (no LIBSVM reader)"
      if [ "$np" != "$first" ]; then
        local r="$work/$name-spec.np$first.json"
        same_text "$(json_value "$a" online_mistakes)" "$(json_value "$r" online_mistakes)" "np=$np $name: online mistakes vs np=$first"
        for key in cumulative_loss test_accuracy test_mean_loss; do
          [ "$(json_value "$r" $key)" = null ] && continue
          same_number "$(json_value "$a" $key)" "$(json_value "$r" $key)" ||
            fail "np=$np $name: $key $(json_value "$a" $key) differs from np=$first's $(json_value "$r" $key)"
        done
      fi
      echo "     np=$np $name: cumulative loss $(json_value "$a" cumulative_loss), online mistakes $(json_value "$a" online_mistakes), test mean loss $(json_value "$a" test_mean_loss)"
    done
    grep -q '^  "label_map": "{-1,+1} as is",$' "$work/ill-spec.np$np.json" || fail "np=$np ill: label map"
    awk -v a="$(json_value "$work/ill-spec.np$np.json" test_accuracy)" 'BEGIN { exit !(a >= 0.9) }' ||
      fail "np=$np ill: test accuracy $(json_value "$work/ill-spec.np$np.json" test_accuracy) < 0.9"

    run "$np" predict --model "$w/ill.model" --data "$ill_test" --report "$w/predict.json"
    [ "$rc" = 0 ] || fail "np=$np predict: exit $rc; $(head -c 400 "$work/run.stderr")"
    same_text "$(json_value "$w/predict.json" accuracy)" "$(json_value "$work/ill-spec.np$np.json" test_accuracy)" \
      "np=$np predict on the test spec: accuracy vs train --test"

    local s
    for s in spec file; do
      local src=$lr
      [ $s = file ] && src=$w/lr.bin
      run "$np" sketch --method fd --ell 8 --data "$src" --report "$w/sketch-$s.json"
      [ "$rc" = 0 ] || fail "np=$np sketch $s: exit $rc; $(head -c 400 "$work/run.stderr")"
    done
    same_text "$(json_value "$w/sketch-spec.json" relative_error)" "$(json_value "$w/sketch-file.json" relative_error)" \
      "np=$np sketch: relative error from the spec vs the file"
    [ "$np" = "$first" ] || same_number "$(json_value "$w/sketch-spec.json" relative_error)" \
      "$(json_value "$work/np$first/sketch-spec.json" relative_error)" || fail "np=$np sketch: relative error differs from np=$first"
    [ "$(json_value "$w/sketch-spec.json" within_bound)" = true ] || fail "np=$np sketch: not within the FD bound"
  done
  [ "$failures" = 0 ] && echo "ok   synthetic: specs give the generated files' numbers and agree across rank counts ($*)"
}
