"""What the output modules of the experiment jobs read from their runs (jobs/grid.py reports): the
chosen point of a grid, hyperparameters as the command line gives them, and the job's time and load.
"""
import math
import os

import outputs  # noqa: F401  (puts jobs/ on sys.path)
import grid  # noqa: E402


def points(directory):
    """{point name: report} of the finished points of a grid (none when it was not run)."""
    return grid.load_grid(directory)


def chosen(directory):
    """The report of the grid's point chosen on the training stream (jobs/grid.py), or None."""
    return grid.choose(points(directory))[1]


def on_edge(found, report, names):
    """Whether report's value of one of the option names is the smallest (unless 0) or largest its grid
    ran (found: {point: report}), where the grid has more than one value of it."""
    for key in names:
        values = {r["options"][key] for r in found.values()}
        value = report["options"][key]
        if len(values) > 1 and (value == max(values) or value == min(values) != 0):  # 0 (λ₂) has no beyond
            return True
    return False


def num(v):
    """1e-3 style for powers of ten beyond 100 or below 0.01, %g otherwise."""
    if v == 0:
        return "0"
    e = math.log10(abs(v))
    return "1e%d" % round(e) if abs(e - round(e)) < 1e-9 and abs(round(e)) >= 3 else "%g" % v


def params(report, keys):
    """'η 0.01, δ 1' for keys [("eta", "η"), ("delta", "δ")]."""
    return ", ".join("%s %s" % (label, num(report["options"][key])) for key, label in keys)


def job_note():
    """The job's wall time and the machine's load when it started (JOB_SECONDS, JOB_LOAD from the job)."""
    seconds = int(os.environ.get("JOB_SECONDS", "0"))
    load = os.environ.get("JOB_LOAD", "").split("load average:")[-1].strip()
    return ("Wall time of the job: %d min %02d s on the shared 2-core VM (load average %s at its start, "
            "from `uptime`)." % (seconds // 60, seconds % 60, load or "unknown"))
