"""``pyfed check``, FedAvg part: verdicts on the four Field Guide statements (Lean namespace ``FedAvg``).

Two built-in instances (:func:`fedavg_suite`), each checked against every statement:

1. **quadratic, exact**: 8 rational quadratic clients sharing one Hessian (then ζ is exact:
   ζ² = maxᵢ ‖bᵢ − b̄‖²), Gaussian noise σ = 1/2, η = 1/(4L) (the boundary of the step-size
   hypothesis). Every verdict is decided by the exact-moment engine
   (:mod:`pyfed.engines.exact.fedavg_verdict`): Lemmas 1-2 at *every* round start (exact PSD
   test of the margin as a quadratic form in the start), Theorem 1 exactly, the tuned step in
   certified balls when it is irrational.
2. **real data, Monte Carlo**: L2-regularised logistic regression (the same λ on every client) on
   scikit-learn's breast-cancer data, 10 clients with Dirichlet(0.5) label skew, minibatch oracle
   (certified σ), certified ζ (:func:`pyfed.problems.heterogeneity.finite_sum_heterogeneity`),
   η just below 1/(4L). Theorem 1 from R replicates of the whole run; Lemmas 1-2 from x₀ and
   round starts reached by a simulated run (R replicates of one round from each; joint level by
   Bonferroni).

Each row is a :class:`pyfed.verdicts.Verdict` whose ``statement`` is the qualified Lean name
(``FedAvg.PerRoundProgress`` ...) and whose ``details`` carry ``instance``, ``description``,
``parameters``, ``hypotheses`` and ``method`` as the SCAFFOLD rows of :mod:`pyfed.check` do.

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section 6.1.2,
PDF p. 41 (Lemma 1, Lemma 2, Theorem 1 eqs. (15)-(17)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .exact import number_json, rational_str, to_fraction
from .theory import fedavg as th

PROGRESS = "FedAvg.PerRoundProgress"
DRIFT = "FedAvg.BoundedClientDrift"
CONVEX = "FedAvg.ConvexFedAvgConvergence"
TUNED = "FedAvg.TunedConvexFedAvgConvergence"
STATEMENTS = (PROGRESS, DRIFT, CONVEX, TUNED)

__all__ = ["STATEMENTS", "FedAvgInstance", "fedavg_suite", "run_fedavg_instance", "run_fedavg_check"]


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
    from .check import round_down
    from .oracles import GaussianOracle, MinibatchOracle
    from .problems.heterogeneity import finite_sum_heterogeneity, quadratic_heterogeneity, shared_hessian_quadratic
    from .problems.logistic import LogisticProblem

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


def _hyps_json(hyps):
    return [{"key": h.key, "statement": h.statement, "holds": bool(h.holds), "margin": number_json(h.margin)}
            for h in hyps]


def _mc_hypotheses(inst: FedAvgInstance, statement):
    s2 = float(inst.sigma) ** 2
    if statement == TUNED:
        hs = th.tuned_hypotheses(M=inst.problem.N, tau=inst.tau, T=inst.T, L=inst.L, dist_sq=inst.dist_sq,
                                 sigma_sq=s2, zeta_sq=inst.heterogeneity.zeta_sq)
    else:
        hs = th.fedavg_hypotheses(M=inst.problem.N, tau=inst.tau, T=inst.T, eta=inst.eta, L=inst.L, sigma_sq=s2,
                                  zeta_sq=inst.heterogeneity.zeta_sq)
    from .theory.hypotheses import Hypothesis
    p = inst.problem
    extra = [Hypothesis("convexity", "every F_i convex (certified mu = lambda >= 0)", bool(p.mu >= 0), p.mu),
             Hypothesis("smooth", "every F_i L-smooth (L = certified beta)", True, 0.0),
             Hypothesis("heterogeneity", "||grad F_i - grad F|| <= zeta (certified upper bound)", True, None),
             Hypothesis("noise", "E||g - grad F_i||^2 <= sigma^2 (certified minibatch sigma)", True, None)]
    return list(hs) + extra


def run_fedavg_instance(inst: FedAvgInstance, statement: str, *, replicates: int = 256, seed: int = 0,
                        confidence: float = 0.999):
    """Decide one FedAvg statement on one instance (exactly, or by Monte Carlo)."""
    details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(statement),
               "seed": seed, "zeta_derivation": inst.heterogeneity.derivation, "dist_sq_derivation": inst.dist_note}
    if inst.exact:
        v = _run_exact(inst, statement)
        v.details["method"] = "exact-moments"
    else:
        v = _run_mc(inst, statement, replicates, seed, confidence)
    engine_hyps = v.details.get("hypotheses")
    v.details.update(details)
    if engine_hyps is not None:
        v.details["hypotheses"] = engine_hyps
    return v


def _run_exact(inst, statement):
    from .engines.exact import fedavg_verdict as fv

    kw = dict(x0=inst.x0_exact, L=inst.L, zeta_sq=inst.heterogeneity.zeta_sq)
    p, s = inst.problem, inst.sigma
    if statement == PROGRESS:
        return fv.decide_per_round_progress(p, s, tau=inst.tau, eta=inst.eta, T=inst.T, **kw)
    if statement == DRIFT:
        return fv.decide_bounded_client_drift(p, s, tau=inst.tau, eta=inst.eta, T=inst.T, **kw)
    if statement == CONVEX:
        return fv.decide_convex_fedavg(p, s, tau=inst.tau, T=inst.T, eta=inst.eta, **kw)
    return fv.decide_tuned_convex_fedavg(p, s, tau=inst.tau, T=inst.T, **kw)


def _run_mc(inst, statement, replicates, seed, confidence):
    from .algorithms.fedavg_shadow import fedavg_shadow
    from .engines import montecarlo_fedavg as mcf
    from .verdicts import Inconclusive

    p = inst.problem
    s2 = float(inst.sigma) ** 2
    z2 = inst.heterogeneity.zeta_sq
    hyps = _mc_hypotheses(inst, statement)
    details = {"hypotheses": _hyps_json(hyps), "replicates": replicates, "method": "montecarlo",
               "assumptions": ("F* replaced by a certified lower bound f_low (left sides can only grow); x* by Newton's "
                               "minimiser; D^2, sigma, zeta are certified upper bounds")}
    witness = {"instance": inst.name, "seed": seed, "replicates": replicates, "parameters": inst.parameters(statement)}
    bad = [h.statement for h in hyps if not h.holds]
    if bad:
        return Inconclusive(statement, details=details, reason="hypotheses fail: " + "; ".join(bad))
    rng = np.random.default_rng([seed, STATEMENTS.index(statement)])
    if statement in (CONVEX, TUNED):
        if statement == CONVEX:
            eta = inst.eta
            rhs = th.convergence_rhs(dist_sq=inst.dist_sq, M=p.N, tau=inst.tau, T=inst.T, eta=eta, L=inst.L,
                                     sigma_sq=s2, zeta_sq=z2)
        else:
            tk = dict(dist_sq=inst.dist_sq, M=p.N, tau=inst.tau, T=inst.T, L=inst.L, sigma_sq=s2, zeta_sq=z2)
            eta = th.optimized_step(**tk)
            rhs = th.optimized_rhs(**tk)
            details["step"] = str(eta)
            details["step_choice"] = th.optimized_step_candidates(**tk)[th.optimized_step_choice(**tk)].statement
            details["step_note"] = ("eta from the certified upper bounds (D^2, sigma, zeta, L); D is known to within "
                                    "||x^ - x*||, so the simulated step differs from the exact tuned step by at most "
                                    "that relative amount")
        tr = fedavg_shadow(p, inst.oracle, tau=inst.tau, T=inst.T, eta=float(eta), x0=inst.x0, R=replicates, rng=rng)
        return mcf.decide_avg_loss(statement, tr, inst.f_low, rhs, confidence=confidence, details=details,
                                   witness=witness)
    # conditional lemmas: from x0 and round starts visited by one simulated run
    path = fedavg_shadow(p, inst.oracle, tau=inst.tau, T=inst.T, eta=float(inst.eta), x0=inst.x0, R=1, rng=rng)
    idx = sorted({0, inst.T // 2, inst.T - 1})
    starts = path.round_starts[0, idx]
    details["round_starts"] = f"x0 and the round starts t = {idx[1:]} of one simulated run (seed {seed})"
    R = max(2, replicates // 2)
    if statement == PROGRESS:
        return mcf.decide_progress_from_starts(p, inst.oracle, starts, tau=inst.tau, eta=inst.eta, L=inst.L,
                                               sigma_sq=s2, x_star=inst.x_star, f_star=inst.f_low, R=R, rng=rng,
                                               confidence=confidence, details=details, witness=witness)
    return mcf.decide_drift_from_starts(p, inst.oracle, starts, tau=inst.tau, eta=inst.eta, sigma_sq=s2, zeta_sq=z2,
                                        R=R, rng=rng, confidence=confidence, details=details, witness=witness)


def run_fedavg_check(*, quick: bool = False, seed: int = 0, replicates: int = 256, progress=None) -> list:
    """Every FedAvg statement on every instance of :func:`fedavg_suite`: a list of Verdicts
    (grouped by statement: the exact quadratic row, then the real-data Monte Carlo row)."""
    suite = fedavg_suite(quick=quick, seed=seed)
    out = []
    for statement in STATEMENTS:
        for inst in suite:
            if progress:
                progress(f"{statement} on {inst.name}")
            out.append(run_fedavg_instance(inst, statement, replicates=replicates, seed=seed))
    return out
