"""Built-in SCAFFOLD instances of ``pyfed check`` (data only, no orchestration).

:func:`default_suite`:

1. ``ConvexFiniteRoundConvergence`` on a rational quadratic instance with Gaussian noise (decided
   exactly by the exact-moment engine);
2. ``ConvexFiniteRoundConvergence`` on L2-regularised logistic regression over scikit-learn's
   bundled breast-cancer data, split non-iid (Dirichlet label skew) across N clients, S < N,
   with the minibatch oracle and its certified sigma (Monte Carlo);
3. ``NonconvexFiniteRoundConvergence`` on the nonconvex-regularised logistic loss over the
   same data ("similarity 10%" split), warm-start controls as the theorem requires.

Step sizes are chosen inside the theorems' hypotheses (:func:`convex_step`, :func:`nonconvex_step`)
and are exact rationals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..exact import as_float, to_fraction
from ..oracles import ExactOracle, GaussianOracle, MinibatchOracle
from ..problems import random_quadratic
from ..problems.logistic import LogisticProblem
from ..problems.nonconvex import NonconvexLogisticProblem
from ..problems.quadratic import QuadraticProblem
from ..theory import (
    convex_hypotheses,
    convex_rhs,
    effective_step,
    initial_control_error,
    nonconvex_hypotheses,
    nonconvex_rhs,
    squared_distance,
)

CONVEX = "ConvexFiniteRoundConvergence"
NONCONVEX = "NonconvexFiniteRoundConvergence"

__all__ = ["Instance", "default_suite", "CONVEX", "NONCONVEX", "round_down", "round_up", "convex_step",
           "nonconvex_step", "instance_constants", "instance_hypotheses", "instance_rhs", "exact_engine_applies"]


def round_down(value, digits: int = 6) -> Fraction:
    """A short rational <= value (value > 0), keeping ``digits`` significant digits.

    Used to pick step sizes that are exact rationals strictly inside a hypothesis.
    """
    v = float(value)
    if not (v > 0) or not math.isfinite(v):
        raise InputError("value", f"must be a finite positive number, got {value!r}")
    e = math.floor(math.log10(v)) - digits + 1
    scale = Fraction(10) ** (-e)
    k = math.floor(Fraction(v) * scale)
    out = Fraction(k) / scale
    # guard: the float value might round above an exact bound; callers verify hypotheses exactly
    return out if out > 0 else Fraction(v)


def round_up(value, digits: int = 6) -> Fraction:
    """A short rational >= value (value > 0) with ``digits`` significant digits (exact
    comparison: never below ``value``, floats taken at their exact binary value)."""
    v = float(value)
    if not (v > 0) or not math.isfinite(v):
        raise InputError("value", f"must be a finite positive number, got {value!r}")
    e = math.floor(math.log10(v)) - digits + 1
    scale = Fraction(10) ** (-e)
    exact = Fraction(v) if to_fraction(value) is None else to_fraction(value)
    return Fraction(math.ceil(exact * scale)) / scale


def convex_step(beta, mu, N: int, S: int, K: int, eta_g=1) -> Fraction:
    """eta_l (rational) with h = K eta_l eta_g <= min(1/(81 beta), S/(15 N mu)) (seed 000 hypotheses)."""
    bound = 1 / (81 * float(beta))
    if float(mu) > 0:
        bound = min(bound, S / (15 * N * float(mu)))
    return round_down(bound * (1 - 1e-9) / (K * float(eta_g)))


def nonconvex_step(beta, N: int, S: int, K: int, eta_g=1) -> Fraction:
    """eta_l (rational) with h <= (S/N)^(2/3)/(24 beta) (nonconvex theorem's hypothesis)."""
    bound = (S / N) ** (2 / 3) / (24 * float(beta))
    return round_down(bound * (1 - 1e-9) / (K * float(eta_g)))


@dataclass
class Instance:
    """One theorem instance: a problem, an oracle and run parameters.

    Attributes
    ----------
    name : str
    theorem : str
        ``CONVEX`` or ``NONCONVEX`` (Lean names).
    problem, oracle
    S, K, T : int
        Clients per round, local steps, rounds.
    eta_l, eta_g : Fraction
        Local and global step sizes.
    x0 : ndarray (d,)
    c0 : ndarray (N, d) | None
        Given initial controls (convex theorem) or None for the K-sample warm start.
    description : str
    """

    name: str
    theorem: str
    problem: object
    oracle: object
    S: int
    K: int
    T: int
    eta_l: Fraction
    eta_g: Fraction
    x0: np.ndarray
    c0: np.ndarray | None
    description: str = ""
    c0_exact: object = None
    x0_exact: object = None
    extra: dict = field(default_factory=dict)

    def parameters(self) -> dict:
        h = effective_step(self.K, self.eta_l, self.eta_g)
        return {"N": self.problem.N, "d": self.problem.d, "S": self.S, "K": self.K, "T": self.T,
                "eta_l": str(self.eta_l), "eta_g": str(self.eta_g), "h": str(h),
                "beta": str(self.problem.beta),
                **({"mu": str(self.problem.mu)} if self.theorem == CONVEX else {}),
                "sigma": str(self.oracle.sigma), "oracle": self.oracle.name,
                "controls": "given c0 = grad f_i(x0)" if self.c0 is not None else "warm start (K samples at x0)"}


def _sigma(oracle):
    s = getattr(oracle, "sigma", 0)
    return s


def default_suite(*, quick: bool = False, seed: int = 0) -> list[Instance]:
    """The built-in instances of ``pyfed check`` (see module docstring).

    ``quick`` shortens the horizon to T = 8 rounds (40 otherwise).
    """

    rng = np.random.default_rng(seed)
    T = 8 if quick else 40
    suite = []

    # 1. rational quadratic, Gaussian noise, exact right side
    q = random_quadratic(8, 4, np.random.default_rng(1000 + seed), mu=Fraction(1, 10), L=1,
                         rational=True, heterogeneity=1, name="quadratic-rational-N8-d4")
    N, S, K = q.N, 4, 4
    eta_g = Fraction(1)
    eta_l = convex_step(q.beta, q.mu, N, S, K, eta_g)
    x0e = np.array([Fraction(1)] * q.d, dtype=object)
    c0e = q.grads_exact(x0e)
    suite.append(Instance(
        name=q.name, theorem=CONVEX, problem=q, oracle=GaussianOracle(q, Fraction(1, 2)),
        S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g,
        x0=np.array([float(v) for v in x0e]), c0=np.array([[float(v) for v in row] for row in c0e]),
        c0_exact=c0e, x0_exact=x0e,
        description="8 rational quadratic clients (mu=1/10, L=1), Gaussian noise sigma=1/2"))

    # 2. L2-logistic regression on real data, Dirichlet label skew, minibatch oracle
    lg = LogisticProblem.from_dataset("breast_cancer", N=10, scheme="dirichlet", rng=np.random.default_rng(2000 + seed),
                                      lam=0.05, alpha=0.5)
    N, S, K = lg.N, 5, 5
    eta_l = convex_step(lg.beta, lg.mu, N, S, K, eta_g)
    x0 = np.zeros(lg.d)
    c0 = lg.client_grads(np.broadcast_to(x0, (lg.N, lg.d)))
    suite.append(Instance(
        name="logistic-breast_cancer-dirichlet0.5", theorem=CONVEX, problem=lg, oracle=MinibatchOracle(lg, 8),
        S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=c0,
        description="L2-logistic regression (lambda=0.05), breast cancer, 10 clients, Dirichlet(0.5) label skew, minibatch b=8"))

    # 3. nonconvex real-data loss, similarity split, warm start
    nc = NonconvexLogisticProblem.from_dataset("breast_cancer", N=10, scheme="similarity",
                                               rng=np.random.default_rng(3000 + seed), lam=0.05, similarity=10)
    N, S, K = nc.N, 5, 5
    eta_l = nonconvex_step(nc.beta, N, S, K, eta_g)
    suite.append(Instance(
        name="nonconvex-logistic-breast_cancer-sim10", theorem=NONCONVEX, problem=nc, oracle=MinibatchOracle(nc, 8),
        S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=np.zeros(nc.d), c0=None,
        description="logistic loss + 0.05 sum x_j^2/(1+x_j^2), breast cancer, 10 clients, similarity 10%, minibatch b=8, warm start"))
    del rng
    return suite


def instance_hypotheses(inst: Instance):
    """The theorem's hypotheses evaluated on ``inst`` (list of pyfed.theory.Hypothesis)."""
    p = inst.problem
    common = dict(N=p.N, S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l, eta_g=inst.eta_g,
                  beta=p.beta, sigma=_sigma(inst.oracle))
    if inst.theorem == CONVEX:
        return convex_hypotheses(mu=p.mu, convexity=p.convexity(p.mu), **common)
    f_x0 = float(p.value(inst.x0))
    return nonconvex_hypotheses(f_low=p.f_low, f_x0=f_x0, f_low_certificate=p.derivations.get("f_low"), **common)


def instance_constants(inst: Instance) -> dict:
    """The problem-dependent numbers of the right side: ``dist_sq`` = ||x0 - x*||^2 and ``C0``
    (convex theorem) or ``f_gap`` = f(x0) - f_low (nonconvex). Exact Fractions for rational
    quadratic data with exact x0, c0; floats otherwise."""
    p = inst.problem
    if inst.theorem == CONVEX:
        if inst.c0_exact is not None and getattr(p, "exact", False):
            dist_sq = squared_distance(inst.x0_exact, p.x_star_exact)
            C0 = initial_control_error(inst.c0_exact, p.grads_exact(p.x_star_exact))
        else:
            dist_sq = float(np.sum((inst.x0 - p.x_star) ** 2))
            gs = p.client_grads(np.broadcast_to(p.x_star, (p.N, p.d)))
            C0 = float(np.mean(np.sum((inst.c0 - gs) ** 2, axis=1)))
        return {"dist_sq": dist_sq, "C0": C0}
    return {"f_gap": float(p.value(inst.x0)) - as_float(p.f_low)}


def instance_rhs(inst: Instance):
    """The theorem's right side on ``inst`` (exact Fraction when all inputs are rational)."""
    p = inst.problem
    k = instance_constants(inst)
    if inst.theorem == CONVEX:
        return convex_rhs(dist_sq=k["dist_sq"], C0=k["C0"], N=p.N, S=inst.S, K=inst.K, T=inst.T,
                          eta_l=inst.eta_l, eta_g=inst.eta_g, mu=p.mu, sigma=_sigma(inst.oracle))
    return nonconvex_rhs(f_gap=k["f_gap"], beta=p.beta, S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l,
                         eta_g=inst.eta_g, sigma=_sigma(inst.oracle))


def exact_engine_applies(inst: Instance) -> bool:
    """True when the left side can be computed exactly: quadratic clients with rational data
    and exact or Gaussian (known covariance) noise (issue 3, :mod:`pyfed.engines.exact`)."""

    return (isinstance(inst.problem, QuadraticProblem) and getattr(inst.problem, "exact", False)
            and type(inst.oracle) in (ExactOracle, GaussianOracle))
