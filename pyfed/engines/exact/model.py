r"""Exact-moment engine, model building: the affine round maps of federated algorithms on quadratic clients.

This module holds the derivation (below) and builds, for one algorithm and instance, the
matrices that :mod:`pyfed.engines.exact.propagation` propagates.


For quadratic clients f_i(x) = 1/2 x^T A_i x - b_i^T x with additive oracle noise
g_i(y) = A_i y - b_i + xi (xi mean zero, covariance Sigma_i, fresh at every call, independent
across calls and clients; :class:`pyfed.oracles.GaussianOracle` has Sigma_i = (sigma^2/d) I),
every expectation in the SCAFFOLD statements is a finite computation. This module computes
E[f(x^r)] - f(x*) and E||grad f(x^r)||^2 for every round r <= T *exactly* (python-flint
``fmpq_mat``) when the data, step sizes and covariances are rational, and in certified ball
arithmetic (python-flint ``arb_mat``) otherwise.

Derivation (the update equations implemented below)
---------------------------------------------------

**State.** z = (x, c_1, ..., c_N) in R^{d(N+1)} (seed-002 SCAFFOLD also carries the server
control c as a separate block, giving d(N+2); FedAvg carries x only). Homogeneous coordinates
z~ = (z, 1) make every affine map linear; the second moment P = E[z~ z~^T] (size n~ x n~,
n~ = dim z + 1) contains the mean E[z] in its last column and E[z z^T] in its leading block.

**Virtual paths (seed 000).** In round r every client i runs, from y_{i,0} = x,

    y_{i,k+1} = y_{i,k} - eta_l (A_i y_{i,k} - b_i + xi_{i,k} - c_i + c),   c = (1/N) sum_j c_j
              = D_i y_{i,k} + eta_l (b_i + c_i - c) - eta_l xi_{i,k},        D_i = I - eta_l A_i,

so y_{i,K} = Y_i z~ - eta_l sum_{j<K} D_i^{K-1-j} xi_{i,j}: an affine function of the round-start
state plus a linear combination of the K fresh noises. The new control (seed 000: average of
the K oracle samples; seed 002 option II: c_i - c + (x - y_{i,K})/(K eta_l), the same random
variable; option I: a fresh sample g_i(x)) is likewise affine in z~ plus noise. FedAvg runs the
same path without the correction (c_i - c).

**One round.** With delta_i = 1{i in S_r} the round is

    z~' = z~ + sum_i delta_i w_i,    w_i = L_i z~ + H_i xi_i,

where w_i puts (eta_g/S)(y_{i,K} - x) in the x block and (c_i^+ - c_i) in client i's control
block (and (1/N)(c_i^+ - c_i) in the server-control block of seed 002); L_i has a zero last row
and xi_i stacks client i's noises of the round. H_i xi_i has mean zero and covariance
Q_i = H_i (I (x) Sigma_i) H_i^T.

**Moments.** The sample is independent of the virtual paths given the past (seed 000: its
conditional law given the completed path history is uniform), the noises are fresh (mean
zero, independent of z~ and of each other across clients and steps). Hence, with
p = E[delta_i] = S/N and p2 = E[delta_i delta_j] = S(S-1)/(N(N-1)) for i != j (0 when N = 1),

    E[z~'] = (I + p L) E[z~],                                   L = sum_i L_i,
    P'     = P + p (L P + P L^T) + sum_{i,j} E[delta_i delta_j] E[w_i w_j^T]-part
           = P + p (L P + P L^T) + p2 L P L^T + (p - p2) sum_i L_i P L_i^T + p sum_i Q_i.

The key step: E[delta_i delta_j w_i w_j^T | past] = E[delta_i delta_j] E[w_i w_j^T | past]
(sample independent of the paths), E[w_i w_j^T | past] = L_i z~ z~^T L_j^T + [i = j] Q_i
(noise of distinct clients independent and mean zero), and the cross terms
E[delta_i z~ (H_i xi_i)^T] vanish. Each L_i is nonzero only on the rows R_i of the x block,
client i's block (and the server-control block), so sum_i L_i P L_i^T is assembled from the
small products M_i P M_i^T (M_i = rows R_i of L_i).

**Statistics.** With Abar = mean A_i, bbar = mean b_i and X = E[x~ x~^T] (the x rows/columns
and the homogeneous one of P),

    E[f(x)] - f* = tr(Phi X),  Phi = [[Abar/2, -bbar/2], [-bbar^T/2, -f*]],
    E||grad f(x)||^2 = tr(Gamma X), Gamma = [[Abar^2, -Abar bbar], [-bbar^T Abar, ||bbar||^2]].

**Initial state.** x^0 deterministic; c^0 given (deterministic) or, for the K-sample warm
start of seed 000, c_i^0 = (1/K) sum_k g_i(x^0): mean grad f_i(x^0), covariance Sigma_i / K,
independent across clients.

**Local SGD (Stich, seed 002).** Worker k's step x <- x - eta_t (1/b) sum_q grad f_{i_q}(x)
is x~ <- M~ x~ with M~ = (1/b) sum_q M_{i_q}, M_j = [[I - eta_t A_j, eta_t b_j], [0, 1]], i_q
uniform on the n components, independent. Workers are exchangeable, so two matrices suffice:
P_s = E[x~^k x~^k^T] and P_c = E[x~^k x~^l^T] (k != l):

    P_s' = (1/b) (1/n) sum_j M_j P_s M_j^T + (1 - 1/b) Mbar P_s Mbar^T,   P_c' = Mbar P_c Mbar^T,

and at a synchronisation time both become (1/W) P_s + (1 - 1/W) P_c (the law of the
average xbar of the W workers), which is also the second moment reported for xbar_t.

**Block structure.** Client i's increment reads only its own control c_i and the shared
features e = (x, mean control or server control, 1), and the sample enters only through
E[delta_i] and E[delta_i delta_j]. So the second moment is propagated in blocks
(:class:`_BlockModel`, :func:`pyfed.engines.exact.propagation._propagate_blocks`): the
(N+1)^2 blocks of d x d cost O(N^2 d^3) per round instead of the dense O((N d)^3) of
:func:`_build_model` + ``_propagate`` (kept as the reference; the tests compare both exactly).

**Arithmetic and cost.** Exact entries grow by roughly 100-250 decimal digits per round on
d = 5, N = 10 instances (the denominators of eta_l and of the data compound), so exact cost
grows like n~^3 T^2; :func:`decide_convex` / :func:`decide_nonconvex` therefore use exact
rationals when (n~)^3 T^2 <= :data:`EXACT_BUDGET` (a few seconds) and certified balls beyond
(``arithmetic="exact"`` forces exact). Both are certified decisions (``Verdict.exact``).
Balls lose relative precision at a constant rate per round after a short transient; the
verdicts measure that rate on the instance and start at the precision round T needs
(:func:`pyfed.engines.exact.verdict._decide_in_balls`).

**Assumptions beyond the seeds.** Oracle noise is additive, state-independent, mean zero with
a known covariance, and independent across clients and calls (the :class:`GaussianOracle` law;
seed 002 does not require independence across clients, this engine does).

Sources: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Algorithm 1 (PDF p. 4)
and Appendix E (PDF pp. 25-26, eqs. (18)-(22)); seed 000 (the ``Run`` model); seed 002
(FedAvg uniform-client mode, SCAFFOLD options I/II, Local SGD of Stich, Algorithm 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...errors import InputError, check_nonnegative
from ...exact import all_exact
from ...problems.quadratic import QuadraticProblem
from ...theory import noise_variance
from .arith import BallField, ExactField, fraction_of

# ----------------------------------------------------------------------------------------
# inputs
# ----------------------------------------------------------------------------------------

def _is_rational(v) -> bool:
    """Rational in pyfed's sense: int/Fraction/str/sympy.Rational/fmpq (floats are not)."""
    return all_exact([v])


def choose_field(values, problem=None, prec: int = 128):
    """Exact field if every scalar in ``values`` (arrays flattened) and the problem data are
    rational, else a :class:`BallField` at ``prec`` bits."""
    flat = []
    for v in values:
        if v is None:
            continue
        if isinstance(v, (list, tuple, np.ndarray)):
            flat.extend(np.asarray(v, dtype=object).ravel().tolist())
        else:
            flat.append(v)
    ok = all(_is_rational(v) for v in flat)
    if problem is not None and not getattr(problem, "exact", False):
        ok = False
    return ExactField() if ok else BallField(prec)


def _check_quadratic(problem):
    if not isinstance(problem, QuadraticProblem):
        raise InputError("problem", "the exact-moment engine needs a QuadraticProblem (A_i, b_i data)")


def _problem_data(F, problem):
    """A (N, d, d), b (N, d) as object arrays of field scalars; x*, f* in the field."""
    N, d = problem.N, problem.d
    if problem.exact:
        A = np.array([[[F.scalar(v) for v in row] for row in Ai] for Ai in problem.A_exact], dtype=object).reshape(N, d, d)
        b = np.array([[F.scalar(v) for v in bi] for bi in problem.b_exact], dtype=object).reshape(N, d)
    else:
        A = np.array([[[F.scalar(float(v)) for v in row] for row in Ai] for Ai in problem.A], dtype=object).reshape(N, d, d)
        b = np.array([[F.scalar(float(v)) for v in bi] for bi in problem.b], dtype=object).reshape(N, d)
    return A, b


def _minimiser(F, problem, A, b):
    """(x*, f*) in the field: exact from the problem, or a certified arb_mat solve."""
    N, d = problem.N, problem.d
    if problem.exact:  # exact rational x* (balls enclose it tightly)
        xs = np.array([F.scalar(v) for v in problem.x_star_exact], dtype=object)
        return xs, F.scalar(problem.f_star)
    Abar = A.sum(axis=0) * F.scalar(Fraction(1, N))
    bbar = b.sum(axis=0) * F.scalar(Fraction(1, N))
    M = F.mat(d, d, Abar.ravel().tolist())
    rhs = F.mat(d, 1, bbar.tolist())
    sol = M.solve(rhs)
    xs = np.array([sol[j, 0] for j in range(d)], dtype=object)
    fstar = -sum((bbar[j] * xs[j] for j in range(d)), F.scalar(0)) * F.scalar(Fraction(1, 2))
    return xs, fstar


def _noise_covariances(F, problem, sigma, noise_cov):
    """(N, d, d) object array of field scalars: per-client noise covariance Sigma_i."""
    N, d = problem.N, problem.d
    if noise_cov is not None:
        C = np.asarray(noise_cov, dtype=object)
        if C.shape == (d, d):
            C = np.array([C] * N, dtype=object)
        if C.shape != (N, d, d):
            raise InputError("noise_cov", f"must have shape (d, d) or (N, d, d) = ({N}, {d}, {d}), got {C.shape}")
        out = np.empty((N, d, d), dtype=object)
        for idx, v in np.ndenumerate(C):
            out[idx] = F.scalar(v)
        for i in range(N):
            for j in range(d):
                for k in range(d):
                    if fraction_of(C[i, j, k]) is not None and fraction_of(C[i, k, j]) is not None \
                            and fraction_of(C[i, j, k]) != fraction_of(C[i, k, j]):
                        raise InputError("noise_cov", f"covariance of client {i} is not symmetric")
        return out
    s = F.scalar(sigma)
    var = s * s * F.scalar(Fraction(1, d)) if d else F.scalar(0)
    out = np.empty((N, d, d), dtype=object)
    for i in range(N):
        for j in range(d):
            for k in range(d):
                out[i, j, k] = var if j == k else F.scalar(0)
    return out


def _vector(F, name, v, d, default_zero=True):
    if v is None:
        return np.array([F.scalar(0)] * d, dtype=object)
    a = np.asarray(v, dtype=object).ravel()
    if a.shape != (d,):
        raise InputError(name, f"must have shape ({d},), got {np.asarray(v, dtype=object).shape}")
    return np.array([F.scalar(x) for x in a], dtype=object)


def _controls(F, name, c0, N, d):
    a = np.asarray(c0, dtype=object)
    if a.shape != (N, d):
        raise InputError(name, f"must have shape (N, d) = ({N}, {d}), got {a.shape}")
    return np.array([[F.scalar(x) for x in row] for row in a], dtype=object).reshape(N, d)


def _eye(F, d):
    one, zero = F.scalar(1), F.scalar(0)
    return np.array([[one if i == j else zero for j in range(d)] for i in range(d)], dtype=object).reshape(d, d)


def _zeros(F, r, c):
    z = F.scalar(0)
    return np.array([[z] * c for _ in range(r)], dtype=object).reshape(r, c)


# ----------------------------------------------------------------------------------------
# the sampled-round engine (SCAFFOLD run / options I, II / FedAvg)
# ----------------------------------------------------------------------------------------

@dataclass
class _Model:
    n: int                     # homogeneous dimension n~
    x_idx: list                # indices of x in the state
    rows: list                 # per client: list of row indices R_i
    M: list                    # per client: compact rows of L_i, object array (|R_i|, n~)
    Q: np.ndarray              # sum_i Q_i, object (n~, n~)
    P0: np.ndarray             # initial second moment, object (n~, n~)


def _build_model(F, problem, A, b, Sig, *, S, K, eta_l, eta_g, x0, c0, warm_start, variant):
    """Assemble L_i (compact), sum_i Q_i and P0 for one of the variants
    ``"run"`` (seed 000), ``"II"``/``"I"`` (seed 002, explicit server control block),
    ``"fedavg"`` (no controls)."""
    N, d = problem.N, problem.d
    has_c = variant != "fedavg"
    explicit_c = variant in ("I", "II")
    n_state = d * (1 + (N if has_c else 0) + (1 if explicit_c else 0))
    n = n_state + 1
    hom = n_state
    xs = list(range(d))
    cblk = [list(range(d + i * d, d + (i + 1) * d)) for i in range(N)] if has_c else []
    cs = list(range(d * (N + 1), d * (N + 2))) if explicit_c else []
    one = F.scalar(1)
    zero = F.scalar(0)
    el, eg = F.scalar(eta_l), F.scalar(eta_g)
    gS = eg * F.scalar(Fraction(1, S))
    invN = F.scalar(Fraction(1, N))
    invK = F.scalar(Fraction(1, K))
    I = _eye(F, d)

    def sel(idx):
        m = _zeros(F, d, n)
        for a, j in enumerate(idx):
            m[a, j] = one
        return m

    X = sel(xs)
    if has_c:
        C = [sel(blk) for blk in cblk]
        if explicit_c:
            Cbar = sel(cs)
        else:
            Cbar = _zeros(F, d, n)
            for Ci in C:
                Cbar = Cbar + Ci
            Cbar = Cbar * invN
    rows, Ms, Q = [], [], _zeros(F, n, n)
    for i in range(N):
        Ai = A[i]
        Bi = _zeros(F, d, n)
        for a in range(d):
            Bi[a, hom] = b[i, a]
        D = I - Ai * el
        drift = Bi * el
        if has_c:
            drift = drift + (C[i] - Cbar) * el
        Y = X.copy()
        noiseY = []        # noiseY[j]: d x d coefficient of xi_{i,j} in the current y
        G = _zeros(F, d, n)  # sum of the expected parts of g_{i,k}
        noiseG = []        # noiseG[j]: coefficient of xi_{i,j} in sum_k g_{i,k}
        for k in range(K):
            G = G + Ai.dot(Y) - Bi
            noiseG = [ng + Ai.dot(ny) for ng, ny in zip(noiseG, noiseY)] + [I.copy()]
            Y = D.dot(Y) + drift
            noiseY = [D.dot(ny) for ny in noiseY] + [I * (-el)]
        # rows of w_i and their noise coefficients (one block per noise variable)
        R = list(xs)
        blocks = [(Y - X) * gS]
        nblocks = [[ny * gS for ny in noiseY]]
        extra_noise = False
        if has_c:
            if variant == "run":
                Cp = G * invK
                nCp = [ng * invK for ng in noiseG]
            elif variant == "II":
                s = one / (F.scalar(K) * el)
                Cp = C[i] - Cbar + (X - Y) * s
                nCp = [ny * (-s) for ny in noiseY]
            else:  # option I: fresh sample at the round-start model
                Cp = Ai.dot(X) - Bi
                nCp = [_zeros(F, d, d) for _ in range(K)]
                extra_noise = True
            R += cblk[i]
            blocks.append(Cp - C[i])
            nblocks.append(nCp)
            if explicit_c:
                R += cs
                blocks.append((Cp - C[i]) * invN)
                nblocks.append([m * invN for m in nCp])
        Mi = np.concatenate(blocks, axis=0)
        rows.append(R)
        Ms.append(Mi)
        # Q_i = sum over noise variables j of H_ij Sigma_i H_ij^T
        nvar = K + (1 if extra_noise else 0)
        Hs = []
        for j in range(K):
            Hs.append(np.concatenate([nb[j] for nb in nblocks], axis=0))
        if extra_noise:
            H = [_zeros(F, d, d)]
            H.append(I.copy())
            if explicit_c:
                H.append(I * invN)
            Hs.append(np.concatenate(H, axis=0))
        assert len(Hs) == nvar
        Qi = _zeros(F, len(R), len(R))
        for H in Hs:
            Qi = Qi + H.dot(Sig[i]).dot(H.T)
        for a, ra in enumerate(R):
            for c_, rc in enumerate(R):
                Q[ra, rc] = Q[ra, rc] + Qi[a, c_]
    # initial second moment
    m0 = np.array([zero] * n, dtype=object)
    m0[hom] = one
    m0[:d] = x0
    P0 = np.outer(m0, m0)
    if has_c:
        for i in range(N):
            m0[cblk[i]] = c0[i]
        if explicit_c:
            m0[cs] = c0.sum(axis=0) * invN
        P0 = np.outer(m0, m0)
        if warm_start:
            for i in range(N):
                for a, ra in enumerate(cblk[i]):
                    for c_, rc in enumerate(cblk[i]):
                        P0[ra, rc] = P0[ra, rc] + Sig[i][a, c_] * invK
                if explicit_c:  # not used by seed 002 (its c0 is deterministic); kept for completeness
                    pass
    return _Model(n=n, x_idx=xs + [hom], rows=rows, M=Ms, Q=Q, P0=P0)


def _to_mat(F, arr):
    arr = np.asarray(arr, dtype=object)
    return F.mat(arr.shape[0], arr.shape[1], arr.ravel().tolist())


def _stat_forms(F, A, b, fstar):
    """Phi, Gamma ((d+1) x (d+1) object arrays) with E f - f* = tr(Phi X), E||grad||^2 = tr(Gamma X)."""
    N, d = A.shape[0], A.shape[1]
    invN = F.scalar(Fraction(1, N))
    half = F.scalar(Fraction(1, 2))
    Abar = A.sum(axis=0) * invN
    bbar = b.sum(axis=0) * invN
    Phi = _zeros(F, d + 1, d + 1)
    Gam = _zeros(F, d + 1, d + 1)
    Phi[:d, :d] = Abar * half
    Phi[:d, d] = -bbar * half
    Phi[d, :d] = -bbar * half
    Phi[d, d] = -fstar
    A2 = Abar.dot(Abar)
    Ab = Abar.dot(bbar)
    Gam[:d, :d] = A2
    Gam[:d, d] = -Ab
    Gam[d, :d] = -Ab
    Gam[d, d] = bbar.dot(bbar)
    return Phi, Gam




# ----------------------------------------------------------------------------------------
# the block-structured model (what the propagation uses; _build_model is the dense reference)
# ----------------------------------------------------------------------------------------

@dataclass
class _BlockModel:
    r"""The round of :func:`_build_model` in block form.

    State z~ = (g, c_1, ..., c_N) with the *global* part g = (x, [s], 1) (n_g = d [+ d] + 1;
    s the separate server control of seed 002, 1 the homogeneous coordinate) and the client
    controls c_i (d each; none for FedAvg). Every quantity client i's update reads is a
    function of its own control c_i and of the *shared features* e = (x, m, 1) (n_e = d [+ d] + 1),
    m = (1/N) sum_j c_j (seed-000 Run) or m = s (seed 002); FedAvg has e = (x, 1). So the
    increment of a selected client is

        w_i = [U^g_i c_i + R^g_i e] in g,   [U_i c_i + R_i e] in c_i,   plus noise,

    (rows of g: x and s; the homogeneous row is 0), e = E_g g + E_c c. The propagation
    (:func:`pyfed.engines.exact.propagation._propagate_blocks`) keeps P_gg, P_gc, P_cc and
    needs per round O(N^2) products of d x d blocks plus products with thin (n_e-wide)
    matrices: O(N^2 d^3) instead of the dense O((N d)^3).
    """

    d: int
    N: int
    n_g: int
    n_e: int
    has_c: bool
    x_idx: list                # indices of x and of the homogeneous coordinate in g
    Ug: list                   # per client (n_g x d)
    Rg: list                   # per client (n_g x n_e)
    U: list                    # per client (d x d)
    Rc: list                   # per client (d x n_e)
    Qg: list                   # per client noise covariance blocks (n_g x n_g), (n_g x d), (d x d)
    Qgc: list
    Qc: list
    Eg: object                 # (n_e x n_g)
    Ec: object                 # (n_e x N d) or None (e does not read the controls)
    Pgg: object                # initial second moment blocks
    Pgc: object
    Pcc: object
    kappa: object = None       # run / II: c-rows = -kappa (x-rows) - m (see _build_block_model)
    explicit_s: bool = False


def _fmat(F, rows, cols, fill):
    """A field matrix from a function fill(i, j) -> scalar (or a dict of nonzeros)."""
    zero = F.scalar(0)
    if isinstance(fill, dict):
        ent = [zero] * (rows * cols)
        for (i, j), v in fill.items():
            ent[i * cols + j] = v
        return F.mat(rows, cols, ent)
    return F.mat(rows, cols, [fill(i, j) for i in range(rows) for j in range(cols)])


def _build_block_model(F, problem, A, b, Sig, *, S, K, eta_l, eta_g, x0, c0, warm_start, variant):
    """Per-client block coefficients (U^g_i, R^g_i, U_i, R_i), noise blocks and the initial
    moments of :class:`_BlockModel`, for the variants of :func:`_build_model` ("run", "II",
    "I", "fedavg"); same inputs (A, b, Sig object arrays of field scalars; x0 (d,), c0 (N, d)
    or None)."""
    N, d = problem.N, problem.d
    has_c = variant != "fedavg"
    explicit_s = variant in ("I", "II")
    n_g = d + (d if explicit_s else 0) + 1
    n_e = d + (d if has_c else 0) + 1
    hg, he = n_g - 1, n_e - 1
    one, zero = F.scalar(1), F.scalar(0)
    el, eg = F.scalar(eta_l), F.scalar(eta_g)
    gS = eg * F.scalar(Fraction(1, S))
    invN = F.scalar(Fraction(1, N))
    invK = F.scalar(Fraction(1, K))
    Id = _fmat(F, d, d, {(a, a): one for a in range(d)})
    Sx = _fmat(F, d, n_e, {(a, a): one for a in range(d)})          # e -> x
    Sm = _fmat(F, d, n_e, {(a, d + a): one for a in range(d)}) if has_c else None  # e -> m (or s)
    Zdd = F.mat(d, d)
    Zde = F.mat(d, n_e)

    def stack_rows(parts, cols):
        """Vertical stack of field matrices (list of (rows, matrix)); one matrix (sum rows x cols)."""
        ent = []
        rows = 0
        for m in parts:
            ent.extend(m.entries())
            rows += m.nrows()
        return F.mat(rows, cols, ent)

    Ug, Rg, U, Rc, Qg, Qgc, Qc = [], [], [], [], [], [], []
    for i in range(N):
        Ai = _to_mat(F, A[i])
        bcol = _fmat(F, d, n_e, {(a, he): b[i, a] for a in range(d)})  # b_i placed on the 1 of e
        D = Id - Ai * el
        drift_c = Id * el if has_c else None
        drift_e = bcol * el - (Sm * el if has_c else Zde)
        Yc, Ye = (Zdd if has_c else None), Sx
        Gc, Ge = Zdd, Zde
        for _ in range(K):
            if variant == "run":
                Gc = Gc + Ai * Yc
                Ge = Ge + Ai * Ye - bcol
            if has_c:
                Yc = D * Yc + drift_c
            Ye = D * Ye + drift_e
        noiseG = [Id]  # noise of step j: D^(K-1-j) (-eta_l) in y_K, I - eta_l A_i sum_{m<K-1-j} D^m = D^(K-1-j) in the sum
        for _ in range(K - 1):
            noiseG.insert(0, D * noiseG[0])
        noiseY = [m * (-el) for m in noiseG]
        # outputs: x rows (eta_g/S)(y_K - x); c rows w = c^+ - c_i; s rows w/N
        Ux = Yc * gS if has_c else None
        Rx = (Ye - Sx) * gS
        nx = [ny * gS for ny in noiseY]
        extra = False
        if variant == "run":
            Uc, Rcc = Gc * invK - Id, Ge * invK
            nc = [ng * invK for ng in noiseG]
        elif variant == "II":
            s_ = one / (F.scalar(K) * el)
            Uc, Rcc = Yc * (-s_), (Sx - Ye) * s_ - Sm
            nc = [ny * (-s_) for ny in noiseY]
        elif variant == "I":
            Uc, Rcc = Id * (-one), Ai * Sx - bcol
            nc = [Zdd for _ in range(K)]
            extra = True
        hrow_d = F.mat(1, d)
        hrow_e = F.mat(1, n_e)
        if has_c:
            Ug.append(stack_rows([Ux] + ([Uc * invN] if explicit_s else []) + [hrow_d], d))
            U.append(Uc)
            Rc.append(Rcc)
        Rg.append(stack_rows([Rx] + ([Rcc * invN] if explicit_s else []) + [hrow_e], n_e))
        # noise: H_j stacks the coefficient of noise variable j on (g rows, c rows)
        Hs = []
        for j in range(K):
            parts = [nx[j]] + ([nc[j] * invN] if explicit_s else []) + [F.mat(1, d)] + ([nc[j]] if has_c else [])
            Hs.append(stack_rows(parts, d))
        if extra:  # option I: the fresh sample at x enters c_i^+ (and s) only
            parts = [Zdd] + ([Id * invN] if explicit_s else []) + [F.mat(1, d)] + [Id]
            Hs.append(stack_rows(parts, d))
        Sg = _to_mat(F, Sig[i])
        nq = n_g + (d if has_c else 0)
        Q = F.mat(nq, nq)
        for H in Hs:
            Q = Q + H * Sg * H.transpose()
        qe = Q.entries()
        Qg.append(F.mat(n_g, n_g, [qe[r * nq + c] for r in range(n_g) for c in range(n_g)]))
        if has_c:
            Qgc.append(F.mat(n_g, d, [qe[r * nq + n_g + c] for r in range(n_g) for c in range(d)]))
            Qc.append(F.mat(d, d, [qe[(n_g + r) * nq + n_g + c] for r in range(d) for c in range(d)]))
    # e = E_g g + E_c c
    eg_fill = {(a, a): one for a in range(d)}
    eg_fill[(he, hg)] = one
    if explicit_s:
        eg_fill.update({(d + a, d + a): one for a in range(d)})
    Eg = _fmat(F, n_e, n_g, eg_fill)
    Ec = None
    if variant == "run":
        Ec = _fmat(F, n_e, N * d, {(d + a, j * d + a): invN for a in range(d) for j in range(N)})
    # initial moments
    g0 = [x0[a] for a in range(d)]
    if explicit_s:
        g0 += [sum((c0[j, a] for j in range(N)), zero) * invN for a in range(d)]
    g0 += [one]
    g0col = F.mat(n_g, 1, g0)
    Pgg, Pgc, Pcc = g0col * g0col.transpose(), None, None
    if has_c:
        cvrow = F.mat(1, N * d, [c0[j, a] for j in range(N) for a in range(d)])
        Pgc = g0col * cvrow
        Pcc = cvrow.transpose() * cvrow
        if warm_start:  # c_i^0 = mean of K samples at x0: covariance Sigma_i / K, independent
            ent = Pcc.entries()
            nd = N * d
            for i in range(N):
                for a in range(d):
                    for c_ in range(d):
                        k = (i * d + a) * nd + i * d + c_
                        ent[k] = ent[k] + Sig[i][a, c_] * invK
            Pcc = F.mat(nd, nd, ent)
    # run and option II: the control increment is an affine function of the x increment,
    # w^c_i = c_i^+ - c_i = (x - y_K)/(K eta_l) - m = -kappa w^x_i - m with kappa = S/(eta_g K eta_l)
    # (for the run model (1/K) sum_k g_k = (x - y_K)/(K eta_l) - (m - c_i)); the propagation
    # uses it to form E[w_i w_i^T] from E[w^x_i w^x_i^T] (noise terms are kept apart in Q)
    kappa = F.scalar(Fraction(S)) / (eg * F.scalar(K) * el) if variant in ("run", "II") else None
    return _BlockModel(d=d, N=N, n_g=n_g, n_e=n_e, has_c=has_c, x_idx=list(range(d)) + [hg],
                       Ug=Ug, Rg=Rg, U=U, Rc=Rc, Qg=Qg, Qgc=Qgc, Qc=Qc, Eg=Eg, Ec=Ec,
                       Pgg=Pgg, Pgc=Pgc, Pcc=Pcc, kappa=kappa, explicit_s=explicit_s)


def _noise(problem, sigma, sigma_sq):
    """Resolve the noise argument of the decide functions: ``(sigma_for_engine, noise_cov,
    rhs_kwargs, value)``. With ``sigma_sq`` the engine gets the isotropic covariance
    (sigma_sq/d) I directly (exact when sigma_sq is rational, e.g. 2 although sqrt 2 is not)."""

    value, squared = noise_variance(sigma, sigma_sq)
    if not squared:
        return sigma, None, {"sigma": sigma}, sigma
    check_nonnegative("sigma_sq", sigma_sq)
    d = problem.d
    f = fraction_of(sigma_sq)
    var = f if f is not None else sigma_sq
    cov = np.empty((d, d), dtype=object)
    for i in range(d):
        for j in range(d):
            cov[i, j] = var / d if i == j else Fraction(0)
    return 0, cov, {"sigma_sq": sigma_sq}, sigma_sq
