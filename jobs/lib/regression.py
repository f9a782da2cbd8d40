"""The outputs of jobs/regression.sbatch (ADA-FD paper Fig. 1, ADA-GP/DP paper Fig. 1):

    /usr/bin/python3 jobs/lib/regression.py RUNS_DIR

regression.csv (every run), regression_curves.csv (the chosen runs' regret after every 100
examples), regression.png and regression.md in jobs/results/regression/.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import outputs  # noqa: E402
import runs  # noqa: E402

CMD = [("ADA-FULL", "ada-full"), ("ADA-DIAG", "ada-diag"), ("ADA-FD", "ada-fd"), ("ADA-GP", "ada-gp"),
       ("ADA-DP", "ada-dp"), ("RP-SON", "rp-son"), ("FD-SON", "fd-son")]
PDS = [(label, algo + "-da") for label, algo in CMD if not algo.endswith("-son")]
TAU_ALGOS = [("ADA-FD", "ada-fd"), ("ADA-GP", "ada-gp"), ("ADA-DP", "ada-dp"), ("RP-SON", "rp-son")]
ETA_DELTA, ETA_ALPHA = [("eta", "η"), ("delta", "δ")], [("eta", "η"), ("alpha0", "α")]
# docs/experiments.md §1: the final regret at the points the papers' full 7 × 7 grids (9 × 9 for SON) chose.
FULL_GRID = {"ada-full": 241.16, "ada-diag": 952.86, "ada-fd": 443.42, "ada-gp": 479.50, "ada-dp": 473.96,
             "rp-son": 506.49, "fd-son": 533.80, "ada-full-da": 412.24, "ada-diag-da": 1069.55,
             "ada-fd-da": 547.77, "ada-gp-da": 762.02, "ada-dp-da": 777.88}


def keys(algo):
    return ETA_ALPHA if algo.endswith("-son") else ETA_DELTA


def main(out):
    res = outputs.results_dir("regression")
    tau_dirs = sorted((int(e[3:]), e) for e in os.listdir(out) if e.startswith("tau")) if os.path.isdir(out) else []
    grids = [(algo, 10, algo) for _, algo in CMD + PDS] + \
            [(algo, tau, os.path.join(d, algo)) for tau, d in tau_dirs for _, algo in TAU_ALGOS]
    rows, curves, best, edges = [], [], {}, []
    for algo, tau, sub in grids:
        found = runs.points(os.path.join(out, sub))
        name, report = runs.grid.choose(found)
        best[(algo, tau)] = report
        if report is not None and runs.on_edge(found, report, [k for k, _ in keys(algo)]):
            edges.append("%s τ = %d (%s)" % (algo, tau, runs.params(report, keys(algo))))
        for point, r in sorted(found.items()):
            o = r["options"]
            rows.append({"algorithm": algo, "tau": tau if "full" not in algo and "diag" not in algo else None,
                         "eta": o["eta"], "delta": None if algo.endswith("-son") else o["delta"],
                         "alpha0": o["alpha0"] if algo.endswith("-son") else None,
                         "final_regret": r["cumulative_loss"], "seconds": r["seconds"], "chosen": int(point == name)})
        if report is not None and tau == 10:
            curves += [{"algorithm": algo, "examples": e["examples"], "regret": e["cumulative_loss"]}
                       for e in report.get("trace") or []]
    outputs.write_csv(os.path.join(res, "regression.csv"),
                      ["algorithm", "tau", "eta", "delta", "alpha0", "final_regret", "seconds", "chosen"], rows)
    outputs.write_csv(os.path.join(res, "regression_curves.csv"), ["algorithm", "examples", "regret"], curves)
    plot(os.path.join(res, "regression.png"), best, curves, [t for t, _ in tau_dirs])
    write_markdown(os.path.join(res, "regression.md"), best, [t for t, _ in tau_dirs], edges)


def plot(path, best, curves, taus):
    fig, ax = outputs.figure(ncols=2, nrows=2, width=5.6, height=4.0)
    for panel, names, title in ((ax[0][0], CMD, "composite mirror descent (CMD)"),
                                (ax[0][1], PDS, "primal-dual subgradient (PDS)")):
        for label, algo in names:
            xs = [c["examples"] for c in curves if c["algorithm"] == algo]
            if xs:
                panel.plot(xs, [c["regret"] for c in curves if c["algorithm"] == algo], label=label)
        panel.set(xlabel="number of examples t", ylabel="regret (cumulative absolute loss)", title=title)
        panel.legend(fontsize=8)
    timed = [(label, best[(algo, 10)]["seconds"]) for label, algo in CMD if best.get((algo, 10))]
    ax[1][0].bar([t[0] for t in timed], [t[1] for t in timed], color="tab:gray")
    ax[1][0].set(yscale="log", ylabel="running time of one pass (s)", title="running time, CMD (τ = 10)")
    ax[1][0].tick_params(axis="x", labelsize=8)
    all_taus = sorted(set(taus) | {10})
    for label, algo in TAU_ALGOS:
        pts = [(t, best[(algo, t)]["cumulative_loss"]) for t in all_taus if best.get((algo, t))]
        ax[1][1].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    for label, algo, style in (("ADA-FULL", "ada-full", "k--"), ("ADA-DIAG", "ada-diag", "k:")):
        if best.get((algo, 10)):
            ax[1][1].axhline(best[(algo, 10)]["cumulative_loss"], linestyle=style[1:], color="k", label=label)
    ax[1][1].set(xlabel="τ (sketch size ℓ for ADA-FD)", ylabel="final regret after T = 10,000", yscale="log",
                 title="final regret against τ, CMD")
    ax[1][1].legend(fontsize=8)
    outputs.save_figure(fig, path)


def regret(report):
    return None if report is None else "%.2f" % report["cumulative_loss"]


def write_markdown(path, best, taus, edges):
    table = []
    for label, algo in CMD:
        cells = [label]
        for a in (algo, algo + "-da"):
            if a.endswith("-son-da"):
                cells += ["—", "", "—"]
                continue
            r = best.get((a, 10))
            cells += [regret(r), runs.params(r, keys(a)) if r else "not run", "%.2f" % FULL_GRID[a]]
        cells.append(None if best.get((algo, 10)) is None else "%.3g" % best[(algo, 10)]["seconds"])
        table.append(cells)
    main_table = outputs.markdown_table(
        ["algorithm", "CMD: final regret", "chosen", "CMD, full grid", "PDS: final regret", "chosen",
         "PDS, full grid", "CMD time (s)"], table)
    all_taus = sorted(set(taus) | {10})
    tau_rows = [[label] + [regret(best.get((algo, t))) for t in all_taus] for label, algo in TAU_ALGOS]
    tau_rows += [[label, *([regret(best.get((algo, 10)))] * len(all_taus))]
                 for label, algo in (("ADA-FULL (no τ)", "ada-full"), ("ADA-DIAG (no τ)", "ada-diag"))]
    tau_table = outputs.markdown_table(["CMD, final regret"] + ["τ = %d" % t for t in all_taus], tau_rows)
    outputs.write_markdown(
        path, "Synthetic regression: ADA-FD paper Fig. 1, ADA-GP/DP paper Fig. 1",
        "Final regret Σ_t |β_tᵀx_t − y_t| after T = 10,000 examples (β* has zero loss, so the regret is the "
        "cumulative loss), each learner at the point of its grid with the lowest final regret, τ = ℓ = 10; "
        "\"full grid\": the same learner at the point the papers' full grids chose (docs/experiments.md §1, "
        "an earlier build). The papers give no numbers (figures only), so no paper column.",
        main_table,
        "Final regret against τ (ADA-GP/DP paper Fig. 1c; the sketch size ℓ for ADA-FD), composite mirror "
        "descent, each τ at the best of its own 9 points:",
        tau_table,
        "![regret curves, running time, regret against τ](regression.png)",
        "**Grid (shrunk to fit 30 minutes).** The papers search η, δ ∈ {1e-4, …, 100} (49 points); here "
        "each learner runs the 3 × 3 points η × {0.1, 1, 10}, δ (SON: α) × {0.1, 1, 10} around the point "
        "the full grids of docs/experiments.md §1 chose, and ADA-FULL only its chosen point (η 0.01, δ 0.01; "
        "each run eigendecomposes the 500 × 500 G_t at every example). RP-SON and FD-SON: σ = 0, "
        "η_t = η/√t, no projection (C = 1e300). Data: `synthetic:low-rank-regression:d=500,n=10000,"
        "lambda0=100,decay=2,mean=1,seed=1`, one permutation (the papers average 5; RADAGRAD is not "
        "implemented). " + runs.job_note(),
        "**Comparison.** " + comparison(best, all_taus, edges))


def comparison(best, taus, edges):
    got = {a: r["cumulative_loss"] for (a, t), r in best.items() if r is not None and t == 10}
    text = []
    for form, suffix in (("mirror descent (CMD)", ""), ("dual averaging (PDS)", "-da")):
        full, fd, diag = (got.get(a + suffix) for a in ("ada-full", "ada-fd", "ada-diag"))
        if None in (full, fd, diag):
            continue
        text.append("In %s ADA-FD's final regret is %.0f against ADA-DIAG's %.0f and ADA-FULL's %.0f: %s." % (
            form, fd, diag, full, "the papers' ordering ADA-FULL < ADA-FD < ADA-DIAG, ADA-FD closing %.0f%% of "
            "the gap between the diagonal and the full matrix" % (100 * (diag - fd) / (diag - full))
            if full < fd < diag else "not the papers' ordering ADA-FULL < ADA-FD < ADA-DIAG"))
    order = sorted((got[a], label) for label, a in CMD if a in got)
    text.append("CMD from lowest to highest regret: %s (the ADA-FD paper: ADA-FD below ADA-DIAG and FD-SON; the "
                "ADA-GP/DP paper: ADA-GP and ADA-DP below ADA-DIAG and RP-SON)." %
                ", ".join("%s %.0f" % (l, v) for v, l in order))
    far = [a for a in got if abs(got[a] - FULL_GRID[a]) > 0.01 * FULL_GRID[a]]
    text.append("Every learner's regret is within 1% of its full-grid value (the shrunk grids hold those points)."
                if not far else "Differences from the full-grid values above 1%%: %s." %
                ", ".join("%s %.0f against %.0f" % (a, got[a], FULL_GRID[a]) for a in sorted(far)))
    at = {(a, t): best[(a, t)]["cumulative_loss"] for _, a in TAU_ALGOS for t in taus if best.get((a, t))}
    text.append("Against τ: %s; ADA-FULL %.0f, ADA-DIAG %.0f." % ("; ".join(
        "%s %s" % (label, " → ".join("%.0f" % at[(a, t)] for t in taus if (a, t) in at)) for label, a in TAU_ALGOS),
        got.get("ada-full", float("nan")), got.get("ada-diag", float("nan"))))
    behind = [t for t in taus if all((a, t) in at for a in ("ada-gp", "ada-dp", "rp-son"))
              and at[("rp-son", t)] < min(at[("ada-gp", t)], at[("ada-dp", t)])]
    if behind:
        text.append("Unlike the ADA-GP/DP paper's Fig. 1c, RP-SON is below both ADA-GP and ADA-DP at τ = %s."
                    % ", ".join(map(str, behind)))
    if all(at.get(("ada-fd", t), 1e300) < min(at.get((a, t), 0) for a in ("ada-gp", "ada-dp", "rp-son")) for t in taus):
        text.append("ADA-FD (ℓ = τ) is below ADA-GP, ADA-DP and RP-SON at every τ, and %.0f%% above ADA-FULL at "
                    "τ = %d." % (100 * (at[("ada-fd", taus[-1])] / got["ada-full"] - 1), taus[-1]))
    if edges:
        text.append("Chosen on an edge of its shrunk grid (the optimum may lie beyond): %s." % ", ".join(edges))
    return " ".join(text)


if __name__ == "__main__":
    main(sys.argv[1])
