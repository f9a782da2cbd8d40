"""Fast FD (R=2l buffer, shrink by lambda_l, keep k=l-1 rows) : dense reference and
B = M Z (base slots + buffer) simulation with SON update / rebase policy."""
import numpy as np, time

def eig_desc(A):
    w, V = np.linalg.eigh((A + A.T) / 2)
    return w[::-1].copy(), V[:, ::-1].copy()

class RefFD:
    def __init__(s, l, U):
        s.l, s.R, s.k = l, 2 * l, l - 1
        s.B = np.zeros((s.R, U)); s.nrow = 0; s.u = 0
    def insert(s, idx, val):
        s.B[s.nrow, idx] = val; s.nrow += 1; s.u = max(s.u, idx.max() + 1)
        if s.nrow == s.R: s.shrink()
    def shrink(s):
        u = s.u; B = s.B[:, :u]
        lam, U = eig_desc(B @ B.T)
        ll = lam[s.l - 1]
        D = np.sqrt(np.maximum(lam[:s.k] - ll, 0) / np.maximum(lam[:s.k], 1e-300))
        Bn = (D[:, None] * U[:, :s.k].T) @ B
        s.B[:, :u] = 0; s.B[:s.k, :u] = Bn; s.nrow = s.k
    def rows(s): return s.B[:s.nrow]

def gram_err(A, B):
    """||A^T A - B^T B||_F / ||A^T A||_F, stably via QR of [A;B]^T."""
    H = np.vstack([A, B]).T
    _, Rr = np.linalg.qr(H)
    m = A.shape[0]
    Ra, Rb = Rr[:, :m], Rr[:, m:]
    return np.linalg.norm(Ra @ Ra.T - Rb @ Rb.T) / np.linalg.norm(Ra @ Ra.T)

class SonFD:
    """mode: 'pure' (SON update, X = Phat^+ That2, i.e. C = orthogonal complement)
             'absorb' (bad directions (sigma<tau) go into EMPTY spare slots)"""
    def __init__(s, l, U, S, tau, mode='pure', gmax=1e4, hmin=0.1, cdrop=1.0, rho=None):
        s.l, s.R, s.k = l, 2 * l, l - 1
        s.b = s.k + S; s.tau, s.mode, s.gmax = tau, mode, gmax
        s.Zb = np.zeros((s.b, U)); s.K = np.zeros((s.b, s.b))
        s.N = np.zeros((s.k, s.b)); s.used = np.zeros(s.b, bool)
        s.buf = []; s.u = 0; s.first = True
        s.log = []   # per shrink dict
        s.force_rebase = False; s.cb = dict(upd=0.0, reb=0.0, free=0.0); s.hmin = hmin
        s.g = s.R    # buffer capacity before first shrink
        s.cdrop = cdrop; s.dropped = 0.0; s.deltas = 0.0; s.rho = rho; s.credit = 0.0
    def insert(s, idx, val):
        s.buf.append((idx, val)); s.u = max(s.u, idx.max() + 1)
        s.credit += np.count_nonzero(val) * s.b
        if len(s.buf) == s.g: s.shrink()
    def _Gdense(s):
        cols = np.unique(np.concatenate([i for i, _ in s.buf]))
        G = np.zeros((len(s.buf), len(cols)))
        for j, (i, v) in enumerate(s.buf):
            G[j, np.searchsorted(cols, i)] = v
        return cols, G
    def rows(s):
        B = s.N @ s.Zb[:, :s.u]
        Gb = np.zeros((len(s.buf), s.u))
        for j, (i, v) in enumerate(s.buf): Gb[j, i] = v
        return np.vstack([B, Gb])
    def shrink(s):
        k, b, l = s.k, s.b, s.l
        cols, G = s._Gdense(); g = G.shape[0]
        Zc = s.Zb[:, cols]
        C = Zc @ G.T                       # b x g  cross Gram (cheap: buffer supports)
        GG = G @ G.T
        Kf = np.block([[s.K, C], [C.T, GG]])
        M = np.zeros((k + g, b + g)); M[:k, :b] = s.N; M[k:, b:] = np.eye(g)
        lam, U = eig_desc(M @ Kf @ M.T)
        ll = lam[l - 1]
        act = np.nonzero(lam[:k] > ll * (1 + 1e-12) + 1e-300)[0]
        ka = len(act)
        T = U[:, act].T @ M                 # ka x (b+g)
        That = T / np.sqrt(lam[act])[:, None]
        E = np.sqrt(lam[act] - ll)          # norms of kept rows of B'
        T1, T2 = That[:, :b], That[:, b:]
        r = np.sqrt(np.maximum(np.diag(s.K), 0))
        O = np.nonzero(s.used)[0]
        P = T1[:, O] * r[O]
        if len(O) > 0:
            Ua, sv, Vt = np.linalg.svd(P, full_matrices=True)
        else:
            Ua, sv, Vt = np.eye(ka), np.zeros(0), np.zeros((0, 0))
        svf = np.zeros(ka); svf[:min(ka, len(sv))] = sv[:ka]
        sig = svf.min() if ka else 1.0
        # literal metric: sigma_min(N1)/sigma_max(M') with raw (unnormalised) base
        N1raw = E[:, None] * T1; Mp = E[:, None] * That
        sraw = (np.linalg.svd(N1raw[:, O], compute_uv=False).min() if len(O) >= ka and ka else 0.0) \
               / max(np.linalg.norm(Mp, 2), 1e-300)
        sgeo = np.sqrt(max(np.linalg.eigvalsh(T1 @ s.K @ T1.T).min(), 0)) if ka else 1.0
        rec = dict(sig=sig, sraw=sraw, sgeo=sgeo, u=s.u, ka=ka, first=s.first,
                   nbad=int((svf < s.tau).sum()), nempty=int((~s.used).sum()),
                   svf=svf.copy(), lamk=(lam[act]-ll).copy(), ll=ll, lam1=lam[0],
                   Aw=((Ua**2).T @ (lam[act]-ll)).copy() if ka else None)
        action = None
        if s.first:
            action = 'rebase'
        elif s.force_rebase:
            action = 'rebase_growth'
        elif s.mode == 'pure' or rec['nbad'] == 0:
            action = 'son' if sig >= s.tau else 'rebase'
        elif s.mode == 'drop':
            J = np.nonzero(svf < s.tau)[0]
            EAJ = E[:, None] * Ua[:, J]
            Qw, Rw = np.linalg.qr(EAJ)
            H = Qw.T @ ((E ** 2)[:, None] * Qw)
            hw, Vh = np.linalg.eigh((H + H.T) / 2)
            weak = hw <= s.cdrop * ll
            nstrong = int((~weak).sum())
            rec['nstrong'] = nstrong
            cost = ka * s.b * max(np.count_nonzero(s.Zb[:, :s.u]) // max(s.b, 1), 1)
            affordable = s.rho is None or s.credit * s.rho >= cost
            if nstrong > rec['nempty'] and not affordable:
                # the basis cannot take them and a rebase is not yet paid for: drop the weakest
                order = np.argsort(hw)
                extra = [i for i in order if not weak[i]][:nstrong - rec['nempty']]
                weak = weak.copy(); weak[extra] = True
                nstrong = int((~weak).sum())
                rec['forced'] = len(extra)
            if nstrong <= rec['nempty']:
                action = 'absorb'
                s.dq = (Qw, Rw, Vh, weak, J)
                rec['eps'] = float(hw[weak].max()) if weak.any() else 0.0
            else:
                action = 'rebase'
        else:  # absorb / recycle
            action = 'absorb' if rec['nbad'] <= rec['nempty'] else 'rebase'
        if action in ('son', 'absorb'):
            good = svf >= s.tau if action == 'absorb' else np.ones(ka, bool)
            # Xhat_O = V_g S_g^-1 A_g^T T2   (min-norm; = P^+ T2 when all good)
            nO = len(O)
            m_ = min(ka, nO); Vg = Vt[:m_][good[:m_]].T if nO else np.zeros((0, int(good.sum())))
            Xh = Vg @ ((Ua[:, good].T @ T2) / svf[good][:, None])
            X = np.zeros((b, g)); X[O] = r[O][:, None] * Xh
            Nn = np.zeros((k, b)); Nn[act] = E[:, None] * T1
            if action == 'absorb' and s.mode == 'drop':
                Qw, Rw, Vh, weak, J = s.dq
                Pd = Qw @ Vh[:, weak]
                Cp = E[:, None] * np.eye(ka) - Pd @ (Pd.T * E[None, :])   # (I - P) E
                Nn[act] = Cp @ T1
                Vs = Vh[:, ~weak]
                empt = np.nonzero(~s.used)[0][:Vs.shape[1]]
                X[empt] = Vs.T @ Rw @ Ua[:, J].T @ T2
                Nn[act[:, None], empt[None, :]] = Qw @ Vs
                s.used[empt] = True
                s.dropped += rec['eps']
            elif action == 'absorb':
                J = np.nonzero(~good)[0]
                empt = np.nonzero(~s.used)[0][:len(J)]
                AJ = Ua[:, J]                     # ka x nbad
                X[empt] = AJ.T @ T2               # new slot content = (A_J^T T2) G
                Nn[act[:, None], empt[None, :]] = E[:, None] * AJ
                s.used[empt] = True
            Kn = s.K + X @ C.T + C @ X.T + X @ GG @ X.T
            rn = np.sqrt(np.maximum(np.diag(Kn), 0))
            growth = (np.abs(Nn) @ rn).max() / E.max()
            rec.update(xnorm=np.linalg.norm(Xh, 2) if Xh.size else 0.0, growth=growth)
            if growth > s.gmax:
                action = 'rebase_growth'
            else:
                touched = np.nonzero(np.abs(X).sum(1) > 0)[0]
                s.cb['upd'] += len(touched) * len(cols) + b * g * 100
                s.Zb[:, cols] += X @ G
                s.K = Kn; s.N = Nn
                if s.mode == 'recycle':
                    rec['freed'] = s.retire(None, act)
                    rn = np.sqrt(np.maximum(np.diag(s.K), 0))
                    rec['growth'] = (np.abs(s.N) @ rn).max() / E.max()
                    s.force_rebase = rec['growth'] > s.gmax
        if action.startswith('rebase'):
            Bp = np.zeros((b, s.Zb.shape[1]))
            u = s.u
            if not s.first:
                s.cb['reb'] += ka * np.count_nonzero(s.Zb[:, :u]) + ka * len(cols)
            Bp[:ka, :u] = (E[:, None] * T1) @ s.Zb[:, :u]
            Bp[:ka, cols] += (E[:, None] * T2) @ G
            s.Zb = Bp
            s.K = np.zeros((b, b)); s.K[:ka, :ka] = Bp[:ka, :u] @ Bp[:ka, :u].T
            s.N = np.zeros((k, b)); s.N[act, np.arange(ka)] = 1.0
            s.used[:] = False; s.used[:ka] = True
            s.force_rebase = False; s.credit = 0.0
        rec['action'] = action
        if action.startswith('rebase') and not s.first:
            s.cb['reb'] += ka * np.count_nonzero(s.Zb[:, :s.u])   # Gram of new base
        rec['cost'] = sum(s.cb.values()); rec['cb'] = dict(s.cb); rec['nnz'] = np.count_nonzero(s.Zb[:, :s.u], axis=1)
        s.deltas += ll
        rec['dropped'] = s.dropped; rec['deltas'] = s.deltas
        s.log.append(rec)
        s.first = False
        s.buf = []; s.g = s.R - k
    def retire(s, _unused, act):
        """Free used slots lying in the null space of the (normalised) coefficient matrix,
        cheapest (fewest nonzeros) first, if leverage >= hmin.  z_j -= n_j (r_j/r_c) z_c."""
        freed = 0
        while True:
            O = np.nonzero(s.used)[0]
            r = np.sqrt(np.maximum(np.diag(s.K), 0))
            Nk = s.N[act][:, O]
            rown = np.linalg.norm(Nk, axis=1); rown[rown == 0] = 1
            Nh = (Nk / rown[:, None]) * r[O]
            _, sv, Vt = np.linalg.svd(Nh, full_matrices=True)
            rank = int((sv > 1e-9 * max(sv.max(), 1e-300)).sum())
            if len(O) <= rank: break
            Nb = Vt[rank:].T                       # |O| x nullity, orthonormal
            h = np.linalg.norm(Nb, axis=1)
            nnz = np.count_nonzero(s.Zb[O][:, :s.u], axis=1)
            cand = [i for i in np.argsort(nnz) if h[i] >= s.hmin]
            if not cand: break
            i = cand[0]; c = O[i]
            n = Nb @ Nb[i] / h[i] ** 2                # n_i = 1
            coef = -n * r[O] / r[c]                  # z_j += coef_j z_c
            coef[i] = 0
            T = np.eye(s.b); T[O, c] += coef; T[c, c] = 0
            nzj = np.count_nonzero(np.abs(coef) > 0)
            s.cb['free'] += (nzj + 1) * nnz[i]
            zc = s.Zb[c, :s.u].copy()
            s.Zb[O, :s.u] += coef[:, None] * zc[None, :]
            s.Zb[c, :s.u] = 0
            s.K = T @ s.K @ T.T
            s.N[:, c] = 0
            s.used[c] = False; freed += 1
        return freed
    def kdrift(s):
        u = s.u; Kx = s.Zb[:, :u] @ s.Zb[:, :u].T
        return np.linalg.norm(s.K - Kx) / max(np.linalg.norm(Kx), 1e-300)
