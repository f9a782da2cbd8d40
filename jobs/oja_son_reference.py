#!/usr/bin/env python3
"""An independent dense reference of Oja-SON (SON paper: Alg. 1 with Oja's sketch, Alg. 3 and eq. (4),
Γ_t = I/t), squared loss, for checking `adasketch train --algo oja-son` on small dense data
(docs/experiments.md, "Problems found").

    /usr/bin/python3 jobs/oja_son_reference.py FILE --ell M --alpha A [--sigma S] [--eta E] [--C C]

FILE is a dense binary file (`adasketch generate --data SPEC --out FILE`). Per example: the projection
w = u − τ_C(uᵀx)/(xᵀA⁻¹x)·A⁻¹x with A = αI + SᵀS, S = (tΛ)^{1/2}V (Alg. 1 line 5); the prediction wᵀx
and the progressive mistake (y·wᵀx ≤ 0); g = 2(wᵀx − y)x, ĝ = sqrt(σ + η)g (constant η); Oja's update
Λ ← (1 − 1/t)Λ + (Vĝ)²/t, V ← orth(V + (Vĝ)ĝᵀ/t) by a Householder QR (Gram–Schmidt order, positive
diagonal); the Newton step u ← w − A⁻¹g with the updated A, by dense inverses of the d × d A. V_0 is
the library's data start (docs/design.md §6): V's rows start empty, and a ĝ whose residual against
the rows set keeps more than 2⁻²⁰ of ‖ĝ‖² first sets the next row to that residual, normalized.
Prints the mistakes and the cumulative loss.
Needs numpy (/usr/bin/python3 has it); O(d³) per example: for d of about 100.
"""
import argparse
import struct

import numpy as np


def read_dense(path):
    raw = open(path, "rb").read()
    if raw[:8] != b"ADSKDNS1":
        raise SystemExit("%s: not a dense binary file (ADSKDNS1)" % path)
    n, d = struct.unpack("<QQ", raw[8:24])
    data = np.frombuffer(raw[24:], dtype="<f8").reshape(n, d + 1)
    return data[:, 0], data[:, 1:]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file")
    p.add_argument("--ell", type=int, required=True)
    p.add_argument("--alpha", type=float, required=True)
    p.add_argument("--sigma", type=float, default=0.125)
    p.add_argument("--eta", type=float, default=0.0)
    p.add_argument("--C", type=float, default=1.0)
    args = p.parse_args()
    y, X = read_dense(args.file)
    n, d = X.shape
    m = args.ell
    V, lam, u = np.zeros((m, d)), np.zeros(m), np.zeros(d)
    started = 0
    mistakes, loss = 0, 0.0

    def a_inverse(t):
        return np.linalg.inv(args.alpha * np.eye(d) + (V.T * (t * lam)) @ V)

    for t in range(1, n + 1):
        x, label = X[t - 1], y[t - 1]
        v = a_inverse(t - 1) @ x
        z = u @ x
        w = u - np.sign(z) * max(abs(z) - args.C, 0.0) / (x @ v) * v
        p_t = w @ x
        mistakes += int(label * p_t <= 0)
        loss += (p_t - label) ** 2
        g = 2.0 * (p_t - label) * x
        gh = np.sqrt(args.sigma + args.eta) * g
        if m > 0 and gh @ gh > 0:
            vg = V @ gh
            if started < m and gh @ gh - vg @ vg > 2.0 ** -20 * (gh @ gh):  # the data start
                V[started] = gh
                started += 1
                q, r = np.linalg.qr(V[:started].T)
                V[:started] = (q * np.sign(np.diag(r))).T
                vg = V @ gh
            lam = (1.0 - 1.0 / t) * lam + vg ** 2 / t
            q, r = np.linalg.qr((V[:started] + np.outer(vg[:started] / t, gh)).T)
            V[:started] = (q * np.sign(np.diag(r))).T
        u = w - a_inverse(t) @ g
    print("mistakes %d (rate %.4f), cumulative loss %.6g" % (mistakes, mistakes / n, loss))


if __name__ == "__main__":
    main()
