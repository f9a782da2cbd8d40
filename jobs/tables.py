#!/usr/bin/env python3
"""Prints the markdown tables of docs/experiments.md from the JSON reports of the jobs/exp_*.sh scripts.

    python3 jobs/tables.py TABLE [--results DIR]

TABLE is regression, comp or cost (DIR defaults to the directory its jobs/exp_*.sh script writes,
e.g. results/exp_regression). The ill-conditioned and a9a tables are written by their jobs,
jobs/son_ill_conditioned.sbatch and jobs/rfd_a9a.sbatch (jobs/lib/).
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


def count(directory):
    """'n points' of a grid, with its failed (diverged) points."""
    done, failed = len(grid.load_grid(directory)), len(grid.failed_points(directory))
    return "%d points" % done + (", %d diverged" % failed if failed else "")


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


# --- Synthetic regression (exp_regression.sh) ---------------------------------------------------

def regression(results):
    names = [("ADA-FULL", "ada-full"), ("ADA-DIAG", "ada-diag"), ("ADA-FD", "ada-fd"), ("ADA-GP", "ada-gp"),
             ("ADA-DP", "ada-dp"), ("RP-SON", "rp-son"), ("FD-SON", "fd-son")]
    lines = [header(["algorithm", "mirror descent: final regret", "chosen", "dual averaging: final regret",
                     "chosen"])]
    for label, algo in names:
        cells = [label]
        for form in ("", "-da"):
            if algo.endswith("-son") and form:
                cells += ["—", ""]
                continue
            r = chosen(os.path.join(results, algo + form))
            if r is None:
                cells += [NOT_RUN, ""]
                continue
            keys = [("eta", "η"), ("alpha0", "α")] if algo.endswith("-son") else [("eta", "η"), ("delta", "δ")]
            cells += ["%.2f" % r["cumulative_loss"], params(r, keys)]
        lines.append(row(cells))
    return "\n".join(lines)


# --- CompAdaGrad on USPS 4 vs 9 kernel features (exp_comp_adagrad.sh) ----------------------------

ETA_DELTA = [("eta", "η"), ("delta", "δ")]
COMP_KEYS = ETA_DELTA + [("tau", "τ"), ("lambda2", "λ₂")]
COMP_ROWS = [("ADA-DIAG", "ada-diag", ETA_DELTA + [("lambda2", "λ₂")]),
             ("CompAdaGrad, k = 25", "comp-adagrad-k25", COMP_KEYS),
             ("CompAdaGrad, k = 64", "comp-adagrad-k64", COMP_KEYS),
             ("CompAdaGrad, k = 256", "comp-adagrad-k256", COMP_KEYS),
             ("ADA-FULL", "ada-full", ETA_DELTA)]


def comp(results):
    lines = [header(["learner", "chosen", "grid", "online mistakes", "test error %", "test accuracy %"])]
    for label, name, keys in COMP_ROWS:
        directory = os.path.join(results, name)
        r = chosen(directory)
        if r is None:
            lines.append(row([label, NOT_RUN, "", "", "", ""]))
            continue
        lines.append(row([label, params(r, keys), count(directory),
                          "%d (%s%%)" % (r["online_mistakes"], pct(r["mistake_rate"])),
                          pct(1.0 - r["test_accuracy"]), pct(r["test_accuracy"])]))
    lines.append("")
    lines.append(header(["ℓ1 variant", "λ₁", "chosen", "nonzero weights", "online mistakes", "test accuracy %",
                         "failed points"]))
    for label, name, keys in COMP_ROWS:
        directory = os.path.join(results, "l1-" + name)
        groups = {}  # λ₁ (as written in the point names) -> {name: report}
        for point, r in grid.load_grid(directory).items():
            groups.setdefault(point.split("_")[0], {})[point] = r
        failed = grid.failed_points(directory)
        for prefix in sorted(set(groups) | {f.split("_")[0] for f in failed}, key=lambda p: float(p.split("=")[1])):
            misses = sum(1 for f in failed if f.split("_")[0] == prefix)
            _, r = grid.choose(groups.get(prefix, {}))
            if r is None:
                lines.append(row([label, prefix.split("=")[1], "every point failed", "", "", "", str(misses)]))
                continue
            lines.append(row([label, prefix.split("=")[1], params(r, [k for k in keys if k[0] != "lambda2"]),
                              "%d of %d" % (r["nonzero_weights"], r["weights"]), "%d" % r["online_mistakes"],
                              pct(r["test_accuracy"]), "%d of %d" % (misses, misses + len(groups.get(prefix, {})))]))
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
TABLES = {"regression": (regression, "exp_regression"), "comp": (comp, "exp_comp_adagrad"),
          "cost": (cost, "exp_cost")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", choices=sorted(TABLES))
    parser.add_argument("--results")
    args = parser.parse_args()
    function, directory = TABLES[args.table]
    print(function(args.results or os.path.join(HERE, "results", directory)))


if __name__ == "__main__":
    main()
