"""The built-in instances on a run statement: :func:`run_instance` decides a statement on one
instance of :mod:`pyfed.suites.scaffold` (exact moments on rational quadratic clients, Monte Carlo
on real data), :func:`fit_instance_step` first halves the instance's local step exactly when the
statement's step-size hypothesis is tighter than the instance's step."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from ...errors import check_int
from ...exact import number_json
from ...statements.evaluate import evaluate
from ...suites.scaffold import Instance, exact_engine_applies
from ...theory import effective_step
from ...verdicts import Inconclusive, Verdict
from .access import ExactAccess, FloatAccess, bind
from .exact import decide_exact
from .hypotheses import evaluate_hypotheses, fit_step, fits
from .instance import RunInstance
from .montecarlo import decide_montecarlo

__all__ = ["run_instance", "fit_instance_step", "to_run_instance"]


def run_instance(inst: Instance, *, replicates: int = 256, seed: int = 0, confidence: float = 0.999,
                 statement) -> Verdict:
    """Decide ``statement`` (a :class:`~pyfed.statements.Statement` about a SCAFFOLD run) on ``inst``: exactly (exact-moment engine) for rational
    quadratic clients with Gaussian/exact oracles, otherwise by simulating the ``Run`` model over
    ``replicates`` replicates (Monte Carlo with a ``confidence`` interval).

    Returns a Verdict whose ``details`` hold the parameters, hypotheses, estimate and seed.
    If a hypothesis fails the verdict is Inconclusive (the theorem says nothing there). If the
    simulated run diverges (:class:`pyfed.errors.Diverged`) the verdict is Inconclusive with
    "diverged at round r" and ``details["anomaly"]`` (it happened inside the hypotheses; see
    :func:`pyfed.engines.montecarlo.diverged`).
    """
    replicates = check_int("replicates", replicates, minimum=2)
    st = statement
    ri = to_run_instance(inst)
    why = fits(st, ri)
    details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(),
               "seed": seed}
    if why:
        return Inconclusive(st.name, details=details, reason=f"instance does not fit the statement: {why}")
    hyps = evaluate_hypotheses(st, ri)
    details["hypotheses"] = [{"key": h.key, "statement": h.statement, "holds": h.holds,
                              "margin": number_json(h.margin)} for h in hyps]
    if exact_engine_applies(inst):
        v = decide_exact(st, ri)
        hyp_engine = v.details.get("hypotheses")
        v.details.update(details)
        rhs = v.rhs
        if isinstance(rhs, Fraction):  # the exact right side, also when the engine used balls
            v.details["rhs_exact"] = number_json(rhs)
        elif "rhs_exact" not in v.details:
            try:
                exact_rhs = evaluate(st.rhs, bind(st, ri, ExactAccess(ri)))
                if isinstance(exact_rhs, Fraction):
                    v.details["rhs_exact"] = number_json(exact_rhs)
            except Exception:  # reporting only
                pass
        v.details["method"] = "exact-moments"
        if hyp_engine:
            v.details["hypotheses"] = hyp_engine
        return v
    bad = [h for h in hyps if not h.holds]
    if bad:
        try:
            rhs = evaluate(st.rhs, bind(st, ri, FloatAccess(ri)))
        except Exception:
            rhs = None
        return Inconclusive(st.name, rhs=rhs, details=details,
                            reason="hypotheses fail: " + "; ".join(h.statement for h in bad))
    return decide_montecarlo(st, ri, replicates=replicates, seed=seed, confidence=confidence, details_extra=details)




def fit_instance_step(st, inst: Instance) -> tuple:
    """``(instance, note)``: ``inst`` unchanged with note None when ``st``'s hypotheses hold on it
    or cannot be met by a smaller step; otherwise a copy whose local step ηl is halved exactly
    until every hypothesis holds (:func:`pyfed.models.scaffold.hypotheses.fit_step`: only when the failing
    hypotheses all involve the step, at most 64 halvings, all hypotheses re-decided each time),
    with the description saying so, and the note ``{"from", "to", "halvings", "h"}`` (exact
    rationals as strings, h = K ηl ηg)."""

    fitted, k, _ = fit_step(st, to_run_instance(inst))
    if fitted is None or k == 0:
        return inst, None
    new = Fraction(fitted.eta_l)
    times = "once" if k == 1 else f"{k} times"
    text = f"ηl reduced from {inst.eta_l} to {new} (halved {times}) to satisfy the statement's hypotheses"
    out = dataclasses.replace(inst, eta_l=new, description=f"{inst.description}; {text}" if inst.description else text)
    return out, {"from": str(inst.eta_l), "to": str(new), "halvings": k,
                 "h": str(effective_step(out.K, out.eta_l, out.eta_g)), "text": text}


def to_run_instance(inst: Instance) -> RunInstance:
    """The :class:`~pyfed.models.scaffold.instance.RunInstance` of a default-suite instance
    (:class:`pyfed.suites.scaffold.Instance`): its exact ``x0``/``c0`` when it has them, its
    oracle's ``sigma`` (0 for a noiseless oracle)."""
    return RunInstance(name=inst.name, problem=inst.problem, sigma=getattr(inst.oracle, "sigma", 0), S=inst.S, K=inst.K,
                       T=inst.T, eta_l=inst.eta_l, eta_g=inst.eta_g,
                       x0=inst.x0_exact if inst.x0_exact is not None else inst.x0,
                       c0=inst.c0_exact if inst.c0_exact is not None else inst.c0,
                       oracle=inst.oracle, description=inst.description)
