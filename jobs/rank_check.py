#!/usr/bin/env python3
"""Reruns the chosen point of every grid under a results directory at another rank count and compares
it with the recorded run: online mistakes, cumulative loss (relative difference) and test accuracy.

    python3 jobs/rank_check.py RESULTS_DIR [--np 2]

A grid is a directory of jobs/grid.py reports; its chosen point (jobs/grid.py's rule) is rerun with
the command recorded in its log, launched as jobs/grid.py launches NP ranks, writing its report to
a temporary file. Prints one line per grid and the largest relative difference of the cumulative
loss; exits with status 1 if a mistake count or a test accuracy differs.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grid  # noqa: E402  (jobs/grid.py)


def grids(root):
    for directory, _, files in sorted(os.walk(root)):
        if any(f.endswith(".json") for f in files) and any(f.endswith(".log") for f in files):
            yield directory


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results")
    parser.add_argument("--np", type=int, default=2)
    args = parser.parse_args()
    launch = grid.launcher(args.np)
    worst, differ = 0.0, False
    for directory in grids(args.results):
        name, report = grid.choose(grid.load_grid(directory))
        if name is None:
            continue
        with open(os.path.join(directory, name + ".log")) as f:
            command = shlex.split(f.readline())
        start = next(i for i, word in enumerate(command) if os.path.basename(word) == "adasketch")
        command = command[start:]
        command = command[:command.index("--report")]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "report.json")
            status = subprocess.run(launch + command + ["--report", path], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.STDOUT).returncode
            if status != 0:
                print("%s/%s: failed at %d ranks (exit status %d)" % (directory, name, args.np, status))
                differ = True
                continue
            with open(path) as f:
                other = json.load(f)
        rel = abs(other["cumulative_loss"] - report["cumulative_loss"]) / max(abs(report["cumulative_loss"]), 1e-300)
        worst = max(worst, rel)
        same = (other["online_mistakes"] == report["online_mistakes"]
                and other["test_accuracy"] == report["test_accuracy"])
        differ = differ or not same
        print("%-70s mistakes %s / %s, test accuracy %s / %s, cumulative loss rel. diff. %.1e" % (
            os.path.join(directory, name), report["online_mistakes"], other["online_mistakes"],
            report["test_accuracy"], other["test_accuracy"], rel), flush=True)
    print("largest relative difference of the cumulative loss: %.2e; %s" % (
        worst, "mistakes or test accuracies differ" if differ else "mistakes and test accuracies identical"))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
