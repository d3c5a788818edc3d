"""FedProx: federated averaging whose clients approximately minimise a proximal local objective.

Round r = 1..T (0-based round index r-1 in ``samples``): draw a uniform S-subset S_r; every
selected client i starts from y_{i,0} = x_{r-1} and takes K stochastic gradient steps on its
proximal objective h_i(y; x_{r-1}) = f_i(y) + (mu/2) ||y - x_{r-1}||^2,

    y_{i,k} = y_{i,k-1} - eta_l (g_i(y_{i,k-1}) + mu (y_{i,k-1} - x_{r-1})),

(an inexact solve of the local subproblem by local SGD, as FedProx is run in practice and in the
SCAFFOLD paper's experiments); then, as FedAvg's uniform-client mode,
x_r = x_{r-1} + (eta_g / S) sum_{i in S_r} (y_{i,K} - x_{r-1}).

With mu = 0 this is FedAvg (``fedavg(mode="uniform", method="steps")``, the step-by-step path)
step for step, on the same random draws (same streams and draw order): the tests check the
trajectories are identical.

Sources: Li, Sahu, Zaheer, Sanjabi, Talwalkar, Smith, "Federated Optimization in Heterogeneous
Networks", MLSys 2020, Algorithm 2 (FedProx) and the proximal objective h_k of Section 3;
Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Section 7 (FedProx with mu = 1
as a baseline, Table 3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..blas import small_matrix_kernel
from ..errors import check_nonnegative
from ..sampling import sample_clients
from .common import (
    Trajectory,
    as_step,
    check_oracle,
    check_problem,
    check_rounds,
    check_x0,
    seed_of,
    split_streams,
)
from .rounds import Slots, step_displacements

if TYPE_CHECKING:
    from ..oracles import Oracle
    from ..problems.base import Problem

__all__ = ["fedprox"]


@small_matrix_kernel
def fedprox(problem: Problem, oracle: Oracle, *, S: int, K: int, T: int, eta_l: ArrayLike, eta_g: float = 1,
            mu: float = 1, x0: ArrayLike | None = None, R: int = 1, rng: np.random.Generator) -> Trajectory:
    """Simulate FedProx (local SGD on the proximal objective) for R independent replicates.

    Parameters
    ----------
    problem : pyfed.problems.Problem
        N clients in dimension d.
    oracle : pyfed.oracles.Oracle
        Stochastic gradient oracle g_i of ``problem`` (``oracle.problem is problem``); the
        proximal term's gradient mu (y - x) is exact (no noise).
    S, K, T : int
        Clients per round (1 <= S <= N), local steps (>= 1), rounds (>= 1).
    eta_l, eta_g : positive reals
        Local and global step sizes.
    mu : real >= 0
        Proximal weight (the SCAFFOLD paper's experiments use mu = 1); mu = 0 gives FedAvg.
    x0 : array (d,) | None
        Start point (default zeros).
    R : int
        Replicates (>= 1).
    rng : numpy.random.Generator | int
        ``rng.spawn(2)``: the sampling stream (one ``sample_clients(.., size=R)`` per round)
        and the oracle stream (K passes per round over the selected slots in the client-major
        layout of :mod:`pyfed.algorithms.rounds`) -- exactly the streams and order of the
        step-by-step path of :func:`pyfed.algorithms.fedavg`, so the same seed gives the same
        client samples and the same minibatches.

    Returns
    -------
    Trajectory
        x (R, T+1, d), samples (R, T, S), c = c_history = None, meta (algorithm "fedprox", mu).

    Raises
    ------
    InputError
        Invalid S, K, T, R, eta_l, eta_g, mu (negative, NaN, inf), x0, problem, oracle or rng.
    """
    problem = check_problem(problem)
    oracle = check_oracle(oracle, problem)
    S, K, T, R = check_rounds(problem, S, K, T, R)
    eta_l_f = as_step("eta_l", eta_l)
    eta_g_f = as_step("eta_g", eta_g)
    check_nonnegative("mu", mu)
    mu_f = float(mu)
    N, d = problem.N, problem.d
    x0a = check_x0(problem, x0)
    seed = seed_of(rng)
    sampling_rng, oracle_rng = split_streams(rng)

    x = np.empty((R, T + 1, d))
    x[:, 0] = x0a
    samples = np.empty((R, T, S), dtype=np.int64)
    full = S == N
    for r in range(T):
        sel = sample_clients(sampling_rng, N, S, R)
        samples[:, r] = sel
        slots = Slots(None if full else sel, N, R)  # the layout of fedavg's step path: same oracle draws
        xr = x[:, r]
        # local steps on f_i(y) + (mu/2)||y - x_{r-1}||^2, the proximal centre x_{r-1} the round start
        diff = step_displacements(oracle, oracle_rng, slots, slots.per_replicate(xr), None, K, eta_l_f,
                                  prox=mu_f)
        x[:, r + 1] = xr + (eta_g_f / S) * slots.replicate_sum(diff)

    meta = {"algorithm": "fedprox", "mu": mu, "S": S, "K": K, "T": T, "N": N, "d": d,
            "eta_l": eta_l, "eta_g": eta_g, "R": R, "oracle": oracle.describe(),
            "problem": getattr(problem, "name", "problem"), "seed": seed}
    return Trajectory(x=x, c=None, c_history=None, samples=samples, meta=meta)
