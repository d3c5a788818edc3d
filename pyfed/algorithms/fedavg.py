"""Federated averaging (FedAvg) with uniform fixed-size client sampling, both seed-002 modes.

Round r = 1..T (0-based round index r-1 in ``samples``): draw a uniform S-subset S_r; every
selected client runs K local steps y_{i,k} = y_{i,k-1} - eta_l g_i(y_{i,k-1}) from
y_{i,0} = x_{r-1}; then

* ``mode="weighted"`` (count-weighted deployment mode, objective f_wt = sum_i (n_i/n) F_i):
  x_r = x_{r-1} + eta_g sum_{i in S_r} (n_i / n) (y_{i,K} - x_{r-1}), n = sum_i n_i;
* ``mode="uniform"`` (uniform-client analysis mode, objective f = (1/N) sum_i f_i):
  x_r = x_{r-1} + (eta_g / S) sum_{i in S_r} (y_{i,K} - x_{r-1}).

The two modes are different update rules when the counts n_i are unequal (seed 002).

Source: McMahan et al., "Communication-Efficient Learning of Deep Networks from
Decentralized Data", PMLR 54 (2017), Section 2 and Algorithm 1; Karimireddy et al.,
SCAFFOLD, Algorithm 2; seed 002 ("Federated averaging").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import ArrayLike

from ..blas import small_matrix_kernel
from ..errors import InputError, check_int
from ..sampling import sample_clients
from .common import (
    Trajectory,
    as_step,
    check_divergence,
    check_oracle,
    check_problem,
    check_rounds,
    check_x0,
    seed_of,
    split_streams,
)
from .rounds import Slots, local_path_law, step_displacements

if TYPE_CHECKING:
    from ..oracles import Oracle
    from ..problems.base import Problem

__all__ = ["fedavg"]


def _check_counts(counts, N: int) -> np.ndarray:
    """Record counts n_i: shape (N,), positive integers -> int64 array."""
    a = np.asarray(counts, dtype=object)
    if a.shape != (N,):
        raise InputError("counts", f"must have shape (N,) = ({N},), got {a.shape}")
    vals = []
    for v in a:
        try:
            vals.append(check_int("counts", v, minimum=1))
        except InputError:
            raise InputError("counts", f"every n_i must be a positive integer, got {v!r}") from None
    return np.array(vals, dtype=np.int64)


@small_matrix_kernel
def fedavg(problem: Problem, oracle: Oracle, *, S: int, K: int, T: int, eta_l: ArrayLike, eta_g: float,
           mode: Literal["uniform", "weighted"] = "uniform", counts: ArrayLike | None = None,
           x0: ArrayLike | None = None, R: int = 1, rng: np.random.Generator,
           method: Literal["auto", "closed_form", "steps"] = "auto") -> Trajectory:
    """Simulate FedAvg (seed 002) for R independent replicates.

    Parameters
    ----------
    problem : pyfed.problems.Problem
        N clients in dimension d (in weighted mode its f_i play the role of the F_i).
    oracle : pyfed.oracles.Oracle
        Local oracle g_i of ``problem``.
    S, K, T : int
        Clients per round (1 <= S <= N), local steps (>= 1), rounds (>= 1).
    eta_l, eta_g : positive reals
        Local and global step sizes.
    mode : "uniform" | "weighted"
        Aggregation branch (see module docstring).
    counts : array of N positive ints | None
        Record counts n_i; required in weighted mode, rejected in uniform mode (where
        they would be silently ignored).
    x0 : array (d,) | None
        Start point (default zeros).
    R : int
        Replicates.
    rng : numpy.random.Generator | int
        ``rng.spawn(2)`` gives the sampling stream (one ``sample_clients(.., size=R)`` per
        round; the same samples as :func:`scaffold` for the same seed, N, S) and the oracle
        stream (step by step: K passes per round over the selected slots in client-major
        layout, as in :func:`pyfed.algorithms.scaffold`; closed form: one standard normal
        vector per selected slot and round).
    method : "auto" | "closed_form" | "steps"
        Closed-form law of the K local steps for quadratic clients with a Gaussian or exact
        oracle ("auto", the default), or the steps one by one; see :func:`pyfed.algorithms.scaffold`.

    Returns
    -------
    Trajectory
        x (R, T+1, d), samples (R, T, S), c = c_history = None, meta.

    Raises
    ------
    InputError
        Invalid S, K, T, R, eta_l, eta_g, mode, counts (missing in weighted mode, wrong
        shape, non-positive or non-integer), x0, problem, oracle or rng.
    pyfed.errors.Diverged
        x_{r+1} became NaN/inf or exceeded :data:`pyfed.algorithms.common.DIVERGENCE_THRESHOLD`
        in round r (``exc.round``, ``exc.magnitude``).
    """
    problem = check_problem(problem)
    oracle = check_oracle(oracle, problem)
    S, K, T, R = check_rounds(problem, S, K, T, R)
    eta_l_f = as_step("eta_l", eta_l)
    eta_g_f = as_step("eta_g", eta_g)
    N, d = problem.N, problem.d
    if mode not in ("uniform", "weighted"):
        raise InputError("mode", f"must be 'uniform' or 'weighted', got {mode!r}")
    if mode == "weighted":
        if counts is None:
            raise InputError("counts", "weighted mode needs the client record counts n_i (shape (N,))")
        n_i = _check_counts(counts, N)
        weights = n_i / n_i.sum()  # n_i / n
    else:
        if counts is not None:
            raise InputError("counts", "only used in mode='weighted' (uniform mode weights every client 1/S)")
        weights = None
    x0a = check_x0(problem, x0)
    law = local_path_law(problem, oracle, eta_l_f, K, method)
    seed = seed_of(rng)
    sampling_rng, oracle_rng = split_streams(rng)

    x = np.empty((R, T + 1, d))
    x[:, 0] = x0a
    samples = np.empty((R, T, S), dtype=np.int64)
    full = S == N
    for r in range(T):
        sel = sample_clients(sampling_rng, N, S, R)
        samples[:, r] = sel
        slots = Slots(None if full else sel, N, R)
        xr = x[:, r]
        if law is not None:
            diff = law.displacements(xr, None, slots, oracle_rng)  # y_{i,K} - x_{r-1}
        else:
            diff = step_displacements(oracle, oracle_rng, slots, slots.per_replicate(xr), None, K, eta_l_f)
        if weights is None:
            x[:, r + 1] = xr + (eta_g_f / S) * slots.replicate_sum(diff)
        else:
            x[:, r + 1] = xr + eta_g_f * slots.replicate_sum(diff, weights)
        check_divergence(r, x[:, r + 1])

    meta = {"algorithm": "fedavg", "mode": mode, "S": S, "K": K, "T": T, "N": N, "d": d,
            "eta_l": eta_l, "eta_g": eta_g, "R": R,
            "counts": None if weights is None else n_i.tolist(), "oracle": oracle.describe(),
            "problem": getattr(problem, "name", "problem"), "seed": seed,
            "path": "closed form" if law is not None else "step by step"}
    return Trajectory(x=x, c=None, c_history=None, samples=samples, meta=meta)
