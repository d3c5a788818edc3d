"""PEP row of a statement: the worst case of a run statement over the whole function class, where
its hypotheses admit the deterministic regime (σ = 0, S = N), else a wider one (below).

The row exists when the statement

* assumes ``Convexity P μ`` and ``IsMinimizer P xstar`` (the class: β-smooth μ-strongly convex
  clients, x⋆ a minimiser of F) and deterministic controls ``some c0``;
* has hypotheses that hold at σ = 0, S = N and depend on the parameters only (not on the
  instance's data, which the PEP leaves free);
* has a left side c + Σ_r a_r (F(x_r) - F⋆) + Σ_r b_r ‖∇F(x_r)‖² with c = 0, and a right side
  that at σ = 0 is α ‖x0 - x⋆‖² + γ C₀ + κ with α > 0, γ ≥ 0, κ ≥ 0 -- checked symbolically
  (the statement's terms evaluated with ‖x0 - x⋆‖² and C₀ as symbols).

Then, by homogeneity, the statement holds on the whole class at these parameters iff
sup { LHS : ‖x0 - x⋆‖² + (γ/α) C₀ ≤ 1 } ≤ α, an SDP (PEPit, :mod:`pyfed.engines.pep`).
Otherwise :func:`pep_plan` raises :class:`NoPEP` saying why there is no row. A claimed violation
is re-verified exactly on a quadratic instance fitted to the worst case
(:func:`pyfed.engines.pep.scaffold.fit_quadratic`) with the statement's own exact engine
(:func:`pyfed.models.scaffold.exact.decide_exact`).

Wider regimes (:data:`REGIMES`, :func:`find_plan`): when the hypotheses exclude σ = 0, S = N, the
row is tried at σ > 0 (right side α ‖x0 - x⋆‖² + γ C₀ + κ + ρ σ², the expectation-Gram relaxation
of :mod:`pyfed.engines.pep.stochastic`) and at S = 1 < N = 2 (the average over subset sequences of
:mod:`pyfed.engines.pep.participation`), solved and certified on the exact problem
(:func:`pyfed.engines.pep.wide.decide_pep`): holds (certified or numerical); at S < N, σ = 0 a
claimed violation is re-verified exactly as above (a quadratic fitted to the primal worst case of
the subset-sequence tree); at σ > 0 a value above α is a relaxation's, so the row is inconclusive."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import sympy

from ...engines.pep.certificate import certify_verdict
from ...engines.pep.exact_pep import pep_scaffold_exact
from ...engines.pep.participation import check_tree_size, pep_scaffold_wide_exact
from ...engines.pep.scaffold import fit_quadratic
from ...engines.pep.solver import (
    DEFAULT_RATIO_TOL,
    DEFAULT_SOLVER_TOL,
    WorstCaseResult,
    _certificate,
    _check_solver,
    _fmt_frac,
    _gram_size,
    _mean,
    _new_function,
    _solve,
)
from ...engines.pep.wide import decide_pep
from ...errors import InputError
from ...evaluation.numbers import EvaluationError, to_exact
from ...exact import as_float
from ...problems.quadratic import QuadraticProblem
from ...statements.evaluate import evaluate
from ...theory import effective_step
from ...verdicts import Evidence, Holds, Inconclusive, Verdict, Violated
from .access import ExactAccess, NotLinear, SymbolicAccess, bind, linear_form
from .exact import decide_exact
from .hypotheses import (
    _admissible,
    _step_relevant,
    evaluate_hypotheses,
    fits,
    hypothesis_mentions,
    max_eta_l,
)
from .instance import RunInstance
from .pep_witness import interpolated_reverification

__all__ = ["NoPEP", "pep_plan", "pep_row"]


class NoPEP(Exception):
    """The statement has no PEP row; the message says why. ``tried``: True when an instance of
    the PEP row was built and failed the hypotheses (it counts among the instances tried)."""

    def __init__(self, message: str, tried: bool = False):
        super().__init__(message)
        self.tried = tried


_DATA = {"objective", "initialControlError", "initialPotential", "convexRHS", "nonconvexRHS"}


def _uses_data(node, st, seen=None) -> bool:
    seen = set() if seen is None else seen
    data_names = {st.role_of("xstar"), st.controls} - {None}
    for n in node.walk():
        if n.kind == "norm":
            return True
        if n.kind == "ident" and (n.value.endswith(".x0") or n.value in data_names):
            return True
        h = n.head_name()
        if n.kind == "app" and h in _DATA:
            return True
        if n.kind == "app" and h in st.definitions and h not in seen:
            seen.add(h)
            if _uses_data(st.definitions[h].body, st, seen):
                return True
    return False


def pep_plan(st, *, N: int = 2, K: int = 2, T: int = 2, beta=1, mu=0, eta_g=1, constants=None, S=None,
             sigma=0) -> dict:
    """Parameters and metric of the statement's PEP row (see the module docstring). ``constants``:
    model constants of the right side set to other values, ``{(definition, key): Fraction}`` (as
    :class:`pyfed.models.scaffold.constants.Literal` ``model``; the constant profile varies them).
    ``S`` (default N) clients per round and ``sigma`` (default 0) the noise of the regime: S < N
    averages over subset sequences, σ > 0 uses the expectation relaxation
    (:mod:`pyfed.engines.pep.participation`, :mod:`pyfed.engines.pep.stochastic`); σ > 0 then
    needs the right side α ‖x0 - x⋆‖² + γ C₀ + κ + ρ σ² (ρ ≥ 0), and by homogeneity the row is the
    same for every σ > 0.

    Returns dict(eta_l, S, N, K, T, beta, mu, eta_g, sigma, gap_coefs {r: Fraction}, grad_coefs,
    alpha, gamma, kappa, rho (None at σ = 0), rounds, hypotheses, note). Raises :class:`NoPEP` with
    the reason."""

    if st.hypothesis("convexity") is None:
        raise NoPEP("the statement does not assume `Convexity P μ`: the PEP engine ranges over smooth "
                    "(strongly) convex clients")
    if st.hypothesis("minimizer") is None:
        raise NoPEP("the statement does not assume `IsMinimizer P xstar`")
    if st.init != "some":
        raise NoPEP("the warm start (`none`) is not a deterministic initial condition the PEP row covers; "
                    "it needs `some c0`")
    for p in st.parameters:
        if p.role == "free":
            raise NoPEP(f"the parameter `{p.name}` has no role the PEP row can fix")
    for h in st.hypotheses:
        if h.kind == "compare" and _uses_data(h.node, st):
            raise NoPEP(f"the hypothesis `{h.text}` depends on the instance's data, which the PEP leaves free")
    beta, mu, eta_g, sigma = Fraction(beta), Fraction(mu), Fraction(eta_g), Fraction(sigma)
    S = N if S is None else S
    problem = QuadraticProblem(np.array([[[beta]]] * N, dtype=object), np.array([[Fraction(0)]] * N, dtype=object),
                               name="pep-class", beta=beta)
    inst = RunInstance(name="pep", problem=problem, sigma=sigma, S=S, K=K, T=T, eta_l=Fraction(1, 1000),
                       eta_g=eta_g, x0=np.array([Fraction(0)], dtype=object),
                       c0=np.array([[Fraction(0)]] * N, dtype=object), mu=mu)
    regime = _regime(N, S, sigma)
    why = fits(st, inst)
    if why:
        raise NoPEP(f"the PEP instance ({regime}, K = {K}, T = {T}) does not fit: {why}")
    where = f"{regime}, K = {K}, T = {T}, β = {_fmt_frac(beta)}, μ = {_fmt_frac(mu)}, ηg = {_fmt_frac(eta_g)}"
    eta_l, bounded = max_eta_l(st, inst)
    note = ""
    if eta_l is None and bounded:     # nothing admissible for 2^-80/β <= h <= 64/β (max_eta_l)
        inst.eta_l = Fraction(1) / (81 * K * eta_g * beta)
        step_hyps = _step_relevant(st)
        failing = [h.text for h in step_hyps if not _admissible(st, inst, [h])]
        raise NoPEP(f"at the PEP instance tried ({where}) no step with 2^-80/β <= h <= 64/β satisfies the step "
                    "hypotheses" + (": " + "; ".join(failing) if failing else " together"), tried=True)
    if eta_l is None:
        eta_l = Fraction(1) / (81 * K * eta_g * beta)
        note = "the hypotheses do not bound the step: h = 1/(81 beta) is used"
    inst.eta_l = eta_l
    hyps = evaluate_hypotheses(st, inst)
    n_struct = len(hyps) - len(st.hypotheses)
    bad = [(i, h) for i, h in enumerate(hyps) if not h.holds and h.key not in ("convexity", "minimizer")]
    if bad:
        msg = (f"at the PEP instance tried ({where}, ηl = {_fmt_frac(eta_l)}) the hypotheses fail: "
               + "; ".join(h.statement for _, h in bad))
        sizes = {st.role_of(r) for r in ("d", "N", "K", "T")} - {None}
        if any(i >= n_struct and hypothesis_mentions(st.hypotheses[i - n_struct], sizes) for i, _ in bad):
            msg += (f" -- a limit of the PEP row's problem size (it is solved at N = {N}, K = {K}, T = {T} only; "
                    f"its SDP grows with N, K and T), not a proof that the hypotheses exclude {regime}")
        raise NoPEP(msg, tried=True)
    try:
        const, coefs = linear_form(st, inst, access=ExactAccess(inst), pep=True)
    except (NotLinear, EvaluationError) as exc:
        raise NoPEP(str(exc)) from None
    if const != 0:
        raise NoPEP(f"the left side has the constant term {const} (the PEP's homogeneity needs none)")
    sa = SymbolicAccess(ExactAccess(inst), pep=True)
    at = "at σ = 0" if sigma == 0 else "at σ > 0"
    s2 = sympy.Symbol("sigma", positive=True)
    if sigma > 0:
        sa.sigma = s2          # the right side as a polynomial in σ as well
    try:
        val = bind(st, inst, sa)
        val.constants.update(constants or {})
        rhs = sympy.expand(sympy.sympify(evaluate(st.rhs, val)))
    except (NotLinear, EvaluationError) as exc:
        raise NoPEP(str(exc)) from None
    D, C = sa.D, sa.C
    rho = None
    if sigma > 0:
        rho = rhs.coeff(s2, 2)
        rhs = sympy.expand(rhs - rho * s2**2)
        rho = to_exact(rho)
        if s2 in rhs.free_symbols or not isinstance(rho, Fraction) or rho < 0:
            raise NoPEP("the right side at σ > 0 is not α ‖x0 - x⋆‖² + γ C₀ + κ + ρ σ² with a rational ρ >= 0")
    try:
        poly = sympy.Poly(rhs, D, C)
    except sympy.PolynomialError:
        raise NoPEP(f"the right side {at} is not a polynomial in ‖x0 - x⋆‖² and C₀") from None
    if poly.total_degree() > 1 or rhs.free_symbols - {D, C}:
        raise NoPEP(f"the right side {at} is not a linear combination of ‖x0 - x⋆‖² and C₀")
    alpha, gamma = to_exact(rhs.coeff(D)), to_exact(rhs.coeff(C))
    kappa = to_exact(sympy.simplify(rhs - rhs.coeff(D) * D - rhs.coeff(C) * C))
    for name, v in (("‖x0 - x⋆‖²", alpha), ("C₀", gamma), ("the constant", kappa)):
        if not isinstance(v, Fraction):
            raise NoPEP(f"the coefficient of {name} {at} is not rational ({v})")
    if alpha <= 0:
        raise NoPEP(f"the right side {at} has no positive multiple of ‖x0 - x⋆‖²: it is not a nonnegative "
                    f"combination α ‖x0 - x⋆‖² + γ C₀ with α > 0 (α = {alpha})")
    if gamma < 0 or kappa < 0:
        raise NoPEP(f"the right side {at} is α ‖x0 - x⋆‖² + γ C₀ + κ with γ = {gamma}, κ = {kappa}: "
                    "a negative coefficient")
    gap = {r: to_exact(c) for (k, r), c in coefs.items() if k == "gap"}
    grad = {r: to_exact(c) for (k, r), c in coefs.items() if k == "gradsq"}
    rounds = max(list(gap) + list(grad) + [0])
    if S < N or sigma > 0:
        try:
            check_tree_size(N, S, K, rounds, noisy=sigma > 0)
        except InputError as exc:
            raise NoPEP(f"{regime}: {exc.reason}") from None
    return {"eta_l": eta_l, "S": S, "N": N, "K": K, "T": T, "beta": beta, "mu": mu, "eta_g": eta_g, "sigma": sigma,
            "gap_coefs": gap, "grad_coefs": grad, "alpha": alpha, "gamma": gamma, "kappa": kappa, "rho": rho,
            "rounds": rounds, "hypotheses": hyps, "note": note, "instance": inst}


def _regime(N, S, sigma) -> str:
    """How a PEP regime reads in messages (the deterministic full-participation one as before)."""
    part = f"S = N = {N}" if S == N else f"S = {S} < N = {N}"
    return f"σ = 0, {part}" if sigma == 0 else f"σ > 0, {part}"


#: The regimes the statement row tries, in order, when none is asked for: the deterministic full
#: participation PEP, then σ > 0 (expectation relaxation), then S = 1 of N = 2 (average over subset
#: sequences), then both. (S, sigma); S None means N.
REGIMES = ((None, 0), (None, 1), (1, 0), (1, 1))


def find_plan(st, **kw) -> dict:
    """:func:`pep_plan` of the first regime of :data:`REGIMES` whose instance the statement admits.
    Raises :class:`NoPEP` when none does: the reason, if the same for every regime (the statement's
    shape), else each regime's reason; ``tried`` if some regime built an instance."""
    reasons, labels, tried = [], [], False
    N = kw.get("N", 2)
    for S, sigma in REGIMES:
        try:
            return pep_plan(st, S=S, sigma=sigma, **kw)
        except NoPEP as exc:
            label = _regime(N, N if S is None else S, sigma)
            labels.append(label)
            reasons.append(str(exc).replace(label, "{regime}"))
            tried = tried or exc.tried
    if len(set(reasons)) == 1:       # the same reason in every regime: say it once
        if "{regime}" not in reasons[0]:
            raise NoPEP(reasons[0], tried=tried)
        every = "; ".join(dict.fromkeys(labels))
        raise NoPEP(reasons[0].replace("{regime}", "every regime tried: " + every, 1).replace("{regime}", "them"),
                    tried=tried)
    said = dict.fromkeys(r.replace("{regime}", lab) for r, lab in zip(reasons, labels))   # each reason once
    raise NoPEP("no regime applies: " + " | ".join(said), tried=tried)


def _build(plan, pot_coef):
    """The PEP of deterministic SCAFFOLD (S = N) with the statement's metric (same calls, in the
    same order, as :func:`pyfed.engines.pep.scaffold._build_scaffold` for weightedGap)."""
    from PEPit import PEP

    N, K = plan["N"], plan["K"]
    beta, mu = float(plan["beta"]), float(plan["mu"])
    eta_l, eta_g = float(plan["eta_l"]), float(plan["eta_g"])
    gap = {r: as_float(c) for r, c in plan["gap_coefs"].items()}
    grad = {r: as_float(c) for r, c in plan["grad_coefs"].items()}
    problem = PEP()
    fs = [_new_function(problem, beta, mu) for _ in range(N)]
    F = _mean(fs)
    xs = F.stationary_point()
    F_star = F(xs)
    gstar = [f.gradient(xs) for f in fs]
    x0 = problem.set_initial_point()
    c = [problem.set_initial_point() for _ in range(N)]
    c_init = list(c)
    C0 = _mean([(c[i] - gstar[i]) ** 2 for i in range(N)])
    problem.set_initial_condition((x0 - xs) ** 2 + pot_coef * C0 <= 1)
    x = x0
    metric = None
    R = plan["rounds"]
    for r in range(R + 1):
        if r in gap:
            term = gap[r] * (F(x) - F_star)
            metric = term if metric is None else metric + term
        if r in grad:
            g = F.gradient(x)
            term = grad[r] * g ** 2
            metric = term if metric is None else metric + term
        if r == R:
            break
        cbar = _mean(c)
        new_c, y_last = [], []
        for i in range(N):
            y = x
            grads = []
            for _ in range(K):
                gi = fs[i].gradient(y)
                grads.append(gi)
                y = y - eta_l * (gi - c[i] + cbar)
            y_last.append(y)
            new_c.append(_mean(grads))
        x = x + eta_g * (_mean(y_last) - x)
        c = new_c
    problem.set_performance_metric(metric)
    return problem, {"functions": fs, "xs": xs, "x0": x0, "c0_points": c_init}


def pep_row(st, *, N: int = 2, K: int = 2, T: int = 2, beta=1, mu=0, eta_g=1, solver=None,
            solver_tol=DEFAULT_SOLVER_TOL, ratio_tol=DEFAULT_RATIO_TOL, solver_options=None,
            verify: bool = True, certify: bool = True, constants=None, S=None, sigma=None) -> Verdict:
    """The statement's PEP row: worst case over the class at σ = 0, S = N (defaults: N = 2,
    K = 2, T = 2, β = 1, μ = 0, ηg = 1, ηl the largest step the hypotheses admit). Returns the
    verdict: Holds certified (evidence "PEP certificate over the class") when an exact rational
    certificate of LHS ≤ α (‖x0 - x⋆‖² + (γ/α) C₀) verifies (:mod:`pyfed.engines.pep.certificate`;
    ``certify=False`` skips it), Holds numerical when the SDP says so and no certificate verifies
    (``details["pep_certificate"]["reason"]`` says why); Violated only after exact
    re-verification; Inconclusive otherwise. Raises :class:`NoPEP` when the statement has no PEP
    row. ``constants``: as :func:`pep_plan`.

    ``S``, ``sigma``: the regime (as :func:`pep_plan`); when both are None the first of
    :data:`REGIMES` the hypotheses admit (:func:`find_plan`): a statement that excludes σ = 0 or
    S = N gets the σ > 0 (relaxation) or S = 1 < N = 2 row (:func:`_wide_row`)."""
    kw = dict(N=N, K=K, T=T, beta=beta, mu=mu, eta_g=eta_g, constants=constants)
    if S is None and sigma is None:
        plan = find_plan(st, **kw)
    else:
        plan = pep_plan(st, S=S, sigma=sigma or 0, **kw)
    solver = _check_solver(solver)
    if plan["S"] < plan["N"] or plan["sigma"] > 0:
        return _wide_row(st, plan, solver=solver, solver_tol=solver_tol, ratio_tol=ratio_tol, certify=certify,
                         verify=verify)
    alpha, gamma = plan["alpha"], plan["gamma"]
    pot_coef = gamma / alpha
    problem, handles = _build(plan, float(pot_coef))
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    ratio = dual / as_float(alpha) if dual is not None else None
    h = effective_step(plan["K"], plan["eta_l"], plan["eta_g"])
    params = {"N": N, "S": N, "K": K, "T": T, "eta_l": _fmt_frac(plan["eta_l"]), "eta_g": _fmt_frac(plan["eta_g"]),
              "beta": _fmt_frac(plan["beta"]), "mu": _fmt_frac(plan["mu"]), "sigma": "0", "h": _fmt_frac(h)}
    res = WorstCaseResult("statement", dual, primal, alpha, ratio, name, status, secs, gram_size=_gram_size(problem),
                          parameters=params)
    hb = h * plan["beta"]
    hdesc = "1/(81 beta)" if hb == Fraction(1, 81) else f"{_fmt_frac(hb)}/beta"
    res.details = {
        "instance": f"PEP worst case N={N} K={K} T={T} h={hdesc} mu={_fmt_frac(plan['mu'])}",
        "parameters": params,
        "hypotheses": [{"key": hy.key, "statement": hy.statement, "holds": hy.holds} for hy in plan["hypotheses"]],
        "solver_tol": tol_used, "ratio_tol": ratio_tol,
        "metric": "left side / (‖x0 - x*‖² + (γ/α) C0) (sup over the class), compared with α",
        "engine": "PEP worst case over the class (sigma = 0, S = N)",
        "solver": name, "status": status, "solve_time_s": round(secs, 4), "pep_ratio": ratio,
        "rhs_at_sigma0": {"alpha": _fmt_frac(alpha), "gamma": _fmt_frac(gamma), "kappa": _fmt_frac(plan["kappa"])},
    }
    if plan["note"]:
        res.details["note"] = plan["note"]
    common = dict(statement=st.name, lhs=res.worst, rhs=res.bound, exact=False, details=res.details)
    if not res.optimal:
        v = Inconclusive(**common, reason=f"PEP solver status {res.status!r} is not optimal (solver {res.solver}); "
                                          "the worst case is not certified")
    elif res.ratio <= 1 - ratio_tol:
        v = Holds(**common, evidence=Evidence.PEP_NUMERICAL, certificate=_certificate(res))
        if certify:
            _attach_certificate(v, plan, solver)
    elif res.ratio <= 1 + ratio_tol:
        v = Inconclusive(**common, reason=f"worst/bound = {res.ratio:.8g} is within the tolerance {ratio_tol} of 1")
    elif not verify:
        v = Inconclusive(**common, reason=f"PEP claims worst/bound = {res.ratio:.6g} > 1 but re-verification was "
                                          "disabled")
    else:
        v = _reverify(st, plan, handles, res, common)
    v = _free_controls(st, plan, v)
    v.details["inequality"] = v.status if v.status != "inconclusive" else "undecided"
    return v


def exact_pep_of_plan(plan, *, controls: bool = True):
    """The exact PEP (:class:`pyfed.engines.pep.exact_pep.ExactPEP`) of a :func:`pep_plan`: the same
    method and metric as :func:`_build`, rational coefficients, init = ‖x0 - x⋆‖² + (γ/α) C₀
    (+ (ρ/α) σ² at σ > 0; S < N: the average over subset sequences, :mod:`pyfed.engines.pep.participation`;
    the claim to certify is metric ≤ α·init)."""
    if plan.get("S", plan["N"]) < plan["N"] or plan.get("sigma", 0) > 0:
        rho = plan["rho"] / plan["alpha"] if plan["sigma"] > 0 else None
        return pep_scaffold_wide_exact(plan["N"], plan["S"], plan["K"], plan["eta_l"], plan["eta_g"], plan["beta"],
                                       plan["mu"], plan["gap_coefs"], plan["grad_coefs"], plan["gamma"] / plan["alpha"],
                                       rho, controls=controls)
    return pep_scaffold_exact(plan["N"], plan["K"], plan["eta_l"], plan["eta_g"], plan["beta"], plan["mu"],
                              plan["gap_coefs"], plan["grad_coefs"], plan["gamma"] / plan["alpha"], controls=controls)


def _wide_row(st, plan, *, solver, solver_tol, ratio_tol, certify, verify=True) -> Verdict:
    """The PEP row at S < N or σ > 0: the exact PEP of :func:`exact_pep_of_plan` solved as it is
    (:func:`pyfed.engines.pep.wide.decide_pep`). Holds (certified or numerical), Violated only at
    σ = 0 when a quadratic fitted to the primal worst case reproduces it exactly (``verify``, by the
    statement's exact engine), otherwise Inconclusive: at σ > 0 a value above α is a relaxation's,
    not a counterexample."""

    N, S, K, T, sigma = plan["N"], plan["S"], plan["K"], plan["T"], plan["sigma"]
    pep = exact_pep_of_plan(plan)
    h = effective_step(K, plan["eta_l"], plan["eta_g"])
    params = {"N": N, "S": S, "K": K, "T": T, "eta_l": _fmt_frac(plan["eta_l"]), "eta_g": _fmt_frac(plan["eta_g"]),
              "beta": _fmt_frac(plan["beta"]), "mu": _fmt_frac(plan["mu"]), "sigma": "any > 0" if sigma else "0",
              "h": _fmt_frac(h)}
    hb = h * plan["beta"]
    hdesc = "1/(81 beta)" if hb == Fraction(1, 81) else f"{_fmt_frac(hb)}/beta"
    regime = _regime(N, S, sigma)
    rhs = {"alpha": _fmt_frac(plan["alpha"]), "gamma": _fmt_frac(plan["gamma"]), "kappa": _fmt_frac(plan["kappa"])}
    noise = ""
    if sigma:
        rhs["rho"] = _fmt_frac(plan["rho"])
        noise = " + (ρ/α) σ²"
    details = {
        "instance": (f"PEP worst case N={N} S={S} K={K} T={T}{' sigma>0' if sigma else ''} h={hdesc} "
                     f"mu={_fmt_frac(plan['mu'])}"),
        "parameters": params,
        "hypotheses": [{"key": hy.key, "statement": hy.statement, "holds": hy.holds} for hy in plan["hypotheses"]],
        "metric": f"E[left side] / (‖x0 - x*‖² + (γ/α) C0{noise}) (sup over the class), compared with α",
        "engine": f"PEP worst case over the class ({regime}"
                  + (", average over subset sequences" if S < N else "")
                  + (", expectation relaxation" if sigma else "") + ")",
        "rhs": rhs,
    }
    if plan["note"]:
        details["note"] = plan["note"]
    if sigma and plan["rho"] == 0:   # the noise is free in the PEP: its value is +infinity
        return Inconclusive(statement=st.name, lhs=None, rhs=plan["alpha"], exact=False, details=details,
                            reason="at σ > 0 the right side has no σ² term, so the relaxation's worst case is "
                                   "unbounded (noise from x0 = x⋆); a relaxation cannot show that this is a violation")
    claim = (f"E[LHS] ≤ {_fmt_frac(plan['alpha'])}·(‖x0 - x⋆‖² + (γ/α) C₀{noise}) for every β-smooth μ-convex client "
             f"set at these parameters ({regime})")
    def reverify(handles, ratio, common):   # S < N at σ = 0: the fitted quadratic, by the exact engine
        return _reverify(st, plan, handles, SimpleNamespace(details=details, ratio=ratio), common)
    v, _ = decide_pep(pep, plan["alpha"], statement=st.name, details=details, relaxation=sigma > 0, solver=solver,
                      solver_tol=solver_tol, ratio_tol=ratio_tol, certify=certify, claim=claim,
                      reverify=reverify if verify else None)
    v = _free_controls(st, plan, v)
    v.details["inequality"] = v.status if v.status != "inconclusive" else "undecided"
    return v


def _free_controls(st, plan, v: Verdict) -> Verdict:
    """A numerical hold is no evidence when the right side does not bound the initial controls.

    With γ = 0 (no C₀ term at σ = 0) the PEP's normalisation ‖x0 - x⋆‖² (+ σ² terms) ≤ 1 leaves
    every c_i⁰ free. The worst case is then +∞ as soon as the left side depends on the controls at
    all (it is quadratic in them), but its growth can be far below the solver's tolerance (the
    controls act through ηl² β terms: 1/22039921152 at ηl = 1/162 with N = K = T = 2), so the SDP
    may report a finite optimum. An exact certificate still proves the statement (it bounds every
    leaf); without one the numerical hold is replaced by: Violated if the exact engine finds the
    controls' effect on the instance x0 = x⋆ = 0 in one dimension, f_1 = β x²/2, f_i = μ x²/2
    (i > 1), c⁰ = (t, -t, 0, …) (left side quadratic in t, right side α·0 + κ: t is doubled up to
    2^16 until it exceeds κ), else Inconclusive with the reason. The same instance is tried when the
    row is inconclusive (a solver may fail on the unbounded problem); a certified row is kept.
    """
    if plan["gamma"] != 0 or v.status == "violated" or (v.status == "holds" and v.evidence != Evidence.PEP_NUMERICAL):
        return v

    N, beta, mu = plan["N"], plan["beta"], plan["mu"]
    why = ("the right side has no C₀ term (γ = 0), so the initial controls are unbounded in the PEP and its "
           "finite value is not evidence (the left side grows with the controls, possibly below the solver's "
           "tolerance); no exact certificate verified")
    if N < 2:
        return Inconclusive(statement=v.statement, lhs=v.lhs, rhs=v.rhs, exact=False, details=v.details, reason=why)
    qp = QuadraticProblem(np.array([[[beta]]] + [[[mu]]] * (N - 1), dtype=object),
                          np.array([[0]] * N, dtype=object), name="pep-free-controls", beta=beta, mu=mu)
    t, w = Fraction(1), None
    while t <= 2 ** 16:
        c0 = [[Fraction(0)] for _ in range(N)]
        c0[0], c0[1] = [t], [-t]
        inst = RunInstance(name="pep-free-controls", problem=qp, sigma=Fraction(plan["sigma"]), S=plan["S"],
                           K=plan["K"], T=plan["T"], eta_l=plan["eta_l"], eta_g=plan["eta_g"],
                           x0=np.array([Fraction(0)], dtype=object), c0=np.array(c0, dtype=object), mu=mu,
                           description=f"x0 = x⋆ = 0, f_1 = β x²/2, f_i = μ x²/2, c⁰ = ({t}, {-t}, 0, …)")
        try:
            w = decide_exact(st, inst, arithmetic="exact")
        except Exception as exc:   # the instance does not fit the statement: no witness from this family
            v.details["free_controls"] = {"witness": False, "reason": f"{type(exc).__name__}: {exc}"}
            break
        if w.status == "violated" or w.status == "inconclusive" or not w.lhs or w.lhs <= 0:
            break
        t *= 2
    if w is not None and isinstance(w, Violated):
        details = dict(v.details)
        details["free_controls"] = {"witness": True, "t": str(t)}
        details["reverification"] = {
            "reproduced": True, "exact_status": "violated", "dimension": 1,
            "description": (f"the PEP row `{details.get('instance', 'PEP worst case')}` with free initial controls "
                            f"(no C₀ term on the right side): x0 = x⋆ = 0, f_1 = β x²/2, f_i = μ x²/2, "
                            f"c⁰ = ({t}, {-t}, 0, …); decided exactly by the exact-moment engine")}
        return Violated(st.name, w.lhs, w.rhs, True, details, evidence=Evidence.EXACT, witness=w.witness)
    if v.status != "holds":     # an inconclusive row (e.g. the solver failed on the unbounded problem) stays
        return v
    return Inconclusive(statement=v.statement, lhs=v.lhs, rhs=v.rhs, exact=False, details=v.details, reason=why)


def _attach_certificate(v, plan, solver):
    """Try an exact certificate of metric ≤ α·init; on success ``v`` becomes a certified hold."""
    pep = exact_pep_of_plan(plan)
    cert = certify_verdict(v, pep, plan["alpha"], solver=solver,
                           claim=f"LHS ≤ {_fmt_frac(plan['alpha'])}·(‖x0 - x⋆‖² + (γ/α) C₀) for every β-smooth "
                                 "μ-convex client set at these parameters")
    if cert is not None:
        v.details["pep_certificate"]["face_dimension"] = cert.info["face_dimension"]


def _reverify(st, plan, handles, res, common):
    try:
        qp, _A, _b, x0q, c0q, r = fit_quadratic(handles, plan["beta"], plan["mu"])
        inst = RunInstance(name="pep-worst-case-quadratic", problem=qp, sigma=Fraction(0), S=plan["S"], K=plan["K"],
                           T=plan["T"], eta_l=plan["eta_l"], eta_g=plan["eta_g"],
                           x0=np.array(x0q, dtype=object), c0=np.array(c0q, dtype=object), mu=plan["mu"])
        v = decide_exact(st, inst, arithmetic="exact")
    except Exception as exc:  # fit or exact evaluation failed
        res.details["reverification"] = {"reproduced": False, "reason": f"{type(exc).__name__}: {exc}"}
        return Inconclusive(**common, reason=f"PEP claims worst/bound = {res.ratio:.6g} > 1 but the exact "
                                             f"re-verification failed ({exc})")
    res.details["reverification"] = {"reproduced": v.status == "violated", "dimension": r,
                                     "exact_status": v.status}
    if isinstance(v, Violated):
        return Violated(st.name, v.lhs, v.rhs, True, res.details, evidence=Evidence.EXACT, witness=v.witness)
    # no quadratic reproduces it: the interpolating functions of the class through the worst case
    vi, info = interpolated_reverification(st, plan, float(plan["gamma"] / plan["alpha"]), _check_solver(None),
                                           DEFAULT_SOLVER_TOL, _build)
    if vi is not None and vi.status == "violated":
        res.details["reverification"] = info
        res.details["instance"] += " (realised as a function of the class, re-checked exactly)"
        return Violated(st.name, vi.lhs, vi.rhs, True, res.details, evidence=Evidence.EXACT, witness=vi.witness)
    res.details["reverification"]["interpolation"] = info.get("reason", "")
    return Inconclusive(**common, reason=f"PEP claims worst/bound = {res.ratio:.6g} > 1 but the exact "
                                         f"re-verification on the fitted quadratic gives {v.status} and on the "
                                         f"interpolating functions of the class: {info.get('reason', '')}")
