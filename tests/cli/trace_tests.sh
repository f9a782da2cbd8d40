#!/usr/bin/env bash
# `adasketch train --trace-every N` (docs/cli.md): on the first 1,000 a9a examples (ada-fd, logistic)
# at every NP, the trace has an entry after every 300 examples and after the last; the last equals
# the report's totals; each entry equals the totals of a run on that prefix of the file (at the
# first NP); the traces agree across rank counts (mistakes exactly, losses to 1e-9 relative). A
# regression run traces null mistakes; --trace-every -1 is refused (exit 2).
#
#   trace_tests.sh ADASKETCH MPIEXEC PYTHON DATA_DIR NP...
set -euo pipefail
adasketch=$1 mpiexec=$2 python=$3 data=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gzip -dc "$data/a9a.gz" | awk "NR <= 1000" >"$work/a9a1000.svm"
for n in 300 600 900; do head -n "$n" "$work/a9a1000.svm" >"$work/a9a$n.svm"; done
mpi_flags=(--quiet --oversubscribe)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
train() {  # NP DATA REPORT [OPTIONS...]
  local np=$1 file=$2 report=$3
  shift 3
  "$mpiexec" "${mpi_flags[@]}" -np "$np" "$adasketch" train --algo ada-fd --ell 5 --eta 0.1 --loss logistic \
    --dim 123 --data "$file" --report "$report" --quiet "$@"
}
for np in "$@"; do
  train "$np" "$work/a9a1000.svm" "$work/np$np.json" --trace-every 300
done
for n in 300 600 900; do train "$1" "$work/a9a$n.svm" "$work/prefix$n.json"; done
"$mpiexec" "${mpi_flags[@]}" -np "${!#}" "$adasketch" train --algo ada-fd --loss absolute --trace-every 40 --quiet \
  --data synthetic:low-rank-regression:d=20,n=100,seed=1 --report "$work/regression.json"
status=0
"$mpiexec" "${mpi_flags[@]}" -np "$1" "$adasketch" train --algo ada-fd --data "$work/a9a300.svm" --trace-every -1 \
  2>"$work/refused.err" >/dev/null || status=$?
[ "$status" = 2 ] || { echo "FAIL: --trace-every -1 exits with $status, not 2"; exit 1; }

"$python" - "$work" "$@" <<'PY'
import json, sys
work, ranks = sys.argv[1], sys.argv[2:]
load = lambda name: json.load(open("%s/%s.json" % (work, name)))
failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
def close(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)
first = load("np" + ranks[0])
for np in ranks:
    r = load("np" + np)
    t = r["trace"]
    check([e["examples"] for e in t] == [300, 600, 900, 1000], "np=%s: entries after 300, 600, 900, 1000" % np)
    check(t[-1]["cumulative_loss"] == r["cumulative_loss"] and t[-1]["online_mistakes"] == r["online_mistakes"]
          and t[-1]["examples"] == r["examples"], "np=%s: the last entry is the report's totals" % np)
    check(all(e["online_mistakes"] == f["online_mistakes"] and close(e["cumulative_loss"], f["cumulative_loss"], 1e-9)
              for e, f in zip(t, first["trace"])), "np=%s: the trace equals np=%s's" % (np, ranks[0]))
for e in first["trace"][:3]:
    p = load("prefix%d" % e["examples"])
    check(p["online_mistakes"] == e["online_mistakes"] and close(p["cumulative_loss"], e["cumulative_loss"], 1e-12),
          "entry %d equals a run on the first %d examples" % (e["examples"], e["examples"]))
reg = load("regression")
check([e["examples"] for e in reg["trace"]] == [40, 80, 100] and all(e["online_mistakes"] is None for e in reg["trace"])
      and reg["trace"][-1]["cumulative_loss"] == reg["cumulative_loss"], "regression: null mistakes, last entry = totals")
check(json.load(open("%s/prefix300.json" % work))["trace"] is None, "no --trace-every: trace is null")
sys.exit(1 if failures else 0)
PY
