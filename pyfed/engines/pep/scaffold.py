"""PEP engine, SCAFFOLD and FedAvg: worst case of the deterministic runs (sigma = 0, S = N)
against ``SCAFFOLD.ConvexFiniteRoundConvergence``, with exact re-verification of a claimed
violation on a fitted rational quadratic instance.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...errors import InputError
from ...exact import as_float, to_fraction
from ...problems.quadratic import QuadraticProblem
from ...theory import (
    convex_hypotheses,
    convex_rhs,
    effective_step,
    initial_control_error,
    initial_potential,
    squared_distance,
    weight_sum,
    weights,
)
from ...verdicts import Evidence, Holds, Inconclusive, Verdict, Violated, inequality_phrase
from ..exact import scaffold_run_moments
from .certificate import certify_verdict, find_certificate
from .direct import neighbour_pair, pep_scaffold_symmetric, solve_direct
from .exact_pep import pep_scaffold_exact
from .solver import (
    _OPTIMAL,
    DEFAULT_RATIO_TOL,
    DEFAULT_SOLVER_TOL,
    WorstCaseResult,
    _certificate,
    _check_common,
    _check_solver,
    _fmt_frac,
    _gram_size,
    _mean,
    _new_function,
    _solve,
)


# --------------------------------------------------------------------------------------------
# SCAFFOLD (seed 000 Run model, S = N, sigma = 0)
# --------------------------------------------------------------------------------------------
def _build_scaffold(N, K, T, eta_l, eta_g, beta, mu, w_norm, *, controls: bool, pot_coef: float):
    """Build the PEP of deterministic SCAFFOLD (controls=True) or FedAvg (controls=False).

    Returns (problem, handles) with handles = dict(functions, xs, x0, c0_points) (the PEPit
    leaf functions f_i, x*, x^0 and the initial controls c_i^0) for re-verification.
    """
    from PEPit import PEP

    problem = PEP()
    fs = [_new_function(problem, beta, mu) for _ in range(N)]
    F = _mean(fs)
    xs = F.stationary_point()              # x*: grad f(x*) = (1/N) sum_i grad f_i(x*) = 0
    F_star = F(xs)
    gstar = [f.gradient(xs) for f in fs]   # grad f_i(x*)
    x0 = problem.set_initial_point()
    if controls:
        c = [problem.set_initial_point() for _ in range(N)]   # c_i^0: free vectors
        c_init = list(c)
        C0 = _mean([(c[i] - gstar[i]) ** 2 for i in range(N)])
    else:
        c = c_init = None
        C0 = _mean([g ** 2 for g in gstar])  # FedAvg = SCAFFOLD with c_i = 0
    problem.set_initial_condition((x0 - xs) ** 2 + pot_coef * C0 <= 1)
    x = x0
    metric = None
    for r in range(T):
        term = w_norm[r] * (F(x) - F_star)
        metric = term if metric is None else metric + term
        if r == T - 1:
            break  # x^T does not enter the weighted gap
        cbar = _mean(c) if controls else None
        new_c, y_last = [], []
        for i in range(N):
            y = x
            grads = []
            for _ in range(K):
                g = fs[i].gradient(y)
                grads.append(g)
                y = y - eta_l * ((g - c[i] + cbar) if controls else g)
            y_last.append(y)
            new_c.append(_mean(grads))     # option II control = average of the K gradients
        x = x + eta_g * (_mean(y_last) - x)
        if controls:
            c = new_c
    problem.set_performance_metric(metric)
    return problem, {"functions": fs, "xs": xs, "x0": x0, "c0_points": c_init or []}


def worst_case_scaffold(N, K, T, eta_l, eta_g, beta=1, mu=0, *, solver=None,
                        solver_tol=DEFAULT_SOLVER_TOL, ratio_tol=DEFAULT_RATIO_TOL,
                        solver_options=None, verify=True, certify=True,
                        formulation="symmetric") -> WorstCaseResult:
    """Worst case of deterministic SCAFFOLD against ``SCAFFOLD.ConvexFiniteRoundConvergence``.

    Model (seed 000 ``Run`` with S = N, sigma = 0; SCAFFOLD option II, Karimireddy et al.
    2020, Alg. 1 and App. E): N client functions f_i, each beta-smooth and mu-strongly
    convex (merely convex if mu = 0); x* a stationary point (= minimiser) of
    f = (1/N) sum_i f_i; x^0 and the initial controls c_i^0 are free vectors. Each round r,
    every client runs y_{i,0} = x^r, y_{i,k+1} = y_{i,k} - eta_l (grad f_i(y_{i,k}) - c_i + c)
    with c = (1/N) sum_i c_i; then c_i <- (1/K) sum_k grad f_i(y_{i,k}) and
    x^{r+1} = x^r + (eta_g/N) sum_i (y_{i,K} - x^r).

    The PEP maximises weightedGap = (1/W_T) sum_{r<T} w_r (f(x^r) - f*) subject to
    V_0 = ||x^0 - x*||^2 + 9 N h^2/S * (1/N) sum_i ||c_i^0 - grad f_i(x*)||^2 <= 1
    (h = K eta_l eta_g, S = N); w_r = q^-(r+1), q = 1 - mu h/2 from :func:`pyfed.theory.weights`
    (passed to the SDP as floats). By homogeneity the result is the tightest tau with
    weightedGap <= tau V_0 over the whole class; the theorem's bound is
    ``convex_rhs(dist_sq=1, C0=0, sigma=0, ...)`` = 1/(h W_T).

    Parameters
    ----------
    N, K, T : int >= 1
        Clients (all participate, S = N), local steps, rounds.
    eta_l, eta_g : positive reals (int / Fraction / str / float)
        Local and global step sizes (the theorem needs eta_g >= 1; smaller values are
        accepted here, the hypothesis is then reported as failing).
    beta, mu : reals, beta > 0, 0 <= mu < beta
        Smoothness and strong convexity of every client function.
    solver : str | None
        cvxpy SDP solver (default :data:`DEFAULT_SOLVER`).
    solver_tol : float
        Solver feasibility/gap tolerance (stated in the certificate).
    ratio_tol : float
        Verdict tolerance on worst/bound.
    solver_options : dict | None
        Extra keyword arguments for the solver (override the tolerances).
    verify : bool
        Re-verify a claimed violation on an exact quadratic instance (see module docstring).
    certify : bool
        On a numerical hold, try an exact rational certificate (:mod:`.certificate`); a verified
        one makes the verdict a certified hold.
    formulation : "symmetric" | "pepit"
        ``"symmetric"`` (default, Clarabel only): first solve the client-symmetric reduction
        restricted to the interpolation inequalities of :func:`.direct.neighbour_pair`
        (:mod:`.direct`; two PSD blocks of about K·T instead of one of about N·K·T). That
        problem is a relaxation: its value is an upper bound on the worst case, so it decides a
        hold (numerical, and its dual seeds the certificate); any other outcome (ratio within
        the tolerance of 1 or above, a non-optimal status) falls back to the full PEPit
        formulation, which alone decides violations. ``"pepit"``: the full formulation only.

    Returns
    -------
    WorstCaseResult
        With ``verdict`` for statement ``"ConvexFiniteRoundConvergence"`` and
        ``details["hypotheses"]`` (the theorem's hypotheses on these parameters;
        ``details["formulation"]`` says which formulation decided).

    Raises
    ------
    InputError
        Non-integer or < 1 sizes, non-positive steps or beta, mu < 0 or mu >= beta,
        mu h >= 2 (weights undefined), or an unavailable solver.
    """
    N, K, T, pf, pq = _check_common(N, K, T, eta_l, eta_g, beta, mu)
    solver = _check_solver(solver)
    if formulation not in ("symmetric", "pepit"):
        raise InputError("formulation", f"must be 'symmetric' or 'pepit', got {formulation!r}")
    h = effective_step(K, pq["eta_l"], pq["eta_g"])
    w = weights(T, pq["mu"], h)
    W = weight_sum(T, pq["mu"], h)
    w_norm = [as_float(wr / W) for wr in w]
    pot = 9 * N * h**2 / N  # 9 N h^2 / S with S = N
    bound = convex_rhs(dist_sq=1, C0=0, N=N, S=N, K=K, T=T, eta_l=pq["eta_l"], eta_g=pq["eta_g"],
                       mu=pq["mu"], sigma=0)
    hyps = convex_hypotheses(N=N, S=N, K=K, T=T, eta_l=pq["eta_l"], eta_g=pq["eta_g"],
                             beta=pq["beta"], mu=pq["mu"], sigma=0)
    fallback = None
    if formulation == "symmetric" and solver == "CLARABEL" and all(hy.holds for hy in hyps):
        res = _symmetric_hold(N, K, T, eta_l, eta_g, beta, mu, pq, bound, hyps, solver_tol, ratio_tol,
                              solver_options, certify)
        if isinstance(res, WorstCaseResult):
            return res
        fallback = res
    problem, handles = _build_scaffold(N, K, T, pf["eta_l"], pf["eta_g"], pf["beta"], pf["mu"],
                                       w_norm, controls=True, pot_coef=float(pot))
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    ratio = dual / as_float(bound) if dual is not None else None
    exact_in = all(to_fraction(v) is not None for v in (eta_l, eta_g, beta, mu))
    params = {"N": N, "S": N, "K": K, "T": T, "eta_l": str(eta_l), "eta_g": str(eta_g),
              "beta": str(beta), "mu": str(mu), "sigma": "0",
              "h": _fmt_frac(h) if exact_in else repr(float(h))}
    res = WorstCaseResult("scaffold", dual, primal, bound, ratio, name, status, secs,
                          gram_size=_gram_size(problem), parameters=params)
    res.details = {
        "instance": f"PEP N={N} K={K} T={T} h={params['h']} mu={mu}",
        "parameters": params,
        "hypotheses": [{"key": hy.key, "statement": hy.statement, "holds": hy.holds} for hy in hyps],
        "solver_tol": tol_used, "ratio_tol": ratio_tol,
        "metric": "weightedGap / V0 (sup over the class)",
        "formulation": "full (PEPit)",
    }
    if fallback:
        res.details["formulation"] += f"; the symmetric relaxation did not decide a hold ({fallback})"
    bad = [hy.statement for hy in hyps if not hy.holds]
    if bad:
        res.details["note"] = ("hypotheses fail (" + "; ".join(bad) + "): the inequality is compared "
                               "beyond the theorem, a violation here is not a counterexample to it")
    v = _scaffold_verdict(res, problem, handles, {**pq, "T": T}, N, K, T, ratio_tol, verify, certify)
    v.details["inequality"] = v.status if v.status != "inconclusive" else "undecided"
    if bad:  # the theorem claims nothing beyond its hypotheses (as exact_moments does)
        if isinstance(v, Violated):
            v.details["witness"] = v.witness  # the exact violation of the inequality, replayable
        why = f" ({v.reason})" if isinstance(v, Inconclusive) and v.reason else ""
        v = Inconclusive(statement=v.statement, lhs=v.lhs, rhs=v.rhs, exact=v.exact, details=v.details,
                         reason=(f"hypotheses fail ({'; '.join(bad)}): the theorem claims nothing here; "
                                 f"the inequality itself {inequality_phrase(v.details['inequality'])} at this instance{why}"))
    res.verdict = v
    return res


def _params_json(N, K, T, eta_l, eta_g, beta, mu, h):
    exact_in = all(to_fraction(v) is not None for v in (eta_l, eta_g, beta, mu))
    return {"N": N, "S": N, "K": K, "T": T, "eta_l": str(eta_l), "eta_g": str(eta_g),
            "beta": str(beta), "mu": str(mu), "sigma": "0",
            "h": _fmt_frac(h) if exact_in else repr(float(h))}


def _symmetric_hold(N, K, T, eta_l, eta_g, beta, mu, pq, bound, hyps, solver_tol, ratio_tol, solver_options,
                    certify):
    """The ``formulation="symmetric"`` first pass of :func:`worst_case_scaffold`: the result when the
    relaxation (:mod:`.direct`) shows a hold, else a string saying why it did not (the caller
    falls back to the full formulation)."""

    red = scaffold_symmetric(N, K, {**pq, "T": T}, controls=True)
    sol = solve_direct(red, tol=solver_tol, options=solver_options)
    if sol.status != _OPTIMAL or sol.worst is None:
        return f"status {sol.status}"
    ratio = sol.worst / as_float(bound)
    if ratio > 1 - ratio_tol:
        return f"worst/bound = {ratio:.6g}"
    h = effective_step(K, pq["eta_l"], pq["eta_g"])
    params = _params_json(N, K, T, eta_l, eta_g, beta, mu, h)
    sizes = sol.block_sizes
    res = WorstCaseResult("scaffold", sol.worst, sol.primal, bound, ratio, "CLARABEL", sol.status, sol.seconds,
                          gram_size=scaffold_gram_size(N, K, T), parameters=params)
    res.details = {
        "instance": f"PEP N={N} K={K} T={T} h={params['h']} mu={mu}",
        "parameters": params,
        "hypotheses": [{"key": hy.key, "statement": hy.statement, "holds": hy.holds} for hy in hyps],
        "solver_tol": sol.solver_tol, "ratio_tol": ratio_tol,
        "metric": "weightedGap / V0 (sup over the class)",
        "formulation": (f"client-symmetric reduction (PSD blocks {' + '.join(map(str, sizes))}), interpolation "
                        f"inequalities between x* and consecutive points only ({len(red.constraints)} of "
                        f"{len(red.functions[0].points) * (len(red.functions[0].points) - 1)}): a relaxation, "
                        "an upper bound on the worst case, sound for this hold"),
    }
    cert_text = (f"PEP SDP (client-symmetric relaxation, Clarabel direct), status {sol.status}; numerical upper "
                 f"bound, solver tolerance {sol.solver_tol}, ratio tolerance {ratio_tol}")
    v = Holds(statement="ConvexFiniteRoundConvergence", lhs=res.worst, rhs=bound, exact=False, details=res.details,
              evidence=Evidence.PEP_NUMERICAL, certificate=cert_text)
    if certify:
        full = scaffold_exact(N, K, {**pq, "T": T}, controls=True, relaxed=True)
        certify_verdict(v, full, bound, solver="CLARABEL", reduced=red,
                        claim=f"weightedGap <= {_fmt_frac(bound)} * V0 for every function of the class")
    v.details["inequality"] = v.status
    res.verdict = v
    return res


def scaffold_gram_size(N, K, T) -> int:
    """Gram size of the full SCAFFOLD PEP (:func:`_build_scaffold`, :func:`scaffold_exact`): x⋆,
    N - 1 free gradients at x⋆, x0, N controls and, per client, one gradient at each of its
    K (T - 1) + 1 points other than x⋆."""
    return 1 + (N - 1) + 1 + N + N * (K * (T - 1) + 1)


def scaffold_symmetric(N, K, pq, *, controls: bool, relaxed: bool = True):
    """:func:`.direct.pep_scaffold_symmetric` of :func:`scaffold_exact`'s problem (same exact
    weights and potential), restricted to :func:`.direct.neighbour_pair` when ``relaxed``."""

    T = pq["T"]
    h = effective_step(K, pq["eta_l"], pq["eta_g"])
    w = weights(T, pq["mu"], h)
    W = weight_sum(T, pq["mu"], h)
    return pep_scaffold_symmetric(N, K, pq["eta_l"], pq["eta_g"], pq["beta"], pq["mu"],
                                  {r: w[r] / W for r in range(T)}, {}, 9 * h**2, controls=controls,
                                  keep_pair=neighbour_pair if relaxed else None)


def scaffold_exact(N, K, pq, *, controls: bool, T: int | None = None, relaxed: bool = False):
    """The exact PEP (:mod:`.exact_pep`) of :func:`_build_scaffold` with exact weights w_r/W_T and
    potential coefficient 9 h² (pq: the exact parameters of :func:`._check_common`, plus ``T``)."""
    T = pq["T"] if T is None else T
    h = effective_step(K, pq["eta_l"], pq["eta_g"])
    w = weights(T, pq["mu"], h)
    W = weight_sum(T, pq["mu"], h)
    pep = pep_scaffold_exact(N, K, pq["eta_l"], pq["eta_g"], pq["beta"], pq["mu"],
                             {r: w[r] / W for r in range(T)}, {}, 9 * h**2, controls=controls)
    if relaxed:  # only the inequalities of .direct.neighbour_pair (a relaxation, for certificates)
        pep.keep_pair = neighbour_pair
    return pep


def _scaffold_verdict(res, problem, handles, pq, N, K, T, ratio_tol, verify, certify=True) -> Verdict:
    stmt = "ConvexFiniteRoundConvergence"
    common = dict(statement=stmt, lhs=res.worst, rhs=res.bound, exact=False, details=res.details)
    if not res.optimal:
        return Inconclusive(**common, reason=f"PEP solver status {res.status!r} is not optimal "
                                             f"(solver {res.solver}); the worst case is not certified")
    if res.ratio <= 1 - ratio_tol:
        v = Holds(**common, evidence=Evidence.PEP_NUMERICAL, certificate=_certificate(res))
        if certify:
            certify_verdict(v, scaffold_exact(N, K, pq, controls=True), res.bound, solver=res.solver,
                            claim=f"weightedGap <= {_fmt_frac(res.bound)} * V0 for every function of the class")
        return v
    if res.ratio <= 1 + ratio_tol:
        return Inconclusive(**common, reason=f"worst/bound = {res.ratio:.8g} is within the tolerance "
                                             f"{ratio_tol} of 1")
    # claimed violation: re-verify exactly on a concrete instance
    if not verify:
        return Inconclusive(**common, reason=f"PEP claims worst/bound = {res.ratio:.6g} > 1 but "
                                             "re-verification was disabled")
    try:
        rv = _reverify_scaffold(problem, handles, pq, N, K, T)
    except Exception as exc:  # fit or exact simulation failed
        rv = {"reproduced": False, "reason": f"re-verification failed: {type(exc).__name__}: {exc}"}
    res.details["reverification"] = {k: v for k, v in rv.items() if k not in ("witness", "lhs", "rhs")}
    if rv.get("reproduced"):
        return Violated(statement=stmt, lhs=rv["lhs"], rhs=rv["rhs"], exact=True, details=res.details,
                        witness=rv["witness"])
    return Inconclusive(**common, reason=f"PEP claims worst/bound = {res.ratio:.6g} > 1 but the exact "
                                         f"re-verification did not reproduce it ({rv.get('reason', '')})")


# --------------------------------------------------------------------------------------------
# exact re-verification on a quadratic instance
# --------------------------------------------------------------------------------------------
_DYADIC_BITS = 24


def _dyadic(t: float) -> Fraction:
    """Round a float to the nearest multiple of 2^-24: dyadic data keep the exact simulation's
    denominators small (powers of 2 times powers of the step sizes' denominators)."""
    return Fraction(round(float(t) * 2**_DYADIC_BITS), 2**_DYADIC_BITS)


def _rational_vec(v):
    return [_dyadic(t) for t in v]


def fit_class_quadratic(Y, G, mu, beta, *, fallback: bool = False):
    """One client of a fitted instance: the least-squares symmetric A and b with A y_k - b ≈ g_k
    (columns of Y and G, both (r, m) float arrays: points and gradients of a PEP's worst case) and
    (μ + δ) I ⪯ A ⪯ (β - δ) I, δ = 10⁻⁶ β (the middle of the interval when it is empty). A is clipped
    to the interval (solver round-off) and rounded to a symmetric dyadic rational matrix; class
    membership of the rounded A is for the caller to certify exactly. Returns (A as an r × r list of
    Fractions, b as an (r,) float array). A solver failure raises, or with ``fallback`` gives the
    middle of the interval times I and b = 0."""
    import cvxpy as cp

    r, m = Y.shape
    bf, mf = float(beta), float(mu)
    delta = 1e-6 * bf
    lo, hi = mf + delta, bf - delta
    if lo > hi:
        lo = hi = (mf + bf) / 2
    Av = cp.Variable((r, r), symmetric=True)
    bv = cp.Variable(r)
    resid = Av @ Y - G - cp.reshape(bv, (r, 1), order="F") @ np.ones((1, m))
    cons = [Av - lo * np.eye(r) >> 0, hi * np.eye(r) - Av >> 0]
    try:
        cp.Problem(cp.Minimize(cp.sum_squares(resid)), cons).solve(solver="CLARABEL")
        Aval, b = 0.5 * (Av.value + Av.value.T), np.asarray(bv.value, dtype=float)
    except Exception:
        if not fallback:
            raise
        Aval, b = (lo + hi) / 2 * np.eye(r), np.zeros(r)
    lam, Q = np.linalg.eigh(Aval)
    Aval = (Q * np.clip(lam, lo, hi)) @ Q.T
    Aq = [[_dyadic(Aval[j, k]) for k in range(r)] for j in range(r)]
    for j in range(r):
        for k in range(j):
            Aq[j][k] = Aq[k][j]
    return Aq, b


def fit_quadratic(handles, beta, mu):
    """Fit a quadratic instance of F_{mu,beta} to a solved PEP's worst-case data (the leaf
    points and gradients of every client, x^0 and the initial controls), round it to dyadic
    rationals and certify class membership exactly.

    Returns ``(qp, A_list, b_list, x0q, c0q, r)``: the :class:`QuadraticProblem`, its exact
    data, the start and controls in the worst case's r-dimensional span, and r.
    Raises InputError if rounding left the class."""

    fs = handles["functions"]
    # all leaf data of every client, in the coordinates of the Gram factorisation
    pts = [[(p.eval(), g.eval()) for (p, g, _f) in f.list_of_points] for f in fs]
    x0v = handles["x0"].eval()
    c0v = [ci.eval() for ci in handles.get("c0_points", [])]
    allv = np.array([v for lst in pts for pair in lst for v in pair] + [x0v] + c0v)
    U, s, _ = np.linalg.svd(allv.T, full_matrices=False)
    r = max(1, int(np.sum(s > 1e-7 * max(s[0], 1e-300))))
    P = U[:, :r].T                    # projection to the worst case's r-dimensional span
    A_list, b_list = [], []
    for lst in pts:
        Y = np.array([P @ p for p, _ in lst]).T     # (r, m)
        G = np.array([P @ g for _, g in lst]).T
        Aq, bv = fit_class_quadratic(Y, G, mu, beta)
        A_list.append(Aq)
        b_list.append(_rational_vec(bv))
    x0q = _rational_vec(P @ x0v)
    c0q = [_rational_vec(P @ cv) for cv in c0v]
    # class membership certified exactly (raises InputError if rounding left the class)
    qp = QuadraticProblem(np.array(A_list, dtype=object), np.array(b_list, dtype=object),
                          name="pep-worst-case-quadratic", beta=beta, mu=mu)
    return qp, A_list, b_list, x0q, c0q, r


def _reverify_scaffold(problem, handles, pq, N, K, T):
    """Fit a quadratic instance of F_{mu,beta} to the PEP's worst-case data, round it to rationals,
    simulate it exactly and compare weightedGap with convex_rhs exactly."""

    beta, mu = pq["beta"], pq["mu"]
    qp, A_list, b_list, x0q, c0q, r = fit_quadratic(handles, beta, mu)
    # the run itself, exactly: sigma = 0 and S = N make the Run model deterministic, so the
    # exact-moment engine's E[f(x^r)] - f* is the run's own gap (no second SCAFFOLD simulator)

    gaps = scaffold_run_moments(qp, 0, S=N, K=K, T=T, eta_l=pq["eta_l"], eta_g=pq["eta_g"],
                                x0=x0q, c0=c0q).gaps
    h = effective_step(K, pq["eta_l"], pq["eta_g"])
    w = weights(T, mu, h)
    W = weight_sum(T, mu, h)
    lhs = sum((wr * g for wr, g in zip(w, gaps[:T])), Fraction(0)) / W
    dist_sq = squared_distance(x0q, qp.x_star_exact)
    C0 = initial_control_error(np.array(c0q, dtype=object), qp.grads_exact(qp.x_star_exact))
    rhs = convex_rhs(dist_sq=dist_sq, C0=C0, N=N, S=N, K=K, T=T, eta_l=pq["eta_l"], eta_g=pq["eta_g"],
                     mu=mu, sigma=0)
    V0 = initial_potential(dist_sq, C0, N, N, h)
    out = {"lhs": lhs, "rhs": rhs, "lhs_float": as_float(lhs), "rhs_float": as_float(rhs),
           "dimension": r, "ratio": as_float(lhs / rhs) if rhs else None, "V0": as_float(V0)}
    if lhs > rhs:
        out["reproduced"] = True
        out["witness"] = {
            "kind": "quadratic clients f_i(x) = 1/2 x^T A_i x - b_i^T x (exact rationals)",
            "A": [[[str(v) for v in row] for row in Ai] for Ai in A_list],
            "b": [[str(v) for v in bi] for bi in b_list],
            "x0": [str(v) for v in x0q], "c0": [[str(v) for v in ci] for ci in c0q],
            "K": K, "T": T, "eta_l": str(pq["eta_l"]), "eta_g": str(pq["eta_g"]),
            "beta": str(beta), "mu": str(mu),
            "weighted_gap": str(lhs), "convex_rhs": str(rhs),
        }
    else:
        out["reproduced"] = False
        out["reason"] = (f"best quadratic fit (dimension {r}) reaches only "
                         f"{out['ratio']:.6g} of the bound")
    return out


# --------------------------------------------------------------------------------------------
# FedAvg (uniform mode, S = N) and Local SGD (deterministic oracle)
# --------------------------------------------------------------------------------------------
def worst_case_fedavg(N, K, T, eta_l, eta_g, beta=1, mu=0, *, solver=None,
                      solver_tol=DEFAULT_SOLVER_TOL, solver_options=None, certify=True) -> WorstCaseResult:
    """Worst case of deterministic FedAvg (uniform-client mode, S = N), same metric as SCAFFOLD.

    Procedure (seed 002 "Federated averaging", uniform-client analysis mode; McMahan et al.
    2017, Alg. 1): y_{i,0} = x^r, y_{i,k+1} = y_{i,k} - eta_l grad f_i(y_{i,k}),
    x^{r+1} = x^r + (eta_g/N) sum_i (y_{i,K} - x^r). FedAvg is SCAFFOLD with every control
    frozen at 0, so the initial condition is the SCAFFOLD potential with c_i^0 = 0:
    ||x^0 - x*||^2 + 9 h^2 (1/N) sum_i ||grad f_i(x*)||^2 <= 1 (heterogeneity at the optimum
    must be bounded: with it free, FedAvg's drift makes the worst case infinite for K > 1).

    ``bound`` is the SCAFFOLD convex bound 1/(h W_T) as a *reference* (no FedAvg theorem is
    asserted; ``verdict`` is None). With ``certify``, a worst case below the reference bound gets
    an exact certificate of weightedGap <= bound * V0 for FedAvg over the class, recorded in
    ``details["pep_certificate"]`` (verified or the reason). Parameters, returns and errors as in
    :func:`worst_case_scaffold`.
    """
    N, K, T, pf, pq = _check_common(N, K, T, eta_l, eta_g, beta, mu)
    solver = _check_solver(solver)
    h = effective_step(K, pq["eta_l"], pq["eta_g"])
    w = weights(T, pq["mu"], h)
    W = weight_sum(T, pq["mu"], h)
    w_norm = [as_float(wr / W) for wr in w]
    bound = convex_rhs(dist_sq=1, C0=0, N=N, S=N, K=K, T=T, eta_l=pq["eta_l"], eta_g=pq["eta_g"],
                       mu=pq["mu"], sigma=0)
    problem, _ = _build_scaffold(N, K, T, pf["eta_l"], pf["eta_g"], pf["beta"], pf["mu"], w_norm,
                                 controls=False, pot_coef=float(9 * h**2))
    dual, primal, status, name, secs, tol_used = _solve(problem, solver, solver_tol, solver_options)
    params = {"N": N, "K": K, "T": T, "eta_l": str(eta_l), "eta_g": str(eta_g), "beta": str(beta),
              "mu": str(mu), "h": _fmt_frac(h)}
    ratio = dual / as_float(bound) if dual is not None and status == _OPTIMAL else None
    res = WorstCaseResult("fedavg", dual, primal, bound, ratio, name, status, secs,
                          gram_size=_gram_size(problem), parameters=params,
                          details={"solver_tol": tol_used,
                                   "note": "bound is SCAFFOLD's convex bound, shown for reference"})
    if certify and ratio is not None and ratio < 1:
        cert, why = find_certificate(scaffold_exact(N, K, {**pq, "T": T}, controls=False), bound, solver=name)
        res.details["pep_certificate"] = ({"verified": True, "tau": _fmt_frac(bound),
                                           "nonzero_multipliers": cert.info["nonzero_multipliers"]}
                                          if cert is not None else {"verified": False, "reason": why})
    return res


