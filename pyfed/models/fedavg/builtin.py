"""The built-in instances of :mod:`pyfed.suites.fedavg` on a statement about a FedAvg run: the
rational quadratic one decided exactly (:mod:`.exact`: conditional statements at every round start
by an exact PSD test, expectations from exact moments), the real-data one by Monte Carlo
(:mod:`.montecarlo`); :func:`run_builtin` is one such row (the default report's rows are
:func:`default_fedavg_rows`). Engines never print.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from ...engines.exact.fedavg_margin import fedavg_setup
from ...suites.fedavg import fedavg_suite
from ...theory.hypotheses import Hypothesis
from ...verdicts import Verdict
from .access import FedAvgRunInstance, Scalars, bind
from .exact import decide_instance
from .montecarlo import decide_montecarlo

__all__ = ["run_builtin", "fit_step", "applicable_fedavg_engines", "default_fedavg_rows", "to_run_instance"]

#: How many times a built-in instance's step may be halved to satisfy a tighter step hypothesis.
STEP_HALVINGS = 12


def fit_step(st, ri):
    """``(instance, note)``: ``ri`` itself when the statement's hypotheses hold on it; when only
    hypotheses on the step fail and the statement's run names its step, the instance with its
    step halved exactly until they hold (at most :data:`STEP_HALVINGS` times; ``note`` says so);
    else ``ri`` (the verdict then names the failing hypotheses)."""
    sp = st.spec
    et = sp.run_args["eta"]
    if et.op != "var" or ri.eta is None:
        return ri, None
    S = Scalars("exact" if ri.exact else "float")
    b = bind(st, ri, S)
    if b.why is not None or not b.failing:
        return ri, None
    eta_hyps = {h.key for h, fh in zip(st.hypotheses, sp.hypotheses) if fh.lhs.mentions([et.value])
                or fh.rhs.mentions([et.value])}
    if not set(b.failing) <= eta_hyps:
        return ri, None
    eta = ri.eta
    for j in range(1, STEP_HALVINGS + 1):
        eta = eta / 2 if isinstance(eta, Fraction) else eta / 2.0
        cand = replace(ri, eta=eta)
        if not bind(st, cand, S).failing:
            texts = [h.text for h in st.hypotheses if h.key in b.failing]
            return cand, f"η halved {j} time(s) to {eta} to satisfy {', '.join(f'`{t}`' for t in texts)}"
    return ri, None


def run_builtin(st, inst, *, replicates: int = 256, seed: int = 0, confidence: float = 0.999, name=None) -> Verdict:
    """Decide ``st`` on one built-in instance of :mod:`pyfed.suites.fedavg` (a ``FedAvgInstance``):
    exactly for the rational quadratic instance, by Monte Carlo otherwise. The verdict's statement
    is ``name`` (default ``st.name``); its details carry the instance, its parameters, the seed,
    how ζ and D² were obtained and the method."""
    name = name or st.name
    ri, note = fit_step(st, to_run_instance(inst))
    details = {"instance": inst.name, "description": inst.description + (f" ({note})" if note else ""),
               "parameters": inst.parameters(name if name.startswith("FedAvg.") else f"FedAvg.{name}"),
               "seed": seed, "zeta_derivation": inst.heterogeneity.derivation, "dist_sq_derivation": inst.dist_note}
    if note:
        details["step_fitted"] = note
        details["parameters"]["eta"] = str(ri.eta)
    if ri.family == "simulated":
        v = decide_montecarlo(st, ri, replicates=replicates, seed=seed, confidence=confidence, name=name)
    else:
        v = decide_instance(st, ri, name=name).verdict
        v.details["method"] = "exact-moments"
    engine_hyps = v.details.get("hypotheses")
    v.details.update(details)
    if engine_hyps is not None:
        v.details["hypotheses"] = engine_hyps
    return v


def applicable_fedavg_engines(st) -> dict:
    """``{kind: (applies, reason)}`` of a FedAvg statement (the shape of
    :func:`pyfed.engines.statement.engines.applicable_engines`)."""
    sp = st.spec
    cond = sp.kind == "conditional"
    return {"exact": (True, "rational quadratic clients sharing one Hessian: " + (
                "the margin as a quadratic form in the round start, positive semidefinite by exact elimination"
                if cond else "exact moments of the run") + "; deterministic non-quadratic clients exactly"),
            "montecarlo": (True, "real-data instance, simulated runs" + (" from several round starts" if cond else "")),
            "pep": (False, "no PEP formulation of a FedAvg run statement"),
            "search": (True, "shared-Hessian quadratics and non-quadratic families inside the hypotheses, "
                             "decided exactly")}


def default_fedavg_rows(statements, *, quick: bool = False, seed: int = 0, replicates: int = 256,
                        progress=None) -> list:
    """The default report's FedAvg rows: every statement of ``statements`` (the theorems of
    ``lean/Pyfed/FedAvg/Theorems.lean``, read by the statement reader) on every instance of
    :func:`pyfed.suites.fedavg.fedavg_suite` (grouped by statement: the exact quadratic row, then
    the real-data Monte Carlo row); verdicts named ``FedAvg.<theorem>``."""
    suite = fedavg_suite(quick=quick, seed=seed)
    out = []
    for st in statements:
        name = st.qualified_name
        for inst in suite:
            if progress:
                progress(f"{name} on {inst.name}")
            v = run_builtin(st, inst, replicates=replicates, seed=seed, name=name)
            v.details["source"] = st.source
            out.append(v)
    return out


def to_run_instance(inst):
    """A built-in instance of :mod:`pyfed.suites.fedavg` (a ``FedAvgInstance``) as the FedAvg
    engines take it
    (:class:`pyfed.models.fedavg.access.FedAvgRunInstance`): the problem's constants
    and its hypotheses (the fields of the Lean ``FedAvg.Problem``: convexity, smoothness,
    heterogeneity, noise) with their margins, decided exactly for the rational quadratic instance
    (:func:`pyfed.engines.exact.fedavg_margin.fedavg_setup`) and stated as certified for the
    real-data one."""

    p = inst.problem
    extra = {"zeta_derivation": inst.heterogeneity.derivation, "dist_sq_derivation": inst.dist_note}
    if inst.exact:

        s = fedavg_setup(p, inst.sigma, tau=inst.tau, T=inst.T, eta=inst.eta, x0=inst.x0_exact, L=inst.L,
                         zeta_sq=inst.heterogeneity.zeta_sq)
        return FedAvgRunInstance(
            name=inst.name, description=inst.description, family="quadratic", M=p.N, d=p.d, tau=inst.tau, T=inst.T,
            eta=inst.eta, L=inst.L, sigma=Fraction(inst.sigma), sigma_sq=Fraction(inst.sigma) ** 2,
            zeta_sq=inst.heterogeneity.zeta_sq, dist_sq=inst.dist_sq, x0=list(inst.x0_exact),
            x_star=[Fraction(v) for v in p.x_star_exact], f_star=p.f_star, f_x0=p.value_exact(inst.x0_exact),
            problem=p, oracle=inst.oracle, hypotheses=list(s.hypotheses), exact=True, extra=extra)
    hyps = [Hypothesis("convexity", "every F_i convex (certified mu = lambda >= 0)", bool(p.mu >= 0), p.mu),
            Hypothesis("smooth", "every F_i L-smooth (L = certified beta)", True, 0.0),
            Hypothesis("heterogeneity", "||grad F_i - grad F|| <= zeta (certified upper bound)", True, None),
            Hypothesis("noise", "E||g - grad F_i||^2 <= sigma^2 (certified minibatch sigma)", True, None)]
    return FedAvgRunInstance(
        name=inst.name, description=inst.description, family="simulated", M=p.N, d=p.d, tau=inst.tau, T=inst.T,
        eta=inst.eta, L=inst.L, sigma=float(inst.sigma), sigma_sq=float(inst.sigma) ** 2,
        zeta_sq=inst.heterogeneity.zeta_sq, dist_sq=inst.dist_sq, x0=list(inst.x0), x_star=list(inst.x_star),
        f_star=inst.f_low, problem=p, oracle=inst.oracle, hypotheses=hyps, exact=False, extra=extra)
