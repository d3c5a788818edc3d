"""PEP engine, anchors with known answers and Local SGD: gradient descent (Drori-Teboulle),
inequality (9) (``SCAFFOLD.GradientGrowth``), nonexpansiveness of a gradient step, Stich's
Lemma 3.1 (one Local SGD step) and deterministic Local SGD.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...errors import InputError, check_int, check_nonnegative, check_positive
from ...verdicts import Evidence, Holds, Inconclusive, Verdict
from .certificate import certify_verdict
from .exact_pep import pep_gradient_growth_exact, pep_nonexpansive_exact, pep_perturbed_strong_convexity_exact
from .solver import (
    DEFAULT_SOLVER_TOL,
    WorstCaseResult,
    _check_mu_below_beta,
    _check_solver,
    _gram_size,
    _mean,
    _new_function,
    _solve,
)


def worst_case_local_sgd(workers, eta, sync_times, beta=1, mu=0, *, solver=None,
                         solver_tol=DEFAULT_SOLVER_TOL, solver_options=None) -> WorstCaseResult:
    """Worst case of Local SGD with the deterministic full-gradient oracle.

    Procedure (seed 002 "Local SGD"; Stich 2019, Alg. 1) with g_t^k = grad f (full batch,
    sigma = 0): z_{t+1}^k = x_t^k - eta_t grad f(x_t^k); at a synchronisation time t+1 in
    I_T every worker takes the average of the z_{t+1}^l. f is beta-smooth, mu-strongly convex.
    The PEP maximises f(xbar_T) - f* subject to ||x_0 - x*||^2 <= 1 (xbar_T the worker
    average at T = t_m, a synchronisation time).

    With a deterministic oracle all workers coincide, so the worst case equals gradient
    descent's with the same steps; for constant eta <= 1/beta and mu = 0 it is
    beta/(4 T eta beta + 2) (Drori & Teboulle 2014, Thm 3.1), returned as ``known_value``
    and ``bound``.

    Parameters
    ----------
    workers : int >= 1
    eta : positive real or sequence of T positive reals (steps eta_0, ..., eta_{T-1})
    sync_times : increasing positive ints t_1 < ... < t_m = T
    beta, mu : smoothness and strong convexity of f

    Raises
    ------
    InputError
        Bad sizes, steps, or synchronisation times (not increasing, not ending at T).
    """
    workers = check_int("workers", workers, minimum=1)
    try:
        sync = [check_int("sync_times", t, minimum=1) for t in sync_times]
    except TypeError:
        raise InputError("sync_times", f"must be a sequence of positive ints, got {sync_times!r}") from None
    if not sync or any(b <= a for a, b in zip(sync, sync[1:])):
        raise InputError("sync_times", f"must be strictly increasing and non-empty, got {sync}")
    T = sync[-1]
    steps = list(eta) if isinstance(eta, (list, tuple, np.ndarray)) else [eta] * T
    if len(steps) != T:
        raise InputError("eta", f"needs T = {T} step sizes (t_m = T), got {len(steps)}")
    for s in steps:
        check_positive("eta", s)
    check_positive("beta", beta)
    check_nonnegative("mu", mu)
    _check_mu_below_beta(mu, beta)
    solver = _check_solver(solver)
    from PEPit import PEP

    bf, mf = float(beta), float(mu)
    problem = PEP()
    f = _new_function(problem, bf, mf)
    xs = f.stationary_point()
    fs = f(xs)
    x0 = problem.set_initial_point()
    problem.set_initial_condition((x0 - xs) ** 2 <= 1)
    xw = [x0] * workers
    sset = set(sync)
    for t in range(T):
        z = [xk - float(steps[t]) * f.gradient(xk) for xk in xw]
        xw = [_mean(z)] * workers if (t + 1) in sset else z
    problem.set_performance_metric(f(_mean(xw)) - fs)
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    known = None
    if mf == 0 and len(set(float(s) for s in steps)) == 1 and float(steps[0]) * bf <= 1:
        g = float(steps[0])
        known = bf / (4 * T * g * bf + 2)
    ratio = dual / known if (dual is not None and known) else None
    params = {"workers": workers, "eta": [str(s) for s in steps], "sync_times": sync,
              "beta": str(beta), "mu": str(mu), "T": T}
    return WorstCaseResult("local_sgd", dual, primal, known, ratio, name, status, secs,
                           gram_size=_gram_size(problem), known_value=known, parameters=params,
                           details={"solver_tol": tol_used})


# --------------------------------------------------------------------------------------------
# anchors with known answers
# --------------------------------------------------------------------------------------------
def worst_case_gradient_descent(L, gamma, n, *, solver=None, solver_tol=DEFAULT_SOLVER_TOL,
                                solver_options=None) -> WorstCaseResult:
    """PEPit's reference example: gradient descent x_{t+1} = x_t - gamma grad f(x_t), f L-smooth
    convex; sup f(x_n) - f* subject to ||x_0 - x*||^2 <= 1. For gamma <= 1/L the exact value is
    L/(4 n gamma L + 2) (Drori & Teboulle, Math. Program. 145, 2014, Thm 3.1; PEPit example
    ``unconstrained_convex_minimization/gradient_descent.py``), returned as ``known_value``.

    Raises InputError for L, gamma <= 0 or n < 1.
    """
    check_positive("L", L)
    check_positive("gamma", gamma)
    n = check_int("n", n, minimum=1)
    solver = _check_solver(solver)
    from PEPit import PEP

    problem = PEP()
    f = _new_function(problem, float(L), 0.0)
    xs = f.stationary_point()
    fs = f(xs)
    x0 = problem.set_initial_point()
    problem.set_initial_condition((x0 - xs) ** 2 <= 1)
    x = x0
    for _ in range(n):
        x = x - float(gamma) * f.gradient(x)
    problem.set_performance_metric(f(x) - fs)
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    known = float(L) / (4 * n * float(gamma) * float(L) + 2) if float(gamma) * float(L) <= 1 else None
    ratio = dual / known if (dual is not None and known) else None
    return WorstCaseResult("gradient_descent", dual, primal, known, ratio, name, status, secs,
                           gram_size=_gram_size(problem), known_value=known,
                           parameters={"L": str(L), "gamma": str(gamma), "n": n},
                           details={"solver_tol": tol_used})


def _anchor_verdict(stmt, res, abs_tol, exact=None) -> Verdict:
    """Verdict for a tight anchor (the class attains the bound): holds iff worst <= bound + abs_tol.
    ``exact``: (ExactPEP, tau) of the same claim; a hold then tries an exact certificate
    (:func:`certify_verdict`)."""
    details = dict(res.details)
    common = dict(statement=stmt, lhs=res.worst, rhs=res.bound, exact=False, details=details)
    if not res.optimal:
        return Inconclusive(**common, reason=f"PEP solver status {res.status!r} is not optimal")
    if res.worst <= float(res.bound) + abs_tol:
        v = Holds(**common, evidence=Evidence.PEP_NUMERICAL, certificate=(
            f"PEP SDP (PEPit + cvxpy), solver {res.solver}, status {res.status}: sup over the class "
            f"<= bound + {abs_tol:g}; numerical, solver tolerance {details.get('solver_tol')}"))
        if exact is not None:
            certify_verdict(v, *exact, solver=res.solver)
        return v
    return Inconclusive(**common, reason=(f"PEP worst case {res.worst:.8g} exceeds the bound "
                                          f"{float(res.bound):.8g} + {abs_tol:g} (not re-verified)"))


def pep_gradient_growth(N=2, beta=1, *, factor=2, solver=None, solver_tol=DEFAULT_SOLVER_TOL,
                        abs_tol=1e-5, solver_options=None, certify=True) -> WorstCaseResult:
    """PEP check of inequality (9) (``SCAFFOLD.GradientGrowth``; SCAFFOLD App. B, ineq. (9)):

        (1/N) sum_i ||grad h_i(x) - grad h_i(x*)||^2 <= factor * beta (f(x) - f(x*)),
        factor = 2,

    for convex beta-smooth h_i, f = (1/N) sum h_i, x* a minimiser of f. Maximises the left
    minus the right side over the class and over x with ||x - x*||^2 <= 1 (the difference is
    homogeneous of degree 2, so this normalisation loses nothing). The supremum is 0 for
    factor = 2 (attained at x = x*) and ``(1 - factor/2) beta^2`` for factor < 2 (a quadratic
    h = beta/2 ||x||^2 attains it; the constant 2 is tight) -- ``known_value``.
    ``bound`` = 0; ``verdict`` holds iff worst <= abs_tol.
    """
    N = check_int("N", N, minimum=1)
    check_positive("beta", beta)
    check_positive("factor", factor)
    solver = _check_solver(solver)
    from PEPit import PEP

    bf = float(beta)
    problem = PEP()
    hs = [_new_function(problem, bf, 0.0) for _ in range(N)]
    F = _mean(hs)
    xs = F.stationary_point()
    x = problem.set_initial_point()
    problem.set_initial_condition((x - xs) ** 2 <= 1)
    lhs = _mean([(h.gradient(x) - h.gradient(xs)) ** 2 for h in hs])
    problem.set_performance_metric(lhs - float(factor) * bf * (F(x) - F(xs)))
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    known = max(0.0, (1 - float(factor) / 2) * bf**2)
    res = WorstCaseResult("gradient_growth", dual, primal, 0, None, name, status, secs,
                          gram_size=_gram_size(problem), known_value=known,
                          parameters={"N": N, "beta": str(beta), "factor": str(factor)},
                          details={"solver_tol": tol_used, "instance": f"PEP GradientGrowth N={N}"})
    exact = (pep_gradient_growth_exact(N, beta, factor), Fraction(0)) if certify else None
    res.verdict = _anchor_verdict("GradientGrowth", res, abs_tol, exact)
    return res


def _one_function_pep(beta, eta, mu, solver):
    """Validated inputs and a PEP with one beta-smooth mu-strongly convex function (the anchors
    of one function): returns (problem, function, solver, (beta, eta, mu) as floats)."""
    check_positive("beta", beta)
    check_positive("eta", eta)
    check_nonnegative("mu", mu)
    _check_mu_below_beta(mu, beta)
    solver = _check_solver(solver)
    from PEPit import PEP

    bf, ef, mf = float(beta), float(eta), float(mu)
    problem = PEP()
    return problem, _new_function(problem, bf, mf), solver, (bf, ef, mf)


def pep_nonexpansive(beta=1, eta=1, mu=0, *, solver=None, solver_tol=DEFAULT_SOLVER_TOL,
                     abs_tol=1e-5, solver_options=None, certify=True) -> WorstCaseResult:
    """PEP check of ``SCAFFOLD.GradientStepNonexpansive`` (seed 002; cf. SCAFFOLD App. C, Lemma 6):

        ||x - y - eta (grad h(x) - grad h(y))||^2 <= ||x - y||^2   for 0 <= eta <= 2/beta,

    h convex (mu-strongly convex if mu > 0) and beta-smooth. Maximises the left side subject to
    ||x - y||^2 <= 1. Known value max((1 - eta mu)^2, (1 - eta beta)^2) (attained by
    quadratics), <= 1 exactly when eta <= 2/beta. ``bound`` = 1; ``ratio`` = worst.
    """
    problem, h, solver, (bf, ef, mf) = _one_function_pep(beta, eta, mu, solver)
    x = problem.set_initial_point()
    y = problem.set_initial_point()
    problem.set_initial_condition((x - y) ** 2 <= 1)
    problem.set_performance_metric((x - y - ef * (h.gradient(x) - h.gradient(y))) ** 2)
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    known = max((1 - ef * mf) ** 2, (1 - ef * bf) ** 2)
    res = WorstCaseResult("nonexpansive", dual, primal, 1, dual, name, status, secs,
                          gram_size=_gram_size(problem), known_value=known,
                          parameters={"beta": str(beta), "eta": str(eta), "mu": str(mu)},
                          details={"solver_tol": tol_used,
                                   "hypothesis eta <= 2/beta": bool(ef * bf <= 2),
                                   "instance": f"PEP GradientStepNonexpansive eta*beta={ef * bf:g}"})
    exact = (pep_nonexpansive_exact(beta, eta, mu), Fraction(1)) if certify else None
    res.verdict = _anchor_verdict("GradientStepNonexpansive", res, abs_tol, exact)
    return res


def pep_perturbed_strong_convexity(beta=1, mu=0, *, solver=None, solver_tol=DEFAULT_SOLVER_TOL, abs_tol=1e-5,
                                   solver_options=None, certify=True) -> WorstCaseResult:
    """PEP check of ``SCAFFOLD.PerturbedStrongConvexity`` (SCAFFOLD App. C, Lemma 5) for one client f,
    β-smooth and μ-strongly convex:

        f(z) - f(y) + μ/4 ‖y - z‖² - β ‖z - x‖² - ⟨∇f(x), z - y⟩ ≤ 0   for all x, y, z.

    Maximises the left side subject to ‖x - y‖² + ‖y - z‖² ≤ 1 (homogeneous of degree 2). ``bound``
    = 0; the verdict holds iff worst <= abs_tol, certified when an exact certificate verifies."""
    problem, f, solver, (bf, _, mf) = _one_function_pep(beta, 1, mu, solver)
    x, y, z = (problem.set_initial_point() for _ in range(3))
    problem.set_initial_condition((x - y) ** 2 + (y - z) ** 2 <= 1)
    problem.set_performance_metric(f(z) - f(y) + (mf / 4) * (y - z) ** 2 - bf * (z - x) ** 2
                                   - f.gradient(x) * (z - y))
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    res = WorstCaseResult("perturbed_strong_convexity", dual, primal, 0, None, name, status, secs,
                          gram_size=_gram_size(problem), parameters={"beta": str(beta), "mu": str(mu)},
                          details={"solver_tol": tol_used, "instance": f"PEP PerturbedStrongConvexity mu={mu}"})
    exact = (pep_perturbed_strong_convexity_exact(beta, mu), Fraction(0)) if certify else None
    res.verdict = _anchor_verdict("PerturbedStrongConvexity", res, abs_tol, exact)
    return res


def pep_local_sgd_one_step(workers=2, eta=Fraction(1, 4), beta=1, mu=0, *, solver=None,
                           solver_tol=DEFAULT_SOLVER_TOL, abs_tol=1e-5, solver_options=None) -> WorstCaseResult:
    """PEP check of ``SCAFFOLD.LocalSGDOneStep`` (Stich, Local SGD Converges Fast and Communicates
    Little, Lemma 3.1; seed 002) with the deterministic oracle g_t^k = grad f(x_t^k):

        ||xbar_{t+1} - x*||^2 <= (1 - mu eta) ||xbar_t - x*||^2 - (eta/2) (f(xbar_t) - f*)
                                  + (2 eta L / K) sum_k ||xbar_t - x_t^k||^2,     eta <= 1/(4L),

    (the variance term eta^2 E||g_t - gbar_t||^2 vanishes). Maximises left minus right side over
    f in F_{mu,L} and over worker points x_t^k with (1/K) sum_k ||x_t^k - x*||^2 <= 1
    (homogeneous of degree 2). ``bound`` = 0; the verdict holds iff worst <= abs_tol.
    """
    workers = check_int("workers", workers, minimum=1)
    problem, f, solver, (bf, ef, mf) = _one_function_pep(beta, eta, mu, solver)
    xs = f.stationary_point()
    fs = f(xs)
    xk = [problem.set_initial_point() for _ in range(workers)]
    problem.set_initial_condition(_mean([(x - xs) ** 2 for x in xk]) <= 1)
    xbar = _mean(xk)
    gbar = _mean([f.gradient(x) for x in xk])
    xnext = xbar - ef * gbar
    drift = _mean([(xbar - x) ** 2 for x in xk])  # (1/K) sum_k ||xbar - x^k||^2
    metric = ((xnext - xs) ** 2 - (1 - mf * ef) * (xbar - xs) ** 2 + (ef / 2) * (f(xbar) - fs)
              - 2 * ef * bf * drift)
    problem.set_performance_metric(metric)
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    res = WorstCaseResult("local_sgd_one_step", dual, primal, 0, None, name, status, secs,
                          gram_size=_gram_size(problem), known_value=0.0 if ef * bf <= 0.25 else None,
                          parameters={"workers": workers, "eta": str(eta), "beta": str(beta), "mu": str(mu)},
                          details={"solver_tol": tol_used, "hypothesis eta <= 1/(4L)": bool(ef * bf <= 0.25),
                                   "instance": f"PEP LocalSGDOneStep K={workers} eta*L={ef * bf:g}"})
    res.verdict = _anchor_verdict("LocalSGDOneStep", res, abs_tol)
    return res


