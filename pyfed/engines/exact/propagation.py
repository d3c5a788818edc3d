"""Exact-moment engine, propagation: second moments carried round by round.

Given the model of :mod:`pyfed.engines.exact.model` (the per-client affine maps L_i, the noise
covariance sum Q and the initial second moment P_0), a round is

    P' = P + p (L P + P L^T) + p2 L P L^T + (p - p2) sum_i L_i P L_i^T + p sum_i Q_i

(derivation in :mod:`pyfed.engines.exact.model`); the statistics E[f(x^r)] - f* and
E||grad f(x^r)||^2 are read off each P. :func:`_propagate_blocks` carries P in the blocks of
:class:`.model._BlockModel` at O(N^2 d^3) per round (balls, and exact states larger than
:data:`INTEGER_MAX_STATE`); :func:`_propagate_integer` runs the dense round in exact rationals
as integer matrices over a common denominator (small exact states); :func:`_propagate` is the
dense O((N d)^3) reference (``engine="dense"`` of :func:`_sampled_round_moments`, for the tests).

Why one module: the three propagations carry the same round (the formula of
:mod:`pyfed.engines.exact.model`) and are checked against each other exactly; the entry point that
chooses between them, and the public moment functions on top of it, belong with them.
The public functions compute the moments of the seed-000 ``Run`` model, seed-002 SCAFFOLD
(options I/II) and FedAvg; Local SGD is in :mod:`.local_sgd`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...errors import InputError, check_global_step, check_int, check_nonnegative, check_participation, check_positive
from .model import (
    _build_block_model,
    _build_model,
    _check_quadratic,
    _controls,
    _fmat,
    _minimiser,
    _noise,
    _noise_covariances,
    _problem_data,
    _stat_forms,
    _to_mat,
    _vector,
    _zeros,
    choose_field,
)


@dataclass
class MomentResult:
    """Exact (or certified-ball) expectations along a run.

    Attributes
    ----------
    gaps : list, length T+1
        E[f(x^r)] - f(x*) for r = 0..T (Fraction in exact mode, flint ``arb`` balls otherwise).
    grad_sq : list, length T+1
        E||grad f(x^r)||^2 for r = 0..T (same type).
    exact : bool
        True for exact rationals, False for certified balls.
    arithmetic : str
        Human description of the arithmetic used (and its precision for balls).
    algorithm : str
        ``"scaffold_run"``, ``"scaffold-I"``, ``"scaffold-II"``, ``"fedavg"`` or ``"local_sgd"``.
    mean_x : list, length T+1
        E[x^r] as lists of d scalars (same type as ``gaps``).
    """

    gaps: list
    grad_sq: list
    exact: bool
    arithmetic: str
    algorithm: str
    mean_x: list = field(default_factory=list)



def _stats(F, P, idx, Phi, Gam):
    gap = F.scalar(0)
    gs = F.scalar(0)
    k = len(idx)
    for a in range(k):
        for c in range(k):
            v = P[idx[a], idx[c]]
            gap += Phi[a, c] * v
            gs += Gam[a, c] * v
    mean = [P[idx[a], idx[-1]] for a in range(k - 1)]
    return gap, gs, mean


def _propagate(F, model, *, N, S, T, Phi, Gam):
    p = F.scalar(Fraction(S, N))
    p2 = F.scalar(Fraction(S * (S - 1), N * (N - 1))) if N > 1 else F.scalar(0)
    n = model.n
    L = _zeros(F, n, n)
    for R, Mi in zip(model.rows, model.M):
        for a, ra in enumerate(R):
            L[ra, :] = L[ra, :] + Mi[a, :]
    Lm = _to_mat(F, L)
    LmT = Lm.transpose()
    Qp = _to_mat(F, model.Q) * p
    Mm = [_to_mat(F, Mi) for Mi in model.M]
    MmT = [m.transpose() for m in Mm]
    P = _to_mat(F, model.P0)
    diff = p - p2
    use_diag = not (F.exact and diff == 0)
    gaps, gsq, means = [], [], []
    g, s, m = _stats(F, P, model.x_idx, Phi, Gam)
    gaps.append(g); gsq.append(s); means.append(m)
    for _ in range(T):
        LP = Lm * P
        Pn = P + (LP + LP.transpose()) * p + (LP * LmT) * p2 + Qp
        if use_diag:
            for R, Mi, MiT in zip(model.rows, Mm, MmT):
                B = (Mi * P * MiT) * diff
                for a, ra in enumerate(R):
                    for c, rc in enumerate(R):
                        Pn[ra, rc] = Pn[ra, rc] + B[a, c]
        P = Pn
        g, s, m = _stats(F, P, model.x_idx, Phi, Gam)
        gaps.append(g); gsq.append(s); means.append(m)
    return gaps, gsq, means


def _int_mats(arrays):
    """Object arrays of fmpq scalars as integer matrices over one common denominator l:
    ([fmpz_mat numerators], l) with array = numerator / l."""
    from flint import fmpz, fmpz_mat
    l = fmpz(1)
    for arr in arrays:
        for v in np.asarray(arr, dtype=object).ravel().tolist():
            l = l.lcm(v.q)
    out = []
    for arr in arrays:
        arr = np.asarray(arr, dtype=object)
        out.append(fmpz_mat(arr.shape[0], arr.shape[1], [v.p * (l // v.q) for v in arr.ravel().tolist()]))
    return out, l


def _propagate_integer(F, model, *, N, S, T, Phi, Gam):
    """:func:`_propagate` (the dense round) in exact rationals carried as integer matrices over a
    common denominator (python-flint ``fmpz_mat`` and ``fmpz``): the same rationals, without the
    gcd that every entry of every ``fmpq_mat`` operation pays (on the small states where the
    dense round is cheaper than the blocks; see :func:`_sampled_round_moments`).

    With L = Ln/l and M_i = Mn_i/l (one l), Q = Qn/q, P = Pn/D and p, p2, p - p2 written over
    n2 = N(N-1) (p = S(N-1)/n2, p2 = S(S-1)/n2, p - p2 = S(N-S)/n2; n2 = 1, p = 1, p2 = 0 when
    N = 1), the round P' = P + p (L P + P L^T) + p2 L P L^T + (p - p2) sum_i L_i P L_i^T + p Q is,
    over D' = lcm(D l^2 n2, q n2),

        Pn' = (D'/D) Pn + S(N-1) (D'/(D l n2)) (Ln Pn + (Ln Pn)^T) + S(S-1) (D'/(D l^2 n2)) Ln Pn Ln^T
              + S(N-S) (D'/(D l^2 n2)) sum_i E_i Mn_i Pn Mn_i^T E_i^T + S(N-1) (D'/(q n2)) Qn,

    E_i (n x |R_i|) placing client i's rows R_i. Then g = gcd(D', entries of Pn') is divided out.
    Exact mode only; returns (gaps, grad_sq, means) as :func:`_propagate` does (fmpq scalars).
    """
    from flint import fmpq, fmpz, fmpz_mat
    n = model.n
    L = _zeros(F, n, n)
    for R, Mi in zip(model.rows, model.M):
        for a, ra in enumerate(R):
            L[ra, :] = L[ra, :] + Mi[a, :]
    (Ln, *Mn), l = _int_mats([L] + list(model.M))
    LnT = Ln.transpose()
    MnT = [m.transpose() for m in Mn]
    place = []
    for R in model.rows:
        ent = [0] * (n * len(R))
        for a, ra in enumerate(R):
            ent[ra * len(R) + a] = 1
        place.append(fmpz_mat(n, len(R), ent))
    placeT = [m.transpose() for m in place]
    (Qn,), q = _int_mats([model.Q])
    (Pn,), D = _int_mats([model.P0])
    n2 = fmpz(N * (N - 1)) if N > 1 else fmpz(1)
    cp = fmpz(S * (N - 1)) if N > 1 else fmpz(1)
    cp2 = fmpz(S * (S - 1)) if N > 1 else fmpz(0)
    cdiff = cp - cp2
    l2 = l * l
    idx = model.x_idx
    k = len(idx)

    def stats(Pn, D):
        """E f - f*, E||grad f||^2 and E[x] (fmpq) from Pn / D, as :func:`_stats`."""
        X = [[Pn[idx[a], idx[c]] for c in range(k)] for a in range(k)]
        gap = sum((Phi[a, c] * X[a][c] for a in range(k) for c in range(k)), fmpq(0)) / D
        gs = sum((Gam[a, c] * X[a][c] for a in range(k) for c in range(k)), fmpq(0)) / D
        return gap, gs, [fmpq(X[a][-1], D) for a in range(k - 1)]

    gaps, gsq, means = [], [], []
    g, s_, m_ = stats(Pn, D)
    gaps.append(g); gsq.append(s_); means.append(m_)
    for _ in range(T):
        LP = Ln * Pn
        Dn = (D * l2 * n2).lcm(q * n2)
        f2 = Dn // (D * l2 * n2)
        Pnew = Pn * (Dn // D) + (LP + LP.transpose()) * (cp * (Dn // (D * l * n2))) + (LP * LnT) * (cp2 * f2)
        if cdiff != 0:
            B = None
            for Mi, MiT, E, ET in zip(Mn, MnT, place, placeT):
                Bi = E * ((Mi * Pn) * MiT) * ET
                B = Bi if B is None else B + Bi
            Pnew = Pnew + B * (cdiff * f2)
        Pn, D = _divide_content(Pnew + Qn * (cp * (Dn // (q * n2))), Dn)
        g, s_, m_ = stats(Pn, D)
        gaps.append(g); gsq.append(s_); means.append(m_)
    return gaps, gsq, means


def _divide_content(Pn, D):
    """(Pn/g, D/g) with g = gcd(D, every entry of Pn) (an exact division)."""
    g = D
    for v in Pn.entries():
        if g == 1:
            return Pn, D
        g = g.gcd(v)
    if g == 1:
        return Pn, D
    return Pn / g, D // g


def _col_blocks(M, rows: int, N: int, d: int) -> list:
    """The N column blocks (rows x d) of a field matrix M (rows x N d), as entry lists."""
    e = M.entries()
    width = N * d
    out = []
    for l in range(N):
        blk = []
        for r in range(rows):
            base = r * width + l * d
            blk.extend(e[base:base + d])
        out.append(blk)
    return out


def _block(F, e, ncols: int, k: int, l: int, d: int, dl: int):
    """Block (k, l) (d x dl) of a matrix with ``ncols`` columns given by its entry list ``e``."""
    out = []
    for r in range(d):
        base = (k * d + r) * ncols + l * dl
        out += e[base:base + dl]
    return F.matcls(d, dl, out)


def _hstack(F, blocks: list, rows: int, d: int):
    """Field matrix (rows x N d) from N column blocks (entry lists or matrices, rows x d)."""
    ents = [b.entries() if not isinstance(b, list) else b for b in blocks]
    out = []
    for r in range(rows):
        for e in ents:
            out.extend(e[r * d:(r + 1) * d])
    return F.mat(rows, len(blocks) * d, out)


def _propagate_blocks(F, bm, *, N, S, T, Phi, Gam, check=None):
    r"""Second moments round by round in the blocks of :class:`.model._BlockModel`.

    With p = S/N, p2 = S(S-1)/(N(N-1)) (0 if N = 1), Psi_l = E[c_l e^T], Gamma_e = E[e e^T],
    P_ge = E[g e^T] (all from the round-start P), one round is (derivation: expand
    E[(z + sum_i delta_i w_i)(z + sum_j delta_j w_j)^T] with E[delta_i delta_j] = p2 (i != j),
    p (i = j), the sample independent of the paths and the noises fresh):

        P'_kl = P_kl + p U_k P_kl + p P_kl U_l^T + p2 U_k P_kl U_l^T          (pairwise, d x d)
                + R_k Theta_l + Theta_k^T R_l^T                                (one thin product)
                + [k = l] ((p - p2) E[w_k w_k^T]_cc + p Q_k),
        Theta_l = p Psi_l^T + p2 (U_l Psi_l)^T + (p2/2) Gamma_e R_l^T,
        P'_gl = P_gl + p (Ug P_cc)_l + (p P_gl + p2 (Ug P_cc)_l) U_l^T
                + (p P_ge + p2 Ug Psi + p2 RgS Gamma_e) R_l^T + RgS (p Psi_l^T + p2 (U_l Psi_l)^T)
                + (p - p2) E[w^g_l w_l^T] + p Q^gc_l,
        P'_gg = P_gg + p (X + X^T) + p2 Y + (p - p2) sum_i E[w^g_i w^g_i^T] + p sum_i Q^gg_i,
        X = Ug P_cg + RgS P_ge^T,  Y = (Ug P_cc) Ug^T + (Ug Psi) RgS^T + RgS (Ug Psi)^T + RgS Gamma_e RgS^T,

    where Ug = [U^g_1 ... U^g_N] (n_g x N d), RgS = sum_i R^g_i, Psi = [Psi_1; ...; Psi_N], and
    E[w_i w_i^T] = W_i [[P_ii, Psi_i], [Psi_i^T, Gamma_e]] W_i^T with W_i = [[U^g_i, R^g_i], [U_i, R_i]].
    Only the first line touches all N^2 pairs, with two d x d products each; everything else is
    O(N) small products or products with n_e-wide matrices: O(N^2 d^3) per round. The same
    exact rationals as the dense :func:`_propagate` (tests compare them exactly).

    ``check``: optional (t, callback); after round t the callback gets (gaps, grad_sq) so far
    and may raise to abandon the run (the precision model of :mod:`.verdict` uses this to
    restart at the precision the horizon needs).
    """
    p = F.scalar(Fraction(S, N))
    p2 = F.scalar(Fraction(S * (S - 1), N * (N - 1))) if N > 1 else F.scalar(0)
    diff = p - p2
    half_p2 = p2 * F.scalar(Fraction(1, 2))
    d, n_g, n_e = bm.d, bm.n_g, bm.n_e
    nd = N * d
    Pgg, Pgc, Pcc = bm.Pgg, bm.Pgc, bm.Pcc
    EgT = bm.Eg.transpose()
    RgS = bm.Rg[0]
    for m in bm.Rg[1:]:
        RgS = RgS + m
    RgST = RgS.transpose()
    Qgg = bm.Qg[0]
    for m in bm.Qg[1:]:
        Qgg = Qgg + m
    Qgg = Qgg * p
    if bm.has_c:
        Ug_row = _hstack(F, bm.Ug, n_g, d)
        Ug_rowT = Ug_row.transpose()
        UT = [u.transpose() for u in bm.U]
        R_stackT = F.mat(nd, n_e, [v for r in bm.Rc for v in r.entries()]).transpose()
        RcT = [r.transpose() for r in bm.Rc]
        EcT = bm.Ec.transpose() if bm.Ec is not None else None
        Qgc_stack = _hstack(F, bm.Qgc, n_g, d) * p
        pQc = [q * p for q in bm.Qc]
        W = [_vstack2(F, bm.Ug[i], bm.Rg[i], bm.U[i], bm.Rc[i]) for i in range(N)]
        WT = [w.transpose() for w in W]
        if bm.kappa is not None:  # x rows of W_i only: [U^x_i, R^x_i] (d x (d + n_e))
            Wx = [_rows(F, w, 0, d) for w in W]
            WxT = [w.transpose() for w in Wx]
        invN = F.scalar(Fraction(1, N))
        Em = _fmat(F, d, n_e, {(a, d + a): F.scalar(1) for a in range(d)})  # m-slot of e
        EmT = Em.transpose()
        zero = F.scalar(0)
        half_one = F.scalar(Fraction(1, 2))
        rowsum = None
    else:
        Wg = [m for m in bm.Rg]
        WgT = [m.transpose() for m in Wg]
    use_diag = not (F.exact and diff == 0)
    gaps, gsq, means = [], [], []
    g, s_, m_ = _stats(F, Pgg, bm.x_idx, Phi, Gam)
    gaps.append(g); gsq.append(s_); means.append(m_)
    for _ in range(T):
        PgE = Pgg * EgT
        if not bm.has_c:  # FedAvg: e = g, no client blocks
            Gm = bm.Eg * PgE
            X = RgS * PgE.transpose()
            Pn = Pgg + (X + X.transpose()) * p + (RgS * Gm * RgST) * p2 + Qgg
            if use_diag:
                for Wi, WiT in zip(Wg, WgT):
                    Pn = Pn + (Wi * Gm * WiT) * diff
            Pgg = Pn
        else:
            PgcT = Pgc.transpose()
            ce = Pcc.entries()
            if bm.Ec is not None:  # run: m = (1/N) sum_j c_j; E[c_l m^T] = (1/N) sum_k P_lk
                if rowsum is None:  # first round: block row sums of P_cc (later carried by the pair loop)
                    rowsum = [_block(F, ce, nd, l, 0, d, d) for l in range(N)]
                    for l in range(N):
                        for k in range(1, N):
                            rowsum[l] = rowsum[l] + _block(F, ce, nd, l, k, d, d)
                PcM = F.mat(nd, d, [v for r in rowsum for v in r.entries()]) * invN  # (N d x d)
                PcE = PgcT * EgT + PcM * Em
                PgE = PgE + Pgc * EcT
            else:
                PcE = PgcT * EgT  # Psi = E[c e^T] (N d x n_e)
            UgP = Ug_row * Pcc  # (n_g x N d)
            UgPsi = Ug_row * PcE  # (n_g x n_e)
            pe = PcE.entries()
            Psi = [F.mat(d, n_e, pe[l * d * n_e:(l + 1) * d * n_e]) for l in range(N)]
            Gm = bm.Eg * PgE
            if bm.Ec is not None:  # E[m e^T] = (1/N) sum_j Psi_j
                ps = Psi[0]
                for P_ in Psi[1:]:
                    ps = ps + P_
                Gm = Gm + EmT * (ps * invN)
            UPsi = [bm.U[l] * Psi[l] for l in range(N)]
            Omega = [Psi[l].transpose() * p + UPsi[l].transpose() * p2 for l in range(N)]
            Omega_stack = _hstack(F, Omega, n_e, d)
            # per-client diagonal terms (p - p2) E[w_i w_i^T] on (g, c_i) x (g, c_i)
            Dgg = F.mat(n_g, n_g)
            Dgc, Dcc = [], []
            Pdiag = []
            for i in range(N):
                base = i * d
                Pii = [v for r in range(d) for v in ce[(base + r) * nd + base:(base + r) * nd + base + d]]
                Pdiag.append(Pii)
            if use_diag:
                gm = Gm.entries()
                for i in range(N):
                    Mi = _moment_block(F, Pdiag[i], Psi[i], gm, d, n_e)
                    if bm.kappa is not None:
                        Di = _diag_from_x(F, bm, Wx[i], WxT[i], Mi, gm).entries()
                    else:
                        Di = (W[i] * Mi * WT[i]).entries()
                    w = n_g + d
                    Dgg = Dgg + F.mat(n_g, n_g, [Di[r * w + c] for r in range(n_g) for c in range(n_g)])
                    Dgc.append([Di[r * w + n_g + c] for r in range(n_g) for c in range(d)])
                    Dcc.append(F.mat(d, d, [Di[(n_g + r) * w + n_g + c] for r in range(d) for c in range(d)]))
            # g-g
            X = Ug_row * PgcT + RgS * PgE.transpose()
            UgPsiR = UgPsi * RgST
            Y = UgP * Ug_rowT + UgPsiR + UgPsiR.transpose() + RgS * Gm * RgST
            Pgg_n = Pgg + (X + X.transpose()) * p + Y * p2 + Qgg
            if use_diag:
                Pgg_n = Pgg_n + Dgg * diff
            # g-c
            Bsrc = Pgc * p + UgP * p2
            Bl = _col_blocks(Bsrc, n_g, N, d)
            B_stack = _hstack(F, [F.mat(n_g, d, Bl[l]) * UT[l] for l in range(N)], n_g, d)
            K1 = PgE * p + UgPsi * p2 + RgS * Gm * p2
            Pgc_n = Pgc + UgP * p + B_stack + K1 * R_stackT + RgS * Omega_stack + Qgc_stack
            if use_diag:
                Pgc_n = Pgc_n + _hstack(F, Dgc, n_g, d) * diff
            # c-c: pairwise, P'_kl = V_k P_kl + (Ut_k P_kl) U_l^T + R_k Theta_l + (R_l Theta_k)^T with
            # V_k = I + p U_k, Ut_k = p I + p2 U_k (both from X = U_k P_kl); only k <= l is formed
            # (upper triangle, diagonal halved), P'_cc = M + M^T; block row sums carried for the
            # next round's E[c m^T]
            Theta = [Omega[l] + (Gm * RcT[l]) * half_p2 for l in range(N)]
            out = [zero] * (nd * nd)
            new_rowsum = [None] * N
            for k in range(N):
                Uk, Rk = bm.U[k], bm.Rc[k]
                for l in range(k, N):
                    Pkl = F.mat(d, d, Pdiag[k]) if l == k else _block(F, ce, nd, k, l, d, d)
                    X = Uk * Pkl  # V_k P = P + p X, Ut_k P = p P + p2 X
                    RT = Rk * Theta[l]
                    if l == k:
                        Skl = Pkl + X * p + (Pkl * p + X * p2) * UT[l] + RT + RT.transpose()
                        if use_diag:
                            Skl = Skl + Dcc[k] * diff
                        Skl = Skl + pQc[k]
                        se = (Skl * half_one).entries()
                        new_rowsum[k] = Skl if new_rowsum[k] is None else new_rowsum[k] + Skl
                    else:
                        Skl = Pkl + X * p + (Pkl * p + X * p2) * UT[l] + RT + (bm.Rc[l] * Theta[k]).transpose()
                        se = Skl.entries()
                        new_rowsum[k] = Skl if new_rowsum[k] is None else new_rowsum[k] + Skl
                        St = Skl.transpose()
                        new_rowsum[l] = St if new_rowsum[l] is None else new_rowsum[l] + St
                    for r in range(d):
                        base = (k * d + r) * nd + l * d
                        out[base:base + d] = se[r * d:(r + 1) * d]
            Mu = F.mat(nd, nd, out)
            Pcc = Mu + Mu.transpose()
            rowsum = new_rowsum
            Pgg, Pgc = Pgg_n, Pgc_n
        g, s_, m_ = _stats(F, Pgg, bm.x_idx, Phi, Gam)
        gaps.append(g); gsq.append(s_); means.append(m_)
        if check is not None and len(gaps) - 1 == check[0]:
            check[1](gaps, gsq)
    return gaps, gsq, means


def _rows(F, M, r0, r1):
    """Rows r0..r1-1 of a field matrix."""
    c = M.ncols()
    return F.mat(r1 - r0, c, M.entries()[r0 * c:r1 * c])


def _diag_from_x(F, bm, Wx, WxT, Mi, gm):
    """E[w_i w_i^T] on the outputs (g, c_i) for the run model and option II, from the x rows:
    w^c = -kappa w^x - m (see :func:`.model._build_block_model`), w^s = w^c / N (seed 002).
    Mi = E[v v^T] for v = (c_i, e); gm = entries of Gamma_e = E[e e^T]."""
    d, n_g, n_e = bm.d, bm.n_g, bm.n_e
    k = bm.kappa
    MW = Mi * WxT  # E[v w^x^T]  ((d + n_e) x d)
    Exx = Wx * MW
    mw = MW.entries()
    Emx = F.mat(d, d, mw[(d + d) * d:(d + 2 * d) * d])  # rows of m in v = (c_i, x, m, 1)
    Emm = F.mat(d, d, [gm[(d + r) * n_e + d + c] for r in range(d) for c in range(d)])
    Ecx = Exx * (-k) - Emx
    Ecc = Exx * (k * k) + (Emx + Emx.transpose()) * k + Emm
    outs = ["x"] + (["s"] if bm.explicit_s else []) + ["h"] + ["c"]
    invN = F.scalar(Fraction(1, bm.N))

    def blk(a, b):
        """E[w^a w^b^T] for outputs a, b in x, s, c (s = c / N); None for the h row."""
        if a == "h" or b == "h":
            return None
        sa, sb = (invN if a == "s" else None), (invN if b == "s" else None)
        a_, b_ = ("c" if a == "s" else a), ("c" if b == "s" else b)
        if a_ == "x" and b_ == "x":
            m = Exx
        elif a_ == "c" and b_ == "c":
            m = Ecc
        elif a_ == "c":
            m = Ecx
        else:
            m = Ecx.transpose()
        if sa is not None:
            m = m * sa
        if sb is not None:
            m = m * sb
        return m

    size = {"x": d, "s": d, "h": 1, "c": d}
    n = n_g + d
    ent = [F.scalar(0)] * (n * n)
    r0 = 0
    for a in outs:
        c0 = 0
        for b in outs:
            m = blk(a, b)
            if m is not None:
                me = m.entries()
                for r in range(size[a]):
                    ent[(r0 + r) * n + c0:(r0 + r) * n + c0 + size[b]] = me[r * size[b]:(r + 1) * size[b]]
            c0 += size[b]
        r0 += size[a]
    return F.mat(n, n, ent)


def _vstack2(F, Ug, Rg, U, R):
    """W_i = [[U^g_i, R^g_i], [U_i, R_i]] as one field matrix ((n_g + d) x (d + n_e))."""
    n_g, d, n_e = Ug.nrows(), U.nrows(), R.ncols()
    a, b_, c, e = Ug.entries(), Rg.entries(), U.entries(), R.entries()
    out = []
    for r in range(n_g):
        out.extend(a[r * d:(r + 1) * d]); out.extend(b_[r * n_e:(r + 1) * n_e])
    for r in range(d):
        out.extend(c[r * d:(r + 1) * d]); out.extend(e[r * n_e:(r + 1) * n_e])
    return F.mat(n_g + d, d + n_e, out)


def _moment_block(F, Pii, Psi_i, gm, d, n_e):
    """[[P_ii, Psi_i], [Psi_i^T, Gamma_e]] ((d + n_e)^2) from entry lists / a matrix."""
    pe = Psi_i.entries()
    out = []
    for r in range(d):
        out.extend(Pii[r * d:(r + 1) * d]); out.extend(pe[r * n_e:(r + 1) * n_e])
    for r in range(n_e):
        out.extend(pe[a * n_e + r] for a in range(d)); out.extend(gm[r * n_e:(r + 1) * n_e])
    return F.mat(d + n_e, d + n_e, out)


#: Exact arithmetic on a dense state of at most this size (homogeneous dimension n~) runs
#: :func:`_propagate_integer`, larger states and balls :func:`_propagate_blocks`. Measured
#: (benchmarks/bench_exact.py, Run model, K = 5): N = 2, d = 1, T = 200 (n~ = 4) 0.18 s against
#: 4.7 s; N = 8, d = 4 (37) 0.57 against 1.5 s; N = 10, d = 5 (56) 3.5 against 5.9 s; N = 20,
#: d = 5 (106) 6.4 against 4.7 s (the dense round's O(n~^3) overtakes the blocks' O(N^2 d^3)).
INTEGER_MAX_STATE = 64


def _validate_round_args(problem, S, K, T, eta_l, eta_g, sigma, need_eta_g_ge1):
    _check_quadratic(problem)
    N, S = check_participation(problem.N, S)
    K = check_int("K", K, minimum=1)
    T = check_int("T", T, minimum=0)
    check_positive("eta_l", eta_l)
    if need_eta_g_ge1:
        check_global_step(eta_g)
    else:
        check_positive("eta_g", eta_g)
    check_nonnegative("sigma", sigma)
    return N, S, K, T


def _sampled_round_moments(problem, sigma, *, S, K, T, eta_l, eta_g, x0, c0, noise_cov, variant,
                           field=None, prec=128, warm_start=False, algorithm="", engine="auto",
                           check=None):
    F = field or choose_field([sigma, eta_l, eta_g, x0, c0, noise_cov], problem, prec)
    N, d = problem.N, problem.d
    with F.active():
        A, b = _problem_data(F, problem)
        xs, fstar = _minimiser(F, problem, A, b)
        Sig = _noise_covariances(F, problem, sigma, noise_cov)
        x0v = _vector(F, "x0", x0, d)
        if variant == "fedavg":
            c0v = None
        elif warm_start:
            c0v = np.array([A[i].dot(x0v) - b[i] for i in range(N)], dtype=object).reshape(N, d)
        elif c0 is None:
            c0v = _zeros(F, N, d)
        else:
            c0v = _controls(F, "c0", c0, N, d)
        Phi, Gam = _stat_forms(F, A, b, fstar)
        if engine == "auto":
            n = d * (1 + (N if variant != "fedavg" else 0) + (1 if variant in ("I", "II") else 0)) + 1
            engine = "integer" if F.exact and n <= INTEGER_MAX_STATE else "blocks"
        if engine in ("dense", "integer"):  # dense: the reference engine (tests)
            model = _build_model(F, problem, A, b, Sig, S=S, K=K, eta_l=eta_l, eta_g=eta_g, x0=x0v, c0=c0v,
                                 warm_start=warm_start, variant=variant)
            run = _propagate_integer if engine == "integer" else _propagate
            gaps, gsq, means = run(F, model, N=N, S=S, T=T, Phi=Phi, Gam=Gam)
        else:
            bm = _build_block_model(F, problem, A, b, Sig, S=S, K=K, eta_l=eta_l, eta_g=eta_g, x0=x0v,
                                    c0=c0v, warm_start=warm_start, variant=variant)
            gaps, gsq, means = _propagate_blocks(F, bm, N=N, S=S, T=T, Phi=Phi, Gam=Gam, check=check)
        pub = F.public
        return MomentResult(gaps=[pub(v) for v in gaps], grad_sq=[pub(v) for v in gsq], exact=F.exact,
                            arithmetic=F.name, algorithm=algorithm,
                            mean_x=[[pub(v) for v in m] for m in means])


def _sigma_sq_cov(problem, sigma, sigma_sq, noise_cov):
    """(sigma, noise_cov) with ``sigma_sq`` (sigma^2, keyword of the public functions) turned into
    the isotropic covariance (sigma_sq/d) I, exact when sigma_sq is rational. InputError when
    sigma_sq is combined with a nonzero sigma or with noise_cov."""
    if sigma_sq is None:
        return sigma, noise_cov
    if noise_cov is not None or (sigma is not None and sigma != 0):
        raise InputError("sigma_sq", "give one of sigma, sigma_sq (= sigma^2) and noise_cov")
    _, cov, _, _ = _noise(problem, None, sigma_sq)
    return 0, cov


def scaffold_run_moments(problem, sigma=0, *, S, K, T, eta_l, eta_g, x0=None, c0=None, noise_cov=None,
                         field=None, prec=128, sigma_sq=None) -> MomentResult:
    """Exact moments of the seed-000 ``Run`` model (SCAFFOLD option II, average-gradient form).

    Every round: virtual paths of all N clients, then a uniform S-subset; selected clients'
    controls become the average of their K oracle samples; x^{r+1} = x^r + (eta_g/S) sum over
    the sample of (y_{i,K} - x^r).

    Parameters
    ----------
    problem : QuadraticProblem
        N quadratic clients in dimension d (rational data -> exact arithmetic).
    sigma : rational, float or sympy expression
        Oracle noise level: Sigma_i = (sigma^2/d) I (the :class:`GaussianOracle` law).
    S, K, T : int
        Clients per round, local steps, rounds.
    eta_l, eta_g : scalars
        Local and global step sizes (eta_g >= 1 as in seed 000).
    x0 : (d,) or None
        Deterministic start (zeros if None).
    c0 : (N, d) or None
        Deterministic initial controls; ``None`` means the K-sample warm start at x0
        (mean grad f_i(x0), covariance Sigma_i / K).
    noise_cov : (d, d) or (N, d, d), optional
        Overrides sigma: the per-client noise covariance.
    sigma_sq : rational, optional
        sigma^2 instead of sigma (Sigma_i = (sigma_sq/d) I): exact when sigma^2 is rational
        although sigma is not (sigma_sq = 2).
    field : ExactField | BallField, optional
        Force an arithmetic (default: exact iff all inputs are rational).
    prec : int
        Bits of the ball arithmetic when it is used.

    Returns
    -------
    MomentResult with gaps[r] = E[f(x^r)] - f* and grad_sq[r] = E||grad f(x^r)||^2, r = 0..T.

    Raises
    ------
    InputError
        Non-quadratic problem, S outside 1..N, K < 1, T < 0, eta_l <= 0, eta_g < 1, sigma < 0,
        wrong shapes of x0/c0/noise_cov.

    Source: seed 000 (``SCAFFOLD.Run``); Karimireddy et al., SCAFFOLD, Appendix E, PDF pp. 25-26.
    """
    sigma, noise_cov = _sigma_sq_cov(problem, sigma, sigma_sq, noise_cov)
    N, S, K, T = _validate_round_args(problem, S, K, T, eta_l, eta_g, sigma, True)
    return _sampled_round_moments(problem, sigma, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=c0,
                                  noise_cov=noise_cov, variant="run", field=field, prec=prec,
                                  warm_start=c0 is None, algorithm="scaffold_run")


def scaffold_moments(problem, sigma=0, *, S, K, T, eta_l, eta_g, option="II", x0=None, c0=None,
                     noise_cov=None, field=None, prec=128, sigma_sq=None) -> MomentResult:
    """Exact moments of seed-002 SCAFFOLD (Algorithm 1), control update option ``"I"`` or ``"II"``.

    The server control c is propagated as its own state block (c^r = c^{r-1} + (S/N) Delta c),
    not replaced by the mean of the client controls. Option I: c_i^+ = g_i(x) (a fresh oracle
    sample at the round-start model); option II: c_i^+ = c_i - c + (x - y_{i,K})/(K eta_l).
    ``c0=None`` means zero controls (the procedure's permitted default). Parameters, return
    value and errors as in :func:`scaffold_run_moments` (including ``sigma_sq``; here eta_g > 0
    suffices).

    Source: seed 002 "SCAFFOLD"; Karimireddy et al., SCAFFOLD, Algorithm 1, PDF p. 4.
    """
    if option not in ("I", "II"):
        raise InputError("option", f"must be 'I' or 'II', got {option!r}")
    sigma, noise_cov = _sigma_sq_cov(problem, sigma, sigma_sq, noise_cov)
    N, S, K, T = _validate_round_args(problem, S, K, T, eta_l, eta_g, sigma, False)
    return _sampled_round_moments(problem, sigma, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=c0,
                                  noise_cov=noise_cov, variant=option, field=field, prec=prec,
                                  warm_start=False, algorithm=f"scaffold-{option}")


def fedavg_moments(problem, sigma=0, *, S, K, T, eta_l, eta_g, x0=None, noise_cov=None, field=None,
                   prec=128, sigma_sq=None) -> MomentResult:
    """Exact moments of FedAvg in uniform-client mode:
    x_r = x_{r-1} + (eta_g/S) sum_{i in S_r} (y_{i,K} - x_{r-1}), y_{i,k} = y_{i,k-1} - eta_l g_i(y_{i,k-1}).

    Parameters, return value and errors as in :func:`scaffold_run_moments` (no controls;
    eta_g > 0). Unselected clients' paths are never formed by the algorithm; since the sample
    is independent of the oracle randomness they may be treated as virtual paths.

    Source: seed 002 "Federated averaging" (uniform-client analysis mode); McMahan et al. 2017.
    """
    sigma, noise_cov = _sigma_sq_cov(problem, sigma, sigma_sq, noise_cov)
    N, S, K, T = _validate_round_args(problem, S, K, T, eta_l, eta_g, sigma, False)
    return _sampled_round_moments(problem, sigma, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=None,
                                  noise_cov=noise_cov, variant="fedavg", field=field, prec=prec,
                                  warm_start=False, algorithm="fedavg")
