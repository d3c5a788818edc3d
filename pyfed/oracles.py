"""Stochastic gradient oracles satisfying the Lean ``Run`` oracle laws.

An oracle returns, for each slot of a batch of points, a sample g with
E[g | past] = grad f_i(y) (conditional unbiasedness) and E[||g - grad f_i(y)||^2 | past] <= sigma^2
(seed 000, "gradient samples are conditionally unbiased, have conditional squared error at
most sigma^2, and are independent across clients"). Fresh randomness is drawn from the
``numpy.random.Generator`` passed to each call, independently for every slot, so samples are
independent across clients and steps given the past.

Interface: ``oracle(y, rng, clients=None) -> (..., M, d)`` with the batch conventions of
:mod:`pyfed.problems.base`; ``oracle.sigma`` is the certified noise level (Fraction or float).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import InputError, check_int, check_nonnegative
from .problems.base import Problem

__all__ = ["Oracle", "ExactOracle", "GaussianOracle", "MinibatchOracle"]


class Oracle:
    """Base class. Subclasses implement :meth:`__call__` and set ``sigma``.

    Attributes
    ----------
    problem : Problem
    sigma : Fraction | float
        Certified bound: sigma^2 >= sup_y E||g(y) - grad f_i(y)||^2 for every client i.
    name : str
    """

    name = "oracle"

    def __init__(self, problem: Problem):
        if not isinstance(problem, Problem):
            raise InputError("problem", f"must be a pyfed Problem, got {type(problem).__name__}")
        self.problem = problem
        self.sigma = 0

    def __call__(self, y, rng: np.random.Generator, clients=None) -> np.ndarray:
        raise NotImplementedError

    def describe(self) -> dict:
        return {"name": self.name, "sigma": str(self.sigma)}


class ExactOracle(Oracle):
    """g = grad f_i(y) (sigma = 0). Draws nothing from ``rng``."""

    name = "exact"

    def __call__(self, y, rng, clients=None):
        return self.problem.client_grads(y, clients)


class GaussianOracle(Oracle):
    """g = grad f_i(y) + xi with xi ~ N(0, (sigma^2/d) I_d), so E||xi||^2 = sigma^2 exactly.

    Parameters
    ----------
    problem : Problem
    sigma : float | Fraction
        Noise standard deviation (>= 0). The law's covariance (sigma^2/d) I is what the exact
        moment engine uses.

    Raises
    ------
    InputError
        sigma negative, NaN or infinite.
    """

    name = "gaussian"

    def __init__(self, problem: Problem, sigma):
        super().__init__(problem)
        check_nonnegative("sigma", sigma)
        self.sigma = sigma
        self._scale = math.sqrt(float(sigma) ** 2 / problem.d) if problem.d else 0.0
        self._buffer = None

    def covariance_scale(self):
        """sigma^2 / d: the per-coordinate noise variance (exact type kept)."""
        return self.sigma**2 / self.problem.d

    def __call__(self, y, rng, clients=None):
        g = self.problem.client_grads(y, clients)  # a fresh array (Problem contract)
        if self._scale == 0.0:
            return g
        # the noise is drawn into a reused buffer (no allocation per call: ~40% faster at the
        # sizes of the benchmark), then added to the gradient in place; the values are those of
        # g + scale * rng.standard_normal(g.shape)
        buf = self._buffer
        if buf is None or buf.shape != g.shape:
            buf = self._buffer = np.empty(g.shape)
        rng.standard_normal(out=buf)
        buf *= self._scale
        g += buf
        return g


class MinibatchOracle(Oracle):
    """g = (1/b) sum_{k=1}^b grad l_{j_k}(y): a minibatch of b samples of the slot's client drawn
    uniformly WITH replacement (j_1, ..., j_b iid uniform on client i's n_i samples).

    Works with any finite-sum problem exposing per-sample gradients
    (:class:`pyfed.problems.logistic.FiniteSumProblem`: ``sample_grads``, ``counts``,
    ``sample_sq_norm_mean``, ``loss_derivative_bound``), whose per-sample losses are
    l_j(x) = phi(s_j a_j^T x) + R(x) with f_i = (1/n_i) sum_{j in J_i} l_j (the regulariser R is
    inside every l_j).

    Unbiasedness: E[grad l_{j_k}(y)] = (1/n_i) sum_j grad l_j(y) = grad f_i(y), hence E[g] = grad f_i(y).

    Certified sigma (the seed-000 oracle law E||g - grad f_i(y)||^2 <= sigma^2 for every y and i).
    Write u_k = grad l_{j_k}(y) = t_k a_{j_k} + grad R(y) with t_k = phi'(s a^T y) (for the logistic
    loss t = expit(a^T y) - label, |t| <= loss_derivative_bound = 1). The u_k are iid with mean
    grad f_i(y), so

        E||g - grad f_i(y)||^2 = (1/b) E||u_1 - E u_1||^2                  (variance of a mean of b iid vectors)
                               = (1/b) E||t_1 a_{j_1} - E[t_1 a_{j_1}]||^2   (grad R(y) cancels)
                               <= (1/b) E||t_1 a_{j_1}||^2                   (variance <= second moment)
                               <= (1/b) (1/n_i) sum_{j in J_i} ||a_j||^2     (|t| <= 1).

    So **sigma^2 = max_i (1/b) (1/n_i) sum_{j in J_i} ||a_j||^2** (times loss_derivative_bound^2 = 1),
    computed in float64 and padded upward (relative 1e-12 + 1 ulp), and sigma = sqrt(sigma^2)
    rounded up one ulp. The bound is uniform in y, as the theorem requires.

    Parameters
    ----------
    problem : FiniteSumProblem
    b : int >= 1
        Minibatch size (b may exceed n_i: sampling is with replacement).

    Attributes
    ----------
    b : int
    sigma : float;  sigma_sq : float
    client_sigma_sq : ndarray (N,)  -- the per-client bounds (1/b)(1/n_i) sum_j ||a_j||^2
    derivation : str

    Raises
    ------
    InputError
        "b": not an integer >= 1; "problem": not a pyfed Problem or without per-sample data.
    """

    name = "minibatch"

    def __init__(self, problem: Problem, b):
        super().__init__(problem)
        if not all(hasattr(problem, a) for a in ("sample_grads", "counts", "sample_sq_norm_mean", "loss_derivative_bound")):
            raise InputError("problem", f"{type(problem).__name__} has no per-sample data (needs a finite-sum problem "
                                        "such as LogisticProblem or NonconvexLogisticProblem)")
        self.b = check_int("b", b, minimum=1)
        G2 = float(problem.loss_derivative_bound) ** 2
        per_client = G2 * np.asarray(problem.sample_sq_norm_mean, dtype=np.float64) / self.b
        self.client_sigma_sq = np.array([math.nextafter(v * (1 + 1e-12), math.inf) for v in per_client])
        self.sigma_sq = float(self.client_sigma_sq.max())
        self.sigma = math.nextafter(math.sqrt(self.sigma_sq), math.inf)
        self.derivation = (f"sigma^2 = max_i (1/b)(1/n_i) sum_(j in client i) ||a_j||^2 with b={self.b}: variance of a "
                           "mean of b iid per-sample gradients is 1/b of one sample's; the regulariser cancels; "
                           "variance <= second moment; |expit(a^T y) - label| <= 1")

    def __call__(self, y, rng, clients=None):
        y = np.asarray(y, dtype=np.float64)
        p = self.problem
        if clients is None:
            if y.ndim < 2 or y.shape[-2] != p.N:
                raise InputError("y", f"with clients=None the slot axis must have N={p.N} entries, got shape {y.shape}")
            n = np.broadcast_to(p.counts, y.shape[:-1])
        else:
            c = np.asarray(clients)
            if c.shape != y.shape[:-1] or (c.size and (c.dtype.kind not in "iu" or c.min() < 0 or c.max() >= p.N)):
                raise InputError("clients", f"must be integer client indices in 0..{p.N - 1} shaped y.shape[:-1]")
            n = p.counts[c]
        idx = rng.integers(0, n[..., None], size=y.shape[:-1] + (self.b,))
        return p.sample_grads(y, clients, idx)

    def describe(self) -> dict:
        return {"name": self.name, "sigma": str(self.sigma), "b": self.b, "sigma_derivation": self.derivation}
