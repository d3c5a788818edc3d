"""``pyfed check``: the main job — honest verdicts on the SCAFFOLD theorems on concrete runs.

The default suite (``default_suite``):

1. ``ConvexFiniteRoundConvergence`` on a rational quadratic instance with Gaussian noise;
2. ``ConvexFiniteRoundConvergence`` on L2-regularised logistic regression over scikit-learn's
   bundled breast-cancer data, split non-iid (Dirichlet label skew) across N clients, S < N,
   with the minibatch oracle and its certified sigma;
3. ``NonconvexFiniteRoundConvergence`` on the nonconvex-regularised logistic loss over the
   same data ("similarity 10%" split), warm-start controls as the theorem requires.

Each instance is simulated with the seed-000 ``Run`` model (``pyfed.algorithms.scaffold_run``)
over R replicates; step sizes are chosen inside the hypotheses (and printed). The left side is
a Monte Carlo estimate with a confidence interval (``pyfed.engines.montecarlo``); the right
side is exact (rational data) or mpmath (float data). Each result is a
:class:`pyfed.verdicts.Verdict`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from . import __version__
from .errors import InputError, check_int
from .exact import as_float, number_json, to_fraction
from .engines.montecarlo import decide, diverged, estimate_average_gradient_sq, estimate_weighted_gap
from .errors import Diverged
from .theory import (convex_hypotheses, convex_rhs, effective_step, failing, initial_control_error,
                     nonconvex_hypotheses, nonconvex_rhs, squared_distance)
from .verdicts import Inconclusive, Verdict

CONVEX = "ConvexFiniteRoundConvergence"
NONCONVEX = "NonconvexFiniteRoundConvergence"

__all__ = ["Instance", "default_suite", "run_instance", "run_check", "CONVEX", "NONCONVEX",
           "round_down", "round_up", "convex_step", "nonconvex_step", "instance_constants",
           "instance_hypotheses", "instance_rhs"]


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

    ``quick`` shortens the horizon to T = 4 rounds (40 otherwise).
    """
    from .oracles import GaussianOracle, MinibatchOracle
    from .problems import random_quadratic
    from .problems.logistic import LogisticProblem
    from .problems.nonconvex import NonconvexLogisticProblem

    rng = np.random.default_rng(seed)
    T = 4 if quick else 40
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
    from .oracles import ExactOracle, GaussianOracle
    from .problems.quadratic import QuadraticProblem

    return (isinstance(inst.problem, QuadraticProblem) and getattr(inst.problem, "exact", False)
            and type(inst.oracle) in (ExactOracle, GaussianOracle))


def run_instance(inst: Instance, *, replicates: int = 256, seed: int = 0, confidence: float = 0.999) -> Verdict:
    """Decide the theorem on ``inst``: exactly (exact-moment engine) for rational quadratic
    clients with Gaussian/exact oracles, otherwise by simulating the seed-000 Run model over
    ``replicates`` replicates (Monte Carlo with a ``confidence`` interval).

    Returns a Verdict whose ``details`` hold the parameters, hypotheses, estimate and seed.
    If a hypothesis fails the verdict is Inconclusive (the theorem says nothing there). If the
    simulated run diverges (:class:`pyfed.errors.Diverged`) the verdict is Inconclusive with
    "diverged at round r" and ``details["anomaly"]`` (it happened inside the hypotheses; see
    :func:`pyfed.engines.montecarlo.diverged`).
    """
    from .algorithms import scaffold_run

    replicates = check_int("replicates", replicates, minimum=2)
    hyps = instance_hypotheses(inst)
    details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(),
               "hypotheses": [{"key": h.key, "statement": h.statement, "holds": h.holds,
                               "margin": number_json(h.margin)} for h in hyps],
               "seed": seed}
    rhs = instance_rhs(inst)
    bad = failing(hyps)
    if bad:
        return Inconclusive(inst.theorem, rhs=rhs, details=details,
                            reason="hypotheses fail: " + "; ".join(h.statement for h in bad))
    if exact_engine_applies(inst):
        from .engines.exact import decide_convex, decide_nonconvex

        kw = dict(S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l, eta_g=inst.eta_g,
                  x0=inst.x0_exact if inst.x0_exact is not None else inst.x0)
        sigma = _sigma(inst.oracle)
        if inst.theorem == CONVEX:
            v = decide_convex(inst.problem, sigma, c0=inst.c0_exact if inst.c0_exact is not None else inst.c0, **kw)
        else:
            v = decide_nonconvex(inst.problem, sigma, **kw)
        hyp_engine = v.details.get("hypotheses")
        v.details.update(details)
        if isinstance(rhs, Fraction):  # the exact right side, also when the engine used balls
            v.details["rhs_exact"] = number_json(rhs)
        v.details["method"] = "exact-moments"
        if hyp_engine:
            v.details["hypotheses"] = hyp_engine
        return v
    details.update(replicates=replicates, method="montecarlo")
    witness = {"instance": inst.name, "seed": seed, "replicates": replicates, "parameters": inst.parameters()}
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is detected and reported below
            traj = scaffold_run(inst.problem, inst.oracle, S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l,
                                eta_g=inst.eta_g, x0=inst.x0, c0=inst.c0, R=replicates,
                                rng=np.random.default_rng(seed))
    except Diverged as exc:  # every hypothesis holds here (checked above): an anomaly
        return diverged(inst.theorem, exc, rhs, inside_hypotheses=True, details=details, witness=witness)
    h = effective_step(inst.K, inst.eta_l, inst.eta_g)
    if inst.theorem == CONVEX:
        est = estimate_weighted_gap(traj.x, inst.problem, inst.problem.mu, h, confidence=confidence)
    else:
        est = estimate_average_gradient_sq(traj.x, inst.problem, confidence=confidence)
    return decide(inst.theorem, est, rhs, details=details, witness=witness)


def default_replicates(quick: bool) -> int:
    """Monte Carlo replicates per instance when the user gives none: 64 quick, 256 otherwise."""
    return 64 if quick else 256


def run_check(*, quick: bool = False, seed: int = 0, replicates: int | None = None,
              progress=None) -> list[Verdict]:
    """Run the default suite; returns the list of verdicts: the theorem instances, then one
    PEP worst-case row for the convex theorem (every function of the class, sigma = 0, S = N).

    ``progress``: optional callable ``progress(label)`` invoked before each task.
    """
    reps = replicates if replicates is not None else default_replicates(quick)
    out = []
    for inst in default_suite(quick=quick, seed=seed):
        if progress:
            progress(inst.name)
        out.append(run_instance(inst, replicates=reps, seed=seed))
    # worst case over the whole function class at a small size (PEP, deterministic regime)
    from .engines.pep import pep_row_for_check

    if progress:
        progress("PEP worst case (ConvexFiniteRoundConvergence, N=2 K=2 T=2)")
    out.append(pep_row_for_check())
    return out


def report_json(verdicts: list[Verdict], *, seed: int, quick: bool, replicates, statements=()) -> str:
    """The JSON report written by ``pyfed check --json``: theorem verdicts, and the statement
    checkers' verdicts (``[(lean_name, Verdict)]`` from :func:`checkers.run_all`)."""
    return json.dumps({"pyfed": __version__, "seed": seed, "quick": quick, "replicates": replicates,
                       "verdicts": [v.to_json() for v in verdicts],
                       "statements": [dict(v.to_json(), lean_name=name) for name, v in statements]},
                      indent=2, sort_keys=True, default=str)
