"""The untrusted floating-point side of :mod:`.certificate`: SDP solves (cvxpy) on an
:class:`.exact_pep.ExactPEP`, and the exact rationalisation of their answers.

Nothing here is trusted: a wrong face, a poor dual point or a bad rounding only makes
:func:`.certificate.verify_certificate` refuse the candidate.

* :func:`min_tau` -- the PEP's value: the smallest τ with a dual certificate (numerical).
* :func:`face_basis` -- a rational basis W (r × n) of the span of all feasible Gram matrices with
  τ·init - metric ≤ 0 (a maximal-rank one, from an interior-point solve). Every certificate's Q
  satisfies Q·w = 0 for w in that span (⟨Q, G⟩ = τ·init - metric + Σ λ I ≤ 0 there), so these
  equalities are imposed exactly (facial reduction).
* :func:`interior_dual` -- multipliers λ ≥ 0 at fixed τ maximising the smallest eigenvalue of Q
  on the complement of the face (the margin the rounding may use).
* :func:`project_multipliers` -- λ rounded to rationals, small ones set to 0, then the least-norm
  exact correction onto {function-value coefficients = 0, Q·w = 0 for w in W} (python-flint).
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from fractions import Fraction

import numpy as np

from .exact_pep import ExactPEP, Form, gram_matrix
from .solver import _solver_kwargs

__all__ = ["OracleError", "min_tau", "face_basis", "interior_dual", "project_multipliers"]


class OracleError(Exception):
    """The SDP oracle did not return a usable answer (status, rationalisation)."""


def _float_form(f: Form, n: int, nF: int):
    M = np.zeros((n, n))
    for (a, b), v in f.gram.items():
        if a == b:
            M[a, a] += float(v)
        else:
            M[a, b] += float(v) / 2
            M[b, a] += float(v) / 2
    fv = np.zeros(nF)
    for j, v in f.fval.items():
        fv[j] += float(v)
    return M, fv, float(f.const)


def _arrays(pep: ExactPEP):
    n, nF = len(pep.leaves), len(pep.fvalues)
    cons = [_float_form(f, n, nF) for _, f in pep.constraints]
    Mk = np.array([c[0].reshape(-1, order="F") for c in cons]).T if cons else np.zeros((n * n, 0))
    Fk = np.array([c[1] for c in cons]).T if cons else np.zeros((nF, 0))
    ck = np.array([c[2] for c in cons])
    return n, nF, Mk, Fk, ck, _float_form(pep.init, n, nF), _float_form(pep.metric, n, nF)


def _solve(prob, solver, tol):
    import cvxpy as cp


    kw = _solver_kwargs(solver, tol, None) if solver in ("CLARABEL", "SCS") else {}
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            prob.solve(solver=solver, **kw)
    except cp.error.SolverError as exc:
        raise OracleError(f"SDP oracle failed: {exc}") from None
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise OracleError(f"SDP oracle status {prob.status!r}")


def _dual_parts(pep, tau):
    """cvxpy variables and expressions of the dual at fixed or free τ."""
    import cvxpy as cp

    n, nF, Mk, Fk, ck, (Mi, _, ci), (Mm, fm, cm) = _arrays(pep)
    lam = cp.Variable(Mk.shape[1], nonneg=True)
    t = cp.Variable() if tau is None else float(tau)
    Qvec = t * Mi.reshape(-1, order="F") - Mm.reshape(-1, order="F") + Mk @ lam
    Q = cp.reshape(Qvec, (n, n), order="F")
    cons = [Fk @ lam == fm] if nF else []
    cons.append(t * ci - cm + ck @ lam >= 0)
    return lam, t, Q, cons, n


def min_tau(pep: ExactPEP, *, solver: str = "CLARABEL", tol: float = 1e-8) -> float:
    """Numerical value of the PEP: min τ such that τ·init - metric + Σ λ I = ⟨Q, G⟩ + slack with
    λ ≥ 0, Q ⪰ 0, slack ≥ 0 (the dual SDP; floats, untrusted)."""
    import cvxpy as cp

    lam, t, Q, cons, n = _dual_parts(pep, None)
    prob = cp.Problem(cp.Minimize(t), cons + [(Q + Q.T) / 2 >> 0])
    _solve(prob, solver, tol)
    return float(t.value)


def face_basis(pep: ExactPEP, tau, *, solver: str = "CLARABEL", tol: float = 1e-8,
               rank_tol: float = 1e-2, max_den: int = 1000, restrict: bool = False) -> list:
    """Rational basis (list of r rows of n Fractions, reduced row echelon form) of the range of a
    maximal-rank G ⪰ 0 with τ·init(G) - metric(G, F) ≤ 0 and I_k(G, F) ≤ 0 for some F (trace
    normalised). ``restrict``: for τ above the PEP's value the face lies in init(G) = 0 (init is a
    PSD form); G is then searched as K S Kᵀ with K an orthonormal basis of the exact kernel of init's
    matrix (better conditioned when init weighs some directions very little). The entries are rounded to the simplest rationals within a tolerance tried from
    1e-5 up to 1e-2 (the solve is inaccurate on these degenerate problems; a wrong rounding only
    makes the verification fail). Raises :class:`OracleError` if the solve fails or the range is
    not a subspace with small rational coordinates."""
    import cvxpy as cp

    n, nF, Mk, Fk, ck, (Mi, _, ci), (Mm, fm, cm) = _arrays(pep)
    # a block-diagonal Gram matrix (pep.blocks(), e.g. the client-symmetric reduction) is searched
    # block by block: G = Σ_b B_b S_b B_bᵀ with B_b the block's coordinates (times init's kernel)
    blocks = pep.blocks() if hasattr(pep, "blocks") else [list(range(n))]
    Bs = []
    for lv in blocks:
        Bb = np.eye(n)[:, lv]
        if restrict:
            Bb = Bb @ _init_kernel(pep, lv)
        if Bb.shape[1]:
            Bs.append(Bb)
    if not Bs:
        return []
    Ss = [cp.Variable((Bb.shape[1], Bb.shape[1]), PSD=True) for Bb in Bs]
    G = sum(Bb @ Sb @ Bb.T for Bb, Sb in zip(Bs, Ss))
    trace = sum(cp.trace(Sb) for Sb in Ss)
    F = cp.Variable(nF) if nF else None
    g = cp.vec(G, order="F")
    cons = [trace <= 1]
    lin = Mk.T @ g
    if nF:
        lin = lin + Fk.T @ F
        cons.append(cp.abs(F) <= 10)
    if Mk.shape[1]:
        cons.append(lin <= 0)
    met = Mm.reshape(-1, order="F") @ g + (fm @ F if nF else 0)
    if restrict:
        cons.append(met >= 0)
    else:
        cons.append(float(tau) * (Mi.reshape(-1, order="F") @ g) - met <= 0)
    prob = cp.Problem(cp.Maximize(trace), cons)
    _solve(prob, solver, tol)
    G = sum(Bb @ Sb.value @ Bb.T for Bb, Sb in zip(Bs, Ss))
    Gv = (G + G.T) / 2
    w, V = np.linalg.eigh(Gv)
    keep = w > rank_tol * max(w.max(), 1e-300)
    if w.max() < rank_tol:
        return []
    last = None
    for tol_q, den in ((1e-5, max_den), (1e-4, max_den), (1e-3, min(max_den, 100)), (1e-2, min(max_den, 12))):
        try:
            return _rational_row_space(V[:, keep].T, den, tol_q)
        except OracleError as exc:
            last = exc
    raise last


def _init_kernel(pep: ExactPEP, leaves=None) -> np.ndarray:
    """Orthonormal basis (n × k floats) of the kernel of init's Gram matrix (restricted to the
    leaves listed, all by default), computed exactly (python-flint integer nullspace) and then
    orthonormalised."""

    from flint import fmpz_mat

    M = gram_matrix(pep.init, len(pep.leaves))
    if leaves is not None:
        M = [[M[a][b] for b in leaves] for a in leaves]
    D = 1
    for row in M:
        for v in row:
            D = math.lcm(D, v.denominator)
    A = fmpz_mat([[int(v * D) for v in row] for row in M])
    N, k = A.nullspace()
    if k == 0:
        return np.zeros((len(M), 0))
    B = np.array([[float(int(N[i, j])) for j in range(k)] for i in range(len(M))])
    Qm, _ = np.linalg.qr(B)
    return Qm


def _rational_row_space(B: np.ndarray, max_den: int, tol: float = 1e-4) -> list:
    """Reduced row echelon form of the row space of B (r × n floats, r its rank), pivots chosen
    by complete pivoting, each entry replaced by the rational of smallest denominator (≤ max_den)
    within ``tol`` (OracleError when there is none)."""
    A = np.array(B, dtype=float)
    r, n = A.shape
    pivots = []
    work = A.copy()
    for _ in range(r):
        i, j = np.unravel_index(int(np.argmax(np.abs(work))), work.shape)
        if abs(work[i, j]) < 1e-9:
            break
        pivots.append(j)
        work = work - np.outer(work[:, j] / work[i, j], work[i])
    pivots.sort()
    P = A[:, pivots]
    E = np.linalg.solve(P, A) if len(pivots) == r else np.linalg.lstsq(P, A, rcond=None)[0]
    out = []
    for row in E:
        qrow = []
        for v in row:
            q = _simple_rational(float(v), max_den, tol)
            if q is None:
                raise OracleError(f"the face of the PEP is not spanned by small rationals (entry {v!r})")
            qrow.append(q)
        out.append(qrow)
    return out


def _simple_rational(v: float, max_den: int, tol: float) -> Fraction | None:
    """The rational of smallest denominator d ≤ max_den within tol·max(1, |v|) of v, or None."""
    eps = tol * max(1.0, abs(v))
    for d in range(1, max_den + 1):
        p = round(v * d)
        if abs(v - p / d) <= eps:
            return Fraction(p, d)
    return None


def interior_dual(pep: ExactPEP, tau, W: list, *, solver: str = "CLARABEL", tol: float = 1e-8,
                  cap: float = 1.0) -> tuple[np.ndarray, float]:
    """Multipliers λ ≥ 0 at fixed τ with Q·w = 0 (w in W) maximising t ≤ cap subject to
    Bᵀ Q B ⪰ t I (B an orthonormal basis of W's orthogonal complement). Returns (λ, t)."""
    import cvxpy as cp

    lam, _, Q, cons, n = _dual_parts(pep, tau)
    Wf = np.array([[float(v) for v in row] for row in W]) if W else np.zeros((0, n))
    if len(W):
        cons.append(Q @ Wf.T == 0)
        _, s, Vt = np.linalg.svd(Wf)
        B = Vt[len(W):].T
    else:
        B = np.eye(n)
    t = cp.Variable()
    k = B.shape[1]
    if k:
        S = B.T @ Q @ B
        cons.append((S + S.T) / 2 - t * np.eye(k) >> 0)
    cons.append(t <= cap)
    prob = cp.Problem(cp.Maximize(t), cons)
    _solve(prob, solver, tol)
    return np.maximum(np.asarray(lam.value, dtype=float), 0.0), float(t.value) if k else cap


def _pivots(M) -> list:
    """Pivot columns of the reduced row echelon form of a python-flint matrix."""
    R, rank = M.rref()
    out, c = [], 0
    for i in range(rank):
        while R[i, c] == 0:
            c += 1
        out.append(c)
    return out


def project_multipliers(pep: ExactPEP, tau, W: list, lam_f, max_den, *, drop: float = 1e-7,
                        basic: bool = True) -> list | None:
    """Round λ (floats) to rationals (``limit_denominator(max_den)``; ``None``: exact binary value),
    set those below ``drop`` × max(1, max λ) to 0, and correct the rest exactly onto A λ = b
    (``basic``: only a basis of columns chosen largest multipliers first, a square system whose
    solution keeps the denominators small; otherwise the least-norm correction): function-value coefficients of τ·init - metric + Σ λ I zero and
    (Q·w)_a = 0 for each w in W. Returns the list of Fractions (None if A λ = b has no solution on
    the support)."""
    from flint import fmpq, fmpq_mat

    tau = Fraction(tau)
    lam_f = np.asarray(lam_f, dtype=float)
    cut = drop * max(1.0, float(lam_f.max()) if lam_f.size else 1.0)
    support = [k for k, v in enumerate(lam_f) if v > cut]
    lam = [Fraction(0)] * len(lam_f)
    for k in support:
        q = Fraction(float(lam_f[k]))
        lam[k] = q.limit_denominator(max_den) if max_den else q
    n = len(pep.leaves)
    rows, rhs = [], []
    cons = [f for _, f in pep.constraints]
    base = Fraction(1) * 0
    # function values: Σ_k λ_k fk[j] = metric[j] - τ init[j]
    for j in range(len(pep.fvalues)):
        rows.append([cons[k].fval.get(j, base) for k in support])
        rhs.append(pep.metric.fval.get(j, base) - tau * pep.init.fval.get(j, base))
    if W:
        M0 = gram_matrix(tau * pep.init - pep.metric, n)
        for w in W:
            block = [[Fraction(0)] * len(support) for _ in range(n)]
            for col, k in enumerate(support):       # (M_k w)_a from the sparse Gram coefficients
                for (a, b), v in cons[k].gram.items():
                    if a == b:
                        if w[a]:
                            block[a][col] += v * w[a]
                    else:
                        if w[b]:
                            block[a][col] += v * w[b] / 2
                        if w[a]:
                            block[b][col] += v * w[a] / 2
            nz = [(b, wb) for b, wb in enumerate(w) if wb != 0]
            for a in range(n):
                rows.append(block[a])
                rhs.append(-sum((M0[a][b] * wb for b, wb in nz), Fraction(0)))
    keep = [i for i, row in enumerate(rows) if any(v != 0 for v in row) or rhs[i] != 0]
    rows, rhs = [rows[i] for i in keep], [rhs[i] for i in keep]
    if not rows:
        return lam
    if not support:
        return None
    m = len(support)

    def fm(x):
        x = Fraction(x)
        return fmpq(x.numerator, x.denominator)

    A = fmpq_mat(len(rows), m, [fm(v) for row in rows for v in row])
    b = fmpq_mat(len(rows), 1, [fm(v) for v in rhs])
    x = fmpq_mat(m, 1, [fm(lam[k]) for k in support])
    resid = b - A * x
    ind = _pivots(A.transpose())                   # independent rows of A
    if basic:   # correct only a basis of columns, the largest multipliers first: small denominators
        order = sorted(range(m), key=lambda j: -float(lam_f[support[j]]))
        Ap = fmpq_mat(len(ind), m, [A[i, j] for i in ind for j in order])
        cols = [order[j] for j in _pivots(Ap)]
        AB = fmpq_mat(len(ind), len(cols), [A[i, j] for i in ind for j in cols])
        try:
            d = AB.solve(fmpq_mat(len(ind), 1, [resid[i, 0] for i in ind]))
        except ZeroDivisionError:
            return None
        delta = [fmpq(0)] * m
        for t, j in enumerate(cols):
            delta[j] = d[t, 0]
        x = x + fmpq_mat(m, 1, delta)
    else:       # least-norm correction
        Ai = fmpq_mat(len(ind), m, [A[i, j] for i in ind for j in range(m)])
        ri = fmpq_mat(len(ind), 1, [resid[i, 0] for i in ind])
        try:
            y = (Ai * Ai.transpose()).solve(ri)
        except ZeroDivisionError:
            return None
        x = x + Ai.transpose() * y
    if b - A * x != fmpq_mat(len(rows), 1):
        return None
    for i, k in enumerate(support):
        v = x[i, 0]
        lam[k] = Fraction(int(v.p), int(v.q))
    return lam
