#!/usr/bin/env python3
"""Grid for issue 25 item 1: which scale-relative defaults learn well without tuning.

Emulates, with absolute hyperparameters (--scale none), the rule that makes η, δ and α
relative to the scale of the FIRST training example with a nonzero norm, as the learner sees it
(with the constant bias feature 1 appended): n2 = ||x||², k = its number of nonzeros (bias
included), r = sqrt(n2 / k).
  AdaGrad family (ada-diag, ada-fd, fast-ada-fd, ada-gp, ada-dp, comp-adagrad):
      --eta η₀/r  --delta δ₀·r
  SON family (fd-son, fast-fd-son, rp-son, oja-son, rfd-son, fast-rfd-son):
      --alpha0 α₀·n2, --eta η (SON's η_t scale, not rescaled)
Every run: one pass in file order, one rank, --bias 1, logistic loss (softmax on usps10).
Also runs today's absolute defaults (η=0.1, δ=1, α=1, η_SON=0.1, with --bias 1) for comparison.

Data sets (TMP=/tmp/defaults_grid_data):
  a9a        tests/data/a9a.gz / a9a.t.gz, --dim 123
  w8a        tests/data/w8a.gz, every fifth line (i % 5 == 4) tests, the rest trains, --dim 300
  mushrooms  the same split, --dim 112
  usps10     usps_esl.gz / usps_esl.t.gz, --loss softmax (10 classes)
  uspsbin    USPS binary: file labels 1..5 -> -1, 6..10 -> +1 (written to TMP)
  text       /tmp/text_hashed/{train,test}.svm.gz, --dim 16777216
  dense      synthetic:ill-conditioned:d=200,n=20000,seed=1 (kappa=100, ill=10);
             test: the same spec with n=5000,skip=20000 (the next draws of the same model)
  sparse     synthetic:sparse-classification:d=1048576,n=20000,nnz=100,zipf=1.1,seed=1 (noise=0);
             test: n=5000,skip=20000
comp-adagrad is left out on text and sparse (its SRHT is dense in d: ~0.1 s per example at d=2^20).
ada-diag is run at ℓ=10 only (it has no sketch).

Grid: AdaGrad η₀ ∈ {0.03,0.1,0.3,1,3}, δ₀=1 (δ₀=0.1 too for ada-diag, ada-fd on a9a and text);
SON α₀ ∈ {0.1,1,10,100} × η ∈ {0.1,1}. ℓ=10 everywhere, ℓ=20 on a9a and text.

Run:   OPENBLAS_NUM_THREADS=1 /usr/bin/python3 jobs/defaults_grid.py run [--jobs 2] [--ell20]
       ... run --ell20 --eta0 0.01   (the extension below the grid: many best η₀ sat at its edge 0.03)
       /usr/bin/python3 jobs/defaults_grid.py analyze          (worst gap per candidate default)
       /usr/bin/python3 jobs/defaults_grid.py table 0.3 1 0.1  (per cell at η₀, α₀, η_SON; r vs R)
Binary: $ADASKETCH_BIN (default build/drivers/adasketch; the CSV was measured with commit 946839a's). Results are appended to
jobs/results/defaults_grid/defaults_grid.csv (finished rows are skipped on a rerun).
A run the CLI's divergence check stops (default --divergence 100) is recorded with status
'diverged' and no accuracy; the analysis counts its accuracy as 0.
"""
import csv
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import benchmark_sets  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DATA = os.path.join(REPO, "tests", "data")
TMP = "/tmp/defaults_grid_data"
OUT = os.path.join(HERE, "results", "defaults_grid")
CSV = os.path.join(OUT, "defaults_grid.csv")
BIN = os.environ.get("ADASKETCH_BIN", os.path.join(REPO, "build", "drivers", "adasketch"))

ADA = ["ada-diag", "ada-fd", "fast-ada-fd", "ada-gp", "ada-dp", "comp-adagrad"]
SON = ["fd-son", "fast-fd-son", "rp-son", "oja-son", "rfd-son", "fast-rfd-son"]
ETA0 = [0.03, 0.1, 0.3, 1, 3]
ALPHA0 = [0.1, 1, 10, 100]
ETA_SON = [0.1, 1]
FIELDS = ["data", "learner", "family", "kind", "ell", "eta0", "delta0", "alpha0", "eta",
          "abs_eta", "abs_delta", "abs_alpha0", "test_accuracy", "mistake_rate", "seconds", "status"]

DENSE = "synthetic:ill-conditioned:d=200,n=20000,seed=1"
DENSE_T = "synthetic:ill-conditioned:d=200,n=5000,seed=1,skip=20000"
SPARSE = "synthetic:sparse-classification:d=1048576,n=20000,nnz=100,zipf=1.1,seed=1"
SPARSE_T = "synthetic:sparse-classification:d=1048576,n=5000,nnz=100,zipf=1.1,seed=1,skip=20000"


def split_every_fifth(name):
    return benchmark_sets.split_every_fifth(DATA, TMP, name)


def usps_binary():
    """USPS binary task: file labels 1..5 -> -1, 6..10 -> +1."""
    return benchmark_sets.usps_binary(DATA, TMP)


def synth_file(spec, name):
    """The spec's examples as a LIBSVM file (for the scale statistics and the majority rate)."""
    path = os.path.join(TMP, name)
    if not os.path.exists(path):
        subprocess.run([BIN, "generate", "--data", spec, "--format", "libsvm", "--out", path, "--quiet"], check=True)
    return path


def data_sets():
    """name -> (train, test, options, file for the statistics' first row, test file for labels)."""
    os.makedirs(TMP, exist_ok=True)
    w8a, mush, ub = split_every_fifth("w8a"), split_every_fifth("mushrooms"), usps_binary()
    dhead = synth_file(DENSE.replace("n=20000", "n=5"), "dense_head.svm")
    shead = synth_file(SPARSE.replace("n=20000", "n=5"), "sparse_head.svm")
    dtest = synth_file(DENSE_T, "dense_test.svm")
    stest = synth_file(SPARSE_T, "sparse_test.svm")
    a9a = (os.path.join(DATA, "a9a.gz"), os.path.join(DATA, "a9a.t.gz"))
    usps = (os.path.join(DATA, "usps_esl.gz"), os.path.join(DATA, "usps_esl.t.gz"))
    text = ("/tmp/text_hashed/train.svm.gz", "/tmp/text_hashed/test.svm.gz")
    return {
        "a9a": (*a9a, ["--dim", "123"], a9a[0], a9a[1]),
        "w8a": (*w8a, ["--dim", "300"], w8a[0], w8a[1]),
        "mushrooms": (*mush, ["--dim", "112"], mush[0], mush[1]),
        "usps10": (*usps, ["--loss", "softmax"], usps[0], usps[1]),
        "uspsbin": (*ub, [], ub[0], ub[1]),
        "text": (*text, ["--dim", "16777216"], text[0], text[1]),
        "dense": (DENSE, DENSE_T, [], dhead, dtest),
        "sparse": (SPARSE, SPARSE_T, [], shead, stest),
    }


def opener(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def scale_stats(path, dim=None):
    """n2, k, r of the first example with a nonzero norm, with the bias feature 1 appended."""
    with opener(path) as f:
        for line in f:
            parts = line.split()
            vals = {}
            for tok in parts[1:]:
                if tok.startswith("#"):
                    break
                i, v = tok.split(":")
                if dim is not None and int(i) > dim:
                    continue
                vals[int(i)] = vals.get(int(i), 0.0) + float(v)
            nz = [v for v in vals.values() if v != 0.0]
            n2 = sum(v * v for v in nz)
            if n2 > 0:
                n2 += 1.0
                k = len(nz) + 1
                return n2, k, math.sqrt(n2 / k)
    raise ValueError("no nonzero row in " + path)


def majority(path):
    counts = {}
    with opener(path) as f:
        for line in f:
            if line.strip():
                lab = float(line.split(None, 1)[0])
                counts[lab] = counts.get(lab, 0) + 1
    return max(counts.values()) / sum(counts.values())


def configs(name, stats, ell20):
    n2, k, r = stats
    ells = [10, 20] if ell20 and name in ("a9a", "text") else [10]
    out = []
    for ell in ells:
        for algo in ADA:
            if algo == "ada-diag" and ell != 10:
                continue
            if algo == "comp-adagrad" and name in ("text", "sparse"):
                continue
            d0s = [1.0, 0.1] if (algo in ("ada-diag", "ada-fd") and name in ("a9a", "text") and ell == 10) else [1.0]
            for d0 in d0s:
                for e0 in ETA0:
                    out.append(dict(data=name, learner=algo, family="ada", kind="grid", ell=ell, eta0=e0,
                                    delta0=d0, alpha0="", eta="", abs_eta=e0 / r, abs_delta=d0 * r, abs_alpha0=""))
            if ell == 10:
                out.append(dict(data=name, learner=algo, family="ada", kind="abs_default", ell=ell, eta0="",
                                delta0="", alpha0="", eta="", abs_eta=0.1, abs_delta=1.0, abs_alpha0=""))
        for algo in SON:
            for a0 in ALPHA0:
                for eta in ETA_SON:
                    out.append(dict(data=name, learner=algo, family="son", kind="grid", ell=ell, eta0="",
                                    delta0="", alpha0=a0, eta=eta, abs_eta=eta, abs_delta="", abs_alpha0=a0 * n2))
            if ell == 10:
                out.append(dict(data=name, learner=algo, family="son", kind="abs_default", ell=ell, eta0="",
                                delta0="", alpha0="", eta="", abs_eta=0.1, abs_delta="", abs_alpha0=1.0))
    return out


def key(c):
    return tuple(str(c[f]) for f in ("data", "learner", "kind", "ell", "eta0", "delta0", "alpha0", "eta"))


def run_one(args):
    c, train, test, opts = args
    cmd = ["nice", BIN, "train", "--algo", c["learner"], "--data", train, "--test", test, "--bias", "1", "--scale", "none",
           "--ell", str(c["ell"]), "--eta", repr(float(c["abs_eta"])), "--quiet"] + opts
    if c["family"] == "ada":
        cmd += ["--delta", repr(float(c["abs_delta"]))]
    else:
        cmd += ["--alpha0", repr(float(c["abs_alpha0"]))]
    fd, rep = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    t0 = time.time()
    p = subprocess.run(cmd + ["--report", rep], capture_output=True, text=True,
                       env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    row = dict(c)
    if p.returncode == 0:
        r = json.load(open(rep))
        row.update(test_accuracy=r["test_accuracy"], mistake_rate=r["mistake_rate"], seconds=r["wall_seconds"],
                   status="ok")
    else:
        msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
        row.update(test_accuracy="", mistake_rate="", seconds=time.time() - t0,
                   status="diverged" if "diverged" in msg else "error: " + msg[:200])
    os.unlink(rep)
    return row


def cmd_run(argv):
    jobs = 2
    if "--jobs" in argv:
        jobs = int(argv[argv.index("--jobs") + 1])
    only = None
    if "--data" in argv:
        only = argv[argv.index("--data") + 1].split(",")
    ell20 = "--ell20" in argv
    global ETA0
    if "--eta0" in argv:  # an extension of the AdaGrad grid (e.g. 0.01, below the brief's range)
        ETA0 = [float(x) for x in argv[argv.index("--eta0") + 1].split(",")]
    os.makedirs(OUT, exist_ok=True)
    sets = data_sets()
    done = set()
    if os.path.exists(CSV):
        with open(CSV) as f:
            done = {key(r) for r in csv.DictReader(f)}
    stats_rows = []
    work = []
    for name, (train, test, opts, head, tfile) in sets.items():
        dim = int(opts[opts.index("--dim") + 1]) if "--dim" in opts else None
        st = scale_stats(head, dim)
        stats_rows.append(dict(data=name, n2=st[0], k=st[1], r=st[2], R=math.sqrt(st[0]), majority=majority(tfile)))
        if only and name not in only:
            continue
        for c in configs(name, st, ell20):
            if key(c) not in done:
                work.append((c, train, test, opts))
    with open(os.path.join(OUT, "scale_stats.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(stats_rows[0]))
        w.writeheader()
        w.writerows(stats_rows)
    print("runs:", len(work), flush=True)
    new = not os.path.exists(CSV)
    with open(CSV, "a", newline="") as f, Pool(jobs) as pool:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for i, row in enumerate(pool.imap_unordered(run_one, work)):
            w.writerow(row)
            f.flush()
            if i % 20 == 0:
                print(i, row["data"], row["learner"], row["status"], row["test_accuracy"], flush=True)


def load(argv):
    """The rows; --no-0.01 drops the grid's extension η₀ = 0.01 (the brief's grid alone)."""
    rows = list(csv.DictReader(open(CSV)))
    if "--no-0.01" in argv:
        rows = [r for r in rows if r["eta0"] not in ("0.01",)]
    return rows


def cmd_analyze(argv):
    rows = load(argv)
    stats = {r["data"]: r for r in csv.DictReader(open(os.path.join(OUT, "scale_stats.csv")))}
    acc = lambda r: float(r["test_accuracy"]) if r["status"] == "ok" else 0.0
    for fam, pkeys in (("ada", ("eta0", "delta0")), ("son", ("alpha0", "eta"))):
        grid = [r for r in rows if r["family"] == fam and r["kind"] == "grid"]
        cells = {}
        for r in grid:
            cells.setdefault((r["learner"], r["data"], r["ell"]), []).append(r)
        points = sorted({tuple(r[k] for k in pkeys) for r in grid}, key=lambda p: tuple(float(x) for x in p))
        print("== family", fam, "cells", len(cells))
        res = []
        for p in points:
            gaps = []
            for c, rs in cells.items():
                best = max(acc(r) for r in rs)
                at = [r for r in rs if tuple(r[k] for k in pkeys) == p]
                if not at:
                    continue
                gaps.append((best - acc(at[0]), c))
            tol = lambda c: 2.0 if c[1] == "text" else 1.0
            over = [(round(100 * g, 2), c) for g, c in gaps if 100 * g > tol(c)]
            full = len(gaps) == len(cells)
            res.append((max(g for g, _ in gaps), p, full, over, sum(g for g, _ in gaps) / len(gaps)))
        for worst, p, full, over, mean in sorted(res, key=lambda t: (not t[2], t[0])):
            print("  %s=%s worst gap %.2f mean %.2f%s; over tol: %s" % (pkeys, p, 100 * worst, 100 * mean,
                  "" if full else " (not every cell)", sorted(over, reverse=True)))
    print("== scale stats")
    for n, s in stats.items():
        print("  ", n, {k: s[k] for k in ("n2", "k", "r", "R", "majority")})




def cmd_table(argv):
    """Per learner and data set: best of grid, accuracy at the chosen defaults and at today's
    absolute defaults, the majority rate; then where the best η₀ falls under r and under R.
    argv: ETA0 ALPHA0 ETA_SON (the chosen defaults; δ₀ = 1)."""
    e0, a0, es = argv[0], argv[1], argv[2]
    rows = load(argv)
    stats = {r["data"]: r for r in csv.DictReader(open(os.path.join(OUT, "scale_stats.csv")))}
    acc = lambda r: float(r["test_accuracy"]) if r["status"] == "ok" else 0.0
    cells = {}
    for r in rows:
        cells.setdefault((r["family"], r["learner"], r["data"], r["ell"]), []).append(r)
    print("family learner data ell | best% (point) | at-default% | abs-default% | majority% | flag")
    best_eta = {}
    for (fam, learner, data, ell), rs in sorted(cells.items()):
        grid = [r for r in rs if r["kind"] == "grid"]
        b = max(grid, key=acc)
        if fam == "ada":
            pt = "eta0=%s,delta0=%s" % (b["eta0"], b["delta0"])
            at = [r for r in grid if float(r["eta0"]) == float(e0) and float(r["delta0"]) == 1.0]
            g1 = [r for r in grid if float(r["delta0"]) == 1.0]
            top = max(acc(r) for r in g1)
            tied = [float(r["eta0"]) for r in g1 if acc(r) >= top - 0.001]
            best_eta[(learner, data, ell)] = math.exp(sum(map(math.log, tied)) / len(tied))
        else:
            pt = "alpha0=%s,eta=%s" % (b["alpha0"], b["eta"])
            at = [r for r in grid if float(r["alpha0"]) == float(a0) and float(r["eta"]) == float(es)]
        ab = [r for r in rs if r["kind"] == "abs_default"]
        maj = float(stats[data]["majority"])
        a_at = acc(at[0]) if at else float("nan")
        flag = "BELOW MAJORITY" if a_at < maj else ""
        print("%s %s %s %s | %.2f (%s) | %.2f | %s | %.2f | %s" % (
            fam, learner, data, ell, 100 * acc(b), pt, 100 * a_at,
            "%.2f" % (100 * acc(ab[0])) if ab else "-", 100 * maj, flag))
    print("\nbest eta0 (geometric mean of the ties within 0.1 pt, delta0=1) under r, and the same point as eta0' = eta0*R/r under R")
    by_learner = {}
    for (learner, data, ell), e in sorted(best_eta.items()):
        s = stats[data]
        eR = e * float(s["R"]) / float(s["r"])
        by_learner.setdefault(learner, []).append((data, ell, e, eR))
    for learner, xs in by_learner.items():
        lr = [math.log10(x[2]) for x in xs]
        lR = [math.log10(x[3]) for x in xs]
        sd = lambda v: math.sqrt(sum((a - sum(v) / len(v)) ** 2 for a in v) / len(v))
        print("  %-13s sd log10 best: r-rule %.2f  R-rule %.2f   %s" % (learner, sd(lr), sd(lR),
              " ".join("%s/%s:%.3g|%.3g" % (d, l, e, eR) for d, l, e, eR in xs)))


if __name__ == "__main__":
    {"run": cmd_run, "analyze": cmd_analyze, "table": cmd_table}[sys.argv[1]](sys.argv[2:])
