"""Exact-moment engine, Local SGD (Stich, Algorithm 1): second moments of the averaged iterate
on a finite sum of quadratics, with minibatches drawn with replacement and synchronisation at
given steps.

Each worker's second moment P_s and the cross moment P_c of two distinct workers are carried
step by step; the average of W workers has second moment P_s / W + P_c (1 - 1/W), and a
synchronisation sets both to it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...errors import InputError, check_int, check_positive
from .arith import fraction_of
from .model import (
    _check_quadratic,
    _eye,
    _minimiser,
    _problem_data,
    _stat_forms,
    _to_mat,
    _vector,
    _zeros,
    choose_field,
)
from .propagation import MomentResult, _stats


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


