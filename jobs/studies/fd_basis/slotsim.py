"""The library's slot form of fast FD (frequent_directions_sparse.cpp), with spare slots, to count
what an exact compaction must fold on real rows (README.md, "The slot form").

B = M Z with Z in R_z = 2l + S slots. A shrink rotates M (M' = D U^T M, ka kept rows), then:
  1. optionally (cdrop > 0) projects out the directions the old slots cannot express, weakest energy
     first while their sum stays within cdrop * delta (B'' = (I - P) B', a PSD removal);
  2. picks pivots: pass 1 over the slots widest first (residual >= 0.3 of the largest scaled
     column), pass 2 by largest residual, to the rank;
  3. folds non-pivots into the pivots (Z_p += w Z_e, cost |supp Z_e| per pivot), narrowest first,
     this epoch's rows always, older ones only while more slots are live than the next epoch
     allows (keep_nonpivots; else every non-pivot). A fold or retirement of a slot whose support
     is over a quarter of the features seen is counted apart ("wide"): that is the sweep of U the
     library pays.
The spectral error ||A^T A - B^T B||_2 is measured against the exact FD's (run.py's RefFD)."""
import numpy as np


def eig_desc(A):
    w, V = np.linalg.eigh((A + A.T) / 2)
    return w[::-1].copy(), V[:, ::-1].copy()


class SlotFD:
    def __init__(s, l, U, S, cdrop, strong=0.3, gmax=1e4, keep_nonpivots=True):
        s.l, s.R, s.k = l, 2 * l, l - 1
        s.Rz = s.R + S
        s.cdrop, s.strong, s.gmax = cdrop, strong, gmax
        s.keep_nonpivots = keep_nonpivots
        s.Z = np.zeros((s.Rz, U))
        s.M = np.zeros((s.R, s.Rz))
        s.live = np.zeros(s.Rz, bool)
        s.young = np.zeros(s.Rz, bool)
        s.filled = 0
        s.u = 0
        s.cost = dict(insert=0.0, fold=0.0, fold_wide=0.0, retire=0.0, retire_wide=0.0)
        s.stats = dict(shrinks=0, drops_young=0, narrow_elim=0, wide_elim=0, energy=0.0, delta=0.0)
        s.log = []

    def supp(s, e):
        return np.count_nonzero(s.Z[e, :s.u])

    def insert(s, idx, val):
        e = np.nonzero(~s.live)[0][0]
        s.Z[e] = 0.0  # lazily in the library: a retired slot's old values count as zero
        s.Z[e, idx] = val
        s.live[e] = True
        s.young[e] = True
        s.M[s.filled] = 0.0
        s.M[s.filled, e] = 1.0
        s.filled += 1
        s.u = max(s.u, idx.max() + 1)
        s.cost['insert'] += np.count_nonzero(val) * s.Rz   # Z a over the slots
        if s.filled == s.R:
            s.shrink()

    def rows(s):
        return s.M[:s.filled] @ s.Z[:, :s.u]

    def shrink(s):
        R, l, Rz = s.R, s.l, s.Rz
        K = s.Z[:, :s.u] @ s.Z[:, :s.u].T   # the library keeps K by rank updates
        G = s.M @ K @ s.M.T
        lam, Uv = eig_desc(G)
        delta = max(lam[l - 1], 0.0)
        act = np.nonzero(lam[:s.k] > delta * (1 + 1e-12) + 1e-300)[0]
        ka = len(act)
        E2 = lam[act] - delta
        Mp = (np.sqrt(E2 / lam[act])[:, None] * Uv[:, act].T) @ s.M   # ka x Rz
        s.stats['shrinks'] += 1
        s.stats['delta'] += delta
        budget = s.cdrop * delta
        spent = 0.0
        norms = np.sqrt(np.maximum(np.diag(K), 0))
        live = np.nonzero(s.live)[0]
        old = [e for e in live if not s.young[e]]
        young = [e for e in live if s.young[e]]
        rec = dict(ka=ka, delta=delta)

        def columns(Mc, slots):
            return Mc[:, slots] * norms[slots]

        # 1. optional: project out the weak directions the old slots cannot express (budget)
        Gc = np.diag(E2)
        old.sort(key=lambda e: -s.supp(e))
        scale = max(np.linalg.norm(columns(Mp, live), axis=0).max(), 1e-300)
        if s.cdrop > 0 and young:
            Qo = np.zeros((ka, 0))
            for e in old:
                c = Mp[:, e] * norms[e]
                r = c - Qo @ (Qo.T @ c); r = r - Qo @ (Qo.T @ r)
                if np.linalg.norm(r) > 1e-9 * scale and Qo.shape[1] < ka:
                    Qo = np.column_stack([Qo, r / np.linalg.norm(r)])
            Y = columns(Mp, young)
            Yr = Y - Qo @ (Qo.T @ Y); Yr = Yr - Qo @ (Qo.T @ Yr)
            Uy, sy, _ = np.linalg.svd(Yr, full_matrices=False)
            W = Uy[:, sy > 1e-12 * scale]
            if W.shape[1]:
                H = W.T @ Gc @ W
                hw, Vh = np.linalg.eigh((H + H.T) / 2)
                drop = []
                for i in np.argsort(hw):
                    if spent + hw[i] <= budget:
                        spent += hw[i]; drop.append(i)
                if drop:
                    Pd = W @ Vh[:, drop]
                    Mp = Mp - Pd @ (Pd.T @ Mp)
                    Ip = np.eye(ka) - Pd @ Pd.T
                    Gc = Ip @ Gc @ Ip
                    s.stats['drops_young'] += len(drop)
        # 2. pivots: pass 1 widest first (strong), pass 2 largest residual (any slot)
        C = columns(Mp, live)
        cn = np.linalg.norm(C, axis=0)
        order = sorted(range(len(live)), key=lambda i: -s.supp(live[i]))
        Q = np.zeros((ka, 0)); piv = []
        for i in order:
            if cn[i] <= 1e-12 * scale: continue
            r = C[:, i] - Q @ (Q.T @ C[:, i]); r = r - Q @ (Q.T @ r)
            if np.linalg.norm(r) >= s.strong * scale and Q.shape[1] < ka:
                Q = np.column_stack([Q, r / np.linalg.norm(r)]); piv.append(i)
        while Q.shape[1] < ka:
            Rr = C - Q @ (Q.T @ C); Rr = Rr - Q @ (Q.T @ Rr)
            rn = np.linalg.norm(Rr, axis=0); rn[piv] = 0
            i = int(np.argmax(rn))
            if rn[i] <= 1e-12 * scale: break
            Q = np.column_stack([Q, Rr[:, i] / rn[i]]); piv.append(i)
        pivots = [live[i] for i in piv]
        nonpiv = [live[i] for i in range(len(live)) if i not in piv]
        # negligible columns: free (their retirement still costs the learner's share: counted)
        limit = Rz - (R - ka)
        A = columns(Mp, pivots)
        for e in nonpiv:
            if np.linalg.norm(Mp[:, e]) * norms[e] <= 1e-12 * scale:
                s.live[e] = False
                s.cost['retire_wide' if s.supp(e) * 4 > s.supp_union() else 'retire'] += s.supp(e)
        nonpiv = [e for e in nonpiv if s.live[e]]
        # 3. eliminate non-pivots, narrowest first, until within the limit (young always: cheap)
        nonpiv.sort(key=lambda e: s.supp(e))
        nlive = int(s.live.sum())
        for e in nonpiv:
            if nlive <= limit and not s.young[e] and s.keep_nonpivots:
                continue
            wt, *_ = np.linalg.lstsq(A, Mp[:, e] * norms[e], rcond=None)
            w = wt * norms[pivots] / max(norms[e], 1e-300)
            s.Z[pivots] += np.outer(w, s.Z[e])
            se = s.supp(e)
            wide = se * 4 > s.supp_union()
            s.cost['fold_wide' if wide else 'fold'] += se * len(pivots)
            s.cost['retire_wide' if wide else 'retire'] += se   # learner share + erase
            s.stats['wide_elim' if wide else 'narrow_elim'] += 1
            Mp[:, e] = 0.0
            s.live[e] = False
            nlive -= 1
        s.young[:] = False
        rec['spent'] = spent
        s.stats['energy'] += spent
        s.M[:] = 0.0
        s.M[:ka] = Mp
        # the mixing's rows: ka live (possibly rank-deficient after drops), the rest zero
        s.filled = ka
        growth = (np.abs(s.M[:ka]) @ np.sqrt(np.maximum(np.diag(s.Z[:, :s.u] @ s.Z[:, :s.u].T), 0))).max() / \
            max(np.sqrt(E2.max()), 1e-300)
        rec['growth'] = growth
        rec['nlive'] = int(s.live.sum())
        s.log.append(rec)

    def supp_union(s):
        return np.count_nonzero(np.abs(s.Z[:, :s.u]).sum(0))


if __name__ == '__main__':
    import argparse, json, os, sys, time
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import data
    from run import spectral_err
    ap = argparse.ArgumentParser()
    ap.add_argument('--svm'); ap.add_argument('--n', type=int, default=4000)
    ap.add_argument('--logd', type=int, default=16); ap.add_argument('--a', type=float, default=1.1)
    ap.add_argument('--l', type=int, default=20); ap.add_argument('--configs', default='0:0,20:1')  # S:cdrop
    ap.add_argument('--ncheck', type=int, default=3)
    A = ap.parse_args()
    ci, v, U = data.read_svm(A.svm, A.n) if A.svm else data.gen(A.n, 2 ** A.logd, a=A.a, seed=1)
    print(f'|U| = {U}', flush=True)
    checks = set(int(x) for x in np.linspace(0, A.n, A.ncheck + 1)[1:] - 1)
    for cfg in A.configs.split(','):
        S, c, keep = cfg.split(':')
        f = SlotFD(A.l, U, int(S), float(c), keep_nonpivots=keep == '1')
        t0 = time.time(); spec = []; costs = []
        tenth = A.n // 10
        for i in range(A.n):
            f.insert(ci[i], v[i])
            if (i + 1) % tenth == 0:
                costs.append(dict(f.cost))
            if i in checks:
                spec.append(spectral_err(ci, v, i + 1, f.u, f.rows()))
        per = lambda a, b, k: (b[k] - a[k]) / tenth
        first = {k: costs[0][k] / tenth for k in costs[0]}
        last = {k: per(costs[-2], costs[-1], k) for k in costs[-1]}
        print(json.dumps(dict(cfg=cfg, spec=spec, stats=f.stats, cost_first=first, cost_last=last,
                              growth_max=max(r['growth'] for r in f.log),
                              growth_med=float(np.median([r['growth'] for r in f.log])),
                              time=time.time() - t0)), flush=True)
