#!/usr/bin/env python3
"""Defaults, --auto and best-of-grid, per learner and data set (issue 25, docs/results.md).

    /usr/bin/python3 jobs/auto_table.py [--out DIR] [--np 1] [--data a9a,w8a,mushrooms,usps,uspsbin,text]
                                        [--algos LIST] [--ell 10]

For every learner and data set, three one-pass runs of `adasketch train` in file order, logistic loss
(softmax for USPS's 10 classes), the given ℓ, everything else at the defaults:
- default: nothing else;
- auto: `--auto` (the race of docs/design.md, "The tuning-free mode", over the first 2000 examples);
- best of grid: `adasketch tune` over the same candidates as the race, each run over the whole pass,
  the best TEST accuracy (an oracle: it sees the test set, which --auto never does).
Test accuracy of each on the data set's test file (mushrooms and w8a have none: every fifth line
tests and the others train, in file order, split by this script: both files hold runs of one label;
uspsbin is USPS with digits 1-5 (the file's labels) -1 and 6-10 +1; text is the hashed text of
jobs/text_hashed.py in /tmp/text_hashed). Writes DIR/auto_table.csv and prints a markdown table.
ADASKETCH_BIN (default build/drivers/adasketch) and mpirun as in the other jobs.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "lib"))
import benchmark_sets  # noqa: E402  (jobs/lib)
DATA = os.path.join(REPO, "tests", "data")
SON = {"fd-son", "fast-fd-son", "rp-son", "oja-son", "rfd-son", "fast-rfd-son", "full-on"}
ALGOS = ["ada-diag", "ada-fd", "fast-ada-fd", "ada-gp", "ada-dp", "comp-adagrad",
         "fd-son", "fast-fd-son", "rp-son", "oja-son", "rfd-son", "fast-rfd-son"]


def data_sets(work):
    """name -> (train, test, extra train options)."""
    split = {name: benchmark_sets.split_every_fifth(DATA, work, name) for name in ("mushrooms", "w8a")}
    uspsbin = benchmark_sets.usps_binary(DATA, work)
    return {
        "a9a": (os.path.join(DATA, "a9a.gz"), os.path.join(DATA, "a9a.t.gz"), ["--dim", "123"]),
        "w8a": (*split["w8a"], ["--dim", "300"]),
        "mushrooms": (*split["mushrooms"], ["--dim", "112"]),
        "usps": (os.path.join(DATA, "usps_esl.gz"), os.path.join(DATA, "usps_esl.t.gz"), ["--loss", "softmax"]),
        "uspsbin": (*uspsbin, ["--dim", "256"]),
        "text": ("/tmp/text_hashed/train.svm.gz", "/tmp/text_hashed/test.svm.gz", ["--dim", "16777216"]),
    }


def grid(algo):
    """The race's candidates (auto_tuned_learner.hpp) at the defaults η = 0.1, α = 10 (relative: --scale)."""
    if algo in SON:
        return ["--vary", "alpha0=10,1,100,0.1", "--vary", "eta=0.1,1"]
    return ["--vary", "eta=0.1,0.3,0.03,1,0.01,3"]


def peers(train, test, dim):
    """scikit-learn's one-pass SGDClassifier and PassiveAggressiveClassifier at their defaults (file
    order, no shuffling, max_iter=1): test accuracy of each."""
    import warnings
    from sklearn.datasets import load_svmlight_file
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import PassiveAggressiveClassifier, SGDClassifier
    X, y = load_svmlight_file(train, n_features=dim)
    Xt, yt = load_svmlight_file(test, n_features=dim)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name, model in (("SGDClassifier", SGDClassifier(max_iter=1, tol=None, shuffle=False)),
                            ("PassiveAggressiveClassifier", PassiveAggressiveClassifier(max_iter=1, tol=None, shuffle=False))):
            out[name] = model.fit(X, y).score(Xt, yt)
    return out


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
    return r, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "results", "auto_table"))
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--data", default="a9a,w8a,mushrooms,usps")
    ap.add_argument("--algos", default=",".join(ALGOS))
    ap.add_argument("--ell", default="10")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    binary = os.environ.get("ADASKETCH_BIN", os.path.join(REPO, "build", "drivers", "adasketch"))
    launch = ["mpirun", "-np", str(a.np), "--oversubscribe", "--allow-run-as-root"]
    sets = data_sets(a.out)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        for name in a.data.split(","):
            train, test, extra = sets[name]
            dim = int(extra[extra.index("--dim") + 1]) if "--dim" in extra else 256
            for peer, accuracy in peers(train, test, dim).items():
                rows.append({"data": name, "algo": "scikit-learn " + peer, "default": accuracy, "auto": "", "grid": ""})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            for algo in a.algos.split(","):
                base = launch + [binary, "train", "--algo", algo, "--ell", a.ell, "--data", train, "--test", test,
                                 "--quiet", "--report", report] + extra
                row = {"data": name, "algo": algo}
                for mode, more in (("default", []), ("auto", ["--auto"])):
                    r, err = run(base + more)
                    if r is None:
                        row[mode] = "error: " + err
                        continue
                    with open(report) as f:
                        rep = json.load(f)
                    row[mode] = rep["test_accuracy"]
                    if mode == "auto":
                        c = rep["auto"]["candidates"][rep["auto"]["chosen"]]
                        row["auto_choice"] = ("alpha0 %g eta %g" % (c["alpha0"], c["eta"])) if algo in SON else "eta %g" % c["eta"]
                csv_path = os.path.join(tmp, "g.csv")
                tune = launch + [binary, "tune", "--algo", algo, "--ell", a.ell, "--data", train, "--test", test,
                                 "--select", "test", "--quiet", "--out-csv", csv_path] + extra + grid(algo)
                r, err = run(tune)
                if r is None:
                    row["grid"] = "error: " + err
                else:
                    with open(csv_path) as f:
                        acc = [float(x["test_accuracy"]) for x in csv.DictReader(f) if x["test_accuracy"] not in ("", "nan")]
                    row["grid"] = max(acc) if acc else float("nan")
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    with open(os.path.join(a.out, "auto_table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["data", "algo", "default", "auto", "auto_choice", "grid"])
        w.writeheader()
        w.writerows(rows)

    def pct(v):
        return "%.2f" % (100 * v) if isinstance(v, float) else str(v)

    print("| data | learner | default | --auto (choice) | best of grid | default gap | --auto gap |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        gap = lambda v: "%.2f" % (100 * (r["grid"] - v)) if isinstance(v, float) and isinstance(r["grid"], float) else "—"
        print("| %s | %s | %s | %s (%s) | %s | %s | %s |" % (r["data"], r["algo"], pct(r.get("default")), pct(r.get("auto")),
                                                              r.get("auto_choice", ""), pct(r.get("grid")),
                                                              gap(r.get("default")), gap(r.get("auto"))))


if __name__ == "__main__":
    main()
