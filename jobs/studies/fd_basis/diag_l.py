# l-sensitivity: exact FD trajectory (always rebase), spectrum of normalised N1 each shrink.
import os, sys, time, numpy as np; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import data, fdsim
n=int(sys.argv[1]); a=float(sys.argv[2]); ls=[int(x) for x in sys.argv[3].split(',')]; logd=int(sys.argv[4]) if len(sys.argv)>4 else 16
ci,v,U=data.gen(n,2**logd,a=a,seed=1)
for l in ls:
    t0=time.time(); f=fdsim.SonFD(l,U,0,2.0,'pure')
    for i in range(n): f.insert(ci[i],v[i])
    L=f.log[1:]; k=l-1
    c={t:np.array([(r['svf']<t).sum() for r in L]) for t in [1e-1,1e-2,1e-3]}
    sig=np.array([r['svf'].min() for r in L])
    print(f"a={a} d=2^{logd} l={l} shrinks={len(L)}: sigma_min median {np.median(sig):.1e} p95 {np.percentile(sig,95):.1e}; frac shrinks sigma_min<1e-2 {np.mean(sig<1e-2):.2f} <1e-3 {np.mean(sig<1e-3):.2f};"
          f" mean #dirs<0.1 {c[1e-1].mean():.1f} <1e-2 {c[1e-2].mean():.1f} <1e-3 {c[1e-3].mean():.2f} (of k={k})  [{time.time()-t0:.0f}s]", flush=True)
