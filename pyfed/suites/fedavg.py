"""Built-in FedAvg instances of ``pyfed check`` (data only): the Field Guide statements (Lean
namespace ``FedAvg``) are decided on each.

1. **quadratic, exact**: 8 rational quadratic clients sharing one Hessian (then ζ is exact:
   ζ² = maxᵢ ‖bᵢ − b̄‖²), Gaussian noise σ = 1/2, η = 1/(4L) (the boundary of the step-size
   hypothesis): decided by the exact-moment engine.
2. **real data, Monte Carlo**: L2-regularised logistic regression (the same λ on every client) on
   scikit-learn's breast-cancer data, 10 clients with Dirichlet(0.5) label skew, minibatch oracle
   (certified σ), certified ζ (:func:`pyfed.problems.heterogeneity.finite_sum_heterogeneity`),
   η just below 1/(4L).

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section 6.1.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..exact import rational_str, to_fraction
from ..oracles import GaussianOracle, MinibatchOracle
from ..problems.heterogeneity import finite_sum_heterogeneity, quadratic_heterogeneity, shared_hessian_quadratic
from ..problems.logistic import LogisticProblem
from .scaffold import round_down

PROGRESS = "FedAvg.PerRoundProgress"
DRIFT = "FedAvg.BoundedClientDrift"
CONVEX = "FedAvg.ConvexFedAvgConvergence"
TUNED = "FedAvg.TunedConvexFedAvgConvergence"
STATEMENTS = (PROGRESS, DRIFT, CONVEX, TUNED)

__all__ = ["STATEMENTS", "PROGRESS", "DRIFT", "CONVEX", "TUNED", "FedAvgInstance", "fedavg_suite"]


@dataclass
class FedAvgInstance:
    """One FedAvg instance of the Lean model, checked against every statement.

    Attributes
    ----------
    name, description : str
    problem : Problem (M = problem.N clients);  oracle : Oracle
    tau, T : int
    eta : Fraction (the constant-step statements' step, inside 0 < η <= 1/(4L))
    x0 : ndarray (d,);  x0_exact : list of Fractions or None
    L : smoothness constant;  sigma : σ (the oracle's certified noise bound)
    heterogeneity : certified ζ (:class:`pyfed.problems.heterogeneity.Heterogeneity`)
    exact : bool -- decided by the exact-moment engine (else Monte Carlo)
    dist_sq : D² (exact, or a certified upper bound);  dist_note : how D² was obtained
    f_low : F⋆ or a certified lower bound;  x_star : (d,)
    """

    name: str
    description: str
    problem: object
    oracle: object
    tau: int
    T: int
    eta: Fraction
    x0: np.ndarray
    L: object
    sigma: object
    heterogeneity: object
    exact: bool
    dist_sq: object
    dist_note: str
    f_low: object
    x_star: np.ndarray
    x0_exact: list | None = None
    extra: dict = field(default_factory=dict)

    def parameters(self, statement=None) -> dict:
        p = {"M": self.problem.N, "d": self.problem.d, "tau": self.tau, "T": self.T,
             "L": str(self.L), "sigma": str(self.sigma), "zeta^2": _short(self.heterogeneity.zeta_sq),
             "D^2": _short(self.dist_sq), "oracle": self.oracle.name}
        if statement == TUNED:
            p["eta"] = "optimizedStep (eq. (16))"
        else:
            p["eta"] = str(self.eta)
        return p


def _short(v):
    f = to_fraction(v)
    if f is not None and f.denominator < 10**12:
        return rational_str(f)
    return f"{float(v):.10g}"


def fedavg_suite(*, quick: bool = False, seed: int = 0) -> list:
    """The two built-in FedAvg instances (see module docstring); ``quick`` shortens T."""

    T = 8 if quick else 40
    out = []
    q = shared_hessian_quadratic(8, 4, np.random.default_rng(1200 + seed), mu=Fraction(1, 10), L=1,
                                 heterogeneity=Fraction(1, 2), name="quadratic-shared-hessian-M8-d4")
    x0e = [Fraction(1)] * q.d
    xs = [Fraction(v) for v in q.x_star_exact]
    out.append(FedAvgInstance(
        name=q.name, problem=q, oracle=GaussianOracle(q, Fraction(1, 2)), tau=4, T=T, eta=1 / (4 * q.beta),
        x0=np.ones(q.d), x0_exact=x0e, L=q.beta, sigma=Fraction(1, 2), heterogeneity=quadratic_heterogeneity(q),
        exact=True, dist_sq=sum(((a - b) ** 2 for a, b in zip(x0e, xs)), Fraction(0)),
        dist_note="exact: x* is the exact rational minimiser", f_low=q.f_star, x_star=q.x_star,
        description=("8 rational quadratic clients sharing one Hessian (mu=1/10, L<=1), Gaussian noise sigma=1/2, "
                     "eta = 1/(4L); zeta exact")))
    lg = LogisticProblem.from_dataset("breast_cancer", N=10, scheme="dirichlet", rng=np.random.default_rng(2000 + seed),
                                      lam=0.05, alpha=0.5)
    x0 = np.zeros(lg.d)
    e = lg.grad_norm_at_x_star / lg.mu          # ||x^ - x*|| <= ||grad F(x^)|| / mu
    D_up = math.nextafter(float(np.linalg.norm(x0 - lg.x_star)) * (1 + 1e-12) + e, math.inf)
    out.append(FedAvgInstance(
        name="logistic-breast_cancer-dirichlet0.5", problem=lg, oracle=MinibatchOracle(lg, 8), tau=5, T=T,
        eta=round_down(1 / (4 * lg.beta) * (1 - 1e-9)), x0=x0, L=lg.beta, sigma=None,
        heterogeneity=finite_sum_heterogeneity(lg), exact=False, dist_sq=Fraction(D_up) ** 2,
        dist_note=(f"upper bound (||x0 - x^|| + ||grad F(x^)||/mu)^2, x^ Newton's minimiser, "
                   f"||x^ - x*|| <= {e:.1e}"), f_low=lg.f_low, x_star=lg.x_star,
        description=("L2-logistic regression (lambda=0.05 on every client), breast cancer, 10 clients, Dirichlet(0.5) "
                     "label skew, minibatch b=8; sigma and zeta certified upper bounds")))
    out[1].sigma = out[1].oracle.sigma
    return out
