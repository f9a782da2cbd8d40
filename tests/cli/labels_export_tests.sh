# Sourced by run_cli_tests.sh (which defines run, fail, expect_error_bg, collect_bg, json_value, $work,
# $adasketch): the `labels_export` mode, described in run_cli_tests.sh's header.

# labels_data DIR: 200 training and 200 test examples each, d = 4, x_j uniform in [0, 2.5) (a fixed
# awk seed per file), s = Σx: bin.* labels 3 when s > 5, else 1 (a boundary away from the origin:
# it needs an intercept); cls.* labels 2 (s < 4.3), 5 (s < 5.7) or 7.
labels_data() {
  local d=$1 spec
  for spec in "bin.svm 1 binary" "bin.t 2 binary" "cls.svm 3 classes" "cls.t 4 classes"; do
    set -- $spec
    awk -v n=200 -v seed="$2" -v kind="$3" 'BEGIN {
      srand(seed)
      for (i = 0; i < n; i++) {
        s = 0; line = ""
        for (j = 1; j <= 4; j++) { x = sprintf("%.4f", 2.5 * rand()); s += x; line = line " " j ":" x }
        if (kind == "binary") y = s > 5 ? 3 : 1
        else y = s < 4.3 ? 2 : (s < 5.7 ? 5 : 7)
        print y line
      }
    }' >"$d/$1"
  done
}

# test_mistakes JSON: the test mistakes of a train report (of 200 test examples).
test_mistakes() {
  awk -v a="$(json_value "$1" test_accuracy)" 'BEGIN { printf "%d\n", (1 - a) * 200 + 0.5 }'
}

# text_predictions TEXT_EXPORT DATA BIAS LABELS...: the label of each example of DATA by W of the text
# export (comment lines skipped; the bias feature last): LABELS[argmax] for K columns, or for one
# column LABELS[1] (the smaller) when wᵀx ≤ 0, else LABELS[2].
text_predictions() {
  local text=$1 data=$2 bias=$3
  shift 3
  awk -v bias="$bias" -v labels="$*" '
    BEGIN { n = split(labels, label, " ") }
    FNR == NR { if ($1 !~ /^#/) { rows++; for (k = 1; k <= NF; k++) w[rows, k] = $k; K = NF }; next }
    {
      for (k = 1; k <= K; k++) score[k] = bias * w[rows, k]
      for (f = 2; f <= NF; f++) { split($f, p, ":"); for (k = 1; k <= K; k++) score[k] += p[2] * w[p[1], k] }
      if (K == 1) { print (score[1] > 0 ? label[2] : label[1]); next }
      best = 1
      for (k = 2; k <= K; k++) if (score[k] > score[best]) best = k
      print label[best]
    }' "$text" "$data"
}

# liblinear_round_trip NP NAME MODEL TEST LABELS...: MODEL exported to LIBLINEAR's format and scored by
# liblinear-predict on TEST: its accuracy is adasketch predict's, and each of its labels is the one the
# text export's W gives.
liblinear_round_trip() {
  local np=$1 name=$2 model=$3 test=$4 d=$work
  shift 4
  run "$np" export --format liblinear "$model" "$d/$name.liblinear"
  [ "$rc" = 0 ] || { fail "np=$np $name: export --format liblinear exited $rc: $(head -c 300 "$work/run.stderr")"; return; }
  run "$np" export --format text "$model" "$d/$name.txt"
  [ "$rc" = 0 ] || { fail "np=$np $name: export --format text exited $rc"; return; }
  run "$np" predict --model "$model" --data "$test" --report "$d/$name.predict.json"
  [ "$rc" = 0 ] || { fail "np=$np $name: predict exited $rc: $(head -c 300 "$work/run.stderr")"; return; }
  local liblinear mistakes
  liblinear=$(liblinear-predict "$test" "$d/$name.liblinear" "$d/$name.liblinear.out" 2>&1)
  mistakes=$(json_value "$d/$name.predict.json" mistakes)
  # "Accuracy = 96% (192/200)"
  if [[ "$liblinear" != *"($((200 - mistakes))/200)"* ]]; then
    fail "np=$np $name: liblinear-predict says '$liblinear', adasketch predict $mistakes mistakes of 200"
  elif ! text_predictions "$d/$name.txt" "$test" 1 "$@" | cmp -s - "$d/$name.liblinear.out"; then
    fail "np=$np $name: liblinear-predict's labels differ from those of the exported W"
  else
    echo "ok   np=$np $name: liblinear-predict $liblinear, as adasketch predict"
  fi
}

labels_export() {
  local np=$1 d=$work
  labels_data "$d"
  local bin=(train --algo ada-diag --loss logistic --data "$d/bin.svm" --test "$d/bin.t" --eta 1 --passes 10)
  local cls=(train --algo ada-diag --loss softmax --data "$d/cls.svm" --test "$d/cls.t" --eta 1 --passes 10)

  # An intercept: without it a boundary away from the origin is out of reach.
  run "$np" "${bin[@]}" --report "$d/plain.json"
  [ "$rc" = 0 ] || fail "np=$np train without --bias: exit $rc: $(head -c 300 "$work/run.stderr")"
  run "$np" "${bin[@]}" --bias 1 --model "$d/bin.model" --report "$d/bias.json"
  [ "$rc" = 0 ] || fail "np=$np train --bias 1: exit $rc: $(head -c 300 "$work/run.stderr")"
  local plain biased
  plain=$(test_mistakes "$d/plain.json") biased=$(test_mistakes "$d/bias.json")
  if [ "$plain" -lt 50 ] || [ "$biased" -gt 16 ]; then
    fail "np=$np --bias: test mistakes $plain of 200 without, $biased with (expected ≥ 50 and ≤ 16)"
  else
    echo "ok   np=$np --bias 1: test mistakes $plain of 200 without, $biased with"
  fi
  grep -q '^  "label_map": "{1,3} -> {-1,+1}",$' "$d/bias.json" || fail "np=$np labels {1,3}: label map not in the report"
  grep -q '^    "bias": 1,$' "$d/bias.json" || fail "np=$np --bias 1 not in the report"

  # Dense rows (a dense binary file) take the bias alike: the same test mistakes.
  run "$np" generate --data "$d/bin.svm" --out "$d/bin.dense"
  run "$np" train --algo ada-diag --loss logistic --data "$d/bin.dense" --test "$d/bin.t" --eta 1 --passes 10 --bias 1 \
    --report "$d/dense.json"
  if [ "$rc" = 0 ] && [ "$(test_mistakes "$d/dense.json")" = "$biased" ]; then
    echo "ok   np=$np --bias 1 on dense rows: test mistakes $biased, as on sparse rows"
  else
    fail "np=$np --bias on dense rows: exit $rc, test mistakes $(test_mistakes "$d/dense.json") (sparse: $biased)"
  fi

  # --bias 1 is an explicit feature d + 1 = 5 of value 1, for a diagonal and an exact learner (which
  # needs equal blocks: at 2 ranks the bias run moves entries to get them).
  awk '{ print $0 " 5:1" }' "$d/bin.svm" >"$d/bin1.svm"
  awk '{ print $0 " 5:1" }' "$d/bin.t" >"$d/bin1.t"
  local algo
  for algo in ada-diag full-on; do
    run "$np" train --algo "$algo" --loss logistic --data "$d/bin1.svm" --test "$d/bin1.t" --passes 2 --report "$d/explicit.json"
    if [ "$rc" != 0 ] && grep -q ScaLAPACK "$work/run.stderr"; then
      echo "skip np=$np $algo: a build without ScaLAPACK"
      continue
    fi
    run "$np" train --algo "$algo" --loss logistic --data "$d/bin.svm" --test "$d/bin.t" --passes 2 --bias 1 \
      --report "$d/implicit.json"
    local key same=1
    for key in online_mistakes test_accuracy; do
      [ "$(json_value "$d/explicit.json" $key)" = "$(json_value "$d/implicit.json" $key)" ] || same=0
    done
    if [ "$rc" != 0 ] || [ "$same" != 1 ]; then
      fail "np=$np $algo --bias 1: exit $rc, online mistakes $(json_value "$d/implicit.json" online_mistakes), test accuracy" \
        "$(json_value "$d/implicit.json" test_accuracy); with an explicit feature $(json_value "$d/explicit.json" online_mistakes)," \
        "$(json_value "$d/explicit.json" test_accuracy)"
    else
      echo "ok   np=$np $algo --bias 1: as an explicit feature 5:1 ($(json_value "$d/implicit.json" online_mistakes) online mistakes)"
    fi
  done

  # Softmax on labels {2,5,7}: K = 3, not 7.
  run "$np" "${cls[@]}" --bias 1 --model "$d/cls.model" --report "$d/cls.json"
  if [ "$rc" != 0 ] || [ "$(json_value "$d/cls.json" classes)" != 3 ] ||
    ! grep -q '^  "label_map": "{2,5,7} -> 0..2",$' "$d/cls.json"; then
    fail "np=$np softmax on {2,5,7}: exit $rc, K = $(json_value "$d/cls.json" classes), map $(json_value "$d/cls.json" label_map)"
  else
    echo "ok   np=$np softmax on {2,5,7}: K = 3, test mistakes $(test_mistakes "$d/cls.json") of 200"
  fi

  liblinear_round_trip "$np" binary "$d/bin.model" "$d/bin.t" 1 3
  liblinear_round_trip "$np" classes "$d/cls.model" "$d/cls.t" 2 5 7

  # npy: what numpy.load reads is the text export, exactly (Debian's python3, which has numpy).
  local name python=/usr/bin/python3
  [ -x "$python" ] || python=python3
  for name in binary classes; do
    local model=$d/bin.model
    [ "$name" = classes ] && model=$d/cls.model
    run "$np" export "$model" "$d/$name.npy" --format=npy
    if [ "$rc" != 0 ] || [ -e "$d/$name.npy.tmp" ]; then
      fail "np=$np export --format=npy $name: exit $rc: $(head -c 300 "$work/run.stderr")"
    elif ! "$python" -c 'import sys, numpy as np
a, t = np.load(sys.argv[1]), np.loadtxt(sys.argv[2], comments="#")
sys.exit(0 if a.dtype == np.float64 and a.shape == t.shape and a.shape[0] == 5 and np.array_equal(a, t) else 1)' \
      "$d/$name.npy" "$d/$name.txt"; then
      fail "np=$np export --format npy $name: numpy.load differs from the text export"
    else
      echo "ok   np=$np export --format npy $name: numpy.load equals the text export"
    fi
  done

  # A checkpoint keeps the bias and the label values: resuming gives the uninterrupted model.
  run "$np" train --algo ada-diag --loss logistic --data "$d/bin.svm" --eta 1 --passes 1 --bias 1 \
    --checkpoint "$d/ck" --checkpoint-every 150
  run "$np" train --resume "$d/ck" --data "$d/bin.svm" --passes 2 --model "$d/resumed.model"
  run "$np" train --algo ada-diag --loss logistic --data "$d/bin.svm" --eta 1 --passes 2 --bias 1 --model "$d/full.model"
  cmp -s "$d/resumed.model" "$d/full.model" && echo "ok   np=$np resumed with --bias and labels {1,3}" ||
    fail "np=$np the resumed run's model differs from the uninterrupted one's"

  printf '1 1:1\n3 2:1\n5 3:1\n' >"$d/three.svm"
  printf '0.5 1:1\n1.5 2:1\n' >"$d/half.svm"
  run "$np" train --algo ada-diag --data "$d/half.svm" --model "$d/half.model"
  expect_error_bg "$np" 1 "cls.t:1: label 2 is not covered by the label map {1,3} -> {-1,+1}" predict --model "$d/bin.model" --data "$d/cls.t"
  expect_error_bg "$np" 1 "three.svm: the logistic loss needs two distinct label values; the training labels are {1,3,5}" \
    train --algo ada-diag --data "$d/three.svm"
  expect_error_bg "$np" 2 "option --bias: must be ≥ 0" "${bin[@]}" --bias -1
  expect_error_bg "$np" 2 "option --bias 2: the checkpoint" train --resume "$d/ck" --data "$d/bin.svm" --bias 2
  expect_error_bg "$np" 2 "option --format: unknown format 'csv'" export --format csv "$d/bin.model" "$d/x.csv"
  expect_error_bg "$np" 2 "expected MODEL and OUT, got 1 file argument" export --format text "$d/bin.model"
  expect_error_bg "$np" 2 "LIBLINEAR's labels are integers" export --format liblinear "$d/half.model" "$d/half.liblinear"
  expect_error_bg "$np" 1 "missing.model" export --format text "$d/missing.model" "$d/x.txt"
  collect_bg
  [ -e "$d/half.liblinear" ] || [ -e "$d/half.liblinear.tmp" ] && fail "np=$np a failed export left a file behind"
  return 0
}
