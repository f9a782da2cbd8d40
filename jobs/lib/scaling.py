"""CSV, PNG and Markdown of jobs/scaling.sbatch (--mode strong|weak) from its runs in OUT
(adasketch-bench-learners reports P<np>-d<d>-<form>.json and probe-P<np>.json): jobs/results/scaling_<mode>/
scaling.csv (measured and projected rows), scaling.md (tables, the model, a comparison) and
scaling.png (seconds per example against P, log-log: measured points, projected lines).

Model: a step on P ranks takes t(P) = t_local(d_p) + t_comm(P), t_comm(P) = ⌈log₂P⌉·(c·α + b/β), c
Allreduce calls and b bytes per example (measured), α per tree level and β per link: assumed
(--alpha-us, --beta-gbs) or fitted to the probe at P = 2. t_local: one rank's step at d/P (strong, dense), at
d per rank (weak), or at d (strong, sparse: an upper bound, see local_step), all measured.
"""
import glob
import json
import math
import os

import numpy as np

import outputs
import run_note
from outputs import figure, markdown_table, results_dir, save_figure, write_csv, write_markdown

parser = run_note.arguments(__doc__)
parser.add_argument("--mode", choices=["strong", "weak"], default="strong")
parser.add_argument("--d-dense", type=int, help="d (weak: per rank) of the dense rows (default 2²², weak 2²¹)")
parser.add_argument("--d-sparse", type=int, default=10000000, help="d (weak: per rank) of the sparse rows")
parser.add_argument("--project", default="64 1024", help="rank counts of the projection")
parser.add_argument("--alpha-us", type=float, default=1.5, help="assumed latency per tree level, µs")
parser.add_argument("--beta-gbs", type=float, default=12.5, help="assumed bandwidth per link, GB/s")
ARGS = parser.parse_args()
MODE = ARGS.mode
JOB = "scaling_" + MODE
OUT = outputs.runs_dir(JOB)
D0 = {"dense": ARGS.d_dense or (4194304 if MODE == "strong" else 2097152), "sparse": ARGS.d_sparse}
PROJECT = [int(p) for p in ARGS.project.split()]
ALPHA = ARGS.alpha_us * 1e-6
BETA = ARGS.beta_gbs * 1e9
CORES = os.cpu_count()


def load(pattern):
    return [json.load(open(f)) for f in sorted(glob.glob(os.path.join(OUT, pattern)))]


def levels(p):
    return math.ceil(math.log2(p)) if p > 1 else 0


def t_comm(s, p, alpha, beta):
    return levels(p) * (s["calls"] * alpha + s["bytes"] / beta)


def us(t):
    return None if t is None or not math.isfinite(t) else "%.3g µs" % (t * 1e6) if t < 1e-3 else "%.3g ms" % (t * 1e3)


def pct(x):
    return None if x is None else "%.1f%%" % (100 * x) if x >= 0.01 else "%.2g%%" % (100 * x)


# Measured steps: key (algo, form, d, P).
steps = {}
for r in load("P*-d*-*.json"):
    for m in r["learners"]:
        t = m["seconds_per_example"]
        steps[(m["algorithm"], m["form"], r["d"], r["ranks"])] = dict(
            algo=m["algorithm"], form=m["form"], d=r["d"], P=r["ranks"], d_p=r["local_dim_max"], t=t,
            mean=m["mean_seconds_per_example"], bytes_block=m["buffer_bytes"], floor=m["read_seconds"],
            mpi=m["mpi_seconds_per_example"], share=m["mpi_share"], calls=m["allreduce_calls_per_example"],
            bytes=m["allreduce_bytes_per_example"], local=t - m["mpi_seconds_per_example"] if r["ranks"] == 1 else None)
probes = {r["ranks"]: {p["bytes"]: p["seconds"] for p in r["allreduce_probe"]} for r in load("probe-P*.json")}
fit = None  # α, β of this machine: t = α + bytes/β, one tree level (P = 2), fitted in relative error
if 2 in probes and len(probes[2]) >= 2:
    x = np.array(sorted(probes[2]), float)
    y = np.array([probes[2][b] for b in sorted(probes[2])])
    slope, intercept = np.polyfit(x, y, 1, w=1 / y)
    if slope > 0 and intercept > 0:
        fit = (intercept, 1 / slope)


def main_d(form, p):
    return D0[form] if MODE == "strong" else D0[form] * p


series = {}  # (algo, form): measured steps of the scaling run, by P
for (algo, form, d, p), s in steps.items():
    if d == main_d(form, p):
        series.setdefault((algo, form), {})[p] = s


def local_step(algo, form, p):
    """The measured one-rank step standing for one rank's local work at P ranks. A sparse step's local
    work is the R × R work every rank repeats plus the rank's share of the s non-zeros (about flat in d,
    docs/performance.md): one rank at the whole d (all s non-zeros) bounds it from above."""
    d = -(-D0[form] // p) if MODE == "strong" and form == "dense" else D0[form]
    return steps.get((algo, form, d, 1))


def t_local_line(algo, form, ps):
    """t_local at every P of ps: strong, log-log interpolation between the one-rank runs at d/P."""
    known = sorted((p, s["local"]) for p in [1] + PROJECT if (s := local_step(algo, form, p)))
    if not known:
        return None
    lp, lt = np.log([k[0] for k in known]), np.log([k[1] for k in known])
    return np.exp(np.interp(np.log(ps), lp, lt))


rows, projected = [], []
for (algo, form), by_p in sorted(series.items()):
    counts = by_p[max(by_p)]  # calls and bytes per example: the same at every P > 1
    for p, s in sorted(by_p.items()):
        rows.append(dict(s, kind="measured"))
    for p in PROJECT:
        loc = local_step(algo, form, p)
        if loc is None:
            continue
        d = D0[form] if MODE == "strong" else D0[form] * p
        row = dict(kind="projected", algo=algo, form=form, d=d, P=p, d_p=-(-d // p), local=loc["local"],
                   floor=loc["floor"], bytes_block=loc["bytes_block"], calls=counts["calls"], bytes=counts["bytes"])
        row["comm"] = t_comm(counts, p, ALPHA, BETA)
        row["t"] = row["local"] + row["comm"]
        row["share"] = row["comm"] / row["t"]
        if fit:
            row["comm_here"] = t_comm(counts, p, *fit)
            row["t_here"] = row["local"] + row["comm_here"]
        projected.append(row)

res = results_dir(JOB)
fields = ["kind", "algo", "form", "d", "P", "d_p", "t", "mean", "local", "bytes_block", "floor", "ratio",
          "mpi", "share", "calls", "bytes", "comm", "t_here", "comm_here"]
for r in rows + projected:
    f = r.get("floor")
    r["ratio"] = r["t"] / f if r["form"] == "dense" and f and math.isfinite(f) else None
    if r["form"] != "dense":
        r["floor"] = None
write_csv(os.path.join(res, "scaling.csv"), fields, rows + projected)

# The plot: seconds per example against P, one panel per form.
forms = sorted({f for _, f in series})
fig, axes = figure(ncols=len(forms))
ps = 2.0 ** np.arange(0, math.log2(max(PROJECT + [2])) + 1)
for ax, form in zip(axes[0], forms):
    for i, ((algo, f), by_p) in enumerate(sorted(series.items())):
        if f != form:
            continue
        color = "C%d" % i
        p_meas = sorted(by_p)
        ax.plot(p_meas, [by_p[p]["t"] for p in p_meas], "o-", color=color, label=algo + " measured")
        local = t_local_line(algo, form, ps)
        if local is None:
            continue
        counts = by_p[max(by_p)]
        ax.plot(ps, local + [t_comm(counts, p, ALPHA, BETA) for p in ps], "--", color=color,
                label="projected, α=%.3g µs" % (ALPHA * 1e6))
        if fit:
            ax.plot(ps, local + [t_comm(counts, p, *fit) for p in ps], ":", color=color,
                    label="projected, this machine's α")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("ranks P")
    ax.set_ylabel("seconds per example")
    ax.set_title("%s, %s rows, %s" % (MODE, form, "d = %d" % D0[form] if MODE == "strong" else
                                          "d = %d × P" % D0[form]))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)
save_figure(fig, os.path.join(res, "scaling.png"))

# The Markdown.
reports = load("P*-d*-*.json")
ell = reports[0]["ell"] if reports else None
nnz = max((r["nnz"] for r in reports), default=0)
intro = (
    "`%sbash jobs/scaling.sbatch` (or `sbatch`): `adasketch-bench-learners` with ℓ = %s, %s. Dense rows "
    "(sketch form dense): two or more whole shrink periods of fast FD timed after 2ℓ + 2 warm-up steps, "
    "s/example the best round; sparse rows (%s non-zeros at random places, form sparse): 2000 steps after "
    "1000, the best of 5 rounds. %s. Machine: %s cores on one memory bus, so two ranks share the "
    "bandwidth of one and P = 2 cannot halve a memory-bound step; %s."
    % ("" if MODE == "strong" else "MODE=weak ", ell,
       "fixed d" if MODE == "strong" else "d = d per rank × P",
       nnz, "Strong scaling: one d, P ranks; and one rank at "
       "d/P for P in %s, dense rows (the local part of a step at P ranks)" % PROJECT if MODE == "strong" else
       "Weak scaling: d = %s per rank (dense), %s (sparse)" % (D0["dense"], D0["sparse"]), CORES,
       "judge the scaling by the communication share"))
table = markdown_table(
    ["learner", "form", "d", "P", "d_p", "s/example", "mean", "block per rank", "read GB/s", "floor", "ratio",
     "MPI share", "Allreduce calls, bytes / example"],
    [[r["algo"], r["form"], r["d"], r["P"], r["d_p"], us(r["t"]), us(r["mean"]), "%.3g MB" % (r["bytes_block"] / 1e6),
      "%.2f" % (r["bytes_block"] / r["floor"] / 1e9) if r["floor"] else None, us(r["floor"]),
      "%.2f" % r["ratio"] if r["ratio"] else None, pct(r["share"]), "%.2f, %.0f" % (r["calls"], r["bytes"])]
     for r in rows])
floor_text = (
    "Floor: the dense step must stream the rank's sketch block (R × d_p doubles, R = 2ℓ) at least once; "
    "'floor' is one streaming read of a buffer of that size, timed in the same run with all ranks reading "
    "('read GB/s' is the per-rank bandwidth it found), 'ratio' is s/example over it. A sparse step touches "
    "O(R·s) entries of the block, so it has no such floor (—). MPI share: time in MPI_Allreduce (PMPI "
    "wrapper, including the waits for the slower rank) over the step, mean over rounds.")
probe_sizes = sorted({b for pr in probes.values() for b in pr})
probe_table = markdown_table(
    ["message"] + ["P = %d%s" % (p, " (oversubscribed: %d ranks on %d cores)" % (p, CORES) if p > CORES else "")
                   for p in sorted(probes)],
    [["%d B" % b] + [us(probes[p].get(b)) for p in sorted(probes)] for b in probe_sizes])
messages = "; ".join("%s %s: %.2f calls, %.0f B per example (%.0f B per call)" % (
    a, f, by_p[max(by_p)]["calls"], by_p[max(by_p)]["bytes"], by_p[max(by_p)]["bytes"] / by_p[max(by_p)]["calls"])
    for (a, f), by_p in sorted(series.items()))
probe_text = (
    "Seconds per `MPI_Allreduce` (sum of doubles) alone (`--allreduce-probe`: best of 5 rounds of consecutive "
    "calls, slowest rank). The learners' messages: %s (a step's one Allreduce of 2ℓ + 2 doubles, and "
    "at a shrink the 2ℓ × 2ℓ Gram). %s" % (messages, (
        "Fitted to P = 2 (one tree level, shared memory): α = %.3g µs, β = %.3g GB/s." % (fit[0] * 1e6, fit[1] / 1e9))
        if fit else "No fit (no probe at P = 2).") + (
        " P > %d runs more ranks than cores: its times measure the scheduler more than the transport and "
        "enter no model." % CORES if max(probes, default=0) > CORES else ""))
model_text = (
    "Model: t(P) = t_local(d_p) + t_comm(P), t_comm(P) = ⌈log₂P⌉ · (c·α + b/β) (recursive doubling: one "
    "message of the whole vector per tree level), c and b the Allreduce calls and bytes per example. "
    "Measured here: c and b (largest measured P), and t_local(d_p) = s/example − MPI time of %s. A sparse "
    "step's local work is the R × R work that every rank repeats plus the rank's share of the s non-zeros, "
    "about flat in d: t_local is taken as one rank's at %s with all s non-zeros, an upper bound. "
    "Assumed, not measured here: α = %.3g µs per tree level and β = %.3g GB/s per link (InfiniBand HDR-class "
    "MPI latency and bandwidth), the same memory bandwidth per rank as one rank here (a cluster node that runs "
    "one rank per core gives each less), perfect load balance and no noise (at 1024 ranks the slowest rank "
    "sets every Allreduce). The dotted lines use the α and β fitted here instead (one tree level "
    "through shared memory, on this loaded machine)."
    % ("one rank at d_p = d/P (dense: its cache effects are measured too)" if MODE == "strong" else
       "one rank at d per rank", "d" if MODE == "strong" else "d per rank", ALPHA * 1e6, BETA / 1e9))
proj_table = markdown_table(
    ["learner", "form", "P", "d", "d_p", "t_local (measured)", "floor", "t_comm (assumed)", "t(P)", "comm share",
     "t(P), this machine's α, β", "comm share"],
    [[r["algo"], r["form"], r["P"], r["d"], r["d_p"], us(r["local"]), us(r["floor"]) if r["form"] == "dense" else None,
      us(r["comm"]), us(r["t"]), pct(r["share"]), us(r.get("t_here")),
      pct(r["comm_here"] / r["t_here"]) if r.get("t_here") else None] for r in projected])

# Comparison: sentences computed from the numbers above.
notes = []
for (algo, form), by_p in sorted(series.items()):
    if 1 in by_p and len(by_p) > 1:
        p = max(by_p)
        gain = by_p[1]["t"] / by_p[p]["t"]
        what = ("speed-up %.2f (ideal %d)" % (gain, p) if MODE == "strong" else
                "t(1)/t(%d) = %.2f (ideal 1)" % (p, gain))
        model = t_comm(by_p[p], p, *fit) if fit else None
        notes.append("%s %s: P = 1 → %d %s, MPI share %s at P = %d (%s in MPI per example; the probe's α, β "
                     "give %s)" % (algo, form, p, what, pct(by_p[p]["share"]), p, us(by_p[p]["mpi"]), us(model)))
dense_ratios = [r["ratio"] for r in rows if r["ratio"]]
if dense_ratios:
    notes.append("dense steps cost %.2f–%.2f floors" % (min(dense_ratios), max(dense_ratios)))
for p in PROJECT:
    sh = [r["share"] for r in projected if r["P"] == p]
    if sh:
        notes.append("projected communication share at P = %d: %s–%s" % (p, pct(min(sh)), pct(max(sh))))
comparison = ("Comparison (computed from the runs above): " + "; ".join(notes) + ". The MPI time measured at "
              "P > 1 includes waiting for the slower rank (both ranks compete for one memory bus and the "
              "machine is shared), so it exceeds the probe's pure latency; the projections rest on the "
              "assumptions above and on the measured one-rank local times, not on any run at P > %d."
              % max((max(b) for b in series.values()), default=1))
write_markdown(os.path.join(res, "scaling.md"),
               "Scaling: %s" % ("strong (fixed d)" if MODE == "strong" else "weak (d = d per rank × P)"),
               intro, table, floor_text, "## Allreduce alone\n", probe_table, probe_text,
               "## Projection to P = %s\n" % ", ".join(map(str, PROJECT)), model_text, proj_table, comparison,
               run_note.paragraph(ARGS))
print("wrote", res)
