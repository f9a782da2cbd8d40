#!/usr/bin/env python3
"""SON's diagonal rescaling (SON §5.2) in numpy, written from the paper and from Vowpal Wabbit's
OjaNewton (the paper's implementation, vowpalwabbit/OjaNewton.cc, `--normalize`, on by default):

  D_1 = d1·I; at round t the projection (SON Lemma 1, K_t = {w : |wᵀx̃| ≤ C}) and the prediction use
  x̃ = D_t^{-1/2}x; then D_{t+1} = D_t + diag(g gᵀ), g = ℓ'(p)·x in the original coordinates
  (OjaNewton's update_normalization, before its sketch and weight updates), and the step uses
  x̄ = D_{t+1}^{-1/2}x: A_t = A_{t−1} + σ ḡḡᵀ, ḡ = ℓ'(p)x̄, u_{t+1} = w_t − A_t⁻¹ḡ. The weights on
  original features are D^{-1/2}u.

A is αI (m = 0: oja-son --ell 0) or αI + Σ σḡḡᵀ kept as a dense matrix and solved at every step
(full-on). Squared loss ℓ = (p − y)², ℓ' = 2(p − y).

  son_rescale_reference.py DATA.svm DIM ALPHA SIGMA C D1 {plain|full} [after]   (one weight per line)

With `after`, D is updated after the step (the step on D_t^{-1/2}x, as adasketch did before): to show
that the test tells the two orders apart.
"""
import sys

import numpy as np


def read(path, dim):
    xs, ys = [], []
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            x = np.zeros(dim)
            for kv in t[1:]:
                k, v = kv.split(":")
                x[int(k) - 1] = float(v)
            xs.append(x)
            ys.append(float(t[0]))
    return np.array(xs), np.array(ys)


def main():
    path, dim = sys.argv[1], int(sys.argv[2])
    alpha, sigma, C, d1 = (float(v) for v in sys.argv[3:7])
    full = sys.argv[7] == "full"
    after = len(sys.argv) > 8 and sys.argv[8] == "after"
    X, Y = read(path, dim)
    u = np.zeros(dim)
    D = np.full(dim, d1)
    A = alpha * np.eye(dim)
    for x, y in zip(X, Y):
        xt = x / np.sqrt(D)
        z = u @ xt
        tau = np.sign(z) * max(abs(z) - C, 0.0)
        w = u
        if tau != 0.0:  # Lemma 1: w = u − τ_C(uᵀx̃)/(x̃ᵀA⁻¹x̃) A⁻¹x̃
            ax = np.linalg.solve(A, xt)
            w = u - tau / (xt @ ax) * ax
        p = w @ xt
        dl = 2.0 * (p - y)
        if not after:
            D = D + (dl * x) ** 2
        g = dl * x / np.sqrt(D)
        if full:
            A = A + sigma * np.outer(g, g)
        u = w - np.linalg.solve(A, g)
        if after:
            D = D + (dl * x) ** 2
    for v in u / np.sqrt(D):
        print(repr(float(v)))


if __name__ == "__main__":
    main()
