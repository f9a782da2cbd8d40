#!/usr/bin/env python3
"""Prints the cost table of docs/experiments.md (§5) from the JSON reports of jobs/exp_cost.sh.

    python3 jobs/tables.py cost [--results DIR]

DIR defaults to results/exp_cost. The other tables of docs/experiments.md are written by their jobs
(jobs/*.sbatch, docs/jobs.md) into jobs/results/.
"""
import argparse
import json
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_RUN = "not run"


def row(cells):
    return "| " + " | ".join(cells) + " |"


def header(cells):
    return row(cells) + "\n" + row(["---"] * len(cells))


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", choices=["cost"])
    parser.add_argument("--results")
    args = parser.parse_args()
    print(cost(args.results or os.path.join(HERE, "results", "exp_cost")))


if __name__ == "__main__":
    main()
