#!/usr/bin/env python3
"""Prints the markdown tables of docs/experiments.md from the JSON reports of the jobs/exp_*.sh scripts.

    python3 jobs/tables.py TABLE [--results DIR]

TABLE is ill, a9a or cost (DIR defaults to the directory its jobs/exp_*.sh script writes, e.g.
results/exp_ill_conditioned); the regression and CompAdaGrad tables are jobs/regression.sbatch's and
jobs/comp_adagrad.sbatch's.
Every grid's point is chosen on the training stream only (jobs/grid.py: fewest online mistakes, ties
by the lower cumulative loss; the lowest cumulative loss for regression); a grid with no finished
point shows "not run".
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grid  # noqa: E402  (jobs/grid.py)

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_RUN = "not run"


def chosen(directory):
    return grid.choose(grid.load_grid(directory))[1]


def num(v):
    """A hyperparameter as the command line would give it: 1e5 for powers of ten from 1000 and up to
    1e-3, 2^12 for the other powers of two beyond 8 or 1/8, as %g otherwise."""
    if v == 0:
        return "0"
    for base, text in ((10, "1e%d"), (2, "2^%d")):
        e = math.log(abs(v), base)
        if abs(e - round(e)) < 1e-9 and abs(round(e)) >= 3:
            return text % round(e)
    return "%g" % v


def params(report, keys):
    return ", ".join("%s %s" % (label, num(report["options"][key])) for key, label in keys)


def pct(x, digits=2):
    return "%.*f" % (digits, 100.0 * x)


def row(cells):
    return "| " + " | ".join(cells) + " |"


def header(cells):
    return row(cells) + "\n" + row(["---"] * len(cells))


# --- SON §5.1's ill-conditioned problem (exp_ill_conditioned.sh) ---------------------------------

ILL_COLUMNS = [("Oja-SON m = 0", "oja-son-m0", [("alpha0", "α")]),
               ("Oja-SON m = 5", "oja-son-m5", [("alpha0", "α")]),
               ("Oja-SON m = 10", "oja-son-m10", [("alpha0", "α")]),
               ("ADA-DIAG", "ada-diag", [("eta", "η"), ("delta", "δ")])]


def ill(results):
    kappas = sorted(int(e[5:]) for e in os.listdir(results) if e.startswith("kappa")) if os.path.isdir(results) else []
    lines = [header(["κ"] + [label for label, _, _ in ILL_COLUMNS])]
    for kappa in kappas:
        cells = [str(kappa)]
        for _, name, keys in ILL_COLUMNS:
            r = chosen(os.path.join(results, "kappa%d" % kappa, name))
            cells.append(NOT_RUN if r is None else "%s (%s)" % (pct(r["mistake_rate"]), params(r, keys)))
        lines.append(row(cells))
    return "\n".join(lines)


# --- a9a (exp_a9a.sh) ---------------------------------------------------------------------------

# RFD paper Table 2, a9a column (its 70/30 split, best α₀ chosen by the paper), for reference.
A9A_PAPER = {"ada-diag": 83.4783, "full-on": 83.8264,
             "fd-son-m5": 83.6524, "fd-son-m10": 83.6728, "fd-son-m20": 83.6831,
             "rp-son-m5": 83.6626, "rp-son-m10": 83.7240, "rp-son-m20": 83.6626,
             "oja-son-m5": 83.7650, "oja-son-m10": 83.7547, "oja-son-m20": 83.6217,
             "rfd-son-m5": 83.6319, "rfd-son-m10": 83.6831, "rfd-son-m20": 83.9390}
# RFD paper Table 3, a9a column: training seconds at the best α₀ (Matlab, i7-3770), for reference.
A9A_PAPER_SECONDS = {"ada-diag": 40.66, "full-on": 44.62,
                     "fd-son-m5": 40.16, "fd-son-m10": 41.55, "fd-son-m20": 49.06,
                     "rp-son-m5": 17.01, "rp-son-m10": 18.04, "rp-son-m20": 21.33,
                     "oja-son-m5": 17.75, "oja-son-m10": 17.43, "oja-son-m20": 20.38,
                     "rfd-son-m5": 35.42, "rfd-son-m10": 40.14, "rfd-son-m20": 43.33}
A9A_ROWS = ["ada-diag", "full-on"] + ["%s-m%d" % (a, m) for a in ("fd-son", "rp-son", "oja-son", "rfd-son")
                                       for m in (5, 10, 20)]


def a9a_label(name):
    if "-m" not in name:
        return {"ada-diag": "ADA-DIAG", "full-on": "FULL-ON"}[name]
    algo, m = name.rsplit("-m", 1)
    return "%s, m = %s" % ({"fd-son": "FD-SON", "rp-son": "RP-SON", "oja-son": "Oja-SON", "rfd-son": "RFD-SON"}[algo], m)


def a9a_cell(directory, keys):
    r = chosen(directory)
    if r is None:
        return NOT_RUN
    return "%s (%s)" % (pct(r["test_accuracy"]), params(r, keys))


def a9a(results):
    splits = [("split70", "70/30 split"), ("a9a", "a9a → a9a.t")]
    cols = ["algorithm"]
    for _, title in splits:
        cols += ["%s" % title, "%s, rescaled" % title]
    cols.append("paper (70/30)")
    lines = [header(cols)]
    for name in A9A_ROWS:
        keys = [("eta", "η"), ("delta", "δ")] if name == "ada-diag" else [("alpha0", "α₀")]
        cells = [a9a_label(name)]
        for split, _ in splits:
            cells.append(a9a_cell(os.path.join(results, split, name), keys))
            rescaled = os.path.join(results, split, name + "-rescaled")
            cells.append("—" if name in ("ada-diag", "full-on") else a9a_cell(rescaled, keys))
        cells.append("%.2f" % A9A_PAPER[name])
        lines.append(row(cells))
    # Table 3's counterpart: the training seconds of the chosen runs (one pass, reading included).
    lines.append("")
    lines.append(header(["algorithm", "70/30: s (µs/example)", "70/30 rescaled: s (µs/example)", "paper Table 3: s"]))
    for name in A9A_ROWS:
        cells = [a9a_label(name)]
        for suffix in ("", "-rescaled"):
            r = None if (suffix and name in ("ada-diag", "full-on")) else chosen(os.path.join(results, "split70", name + suffix))
            cells.append("—" if r is None else "%.3f (%.2f)" % (r["seconds"], 1e6 * r["seconds_per_example"]))
        cells.append("%.2f" % A9A_PAPER_SECONDS[name])
        lines.append(row(cells))
    return "\n".join(lines)


# --- Cost per example (exp_cost.sh) --------------------------------------------------------------

def seconds(x):
    if x < 1e-3:
        return "%.3g µs" % (1e6 * x)
    return "%.3g ms" % (1e3 * x) if x < 1 else "%.3g s" % x


def cost(results):
    times = {}  # (d, algorithm, ranks) -> seconds per example
    ranks = set()
    for entry in sorted(os.listdir(results)) if os.path.isdir(results) else []:
        if entry.endswith(".json"):
            with open(os.path.join(results, entry)) as f:
                report = json.load(f)
            ranks.add(report["ranks"])
            for learner in report["learners"]:
                times[(report["d"], learner["algorithm"], report["ranks"])] = learner["seconds_per_example"]
    columns = [(a, p) for a in ("ada-full", "full-on", "ada-fd", "rfd-son") for p in sorted(ranks)]
    lines = [header(["d"] + ["%s, %d rank%s" % (a, p, "s" if p > 1 else "") for a, p in columns])]
    for d in sorted({key[0] for key in times}):
        lines.append(row([str(d)] + [seconds(times[(d, a, p)]) if (d, a, p) in times else NOT_RUN
                                     for a, p in columns]))
    return "\n".join(lines)


# name: (function, the results directory of its script)
TABLES = {"ill": (ill, "exp_ill_conditioned"), "a9a": (a9a, "exp_a9a"), "cost": (cost, "exp_cost")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", choices=sorted(TABLES))
    parser.add_argument("--results")
    args = parser.parse_args()
    function, directory = TABLES[args.table]
    print(function(args.results or os.path.join(HERE, "results", directory)))


if __name__ == "__main__":
    main()
