#!/usr/bin/env python3
"""A hyperparameter grid of `adasketch train`: every combination of the --vary lists, one JSON report
per point, then the point chosen on the training stream only.

    python3 jobs/grid.py --out DIR [--np RANKS] [--jobs N] [--vary NAME=V1,V2,...]... [--redo] -- TRAIN OPTIONS

NAME is a train option without its dashes (eta, delta, alpha0, lambda1, tau, ell, ...); the values
are separated by commas or spaces. Each point runs `adasketch train TRAIN OPTIONS --NAME V ...
--report DIR/<point>.json` (stdout and stderr in DIR/<point>.log); <point> is e.g. eta=1e-2_delta=1.
A point whose report is complete is not run again (so an interrupted grid continues where it stopped),
nor is one that failed before (DIR/<point>.failed holds its error line; a diverged run, a NumericError,
is such a failure), unless --redo. A point refused with exit status 2 (bad options, e.g. an algorithm
this build does not have) stops the grid and leaves nothing behind, so a later rerun runs it. The runs
use `$ADASKETCH_LAUNCHER RANKS` when set, else under SLURM (SLURM_JOB_ID set) `srun --mpi=pmix -n RANKS`,
otherwise `mpirun --quiet -np RANKS --oversubscribe`, or for one rank the binary itself (an MPI
singleton); the binary is $ADASKETCH_BIN, else adasketch on PATH, else build/drivers/adasketch.
--jobs N (default $ADASKETCH_GRID_JOBS, else 1) runs N points at a time, each on RANKS ranks (under
SLURM as `srun --exact`, so that the steps share the allocation); the output keeps the grid's order.

The choice (choose() below, also used by the jobs' modules in jobs/lib): the fewest online mistakes, ties broken by
the lower cumulative loss (classification, and regression losses on ±1 labels, which report sign
mistakes), or the lowest cumulative loss when the run has no mistakes (regression). Both are
progressive-validation numbers of the training stream: the test set plays no part.
"""
import argparse
import concurrent.futures
import itertools
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def split_values(text):
    return [v for v in text.replace(",", " ").split() if v]


def point_name(assignment):
    return "_".join("%s=%s" % (name, value) for name, value in assignment) or "default"


def launcher(ranks, concurrent_steps=False):
    if os.environ.get("ADASKETCH_LAUNCHER"):
        return shlex.split(os.environ["ADASKETCH_LAUNCHER"]) + [str(ranks)]
    if os.environ.get("SLURM_JOB_ID"):
        return ["srun", "--mpi=pmix"] + (["--exact"] if concurrent_steps else []) + ["-n", str(ranks)]
    if ranks == 1:
        return []  # an MPI singleton: the same run without mpirun's start-up (about 0.5 s a point)
    return ["mpirun", "--quiet", "-np", str(ranks), "--oversubscribe"]


def binary():
    return os.environ.get("ADASKETCH_BIN") or shutil.which("adasketch") or \
        os.path.join(HERE, "build", "drivers", "adasketch")


def load_point(out, name):
    """The report of point `name` in out (a dict), or None if it failed, was not run or is running
    (the driver creates its report when it starts and writes it at the end)."""
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def load_grid(out):
    """Every finished point of the grid in out: {name: report}; failed and running points are left out."""
    points = {}
    if os.path.isdir(out):
        for entry in sorted(os.listdir(out)):
            report = load_point(out, entry[:-5]) if entry.endswith(".json") else None
            if report is not None:
                points[entry[:-5]] = report
    return points


def failed_points(out):
    if not os.path.isdir(out):
        return []
    return sorted(e[:-7] for e in os.listdir(out) if e.endswith(".failed"))


def selection_key(report):
    loss = report["cumulative_loss"]
    if loss is None or not math.isfinite(loss):
        loss = math.inf
    if report.get("online_mistakes") is None:
        return (loss,)
    return (report["online_mistakes"], loss)


def choose(points):
    """(name, report) of the chosen point of {name: report}, or (None, None) when there is none."""
    best = None
    for name in sorted(points):
        key = selection_key(points[name])
        if best is None or key < best[0]:
            best = (key, name)
    return (best[1], points[best[1]]) if best else (None, None)


def describe(report):
    mistakes = report.get("online_mistakes")
    text = "cumulative loss %.6g" % report["cumulative_loss"]
    if mistakes is not None:
        text = "online mistakes %d (%.4f%%), %s" % (mistakes, 100.0 * report["mistake_rate"], text)
    if report.get("test_accuracy") is not None:
        text += ", test accuracy %.4f%%" % (100.0 * report["test_accuracy"])
    return text


def run_point(out, ranks, assignment, fixed, redo, concurrent_steps=False):
    name = point_name(assignment)
    report = os.path.join(out, name + ".json")
    failed = os.path.join(out, name + ".failed")
    if not redo and load_point(out, name) is not None:
        return name, "kept"
    if not redo and os.path.exists(failed):
        return name, "failed"
    for stale in (report, failed):
        if os.path.exists(stale):
            os.remove(stale)
    varied = [a for name_value in assignment for a in ("--" + name_value[0], name_value[1])]
    command = launcher(ranks, concurrent_steps) + [binary(), "train"] + fixed + varied + ["--report", report]
    with open(os.path.join(out, name + ".log"), "w") as log:
        log.write(" ".join(command) + "\n")
        log.flush()
        # stdin: none (srun would forward it to the run, eating a job script's here-document)
        status = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT).returncode
    if status != 0 or not os.path.exists(report):
        with open(os.path.join(out, name + ".log")) as log:
            lines = [line.strip() for line in log if line.strip()]
        error = "exit status %d: %s" % (status, lines[-1] if lines else "(no output)")
        if os.path.exists(report):  # the driver may have created it before failing
            os.remove(report)
        if status == 2:  # refused options (e.g. an algorithm this build lacks): nothing is recorded
            return name, error
        with open(failed, "w") as f:
            f.write(error + "\n")
        return name, "failed"
    return name, "ran"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s --out DIR [--np N] [--jobs N] [--vary NAME=LIST]... [--redo] -- TRAIN OPTIONS")
    parser.add_argument("--out", required=True)
    parser.add_argument("--np", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("ADASKETCH_GRID_JOBS", "1")))
    parser.add_argument("--vary", action="append", default=[], metavar="NAME=LIST")
    parser.add_argument("--redo", action="store_true")
    argv = sys.argv[1:]
    fixed = []
    if "--" in argv:
        cut = argv.index("--")
        argv, fixed = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    axes = []
    for spec in args.vary:
        name, sep, values = spec.partition("=")
        if not sep or not name or not split_values(values):
            parser.error("--vary takes NAME=V1,V2,..., got '%s'" % spec)
        axes.append([(name, v) for v in split_values(values)])
    if not os.access(binary(), os.X_OK):
        sys.exit("grid.py: %s not found: build first (bash jobs/setup.sh) or set ADASKETCH_BIN" % binary())
    os.makedirs(args.out, exist_ok=True)
    print("grid: %s, %d rank(s), %s" % (args.out, args.np, " ".join(fixed)), flush=True)
    start = time.time()
    names = []
    pool = concurrent.futures.ThreadPoolExecutor(max(1, args.jobs))
    runs = [pool.submit(run_point, args.out, args.np, list(a), fixed, args.redo, args.jobs > 1)
            for a in itertools.product(*axes)]
    for run in runs:
        name, what = run.result()
        names.append(name)
        if what.startswith("exit status 2"):
            print("grid not run: the binary refuses the options (%s)" % what)
            pool.shutdown(cancel_futures=True)
            return
        if what == "failed":
            with open(os.path.join(args.out, name + ".failed")) as f:
                print("  %-40s failed: %s" % (name, f.read().strip()), flush=True)
        else:
            print("  %-40s %s%s" % (name, describe(load_point(args.out, name)), " (kept)" if what == "kept" else ""),
                  flush=True)
    points = {n: load_point(args.out, n) for n in names}
    name, report = choose({n: r for n, r in points.items() if r is not None})
    print("grid done in %.0f s" % (time.time() - start))
    if name is None:
        print("chosen (training stream only): none, every point failed")
    else:
        print("chosen (training stream only): %s: %s" % (name, describe(report)))


if __name__ == "__main__":
    main()
