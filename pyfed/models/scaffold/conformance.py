"""The SCAFFOLD run model's statements on an implementation's own trajectories (``pyfed conform
… --statements``): a rational quadratic instance per statement, inside its hypotheses, run by the
implementation (the caller supplies the trajectories), the left side estimated by Monte Carlo and
the right side evaluated exactly from the statement's Lean terms."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...engines.montecarlo import (
    decide,
    estimate_average_gradient_sq,
    estimate_weighted_gap,
)
from ...errors import InputError
from ...oracles import GaussianOracle
from ...problems import random_quadratic
from ...statements.evaluate import evaluate
from ...theory import effective_step
from ...verdicts import Inconclusive
from .access import ExactAccess, bind
from .hypotheses import evaluate_hypotheses
from .instance import RunInstance

__all__ = ["ROW_STATEMENTS", "row_instance", "implementation_rows"]

#: The statements of ``Theorems.lean`` with a Monte Carlo row here: name -> left side.
ROW_STATEMENTS = {"ConvexFiniteRoundConvergence": "weightedGap", "NonconvexFiniteRoundConvergence": "averageGradientSq",
                  "FiniteRoundConvergence.1": "weightedGap", "FiniteRoundConvergence.2": "averageGradientSq"}


def row_instance(name, st) -> RunInstance:
    """The rational quadratic instance of a Monte Carlo row: N = 6 clients in d = 3, S = 3, K = 3,
    eta_g = 1, Gaussian noise sigma = 1/2, eta_l the largest 1/2^k below the statement's step bound."""
    q = random_quadratic(6, 3, np.random.default_rng(4242), mu=Fraction(1, 10), L=1, rational=True, heterogeneity=1,
                         name="conform-rows-N6-d3")
    N, S, K, sigma = q.N, 3, 3, Fraction(1, 2)
    convex = ROW_STATEMENTS[name] == "weightedGap"
    if convex:
        bound = min(Fraction(1) / (81 * q.beta), Fraction(S, 15 * N) / q.mu if q.mu > 0 else Fraction(1))
    else:
        bound = Fraction((S / N) ** (2 / 3) * (1 - 1e-9)) / (24 * q.beta)  # (S/N)^(2/3) rounded down
    eta_l = Fraction(1, 2)
    while K * eta_l > bound:
        eta_l /= 2
    x0 = np.array([Fraction(1)] * q.d, dtype=object)
    c0 = q.grads_exact(x0) if st.init == "some" else None
    return RunInstance(name=q.name, problem=q, sigma=sigma, S=S, K=K, T=8, eta_l=eta_l, eta_g=Fraction(1), x0=x0,
                       c0=c0, oracle=GaussianOracle(q, sigma),
                       description="6 rational quadratic clients (mu = 1/10, L = 1) in d = 3, S = 3, K = 3, "
                                   "Gaussian noise sigma = 1/2, run by the implementation")


def implementation_rows(statements, run, names=None, *, replicates: int, seed: int, confidence: float = 0.999) -> list:
    """One Monte Carlo verdict per statement of ``names`` (default: ConvexFiniteRoundConvergence and
    NonconvexFiniteRoundConvergence) of ``statements`` (``{name: ScaffoldRunStatement}``, pyfed's
    own): ``run(instance)`` returns the implementation's server iterates x (R, T+1, d) on the
    statement's :func:`row_instance`. InputError naming ``statement`` for a statement without a row."""
    names = list(names) if names is not None else ["ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence"]
    for n in names:
        if n not in ROW_STATEMENTS or n not in statements:
            raise InputError("statement", f"{n!r} has no Monte Carlo row here (rows: {', '.join(ROW_STATEMENTS)})")
    verdicts = []
    for n in names:
        st = statements[n]
        inst = row_instance(n, st)
        hyps = evaluate_hypotheses(st, inst)
        rhs = evaluate(st.rhs, bind(st, inst, ExactAccess(inst)))
        details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(),
                   "hypotheses": [{"key": h.key, "statement": h.statement, "holds": h.holds} for h in hyps],
                   "seed": seed, "source": "lean/Pyfed/Scaffold/Theorems.lean",
                   "trajectories": "the implementation's (pyfed conform adapter)"}
        bad = [h for h in hyps if not h.holds]
        if bad:
            verdicts.append(Inconclusive(st.name, rhs=rhs, details=details,
                                         reason="hypotheses fail: " + "; ".join(h.statement for h in bad)))
            continue
        x = run(inst)
        p = inst.problem
        if ROW_STATEMENTS[n] == "weightedGap":
            est = estimate_weighted_gap(x, p, p.mu, effective_step(inst.K, inst.eta_l, inst.eta_g),
                                        confidence=confidence)
        else:
            est = estimate_average_gradient_sq(x, p, confidence=confidence)
        details.update(replicates=replicates, method="montecarlo")
        verdicts.append(decide(st.name, est, rhs, details=details,
                               witness={"instance": inst.name, "seed": seed, "replicates": replicates}))
    return verdicts
