#!/usr/bin/env bash
#SBATCH --job-name=adasketch-text-hashed
#SBATCH --ntasks=1
#SBATCH --time=02:00:00
#SBATCH --output=text_hashed.%j.out
# Real text: hashed Debian package descriptions (jobs/text_hashed.py: library sections against the
# rest, unigrams and bigrams signed-hashed into d = 2^24, rows L2-normalized, 80/20 split). Builds the
# data set, then one pass in file order of every sketched learner (logistic loss, ℓ = 20, default
# hyperparameters, one rank) and ADA-DIAG, and the peers: scikit-learn's SGDClassifier (hinge, log)
# and PassiveAggressiveClassifier, one pass (partial_fit once over the rows in order, shuffle=False,
# defaults), and LIBLINEAR -s 2 and -s 0 (default C = 1) as the batch reference; prints a markdown
# table of test accuracy and speed.
#
#   bash jobs/text_hashed.sh            (or sbatch; about 10 min, plus up to CAP s per slow learner)
#
# Our learners' examples/s is the report's: the training pass including reading and parsing the
# gzip LIBSVM file; the parse column is the reader's own rate. A learner stopped by the wall-clock cap
# (CAP seconds, `timeout`) has no report: its row gives how far it got and its rate from the last
# progress line. scikit-learn's rate excludes parsing (load_svmlight_file, timed apart); LIBLINEAR's
# time is liblinear-train's whole run (parse and solve) on the decompressed file.
# Needs python3-sklearn and liblinear-tools (Debian; rows are skipped without them) and, to download
# the two apt index files, root (see jobs/text_hashed.py; LISTS=DIR uses indexes already there).
# Environment: OUT (default /tmp/text_hashed: data in OUT, runs in OUT/runs), CAP (default 600),
# ELL (default 20), ALGOS (default: every sketched learner and ada-diag), EXTRA (more train options
# for every learner of ours, e.g. EXTRA="--eta 3"), PEERS=0 skips the peers, REBUILD=1 rebuilds the
# data set, ADASKETCH_BIN and ADASKETCH_LAUNCHER (jobs/lib/env.sh).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
py=/usr/bin/python3
out="${OUT:-/tmp/text_hashed}"
runs="$out/runs"
cap="${CAP:-600}"
ell="${ELL:-20}"
dim=16777216
read -r -a extra <<<"${EXTRA:-}"
read -r -a algos <<<"${ALGOS:-ada-diag rp-son oja-son ada-dp ada-gp fast-fd-son fast-rfd-son fast-ada-fd fd-son rfd-son ada-fd}"
train="$out/train.svm.gz" test="$out/test.svm.gz"
mkdir -p "$runs"

# 1. The data set.
if [ "${REBUILD:-0}" = 1 ] || [ ! -s "$train" ] || [ ! -s "$test" ] || [ ! -s "$out/stats.json" ]; then
  "$py" "$here/jobs/text_hashed.py" --out "$out" ${LISTS:+--lists "$LISTS"} | tee "$out/build.txt"
fi

# 2. The peers.
if [ "${PEERS:-1}" = 1 ] && "$py" -c 'import sklearn' 2>/dev/null; then
  "$py" - "$train" "$test" "$dim" >"$runs/sklearn.jsonl" <<'PY'
import json, sys, time
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import PassiveAggressiveClassifier, SGDClassifier
train, test, d = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0 = time.perf_counter()
X, y = load_svmlight_file(train, n_features=d)
parse = time.perf_counter() - t0
Xt, yt = load_svmlight_file(test, n_features=d)
for name, model in (("scikit-learn SGDClassifier(loss='hinge'), one pass", SGDClassifier(loss="hinge", shuffle=False)),
                    ("scikit-learn SGDClassifier(loss='log_loss'), one pass", SGDClassifier(loss="log_loss", shuffle=False)),
                    ("scikit-learn PassiveAggressiveClassifier, one pass", PassiveAggressiveClassifier(shuffle=False))):
    t0 = time.perf_counter()
    model.partial_fit(X, y, classes=np.array([-1.0, 1.0]))  # one pass over the rows in order
    seconds = time.perf_counter() - t0
    print(json.dumps({"name": name, "test_accuracy": float((model.predict(Xt) == yt).mean()),
                      "seconds": seconds, "examples": X.shape[0], "parse_seconds": parse}))
PY
fi
if [ "${PEERS:-1}" = 1 ] && command -v liblinear-train >/dev/null; then
  gzip -dc "$train" >"$runs/train.svm"
  gzip -dc "$test" >"$runs/test.svm"
  for s in 2 0; do
    start=$(date +%s.%N)
    liblinear-train -s "$s" -q "$runs/train.svm" "$runs/liblinear-s$s.model"
    end=$(date +%s.%N)
    acc=$(liblinear-predict "$runs/test.svm" "$runs/liblinear-s$s.model" "$runs/liblinear-s$s.pred" |
      sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
    echo "{\"name\": \"LIBLINEAR -s $s (batch, C = 1)\", \"test_accuracy\": $(awk -v a="$acc" 'BEGIN { print a / 100 }'), \"seconds\": $(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')}"
  done >"$runs/liblinear.jsonl"
  rm -f "$runs/train.svm" "$runs/test.svm"
fi

# 3. Our learners, one rank, each under the wall-clock cap.
for algo in "${algos[@]}"; do
  rm -f "$runs/$algo.json"
  rc=0
  launch 1 timeout "$cap" "$ADASKETCH_BIN" train --algo "$algo" --data "$train" --test "$test" --dim "$dim" \
    --ell "$ell" "${extra[@]}" --report "$runs/$algo.json" --progress-every 10 >"$runs/$algo.out" 2>&1 || rc=$?
  echo "$rc" >"$runs/$algo.rc"
done

# 4. The table.
"$py" - "$out" "$cap" "${algos[@]}" <<'PY'
import json, os, re, sys
out, cap, algos = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = os.path.join(out, "runs")
stats = json.load(open(os.path.join(out, "stats.json")))
print("Data: %s, %s (%s); %d train / %d test rows, %.1f non-zeros per row, d = %d, +1 fraction %.3f (train) %.3f (test)\n"
      % (stats["source"], stats["release"].get("Version", "?"), stats["release"].get("Date", "?"),
         stats["train"]["rows"], stats["test"]["rows"], stats["all"]["mean_nonzeros"], stats["dim"],
         stats["train"]["positive_fraction"], stats["test"]["positive_fraction"]))
print("| learner | test accuracy | online mistake rate | examples/s (training pass) | seconds | note |")
print("|---|---|---|---|---|---|")
progress = re.compile(r"pass \d+/\d+\s+(\d+)/(\d+) examples \(([\d.]+)%\)\s+([\d.e+]+) examples/s\s+mistake rate ([\d.]+)")
for algo in algos:
    report = os.path.join(runs, algo + ".json")
    if os.path.exists(report):
        r = json.load(open(report))
        note = "incl. parsing; parse alone %.3g examples/s" % r["parse_examples_per_second"]
        print("| %s | %.4f | %.4f | %.4g | %.1f | %s |" % (algo, r["test_accuracy"], r["mistake_rate"],
              r["examples_per_second"], r["seconds"], note))
        continue
    text = open(os.path.join(runs, algo + ".out"), errors="replace").read()
    rc = open(os.path.join(runs, algo + ".rc")).read().strip()
    last = progress.findall(text)
    if last:
        done, total, pct, rate, mistakes = last[-1]
        print("| %s | — | %s (first %s) | %.4g | > %s | stopped at %s s (status %s): %s of %s examples (%s%%) |"
              % (algo, mistakes, done, float(rate), cap, cap, rc, done, total, pct))
    else:
        error = [l for l in text.splitlines() if "error" in l]
        print("| %s | — | — | — | — | status %s, no progress line%s |" % (algo, rc, (": " + error[-1]) if error else ""))
for name in ("sklearn.jsonl", "liblinear.jsonl"):
    path = os.path.join(runs, name)
    if not os.path.exists(path):
        continue
    for line in open(path):
        r = json.loads(line)
        if "examples" in r:
            print("| %s | %.4f | — | %.4g | %.2f | excl. parsing (load_svmlight_file: %.1f s) |"
                  % (r["name"], r["test_accuracy"], r["examples"] / r["seconds"], r["seconds"], r["parse_seconds"]))
        else:
            print("| %s | %.4f | — | — | %.1f | batch; parse and solve |" % (r["name"], r["test_accuracy"], r["seconds"]))
PY
