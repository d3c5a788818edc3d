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

import numpy as np

from .exact import number_json
from .suites.fedavg import CONVEX, DRIFT, PROGRESS, STATEMENTS, TUNED, FedAvgInstance, fedavg_suite  # noqa: F401
from .theory import fedavg as th

__all__ = ["STATEMENTS", "FedAvgInstance", "fedavg_suite", "run_fedavg_instance", "run_fedavg_check"]


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
