"""Exact-moment engine, propagation: second moments carried round by round.

Given the model of :mod:`pyfed.engines.exact.model` (the per-client affine maps L_i, the noise
covariance sum Q and the initial second moment P_0), :func:`_propagate` applies

    P' = P + p (L P + P L^T) + p2 L P L^T + (p - p2) sum_i L_i P L_i^T + p sum_i Q_i

for T rounds (derivation in :mod:`pyfed.engines.exact.model`) and reads the statistics
E[f(x^r)] - f* and E||grad f(x^r)||^2 off each P. The public functions compute them for the
seed-000 ``Run`` model, seed-002 SCAFFOLD (options I/II), FedAvg and Local SGD.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...errors import InputError, check_global_step, check_int, check_nonnegative, check_participation, check_positive
from .arith import fraction_of
from .model import (_build_model, _check_quadratic, _controls, _eye, _minimiser, _noise_covariances,
                    _problem_data, _stat_forms, _to_mat, _vector, _zeros, choose_field)

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
                           field=None, prec=128, warm_start=False, algorithm=""):
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
        model = _build_model(F, problem, A, b, Sig, S=S, K=K, eta_l=eta_l, eta_g=eta_g, x0=x0v, c0=c0v,
                             warm_start=warm_start, variant=variant)
        Phi, Gam = _stat_forms(F, A, b, fstar)
        gaps, gsq, means = _propagate(F, model, N=N, S=S, T=T, Phi=Phi, Gam=Gam)
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
    from .verdict import _noise

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


# ----------------------------------------------------------------------------------------
# Local SGD (Stich)
# ----------------------------------------------------------------------------------------

def local_sgd_moments(problem, *, workers, b, eta, sync_times, x0=None, field=None, prec=128) -> MomentResult:
    """Exact moments of Local SGD (Stich, Algorithm 1) on the finite sum f = (1/n) sum_j f_j.

    The problem's N "clients" are the n components f_j (quadratics). Each step every worker
    draws b indices uniformly with replacement (independently) and takes
    x <- x - eta_t (1/b) sum_q grad f_{i_q}(x); at t+1 in ``sync_times`` all workers are
    replaced by their average.

    Parameters
    ----------
    workers : int
        Number of workers K (>= 1).
    b : int
        Minibatch size (>= 1).
    eta : scalar or sequence of length T
        Step sizes eta_0..eta_{T-1}.
    sync_times : increasing ints 0 < t_1 < ... < t_m = T.
    x0 : (d,) or None (zeros).

    Returns
    -------
    MomentResult for xbar_t = average of the workers, t = 0..T (length T+1 lists).

    Raises
    ------
    InputError on a non-increasing or non-positive ``sync_times``, a wrong-length ``eta``, etc.

    Source: seed 002 "Local SGD" (Stich, Local SGD Converges Fast and Communicates Little,
    Algorithm 1, Definition 2.1).
    """
    _check_quadratic(problem)
    W = check_int("workers", workers, minimum=1)
    bsz = check_int("b", b, minimum=1)
    st = [check_int("sync_times", t, minimum=1) for t in sync_times]
    if not st or any(t2 <= t1 for t1, t2 in zip(st, st[1:])):
        raise InputError("sync_times", f"must be a non-empty strictly increasing list of positive ints, got {sync_times}")
    T = st[-1]
    if isinstance(eta, (list, tuple, np.ndarray)):
        etas = list(eta)
        if len(etas) != T:
            raise InputError("eta", f"needs T={T} step sizes, got {len(etas)}")
    else:
        etas = [eta] * T
    for e in etas:
        check_positive("eta", e)
    F = field or choose_field(list(etas) + [x0], problem, prec)
    n, d = problem.N, problem.d
    syncs = set(st)
    with F.active():
        A, bb = _problem_data(F, problem)
        xs, fstar = _minimiser(F, problem, A, bb)
        Phi, Gam = _stat_forms(F, A, bb, fstar)
        x0v = _vector(F, "x0", x0, d)
        one = F.scalar(1)
        m0 = np.array(list(x0v) + [one], dtype=object)
        Ps = _to_mat(F, np.outer(m0, m0))
        Pc = Ps
        invn = F.scalar(Fraction(1, n))
        invb = F.scalar(Fraction(1, bsz))
        invW = F.scalar(Fraction(1, W))
        idx = list(range(d + 1))
        I = _eye(F, d)

        def avg(Ps, Pc):
            return Ps * invW + Pc * (one - invW)

        gaps, gsq, means = [], [], []

        def record(P):
            g, s, m = _stats(F, P, idx, Phi, Gam)
            gaps.append(g); gsq.append(s); means.append(m)

        record(avg(Ps, Pc))
        cache = {}
        for t in range(T):
            e = F.scalar(etas[t])
            key = fraction_of(etas[t]) if F.exact else None
            if key is None or key not in cache:
                Ms = []
                for j in range(n):
                    M = _zeros(F, d + 1, d + 1)
                    M[:d, :d] = I - A[j] * e
                    M[:d, d] = bb[j] * e
                    M[d, d] = one
                    Ms.append(_to_mat(F, M))
                Mbar = Ms[0]
                for M in Ms[1:]:
                    Mbar = Mbar + M
                Mbar = Mbar * invn
                entry = (Ms, [M.transpose() for M in Ms], Mbar, Mbar.transpose())
                if key is not None:
                    cache[key] = entry
            else:
                entry = cache[key]
            Ms, MsT, Mbar, MbarT = entry
            acc = Ms[0] * Ps * MsT[0]
            for M, MT in zip(Ms[1:], MsT[1:]):
                acc = acc + M * Ps * MT
            Ps_new = acc * (invn * invb)
            if bsz > 1:
                Ps_new = Ps_new + (Mbar * Ps * MbarT) * (one - invb)
            Pc = Mbar * Pc * MbarT if W > 1 else Pc
            Ps = Ps_new
            if t + 1 in syncs:
                Ps = avg(Ps, Pc)
                Pc = Ps
            record(avg(Ps, Pc))
        pub = F.public
        return MomentResult(gaps=[pub(v) for v in gaps], grad_sq=[pub(v) for v in gsq], exact=F.exact,
                            arithmetic=F.name, algorithm="local_sgd",
                            mean_x=[[pub(v) for v in m] for m in means])


