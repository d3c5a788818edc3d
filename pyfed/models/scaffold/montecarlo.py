"""Monte Carlo on a statement: :func:`decide_montecarlo` simulates the run (the seed-000 ``Run``
model, :func:`pyfed.algorithms.scaffold_run`) and decides the statement with a Student-t interval
on its left side (a linear combination of per-round expectations)."""

from __future__ import annotations

import numpy as np
import sympy

from ...algorithms import scaffold_run
from ...engines.montecarlo import (
    Estimate,
    decide,
    diverged,
    estimate_average_gradient_sq,
    estimate_weighted_gap,
)
from ...errors import Diverged, InputError
from ...evaluation.numbers import EvaluationError, to_exact
from ...exact import as_float, fraction_of, number_json
from ...oracles import GaussianOracle
from ...statements.evaluate import MINIMIZER_KEY, evaluate
from ...theory import effective_step, weight_sum
from ...verdicts import Inconclusive, Verdict
from .access import ExactAccess, FloatAccess, NotLinear, bind, linear_form
from .hypotheses import evaluate_hypotheses, fits
from .instance import RunInstance, _is_exact_quadratic

__all__ = ["decide_montecarlo"]


def decide_montecarlo(st, inst: RunInstance, *, replicates: int = 256, seed: int = 0,
                      confidence: float = 0.999, details_extra: dict | None = None) -> Verdict:
    """Decide ``st`` by simulating ``replicates`` runs (seeded ``default_rng(seed)``).

    The left side ``weightedGap`` / ``averageGradientSq`` is estimated by its library estimator
    (:mod:`pyfed.engines.montecarlo`); any other left side must be a linear combination of
    per-round statistics (:func:`linear_form`), estimated per replicate. The right side is
    evaluated from the statement (exact or mpmath). Nonlinear left sides give Inconclusive
    with the reason; so does a run that diverges (:class:`pyfed.errors.Diverged`): "diverged at
    round r", flagged as an anomaly since every hypothesis holds here
    (:func:`pyfed.engines.montecarlo.diverged`)."""

    why = fits(st, inst)
    if why:
        raise InputError("instance", why)
    hyps = evaluate_hypotheses(st, inst)
    details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(),
               "hypotheses": [{"key": h.key, "statement": h.statement, "holds": h.holds,
                               "margin": number_json(h.margin)} for h in hyps],
               "seed": seed}
    details.update(details_extra or {})
    access = ExactAccess(inst) if _is_exact_quadratic(inst.problem) else FloatAccess(inst)
    val = bind(st, inst, access)
    try:
        rhs = evaluate(st.rhs, val)
    except EvaluationError as exc:
        return Inconclusive(st.name, details=details, reason=str(exc))
    rhs = to_exact(rhs)
    if isinstance(rhs, sympy.Basic):
        import mpmath
        rhs = mpmath.mpf(str(sympy.N(rhs, 50)))
    bad = [h for h in hyps if not h.holds]
    if bad:
        return Inconclusive(st.name, rhs=rhs, details=details,
                            reason="hypotheses fail: " + "; ".join(h.statement for h in bad))
    single = st.lhs.kind == "app" and st.lhs.head_name() in ("weightedGap", "averageGradientSq")
    form = None
    if not single:
        try:
            form = linear_form(st, inst)
        except NotLinear as exc:
            return Inconclusive(st.name, rhs=rhs, details=details, reason=f"Monte Carlo not applicable: {exc}")
    oracle = inst.oracle if inst.oracle is not None else GaussianOracle(inst.problem, inst.sigma)
    c0 = None if st.init == "none" else inst.c0
    if c0 is not None and np.asarray(c0).dtype == object:
        c0 = np.array([[float(v) for v in row] for row in c0])
    x0 = inst.x0 if np.asarray(inst.x0).dtype != object else np.array([float(v) for v in inst.x0])
    witness = {"instance": inst.name, "seed": seed, "replicates": replicates, "parameters": inst.parameters()}
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is detected and reported below
            traj = scaffold_run(inst.problem, oracle, S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l,
                                eta_g=inst.eta_g, x0=x0, c0=c0, R=replicates, rng=np.random.default_rng(seed))
    except Diverged as exc:  # every hypothesis holds here (checked above): an anomaly worth reporting
        details.update(replicates=replicates, method="montecarlo")
        return diverged(st.name, exc, rhs, inside_hypotheses=True, details=details, witness=witness)
    if single:
        if st.lhs.head_name() == "weightedGap":
            h = effective_step(inst.K, inst.eta_l, inst.eta_g)
            mu = evaluate(st.lhs.args[3], val)
            xs = evaluate(st.lhs.args[2], val)
            f_star = None if xs.key == MINIMIZER_KEY else as_float(access.objective(xs))
            mu_q = fraction_of(to_exact(mu))           # a float μ at its exact binary value
            if mu_q is not None and weight_sum(inst.T, mu_q, h, lean=True) == 0:
                # μ h = 2: Lean's weights (1 - μh/2)⁻¹ ^ (r+1) are 0⁻¹ ^ (r+1) = 0, so weightedGap is exactly 0
                est = Estimate.from_samples(np.zeros(np.asarray(traj.x).shape[0]), confidence)
            else:
                est = estimate_weighted_gap(traj.x, inst.problem, mu, h, f_star=f_star, confidence=confidence)
        else:
            est = estimate_average_gradient_sq(traj.x, inst.problem, confidence=confidence)
    else:
        const, coefs = form
        x = np.asarray(traj.x, dtype=np.float64)
        fs = as_float(inst.problem.f_star)
        per = np.full(x.shape[0], float(const))
        for (kind, r), c in coefs.items():
            if kind == "gap":
                per = per + float(c) * (inst.problem.value(x[:, r, :]) - fs)
            else:
                g = inst.problem.grad(x[:, r, :])
                per = per + float(c) * np.einsum("rd,rd->r", g, g)
        est = Estimate.from_samples(per, confidence)
        details["linear_form"] = {f"{k[0]}[{k[1]}]": str(c) for k, c in coefs.items()}
    details.update(replicates=replicates, method="montecarlo")
    return decide(st.name, est, rhs, details=details, witness=witness)
