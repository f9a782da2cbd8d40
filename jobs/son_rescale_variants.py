#!/usr/bin/env python3
"""SON §5.2's diagonal rescaling at m = 0 (A = αI), in plain Python, in the variants that separate this
library's Oja-SON from the paper's Vowpal Wabbit runs (vowpalwabbit/OjaNewton.cc, `--normalize`, on
by default), on the data of jobs/son_table3.sbatch (a9a + a9a.t, w8a, mushrooms; constant feature 1;
squared loss (p − y)², ℓ' = 2(p − y)):

  after    D updated after the step (the step on D_t^{-1/2}x): adasketch before commit 48bdcfe
  before   D updated between the prediction and the step (the step on D_{t+1}^{-1/2}x): OjaNewton's
           order, adasketch from 48bdcfe
  vw       as `before`, and as OjaNewton: no projection (C = ∞), the derivative at the prediction
           clipped to the labels' range [−1, 1] (VW's squared loss clips to [min_label, max_label])
  none     no rescaling (for reference; with the clip, as VW with --normalize false)

`after` and `before` are the library's runs (its error rates to the digit, e.g. a9a 0.168973 and
0.163445 at α = 2^-1); `vw` and `none` are what the library does not do. One pass in file order, the
final progressive error at each α = 2^j; about 10 s per run.

    python3 jobs/son_rescale_variants.py [a9a|w8a|mushrooms ...]
"""
import gzip
import math
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(name):
    data = os.path.join(HERE, "tests", "data")
    files = {"a9a": ["a9a.gz", "a9a.t.gz"], "w8a": ["w8a.gz"], "mushrooms": ["mushrooms.gz"]}[name]
    rows = []
    for f in files:
        with gzip.open(os.path.join(data, f), "rt") as lines:
            for line in lines:
                t = line.split()
                if not t:
                    continue
                y = float(t[0])
                if name == "mushrooms":
                    y = -1.0 if y == 1 else 1.0
                x = {int(k): float(v) for k, v in (kv.split(":") for kv in t[1:])}
                x[0] = 1.0  # --bias 1
                rows.append((y, x))
    return rows


def run(rows, alpha, variant, d1=0.1):
    rescale = variant != "none"
    proj = variant in ("after", "before")
    clip = variant in ("vw", "none")
    u, D, mistakes = {}, {}, 0
    for y, x in rows:
        xt = {j: (v / math.sqrt(D.get(j, d1)) if rescale else v) for j, v in x.items()}
        z = sum(u.get(j, 0.0) * v for j, v in xt.items())
        tau = 0.0
        if proj:  # SON Lemma 1 with A = αI, C = 1
            tau = z - 1 if z > 1 else (z + 1 if z < -1 else 0.0)
            if tau != 0.0:
                g = tau / sum(v * v for v in xt.values())
                for j, v in xt.items():
                    u[j] = u.get(j, 0.0) - g * v
        p = z - tau
        mistakes += p == 0 or (p > 0) != (y > 0)
        if clip:
            p = max(-1.0, min(1.0, p))
        dl = 2.0 * (p - y)
        if rescale and variant != "after":
            for j, v in x.items():
                D[j] = D.get(j, d1) + (dl * v) ** 2
            xt = {j: v / math.sqrt(D[j]) for j, v in x.items()}
        for j, v in xt.items():
            u[j] = u.get(j, 0.0) - dl * v / alpha
        if rescale and variant == "after":
            for j, v in x.items():
                D[j] = D.get(j, d1) + (dl * v) ** 2
    return mistakes / len(rows)


def main():
    for name in sys.argv[1:] or ["a9a", "w8a", "mushrooms"]:
        rows = load(name)
        for variant in ["after", "before", "vw", "none"]:
            js = range(-6, 5) if variant != "none" else range(0, 13)
            errors = [(run(rows, 2.0 ** j, variant), j) for j in js]
            e, j = min(errors)
            print("%s %-6s best %.6f (α 2^%d)  " % (name, variant, e, j) +
                  " ".join("2^%d:%.5f" % (j, e) for e, j in errors), flush=True)


if __name__ == "__main__":
    main()
