import sys, time, json, numpy as np, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data, fdsim
import scipy.sparse as sps, scipy.sparse.linalg as spla

def spectral_err(ci, v, n, U, B):
    """||A^T A - B^T B||_2 (A: the first n rows), by Lanczos on the implicit operator."""
    A = sps.csr_matrix((v[:n].ravel(), ci[:n].ravel(), np.arange(0, n * ci.shape[1] + 1, ci.shape[1])), shape=(n, U))
    B = B[:, :U]
    op = spla.LinearOperator((U, U), matvec=lambda x: A.T @ (A @ x) - B.T @ (B @ x), dtype=float)
    w = spla.eigsh(op, k=1, which='LM', return_eigenvectors=False, tol=1e-6)
    return float(abs(w[0]))

def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument('--n', type=int, default=20000); ap.add_argument('--logd', type=int, default=16)
    ap.add_argument('--a', type=float, default=1.1); ap.add_argument('--l', type=int, default=20)
    ap.add_argument('--configs', default='pure:0:0.1')   # mode:S:tau,...
    ap.add_argument('--ncheck', type=int, default=5); ap.add_argument('--out', default=None)
    ap.add_argument('--noref', action='store_true')
    ap.add_argument('--svm', default=None, help='LIBSVM file (gzip or plain): real rows instead of data.gen')
    A = ap.parse_args()
    t0 = time.time()
    ci, v, U = data.read_svm(A.svm, A.n) if A.svm else data.gen(A.n, 2 ** A.logd, a=A.a, seed=1)
    print(f'data a={A.a} d=2^{A.logd} n={A.n} |U|={U} gen {time.time()-t0:.1f}s', flush=True)
    checks = set(int(x) for x in np.linspace(0, A.n, A.ncheck + 1)[1:] - 1)
    refs = {}
    if not A.noref:
        t0 = time.time(); ref = fdsim.RefFD(A.l, U)
        for i in range(A.n):
            ref.insert(ci[i], v[i])
            if i in checks:
                refs[i] = ref.rows()[:, :].copy()
                print(f'ref spectral error at {i + 1}: {spectral_err(ci, v, i + 1, ref.u, refs[i][:, :ref.u]):.4g}', flush=True)
        tref = time.time() - t0
        print(f'ref FD {tref:.1f}s', flush=True)
    res = {}
    for cfg in A.configs.split(','):
        # mode:S:tau[:x[:rho[:gmax]]], x = hmin (recycle) or cdrop (drop); rho 0 = no rationing
        p = cfg.split(':'); mode, S, tau = p[0], int(p[1]), float(p[2])
        hmin = float(p[3]) if len(p) > 3 else 0.1
        cdrop = float(p[3]) if len(p) > 3 else 1.0
        rho = (float(p[4]) or None) if len(p) > 4 else None
        gmax = float(p[5]) if len(p) > 5 else 1e4
        t0 = time.time(); f = fdsim.SonFD(A.l, U, S, tau, mode, hmin=hmin, cdrop=cdrop, rho=rho, gmax=gmax)
        errs = []; drifts = []; spec = []
        for i in range(A.n):
            f.insert(ci[i], v[i])
            if i in checks and refs:
                Bs = f.rows(); Br = refs[i][:, :f.u]
                errs.append(fdsim.gram_err(Br, Bs)); drifts.append(f.kdrift())
                spec.append(spectral_err(ci, v, i + 1, f.u, Bs))
        dt = time.time() - t0
        L = f.log[1:]   # exclude first (initial) shrink
        ns = len(L)
        reb = np.array([r['action'].startswith('rebase') for r in L])
        rg = np.array([r['action'] == 'rebase_growth' for r in L])
        ab = np.array([r['action'] == 'absorb' for r in L])
        sig = np.array([r['sig'] for r in L]); sgeo = np.array([r['sgeo'] for r in L])
        sraw = np.array([r['sraw'] for r in L])
        gr = np.array([r.get('growth', np.nan) for r in L]); xn = np.array([r.get('xnorm', np.nan) for r in L])
        t10 = max(ns // 10, 1)
        out = dict(cfg=cfg, a=A.a, logd=A.logd, n=A.n, U=U, shrinks=ns,
                   reb_per_k=1000 * reb.mean(), reb_growth_per_k=1000 * rg.mean(), absorb_per_k=1000 * ab.mean(),
                   reb_first10=1000 * reb[:t10].mean(), reb_last10=1000 * reb[-t10:].mean(),
                   sig_med=float(np.median(sig)), sig_p5=float(np.percentile(sig, 5)),
                   sgeo_med=float(np.median(sgeo)), sgeo_p5=float(np.percentile(sgeo, 5)),
                   sraw_med=float(np.median(sraw)), sraw_p5=float(np.percentile(sraw, 5)),
                   growth_med=float(np.nanmedian(gr)) if np.isfinite(gr).any() else None,
                   growth_max=float(np.nanmax(gr)) if np.isfinite(gr).any() else None,
                   xn_med=float(np.nanmedian(xn)) if np.isfinite(xn).any() else None,
                   xn_max=float(np.nanmax(xn)) if np.isfinite(xn).any() else None,
                   errs=errs, spec=spec, kdrift=drifts, time=dt,
                   cost_first10=(L[t10-1]['cost']-f.log[0]['cost'])/(t10*(f.R-f.k)), cost_last10=(L[-1]['cost']-L[-t10-1]['cost'])/(t10*(f.R-f.k)),
                   U_first10=int(L[t10-1]['u']), U_last10=int(L[-1]['u']),
                   nnz_last_med=float(np.median(L[-1]['nnz'][f.used])), freed_per_shrink=float(np.mean([r.get('freed',0) for r in L])),
                   cb_last10={kk: (L[-1]['cb'][kk]-L[-t10-1]['cb'][kk])/(t10*(f.R-f.k)) for kk in L[-1]['cb']},
                   nbad_mean=float(np.mean([r['nbad'] for r in L])), nstrong_mean=float(np.mean([r.get('nstrong', 0) for r in L])), dropped_over_deltas=L[-1]['dropped'] / L[-1]['deltas'], forced=int(sum(r.get('forced', 0) for r in L)),
                   sig_first10_med=float(np.median(sig[:t10])), sig_last10_med=float(np.median(sig[-t10:])))
        res[cfg] = out
        print(json.dumps(out), flush=True)
        if A.out:
            np.save(A.out + f'_{mode}_{S}_{tau}_sig.npy', np.array([[r['sig'], r['sgeo'], r['nbad'], r['ka'], r['u'],
                     r['action'].startswith('rebase')] for r in L]))
if __name__ == "__main__":
    main()
