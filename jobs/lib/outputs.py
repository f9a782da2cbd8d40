"""The three outputs of every experiment job (jobs/*.sbatch, docs/jobs.md): a CSV of raw results, a
PNG plot of what the paper plots and a Markdown table with the paper's numbers beside ours, all in
jobs/results/<job>/ (small files, committed). The runs themselves (one JSON report per point, from
jobs/grid.py) go to results/<job>/ (not committed). Run by Debian's /usr/bin/python3, which has
python3-matplotlib (jobs/setup.sh installs it).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # batch nodes have no display
import matplotlib.pyplot as plt  # noqa: E402

REPO = os.environ.get("ADASKETCH_REPO") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "jobs"))


def results_dir(job):
    """jobs/results/<job>/ (or $RESULTS/<job>), created."""
    path = os.path.join(os.environ.get("RESULTS") or os.path.join(REPO, "jobs", "results"), job)
    os.makedirs(path, exist_ok=True)
    return path


def runs_dir(job):
    """results/<job>/ (or $OUT): where the job's runs keep their reports."""
    return os.environ.get("OUT") or os.path.join(REPO, "results", job)


def write_csv(path, fields, rows):
    """rows: dicts keyed by fields; None is written as an empty cell."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row[k]) for k in fields})


def markdown_table(header, rows):
    """A Markdown table; cells are str()-ed, None is "—"."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join("—" if c is None else str(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def write_markdown(path, title, *blocks):
    """# title, then each block (a table or a paragraph) separated by blank lines."""
    with open(path, "w") as f:
        f.write("# %s\n\n%s" % (title, "\n".join(b.rstrip("\n") + "\n" for b in blocks)))


def save_figure(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def figure(ncols=1, nrows=1, width=5.0, height=3.6):
    return plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False)
