"""Stich's Local SGD with minibatches and arbitrary synchronisation times (seed 002).

Objective f = (1/n) sum_{j=1}^n f_j: the problem's N "clients" are the n components f_j
(0-based here). ``workers`` = K workers start at x_0^k = x_0. For t = 0..T-1, each worker k
and each draw q = 1..b draws i_{t,q}^k uniformly from the n components (with replacement,
all draws independent) and sets

    z_{t+1}^k = x_t^k - eta_t g_t^k(x_t^k),   g_t^k(x) = (1/b) sum_q grad f_{i_{t,q}^k}(x);

x_{t+1}^k = z_{t+1}^k if t+1 is not a synchronisation time, else x_{t+1}^k = (1/K) sum_l z_{t+1}^l
for every k. Synchronisation times 0 < t_1 < ... < t_m = T.

Source: Stich, "Local SGD Converges Fast and Communicates Little", ICLR 2019, Algorithm 1 and
Definition 2.1; Gorbunov et al., "Local SGD: Unified Theory and New Efficient Methods",
equation (4); seed 002 ("Local SGD").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError, check_int, check_rng
from .common import (
    LocalSGDTrajectory,
    as_step,
    check_divergence,
    check_problem,
    check_x0,
    seed_of,
)

if TYPE_CHECKING:
    from ..problems.base import Problem

__all__ = ["local_sgd", "check_sync_times"]


def check_sync_times(sync_times) -> np.ndarray:
    """Validate synchronisation times: a non-empty 1-D sequence of integers with
    0 < t_1 < t_2 < ... < t_m. Returns an int64 array; T = t_m. Raises InputError('sync_times')."""
    a = np.asarray(sync_times, dtype=object)
    if a.ndim != 1 or a.size == 0:
        raise InputError("sync_times", f"must be a non-empty 1-D sequence of integers, got shape {a.shape}")
    vals = []
    for v in a:
        try:
            vals.append(check_int("sync_times", v))
        except InputError:
            raise InputError("sync_times", f"entries must be integers, got {v!r}") from None
    if vals[0] <= 0:
        raise InputError("sync_times", f"must satisfy 0 < t_1, got t_1 = {vals[0]}")
    for a_, b_ in zip(vals, vals[1:]):
        if b_ <= a_:
            raise InputError("sync_times", f"must be strictly increasing, got {a_} then {b_}")
    return np.array(vals, dtype=np.int64)


def local_sgd(problem: Problem, *, workers: int, b: int, eta: ArrayLike, sync_times: ArrayLike,
              x0: ArrayLike | None = None, R: int = 1, rng: np.random.Generator,
              record_indices: bool = False) -> LocalSGDTrajectory:
    """Simulate Local SGD (seed 002; Stich Algorithm 1) for R independent replicates.

    Parameters
    ----------
    problem : pyfed.problems.Problem
        Its N clients are the n components f_j; gradients are taken with
        ``problem.client_grads(points, clients=idx)``.
    workers : int
        Number of workers K (>= 1).
    b : int
        Minibatch size (>= 1), indices drawn with replacement.
    eta : real > 0 or array (T,) of reals > 0
        Step sizes eta_0, ..., eta_{T-1} (a scalar means a constant step).
    sync_times : sequence of ints
        0 < t_1 < ... < t_m = T (T is the last entry).
    x0 : array (d,) | None
        Common start point (default zeros).
    R : int
        Replicates (>= 1).
    rng : numpy.random.Generator | int
        Draw order: for t = 0..T-1 one ``rng.integers(0, n, size=(R, workers, b))`` call
        (the indices i_{t,q}^k of every replicate, worker and draw). Nothing else is drawn.
    record_indices : bool
        Store the drawn indices (R, T, workers, b) in the result.

    Returns
    -------
    LocalSGDTrajectory
        x (R, T+1, workers, d), sync_times (m,), eta (T,), indices or None, meta.

    Raises
    ------
    InputError
        workers, b or R not integers >= 1; bad sync_times; eta non-positive, non-finite or of
        length != T; bad x0, problem or rng.
    pyfed.errors.Diverged
        A worker iterate x_{t+1}^k became NaN/inf or exceeded
        :data:`pyfed.algorithms.common.DIVERGENCE_THRESHOLD` at time step t (``exc.round`` = t).
    """
    problem = check_problem(problem)
    K = check_int("workers", workers, minimum=1)
    b = check_int("b", b, minimum=1)
    R = check_int("R", R, minimum=1)
    sync = check_sync_times(sync_times)
    T = int(sync[-1])
    if np.ndim(eta) == 0:
        eta_a = np.full(T, as_step("eta", eta))
    else:
        e = np.asarray(eta, dtype=object)
        if e.shape != (T,):
            raise InputError("eta", f"must be a scalar or have length T = sync_times[-1] = {T}, got shape {e.shape}")
        eta_a = np.array([as_step("eta", v) for v in e], dtype=np.float64)
    x0a = check_x0(problem, x0)
    seed = seed_of(rng)
    rng = check_rng(rng)
    n, d = problem.N, problem.d

    x = np.empty((R, T + 1, K, d))
    x[:, 0] = x0a
    is_sync = np.zeros(T + 1, dtype=bool)
    is_sync[sync] = True
    indices = np.empty((R, T, K, b), dtype=np.int64) if record_indices else None
    for t in range(T):
        idx = rng.integers(0, n, size=(R, K, b))
        if record_indices:
            indices[:, t] = idx
        pts = np.broadcast_to(x[:, t, :, None, :], (R, K, b, d))
        g = problem.client_grads(pts, clients=idx).mean(axis=2)  # g_t^k(x_t^k), (R, K, d)
        z = x[:, t] - eta_a[t] * g
        if is_sync[t + 1]:
            z[:] = z.mean(axis=1, keepdims=True)
        x[:, t + 1] = z
        check_divergence(t, z)

    meta = {"algorithm": "local_sgd", "workers": K, "b": b, "T": T, "n": n, "d": d, "R": R,
            "H": int(np.max(np.diff(np.concatenate([[0], sync])))),
            "problem": getattr(problem, "name", "problem"), "seed": seed}
    return LocalSGDTrajectory(x=x, sync_times=sync, eta=eta_a, indices=indices, meta=meta)
