"""FedAvg with full participation, recording the shadow statistics of the Field Guide analysis.

The Lean model ``FedAvg.Run`` (Wang et al., *A Field Guide to Federated Optimization*,
arXiv:2107.06917v1, Section 6.1.1, PDF p. 40): M clients, all participating, uniform weights,
τ local steps of size η per round, T rounds; round 0 starts every client at x₀, round t+1 at the
average of the clients' round-t terminal iterates:

    xᵢ^{t,k+1} = xᵢ^{t,k} − η gᵢ^{t,k},   k = 0..τ−1;     xᵢ^{t+1,0} = x̄^{t,τ}.

Recorded at every round t and local step k = 0..τ (vectorised over R replicates): the shadow
iterate x̄^{t,k} = M⁻¹ Σᵢ xᵢ^{t,k}, F(x̄^{t,k}), and the client drifts ‖xᵢ^{t,k} − x̄^{t,k}‖². From
them :class:`ShadowTrajectory` gives A_t = τ⁻¹ Σ_{k=1}^{τ} (F(x̄^{t,k}) − F⋆) (Lean ``roundLoss``),
A = T⁻¹ Σ_t A_t (``avgLoss``) and ‖x̄^{t,k} − x⋆‖² (``shadowDistanceSq``).

Randomness: the same streams as the step-by-step path of :func:`pyfed.algorithms.fedavg`
(``rng.spawn(2)``; the oracle stream is called τ times per round on the client-major (M, R, d)
batch, in client blocks), so for the same seed this run *is*
``fedavg(S=M, K=τ, eta_l=η, eta_g=1, method="steps")``: its round starts equal that function's
server iterates (up to floating-point summation order).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import check_int
from .common import (
    as_step,
    call_oracle,
    check_oracle,
    check_problem,
    check_x0,
    seed_of,
    split_streams,
)
from .rounds import layout_blocks

__all__ = ["ShadowTrajectory", "fedavg_shadow"]


@dataclass
class ShadowTrajectory:
    """Shadow statistics of R replicates of FedAvg (full participation).

    Attributes
    ----------
    shadow : ndarray (R, T, τ+1, d)
        x̄^{t,k}; ``shadow[:, t, 0]`` is round t's start, ``shadow[:, t, τ]`` its terminal average
        (= ``shadow[:, t+1, 0]``).
    value : ndarray (R, T, τ+1)
        F(x̄^{t,k}) (the problem's objective F = M⁻¹ Σᵢ Fᵢ).
    drift : ndarray (R, T, τ+1, M)
        ‖xᵢ^{t,k} − x̄^{t,k}‖² (zero at k = 0: every round starts synchronised).
    meta : dict
        Parameters (tau, T, eta, M, d, R), oracle description, problem name, seed.
    """

    shadow: np.ndarray
    value: np.ndarray
    drift: np.ndarray
    meta: dict = field(default_factory=dict)

    @property
    def R(self) -> int:
        return self.shadow.shape[0]

    @property
    def T(self) -> int:
        return self.shadow.shape[1]

    @property
    def tau(self) -> int:
        return self.shadow.shape[2] - 1

    @property
    def round_starts(self) -> np.ndarray:
        """x̄^{t,0} for t = 0..T−1, shape (R, T, d)."""
        return self.shadow[:, :, 0]

    @property
    def final(self) -> np.ndarray:
        """The last round's terminal average x̄^{T−1,τ}, shape (R, d)."""
        return self.shadow[:, -1, -1]

    def gap(self, f_star) -> np.ndarray:
        """F(x̄^{t,k}) − F⋆, shape (R, T, τ+1) (pass a certified lower bound on min F to get an
        upper bound on the gap)."""
        return self.value - float(f_star)

    def round_loss(self, f_star) -> np.ndarray:
        """A_t = τ⁻¹ Σ_{k=1}^{τ} (F(x̄^{t,k}) − F⋆), shape (R, T) (Lean ``FedAvg.roundLoss``)."""
        return self.gap(f_star)[:, :, 1:].mean(axis=2)

    def avg_loss(self, f_star) -> np.ndarray:
        """A = T⁻¹ Σ_{t<T} A_t, shape (R,) (Lean ``FedAvg.avgLoss``)."""
        return self.round_loss(f_star).mean(axis=1)

    def shadow_dist_sq(self, x_star) -> np.ndarray:
        """‖x̄^{t,k} − x⋆‖², shape (R, T, τ+1) (Lean ``FedAvg.shadowDistanceSq``)."""
        diff = self.shadow - np.asarray(x_star, dtype=np.float64)
        return np.einsum("rtkd,rtkd->rtk", diff, diff)


def fedavg_shadow(problem, oracle, *, tau, T, eta, x0=None, R=1, rng) -> ShadowTrajectory:
    """Simulate FedAvg with full participation (the Lean ``FedAvg.Run`` model) for R replicates,
    recording the shadow statistics at every local step.

    Parameters
    ----------
    problem : pyfed.problems.Problem
        M clients (M = problem.N) in dimension d.
    oracle : pyfed.oracles.Oracle
        Stochastic gradients of ``problem`` (conditionally unbiased, independent across clients).
    tau, T : int >= 1
        Local steps per round, rounds.
    eta : step > 0 (rational "p/q" accepted)
    x0 : (d,) or None (zeros)
    R : int >= 1
        Replicates.
    rng : numpy.random.Generator | int
        Seed or generator; streams as :func:`pyfed.algorithms.fedavg` with ``method="steps"`` (see
        module docstring).

    Returns
    -------
    ShadowTrajectory

    Raises
    ------
    InputError
        Invalid problem, oracle, tau, T, eta, x0, R or rng.
    """
    problem = check_problem(problem)
    oracle = check_oracle(oracle, problem)
    tau = check_int("tau", tau, minimum=1)
    T = check_int("T", T, minimum=1)
    R = check_int("R", R, minimum=1)
    eta_f = as_step("eta", eta)
    x0a = check_x0(problem, x0)
    seed = seed_of(rng)
    _, oracle_rng = split_streams(rng)
    M, d = problem.N, problem.d
    shadow = np.empty((R, T, tau + 1, d))
    value = np.empty((R, T, tau + 1))
    drift = np.empty((R, T, tau + 1, M))
    # client-major layout (M, R, d) and client blocks, as the step-by-step path of
    # pyfed.algorithms.fedavg (pyfed.algorithms.rounds): the same oracle draws for the same seed
    blocks = layout_blocks((M, R), d)
    clients = np.broadcast_to(np.arange(M)[:, None], (M, R))
    start = np.broadcast_to(x0a, (R, d)).copy()
    for t in range(T):
        y = np.repeat(start[None, :, :], M, axis=0)          # (M, R, d): every client at the round start
        for k in range(tau + 1):
            xbar = y.mean(axis=0)
            shadow[:, t, k] = xbar
            diff = y - xbar[None, :, :]
            drift[:, t, k] = np.einsum("mrd,mrd->rm", diff, diff)
            if k == tau:
                break
            for b in blocks:  # the same draws as one call on the whole batch (see rounds.CLIENT_BLOCK_ENTRIES)
                yb = y[b]
                g = call_oracle(oracle, yb, oracle_rng, clients[b])
                g *= eta_f
                yb -= g
        if t == 0:
            value[:, 0] = problem.value(shadow[:, 0])
        else:  # x̄^{t,0} = x̄^{t-1,τ}: evaluate F once per point
            value[:, t, 0] = value[:, t - 1, tau]
            value[:, t, 1:] = problem.value(shadow[:, t, 1:])
        start = shadow[:, t, tau]
    meta = {"algorithm": "fedavg_shadow", "tau": tau, "T": T, "eta": eta, "M": M, "d": d, "R": R,
            "oracle": oracle.describe(), "problem": getattr(problem, "name", "problem"), "seed": seed}
    return ShadowTrajectory(shadow=shadow, value=value, drift=drift, meta=meta)
