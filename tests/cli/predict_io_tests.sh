# Sourced by run_cli_tests.sh (which defines run, fail, expect_error, expect_error_bg, collect_bg,
# json_value, $work, $adasketch, $data_dir): the `predict_io_errors` and `predict_io` modes, described
# in run_cli_tests.sh's header. $ADASKETCH_WRITE_HDF5 is tests/hdf5/write_hdf5_data (empty: a build
# without HDF5, whose HDF5 cases are skipped).

# io_files: small slices of the real data sets in $work (a9a: 300 training and 200 test examples;
# USPS: 300 examples, 10 classes), once.
io_files() {
  [ -e "$work/a9a.svm" ] && return 0
  gzip -dc "$data_dir/a9a.gz" | head -n 300 >"$work/a9a.svm"
  gzip -dc "$data_dir/a9a.t.gz" | head -n 200 >"$work/a9a.t.svm"
  gzip -dc "$data_dir/usps_esl.gz" | head -n 300 >"$work/usps.svm"
}

predict_io_errors() {
  local np=$1 d=$work
  io_files
  local diag=(train --algo ada-diag --loss logistic)
  run "$np" "${diag[@]}" --data "$d/a9a.svm" --dim 123 --model "$d/e.model"
  [ "$rc" = 0 ] || fail "np=$np train for the error cases: exit $rc; $(head -c 400 "$work/run.stderr")"
  # A label the model's map does not cover, at line 150: the run fails and leaves no predictions.
  awk 'NR == 150 { $1 = "3" } { print }' "$d/a9a.t.svm" >"$d/badlabel.svm"

  expect_error_bg "$np" 2 "option --predictions: cannot open '$d/no/such/dir/p.txt" predict --model "$d/e.model" \
    --data "$d/a9a.t.svm" --predictions "$d/no/such/dir/p.txt"
  expect_error_bg "$np" 2 "option --predictions: needs --test DATA" "${diag[@]}" --data "$d/a9a.svm" --predictions "$d/p.txt"
  expect_error_bg "$np" 2 "option --test: standard input (-) is already --data" "${diag[@]}" --data - --test -
  expect_error_bg "$np" 2 "option --data and option --predictions name the same file" predict --model "$d/e.model" \
    --data "$d/a9a.t.svm" --predictions "$d/a9a.t.svm"
  expect_error_bg "$np" 1 "badlabel.svm:150: label 3 is not covered" predict --model "$d/e.model" --data "$d/badlabel.svm" \
    --predictions "$d/bad.txt"
  if [ -z "${ADASKETCH_WRITE_HDF5:-}" ]; then
    expect_error_bg "$np" 2 "option --data: '$d/missing.h5' is an HDF5 file, but this adasketch was built without HDF5" \
      "${diag[@]}" --data "$d/missing.h5"
  else
    expect_error_bg "$np" 1 "missing.h5: cannot open: no such file" "${diag[@]}" --data "$d/missing.h5"
    "$ADASKETCH_WRITE_HDF5" "$d/e" 20 5 || fail "write_hdf5_data failed"
    cp "$d/e.svm" "$d/e.svm.h5"
    expect_error_bg "$np" 1 "e.h5: no dataset 'Z' (the examples, n × d)" "${diag[@]}" --data "$d/e.h5" --h5-x Z
    expect_error_bg "$np" 1 "e.h5: dataset 'X' is not one-dimensional (n labels)" "${diag[@]}" --data "$d/e.h5" --h5-y X
    expect_error_bg "$np" 2 "option --dim: 4 does not match d = 5 of the dataset 'X'" "${diag[@]}" --data "$d/e.h5" --dim 4
    expect_error_bg "$np" 1 "e.svm.h5: cannot open as an HDF5 file" "${diag[@]}" --data "$d/e.h5" --test "$d/e.svm.h5"
  fi
  collect_bg
  [ -e "$d/bad.txt" ] || compgen -G "$d/bad.txt.tmp*" >/dev/null && fail "np=$np predict left a predictions file behind after an error"
  expect_error "$np" 1 "-: no examples" "${diag[@]}" --data - </dev/null
}

# check_binary PREDICTIONS DATA REPORT WHAT: one line "LABEL SCORE" per example of DATA, LABEL = +1
# when SCORE > 0 and −1 otherwise, and the report's mistakes = the lines whose label differs from
# DATA's (a score of exactly 0 is a mistake for either label).
check_binary() {
  local counted
  counted=$(awk 'NR == FNR { y[FNR] = $1 + 0; next }
    NF != 2 || ($2 > 0 ? 1 : -1) != $1 { bad = 1 }
    { n++; if ($1 != y[FNR] || $2 == 0) m++ }
    END { if (bad || n != length(y)) print "bad"; else print m + 0 }' "$2" "$1")
  [ "$counted" = "$(json_value "$3" mistakes)" ] ||
    fail "$4: mistakes counted from the predictions: $counted, the report: $(json_value "$3" mistakes)"
}

# check_softmax PREDICTIONS DATA REPORT K WHAT: one line "LABEL p_0 … p_{K−1}" per example, the
# probabilities summing to 1, LABEL = 1 + the index of the largest; mistakes as for check_binary.
check_softmax() {
  local counted
  counted=$(awk -v k="$4" 'NR == FNR { y[FNR] = $1 + 0; next }
    { best = 2; s = 0; for (i = 2; i <= NF; i++) { s += $i; if ($i > $best) best = i }
      if (NF != k + 1 || best - 1 != $1 || s < 1 - 1e-12 || s > 1 + 1e-12) bad = 1
      n++; if ($1 != y[FNR]) m++ }
    END { if (bad || n != length(y)) print "bad"; else print m + 0 }' "$2" "$1")
  [ "$counted" = "$(json_value "$3" mistakes)" ] ||
    fail "$5: mistakes counted from the predictions: $counted, the report: $(json_value "$3" mistakes)"
}

# same_files A B WHAT: byte-identical files.
same_files() {
  cmp -s "$1" "$2" || fail "$3: $(basename "$1") and $(basename "$2") differ"
}

predict_io() {
  local first=$1 np d=$work
  io_files
  local diag=(--algo ada-diag --loss logistic --dim 123)
  local soft=(--algo ada-diag --loss softmax --eta 0.5)
  # Models trained at the first rank count; predictions at every rank count must be the same bytes.
  run "$first" train "${diag[@]}" --data "$d/a9a.svm" --model "$d/a9a.model"
  [ "$rc" = 0 ] || fail "np=$first train a9a: exit $rc; $(head -c 400 "$work/run.stderr")"
  run "$first" train "${soft[@]}" --data "$d/usps.svm" --model "$d/usps.model"
  [ "$rc" = 0 ] || fail "np=$first train usps: exit $rc; $(head -c 400 "$work/run.stderr")"
  if [ -n "${ADASKETCH_WRITE_HDF5:-}" ]; then
    "$ADASKETCH_WRITE_HDF5" "$d/h" 50 9 || fail "write_hdf5_data failed"
  fi
  for np in "$@"; do
    run "$np" predict --model "$d/a9a.model" --data "$d/a9a.t.svm" --predictions "$d/a9a.np$np.txt" --report "$d/pa.np$np.json"
    [ "$rc" = 0 ] || fail "np=$np predict a9a: exit $rc; $(head -c 400 "$work/run.stderr")"
    check_binary "$d/a9a.np$np.txt" "$d/a9a.t.svm" "$d/pa.np$np.json" "np=$np predict a9a"
    same_files "$d/a9a.np$np.txt" "$d/a9a.np$first.txt" "np=$np predict a9a against np=$first"
    run "$np" predict --model "$d/usps.model" --data "$d/usps.svm" --predictions "$d/usps.np$np.txt" --report "$d/pu.np$np.json"
    [ "$rc" = 0 ] || fail "np=$np predict usps: exit $rc; $(head -c 400 "$work/run.stderr")"
    check_softmax "$d/usps.np$np.txt" "$d/usps.svm" "$d/pu.np$np.json" 10 "np=$np predict usps"
    same_files "$d/usps.np$np.txt" "$d/usps.np$first.txt" "np=$np predict usps against np=$first"

    # train --test --predictions writes what predict writes with the model it saved.
    run "$np" train "${diag[@]}" --data "$d/a9a.svm" --test "$d/a9a.t.svm" --predictions "$d/tt.np$np.txt" --model "$d/tt.model"
    [ "$rc" = 0 ] || fail "np=$np train --predictions: exit $rc; $(head -c 400 "$work/run.stderr")"
    run "$np" predict --model "$d/tt.model" --data "$d/a9a.t.svm" --predictions "$d/tp.np$np.txt"
    same_files "$d/tt.np$np.txt" "$d/tp.np$np.txt" "np=$np train --test --predictions against predict"
    compgen -G "$d/tt.np$np.txt.tmp*" >/dev/null && fail "np=$np train --predictions left its temporary file"
    run "$np" train "${diag[@]}" --data "$d/a9a.svm" --test - --predictions "$d/ts.np$np.txt" <"$d/a9a.t.svm"
    same_files "$d/ts.np$np.txt" "$d/tt.np$np.txt" "np=$np train --test - against the file"

    # Standard input (plain and gzip, read by rank 0): the same model, report numbers and predictions.
    run "$np" train "${diag[@]}" --data "$d/a9a.svm" --passes 2 --model "$d/file.model" --report "$d/file.json"
    run "$np" train "${diag[@]}" --data - --passes 2 --model "$d/stdin.model" --report "$d/stdin.json" <"$d/a9a.svm"
    [ "$rc" = 0 ] || fail "np=$np train --data -: exit $rc; $(head -c 400 "$work/run.stderr")"
    same_files "$d/stdin.model" "$d/file.model" "np=$np train --data - against the file"
    for key in examples online_mistakes cumulative_loss; do
      [ "$(json_value "$d/stdin.json" $key)" = "$(json_value "$d/file.json" $key)" ] ||
        fail "np=$np train --data -: $key $(json_value "$d/stdin.json" $key) ≠ $(json_value "$d/file.json" $key)"
    done
    gzip -c "$d/a9a.t.svm" | out=$d/gz run "$np" predict --model "$d/a9a.model" --data - --predictions "$d/gz.np$np.txt"
    [ "$rc" = 0 ] || fail "np=$np predict --data - (gzip): exit $rc; $(head -c 400 "$d/gz.stderr")"
    same_files "$d/gz.np$np.txt" "$d/a9a.np$first.txt" "np=$np predict --data - (gzip) against the file"

    # HDF5 (float64 and float32) against the same rows as LIBSVM: the same model file and mistakes.
    if [ -n "${ADASKETCH_WRITE_HDF5:-}" ]; then
      local name
      for name in h.svm h.h5 h.f32.h5; do
        run "$np" train --algo ada-diag --loss logistic --data "$d/$name" --passes 2 --model "$d/$name.np$np.model" \
          --report "$d/$name.np$np.json"
        [ "$rc" = 0 ] || fail "np=$np train --data $name: exit $rc; $(head -c 400 "$work/run.stderr")"
      done
      for name in h.h5 h.f32.h5; do
        same_files "$d/$name.np$np.model" "$d/h.svm.np$np.model" "np=$np HDF5 $name against LIBSVM"
        [ "$(json_value "$d/$name.np$np.json" online_mistakes)" = "$(json_value "$d/h.svm.np$np.json" online_mistakes)" ] ||
          fail "np=$np HDF5 $name: online mistakes differ from LIBSVM's"
        [ "$(json_value "$d/$name.np$np.json" format)" = '"hdf5"' ] || fail "np=$np HDF5 $name: format $(json_value "$d/$name.np$np.json" format)"
      done
      run "$np" predict --model "$d/h.svm.np$np.model" --data "$d/h.h5" --predictions "$d/hp.np$np.txt"
      run "$np" predict --model "$d/h.svm.np$np.model" --data "$d/h.svm" --predictions "$d/sp.np$np.txt"
      same_files "$d/hp.np$np.txt" "$d/sp.np$np.txt" "np=$np predict on HDF5 against LIBSVM"
    fi
    echo "     np=$np predictions, stdin and HDF5 checked"
  done
  [ "$failures" = 0 ] && echo "ok   predict_io: predictions the same at every rank count ($*), stdin and HDF5 as files"
}
