# Q3a: choice of completion rows C in F=[N1;C].  X = F^-1 [N2;0].
import numpy as np
rng = np.random.default_rng(0); k, S, g = 19, 5, 21; b = k + S
res = []
for trial in range(200):
    N1 = rng.standard_normal((k, b)) @ np.diag(rng.uniform(0.1, 1, b))
    N1[-1] *= 1e-3 * rng.random()            # nearly rank deficient row combination
    N1 = rng.standard_normal((k, k)) @ N1
    N2 = rng.standard_normal((k, g))
    sk = np.linalg.svd(N1, compute_uv=False)[-1]
    _, _, Vt = np.linalg.svd(N1); Cperp = Vt[k:]             # orthonormal basis of null(N1)
    best = None
    for name, C in [('perp*1', Cperp), ('perp*100', 100 * Cperp), ('random', rng.standard_normal((S, b))),
                    ('perp+rowmix', Cperp + 0.5 * rng.standard_normal((S, k)) @ N1)]:
        F = np.vstack([N1, C]); X = np.linalg.solve(F, np.vstack([N2, np.zeros((S, g))]))
        res.append((trial, name, np.linalg.svd(F, compute_uv=False)[-1] / sk, np.linalg.norm(X, 2) / np.linalg.norm(np.linalg.pinv(N1) @ N2, 2),
                    np.abs(N1 @ X - N2).max()))
import collections
agg = collections.defaultdict(list)
for t, nm, a, bb, e in res: agg[nm].append((a, bb, e))
for nm, v in agg.items():
    v = np.array(v); print(f"{nm:12s} max sigmin(F)/sigma_k(N1) = {v[:,0].max():.3f}   min ||X||/||pinv(N1)N2|| = {v[:,1].min():.3f}  median {np.median(v[:,1]):.2f}  max|N1X-N2| {v[:,2].max():.1e}")
