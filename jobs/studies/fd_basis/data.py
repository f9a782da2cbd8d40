"""Sparse power-law row generator. Rows: s distinct features, +-1 values, L2-normalised.
Features drawn by successive sampling (= weighted sampling w/o replacement) from
p_j ~ 1/(j+1)^a truncated at d (a=0 -> uniform); ids randomly permuted, then remapped
to compact ids in order of first appearance (so column u<|U(t)| is the seen set)."""
import numpy as np

def gen(n, d, s=100, a=1.1, seed=0):
    rng = np.random.default_rng(seed)
    if a == 0:
        draw = lambda m: rng.integers(0, d, size=m)
    else:
        p = 1.0 / np.arange(1, d + 1, dtype=float) ** a
        cdf = np.cumsum(p); cdf /= cdf[-1]
        draw = lambda m: np.minimum(np.searchsorted(cdf, rng.random(m), side='right'), d - 1)
    perm = rng.permutation(d)
    idx = np.empty((n, s), dtype=np.int64)
    m = 4 * s
    for i in range(n):
        while True:
            x = draw(m)
            u, first = np.unique(x, return_index=True)
            if len(u) >= s:
                break
            m *= 2
        idx[i] = x[np.sort(first)[:s]]
    idx = perm[idx]
    # compact remap in order of first appearance
    flat = idx.ravel()
    u, first, inv = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first)            # unique ids sorted by first appearance
    rank = np.empty_like(order); rank[order] = np.arange(len(order))
    cidx = rank[inv].reshape(n, s)
    vals = rng.choice([-1.0, 1.0], size=(n, s)) / np.sqrt(s)
    return cidx, vals, len(u)


def read_svm(path, n):
    """The first n rows of a LIBSVM file, features remapped to compact ids in order of first
    appearance; rows padded to the longest with zeros at one extra, otherwise unused feature (the last id)."""
    import gzip
    rows = []
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        for line in f:
            if len(rows) == n:
                break
            parts = line.split()[1:]
            rows.append([(int(p.split(':')[0]), float(p.split(':')[1])) for p in parts])
    ids = {}
    s = max(len(r) for r in rows)
    idx = np.zeros((len(rows), s), dtype=np.int64); val = np.zeros((len(rows), s))
    for i, r in enumerate(rows):
        for j, (f, x) in enumerate(r):
            idx[i, j] = ids.setdefault(f, len(ids)); val[i, j] = x
    for i, r in enumerate(rows):
        idx[i, len(r):] = len(ids)
    return idx, val, len(ids) + 1
