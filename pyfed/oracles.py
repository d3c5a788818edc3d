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

from .errors import InputError, check_nonnegative
from .problems.base import Problem

__all__ = ["Oracle", "ExactOracle", "GaussianOracle"]


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

    def covariance_scale(self):
        """sigma^2 / d: the per-coordinate noise variance (exact type kept)."""
        return self.sigma**2 / self.problem.d

    def __call__(self, y, rng, clients=None):
        g = self.problem.client_grads(y, clients)
        if self._scale == 0.0:
            return g
        return g + self._scale * rng.standard_normal(g.shape)
