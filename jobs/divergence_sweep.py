#!/usr/bin/python3
"""No false positives of the divergence check (docs/design.md §2, "Divergence"; issue 25, item 2).

Runs every learner of `adasketch train --help` at its defaults, one pass, on a9a, w8a, mushrooms, USPS
(binary: digits 0-4 against 5-9, logistic; and 10 classes, softmax), SON §5.1's ill-conditioned
dense rows (d = 100) and power-law sparse rows (Zipf 1.1, d = 1000, 20 draws a row), and the known
diverging run (ADA-FD, squared loss, ℓ = 5, d = 17) that the check must stop. For each: whether the
check stopped it (its line), the largest mean online loss over a window of 1,000 examples relative
to the zero predictor's (from --trace-every 1000), and with a test set the accuracy and the test
mean loss relative to the zero predictor's (the final model's own scores). Writes
jobs/results/divergence/sweep.csv and sweep.md.

    /usr/bin/python3 jobs/divergence_sweep.py        (about 25 min on the loaded 2 cores, 1 rank a run;
                                                       the exact learners take most of it)

Environment: ADASKETCH_BIN (the adasketch driver; default: on PATH, else build/drivers/adasketch), OUT
(default jobs/results/divergence), JOBS (runs at a time, default 2).
"""
import concurrent.futures
import csv
import gzip
import json
import math
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "tests", "data")
WINDOW = 1000  # defaults::divergence_window
LIMIT = 100.0  # the divergence row's default


def algorithms(binary):
    """The learners `adasketch train --help` lists for --algo."""
    text = subprocess.run([binary, "train", "--help"], capture_output=True, text=True, check=True).stdout
    line = next(l for l in text.splitlines() if l.strip().startswith("--algo"))
    names = line.split("NAME", 1)[1].split("(required")[0].replace(" or ", ", ")
    return [n.strip() for n in names.split(",") if n.strip()]


def usps_binary(out):
    """USPS as a binary set: labels 1-5 (digits 0-4) against 6-10 (digits 5-9)."""
    paths = []
    for name in ("usps_esl", "usps_esl.t"):
        path = os.path.join(out, name + ".binary.svm")
        if not os.path.exists(path):
            with gzip.open(os.path.join(DATA, name + ".gz"), "rt") as f, open(path + ".tmp", "w") as g:
                for line in f:
                    label, rest = line.split(" ", 1)
                    g.write(("-1 " if int(label) <= 5 else "+1 ") + rest)
            os.replace(path + ".tmp", path)
        paths.append(path)
    return paths


def data_sets(out):
    train_bin, test_bin = usps_binary(out)
    zipf = "synthetic:sparse-classification:d=1000,zipf=1.1,nnz=20"
    return [  # name, options, zero predictor's loss
        ("a9a", ["--data", f"{DATA}/a9a.gz", "--test", f"{DATA}/a9a.t.gz"], math.log(2)),
        ("w8a", ["--data", f"{DATA}/w8a.gz"], math.log(2)),
        ("mushrooms", ["--data", f"{DATA}/mushrooms.gz"], math.log(2)),
        ("usps-binary", ["--data", train_bin, "--test", test_bin, "--dim", "256"], math.log(2)),
        ("usps-10", ["--loss", "softmax", "--data", f"{DATA}/usps_esl.gz", "--test", f"{DATA}/usps_esl.t.gz",
                     "--dim", "256"], math.log(10)),
        ("ill-conditioned", ["--data", "synthetic:ill-conditioned",
                             "--test", "synthetic:ill-conditioned:n=2000,skip=10000"], math.log(2)),
        ("zipf-sparse", ["--data", zipf + ",n=20000", "--test", zipf + ",n=2000,skip=20000"], math.log(2)),
    ]


# ADA-FULL solves an n × n eigenproblem per example (n = dK): hours at n = 300 (w8a), 1000 (the sparse
# rows) and 2560 (USPS, 10 classes) on one rank. Left out there, and said so in the table.
SKIPPED = {(s, a) for s in ("w8a", "usps-10", "zipf-sparse") for a in ("ada-full", "ada-full-da")}


def run(binary, out, name, algo, options, zero):
    if (name, algo) in SKIPPED:
        return {"set": name, "algo": algo, "status": "", "stopped": "not run (an eigensolve per example: hours)",
                "max_window_ratio": "", "test_accuracy": "", "test_loss_ratio": ""}
    report = os.path.join(out, "runs", f"{name}.{algo}.json")
    command = [binary, "train", "--algo", algo, *options, "--quiet", "--trace-every", str(WINDOW), "--report", report]
    done = subprocess.run(command, capture_output=True, text=True)
    row = {"set": name, "algo": algo, "status": done.returncode, "stopped": "", "max_window_ratio": "",
           "test_accuracy": "", "test_loss_ratio": ""}
    if done.returncode != 0:
        row["stopped"] = (done.stderr.strip().splitlines() or [""])[0]
        return row
    with open(report) as f:
        r = json.load(f)
    if zero is not None:
        trace = [0.0] + [e["cumulative_loss"] for e in r["trace"] if e["examples"] % WINDOW == 0]
        row["max_window_ratio"] = max((b - a) / (WINDOW * zero) for a, b in zip(trace, trace[1:]))
        if r.get("test_examples"):
            row["test_accuracy"] = r["test_accuracy"]
            row["test_loss_ratio"] = r["test_mean_loss"] / zero
    return row


def main():
    binary = os.environ.get("ADASKETCH_BIN") or shutil.which("adasketch") or os.path.join(REPO, "build", "drivers",
                                                                                         "adasketch")
    out = os.environ.get("OUT", os.path.join(REPO, "jobs", "results", "divergence"))
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    cases = [(name, algo, options, zero) for name, options, zero in data_sets(out) for algo in algorithms(binary)]
    # The known silent divergence of an earlier session: the check must stop it.
    cases.append(("low-rank-regression d=17", "ada-fd",
                  ["--loss", "squared", "--ell", "5", "--data", "synthetic:low-rank-regression:d=17,n=1000"], None))
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        rows = list(pool.map(lambda c: run(binary, out, *c), cases))
    with open(os.path.join(out, "sweep.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    fmt = lambda v, p: "" if v == "" else p % v
    lines = ["| set | learner | stopped | max window loss / zero predictor's | test accuracy | test loss / zero predictor's |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['set']} | {r['algo']} | {r['stopped'] or 'no'} | {fmt(r['max_window_ratio'], '%.3g')} | "
                     f"{'' if r['test_accuracy'] == '' else '%.2f%%' % (100 * r['test_accuracy'])} | "
                     f"{fmt(r['test_loss_ratio'], '%.3g')} |")
    stopped = [r for r in rows if r["status"] not in (0, "")]
    expected = [r for r in stopped if r["set"].startswith("low-rank")]
    summary = (f"{len(rows) - 1 - len(SKIPPED)} default runs, {len(stopped) - len(expected)} stopped by the check "
               f"(limit {LIMIT:g}); the known diverging run {'stopped' if expected else 'NOT stopped'}.")
    with open(os.path.join(out, "sweep.md"), "w") as f:
        f.write("# Divergence check: every learner at its defaults (jobs/divergence_sweep.py)\n\n" + summary + "\n\n" +
                "\n".join(lines) + "\n")
    print(summary)
    return 0 if len(stopped) == len(expected) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
