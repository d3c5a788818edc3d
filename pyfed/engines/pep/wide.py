"""PEP verdicts for the wider classes: partial participation (S < N) and stochastic gradients
(σ > 0), solved on the exact problem of :mod:`.participation` (no PEPit model: the SDP is the
dual of the :class:`.exact_pep.ExactPEP` itself, so the certificate's problem is the one solved).

* :func:`decide_pep` -- numerical value, verdict and (on a numerical hold) an exact certificate
  for a claim ``metric ≤ τ·init``;
* :func:`worst_case_scaffold_wide` -- ``SCAFFOLD.ConvexFiniteRoundConvergence`` (seed 000) at
  S ≤ N, σ ≥ 0, and FedAvg (``controls=False``) against the same bound for reference.

Verdicts. ``holds`` needs a verified exact certificate (evidence "PEP certificate over the class")
or is ``holds (numerical)``. A PEP value above the claim is never ``violated`` at σ > 0: the PEP is
a relaxation (:mod:`.stochastic`), the row is ``inconclusive`` and says so. At σ = 0, S < N it is
``violated`` only when the caller's ``reverify`` (the statement row:
:func:`pyfed.models.scaffold.pep.pep_row`) reproduces it exactly on a quadratic instance fitted
to the primal worst case (:func:`worst_case_handles`); :func:`worst_case_scaffold_wide` has no
statement to re-verify with and leaves it ``inconclusive``.
"""

from __future__ import annotations

import contextlib
import io
import time
import warnings
from fractions import Fraction

from ...errors import InputError, check_int
from ...theory import (
    convex_hypotheses,
    convex_rhs,
    effective_step,
    noise_term,
    weight_sum,
    weights,
)
from ...verdicts import Evidence, Holds, Inconclusive, Verdict
from .certificate import certify_verdict
from .certificate_oracle import _arrays, _dual_parts
from .direct import solve_direct
from .exact_pep import ExactPEP
from .participation import pep_scaffold_wide_exact
from .solver import (
    DEFAULT_RATIO_TOL,
    DEFAULT_SOLVER_TOL,
    WorstCaseResult,
    _check_common,
    _check_solver,
    _fmt_frac,
    _params,
    _solver_kwargs,
)

__all__ = ["pep_value", "decide_pep", "worst_case_handles", "worst_case_scaffold_wide", "RELAXATION_NOTE"]

#: What a σ > 0 row rests on (verdict details and README).
RELAXATION_NOTE = ("σ > 0: expectation-Gram relaxation (noise vectors as Gram leaves, unbiasedness and "
                   "variance in expectation): an upper bound on the worst case over stochastic runs; a "
                   "certificate proves the claim, a value above it is not a counterexample")


def pep_value(pep: ExactPEP, *, solver: str | None = None, solver_tol: float = DEFAULT_SOLVER_TOL):
    """The PEP's numerical value min τ (the dual SDP of ``pep``: τ·init - metric + Σ λ I ⪰ 0,
    λ ≥ 0; floats, untrusted). Returns (value | None, status, solver name, seconds, tolerance
    used); status is cvxpy-style (``"optimal"`` when usable; ``optimal_inaccurate`` is retried once
    at 10 × tol). Clarabel (the default) solves the sparse problem of :func:`.direct.solve_direct`;
    another solver gets the same dual through cvxpy."""
    solver = _check_solver(solver)
    if solver == "CLARABEL":
        out = solve_direct(pep, tol=solver_tol)
        value = out.worst if out.status == "optimal" else None
        return value, out.status, solver, out.seconds, out.solver_tol
    import cvxpy as cp


    t0 = time.perf_counter()
    status, value = "error", None
    for tol in (solver_tol, 10 * solver_tol):
        lam, t, Q, cons, n = _dual_parts(pep, None)
        Z = cp.Variable((n, n), PSD=True)    # better conditioned than an LMI on the affine Q
        prob = cp.Problem(cp.Minimize(t), cons + [Z == (Q + Q.T) / 2])
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                prob.solve(solver=solver, **_solver_kwargs(solver, tol, None))
            status = str(prob.status)
        except Exception as exc:  # solver failure
            status = f"error: {type(exc).__name__}: {exc}"[:200]
        if status != "optimal_inaccurate":
            break
    if status == "optimal" and t.value is not None:
        value = float(t.value)
    return value, status, solver, time.perf_counter() - t0, tol


class _Point:
    """A float vector with PEPit's ``eval()`` (what :func:`.scaffold.fit_quadratic` reads)."""

    def __init__(self, v):
        self.v = v

    def eval(self):
        return self.v


class _Client:
    def __init__(self, points):
        self.list_of_points = points


def worst_case_handles(pep: ExactPEP, *, solver: str | None = None, solver_tol: float = DEFAULT_SOLVER_TOL) -> dict:
    """The PEP's primal worst case (max metric subject to the constraints, init ≤ 1, G ⪰ 0; floats,
    untrusted) as the handles :func:`.scaffold.fit_quadratic` fits a quadratic instance to:
    ``{"functions": per client its (point, gradient, _) triples, "x0": ..., "c0_points": [...]}``,
    the leaves' vectors read off a factor of the Gram matrix. Raises RuntimeError if the solve fails."""
    import cvxpy as cp
    import numpy as np


    solver = _check_solver(solver)
    n, nF, Mk, Fk, ck, (Mi, fi, ci), (Mm, fm, cm) = _arrays(pep)
    G = cp.Variable((n, n), PSD=True)
    Fv = cp.Variable(nF) if nF else None
    g = cp.vec(G, order="F")

    def lin(M, f, c):
        return M.reshape(-1, order="F") @ g + (f @ Fv if nF else 0) + c
    cons = [lin(Mi, fi, ci) <= 1]
    if Mk.shape[1]:
        cons.append(Mk.T @ g + (Fk.T @ Fv if nF else 0) + ck <= 0)
    prob = cp.Problem(cp.Maximize(lin(Mm, fm, cm)), cons)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        prob.solve(solver=solver, **_solver_kwargs(solver, solver_tol, None))
    if prob.status not in ("optimal", "optimal_inaccurate") or G.value is None:
        raise RuntimeError(f"primal PEP solve status {prob.status!r}")
    w, U = np.linalg.eigh((G.value + G.value.T) / 2)
    V = U * np.sqrt(np.clip(w, 0, None))          # row a: leaf a's vector, G = V V^T

    def at(vec):
        out = np.zeros(n)
        for a, c in vec.coef.items():
            out = out + float(c) * V[a]
        return _Point(out)
    leaves = {name: a for a, name in enumerate(pep.leaves)}
    fs = [_Client([(at(x), at(gr), None) for _key, x, gr, _j in f.points]) for f in pep.functions]
    c0 = [_Point(V[leaves[f"c{i}"]]) for i in range(len(pep.functions)) if f"c{i}" in leaves]
    return {"functions": fs, "x0": _Point(V[leaves["x0"]]), "c0_points": c0}


def decide_pep(pep: ExactPEP, tau, *, statement: str, details: dict, relaxation: bool, solver=None,
               solver_tol=DEFAULT_SOLVER_TOL, ratio_tol=DEFAULT_RATIO_TOL, certify: bool = True,
               claim: str | None = None, reverify=None) -> tuple[Verdict, float | None]:
    """Verdict on ``pep.metric ≤ tau·pep.init`` (tau exact, > 0) from the PEP's numerical value.

    ratio = value/tau ≤ 1 - ratio_tol: ``holds (numerical)``, turned into a certified hold when an
    exact certificate verifies (``certify``); within ratio_tol of 1: ``inconclusive``; above:
    ``reverify(handles, ratio, common)`` (not for a relaxation) decides from the primal worst case
    (:func:`worst_case_handles`) -- Violated only when it reproduces the violation exactly --,
    otherwise ``inconclusive`` (the reason says a relaxation's value is not a counterexample when
    ``relaxation``, else that the branching worst case is not re-verified exactly). ``details``
    (dict) is extended with the value, ratio, solver, status and time. Returns (verdict, value)."""
    value, status, name, secs, tol_used = pep_value(pep, solver=solver, solver_tol=solver_tol)
    tau = Fraction(tau)
    ratio = value / float(tau) if value is not None else None
    details.update({"solver": name, "status": status, "solve_time_s": round(secs, 4), "pep_ratio": ratio,
                    "pep_value": value, "solver_tol": tol_used, "ratio_tol": ratio_tol,
                    "gram_size": len(pep.leaves), "constraints": len(pep.constraints)})
    if relaxation:
        details["relaxation"] = RELAXATION_NOTE
    common = dict(statement=statement, lhs=value, rhs=tau, exact=False, details=details)
    if value is None:
        return Inconclusive(**common, reason=f"PEP solver status {status!r} is not optimal (solver {name}); "
                                             "the worst case is not certified"), None
    if ratio <= 1 - ratio_tol:
        v = Holds(**common, evidence=Evidence.PEP_NUMERICAL,
                  certificate=(f"PEP SDP (exact problem, cvxpy), solver {name}, status {status}; numerical, "
                               f"solver tolerance {tol_used}, ratio tolerance {ratio_tol}"
                               + ("; σ > 0 relaxation: an upper bound on the worst case" if relaxation else "")))
        if certify:
            certify_verdict(v, pep, tau, solver=name, claim=claim)
        return v, value
    if ratio <= 1 + ratio_tol:
        return Inconclusive(**common, reason=f"worst/bound = {ratio:.8g} is within the tolerance {ratio_tol} of 1"), value
    if reverify is not None and not relaxation:
        try:
            handles = worst_case_handles(pep, solver=name, solver_tol=solver_tol)
        except Exception as exc:  # the primal solve failed: nothing to re-verify
            details["reverification"] = {"reproduced": False, "reason": f"{type(exc).__name__}: {exc}"}
        else:
            return reverify(handles, ratio, common), value
    why = ("the σ > 0 PEP is a relaxation (expectation Gram matrix): its worst case need not come from any "
           "stochastic oracle, so this is not a counterexample" if relaxation else
           "the worst case over subset sequences is not re-verified on an exact instance")
    return Inconclusive(**common, reason=f"PEP value/bound = {ratio:.6g} > 1, but {why}"), value


def worst_case_scaffold_wide(N, S, K, T, eta_l, eta_g, beta=1, mu=0, sigma=0, *, controls: bool = True,
                             solver=None, solver_tol=DEFAULT_SOLVER_TOL, ratio_tol=DEFAULT_RATIO_TOL,
                             certify: bool = True) -> WorstCaseResult:
    """Worst case of SCAFFOLD (seed-000 ``Run``; FedAvg with ``controls=False``) with S of N clients
    per round and noise σ against ``SCAFFOLD.ConvexFiniteRoundConvergence``:
    weightedGap ≤ V₀/(h W_T) + 12 h σ²/(K S) (1 + S/ηg²), V₀ = ‖x⁰ - x⋆‖² + 9 N h²/S C₀.

    The PEP (:func:`.participation.pep_scaffold_wide_exact`) maximises E[weightedGap] subject to
    init = V₀ + ρ σ² ≤ 1, ρ = (12 h/(K S)) (1 + S/ηg²) · h W_T (σ > 0; by homogeneity the answer is
    the same for every σ > 0, σ's value enters nowhere); the theorem's bound on this normalised
    metric is 1/(h W_T) (``convex_rhs`` with dist_sq = 1, C₀ = 0, σ = 0). For FedAvg the initial
    condition uses c_i⁰ = 0 and the bound is a reference only (no FedAvg theorem is claimed).

    Parameters as :func:`.scaffold.worst_case_scaffold`, plus S (1 ≤ S ≤ N), sigma (≥ 0) and
    ``controls``. Sizes: the PEP has one branch per subset sequence (C(N,S)^(T-1) of them); above
    :data:`.participation.MAX_GRAM_LEAVES` Gram leaves InputError (argument ``T``) is raised before
    anything is solved.

    Returns a WorstCaseResult (``problem`` "scaffold_wide" or "fedavg_wide") whose ``verdict`` is
    :func:`decide_pep`'s for SCAFFOLD (inconclusive with the theorem's failing hypotheses named when
    they fail) and None for FedAvg (``details["pep_certificate"]`` then says whether the reference
    bound was certified). Raises InputError as :func:`.scaffold.worst_case_scaffold`, and for
    S outside 1..N, σ < 0 or a problem above the size limit."""

    N, K, T, pf, pq = _check_common(N, K, T, eta_l, eta_g, beta, mu)
    S = check_int("S", S, minimum=1)
    if S > N:
        raise InputError("S", f"S={S} must satisfy S <= N={N}")
    sig = _params(sigma=sigma)[1]["sigma"]          # a float is taken at its exact binary value
    if sig < 0:
        raise InputError("sigma", f"must be a nonnegative real number, got {sigma!r}")
    solver = _check_solver(solver)
    h = effective_step(K, pq["eta_l"], pq["eta_g"])
    w = weights(T, pq["mu"], h)
    W = weight_sum(T, pq["mu"], h)
    bound = convex_rhs(dist_sq=1, C0=0, N=N, S=S, K=K, T=T, eta_l=pq["eta_l"], eta_g=pq["eta_g"], mu=pq["mu"],
                       sigma=0)
    rho = noise_term(1, sigma_sq=1, S=S, K=K, eta_g=pq["eta_g"], h=h) * h * W if sig > 0 else None
    pep = pep_scaffold_wide_exact(N, S, K, pq["eta_l"], pq["eta_g"], pq["beta"], pq["mu"],
                                  {r: w[r] / W for r in range(T)}, {}, 9 * N * h**2 / S, rho, controls=controls)
    params = {"N": N, "S": S, "K": K, "T": T, "eta_l": str(eta_l), "eta_g": str(eta_g), "beta": str(beta),
              "mu": str(mu), "sigma": _fmt_frac(sig), "h": _fmt_frac(h)}
    hyps = convex_hypotheses(N=N, S=S, K=K, T=T, eta_l=pq["eta_l"], eta_g=pq["eta_g"], beta=pq["beta"],
                             mu=pq["mu"], sigma=sig)
    details = {"instance": f"PEP N={N} S={S} K={K} T={T} sigma={_fmt_frac(sig)} h={_fmt_frac(h)} mu={mu}",
               "parameters": params, "engine": _engine_label(S, N, sig),
               "hypotheses": [{"key": hy.key, "statement": hy.statement, "holds": hy.holds} for hy in hyps],
               "metric": "E[weightedGap] / (V0 + rho sigma^2) (sup over the class)"}
    claim = (f"E[weightedGap] <= {_fmt_frac(bound)} * (V0{' + ' + _fmt_frac(rho) + ' sigma^2' if rho else ''}) "
             "for every function of the class")
    v, value = decide_pep(pep, bound, statement="ConvexFiniteRoundConvergence", details=details,
                          relaxation=sig > 0, solver=solver, solver_tol=solver_tol, ratio_tol=ratio_tol,
                          certify=certify, claim=claim)
    res = WorstCaseResult("scaffold_wide" if controls else "fedavg_wide", value, None, bound,
                          details.get("pep_ratio"), solver, details["status"], details["solve_time_s"],
                          gram_size=len(pep.leaves), parameters=params, details=details)
    bad = [hy.statement for hy in hyps if not hy.holds]
    if bad and controls:
        why = f" ({v.reason})" if isinstance(v, Inconclusive) and v.reason else ""
        v.details["inequality"] = v.status if v.status != "inconclusive" else "undecided"
        v = Inconclusive(statement=v.statement, lhs=v.lhs, rhs=v.rhs, exact=False, details=v.details,
                         reason=f"hypotheses fail ({'; '.join(bad)}): the theorem claims nothing here{why}")
    res.verdict = v if controls else None
    if not controls:
        details["note"] = "bound is SCAFFOLD's convex bound, shown for reference"
    return res


def _engine_label(S, N, sigma) -> str:
    parts = ["S = N" if S == N else f"S = {S} < N = {N} (average over subset sequences)",
             "sigma = 0" if not sigma else "sigma > 0 (expectation relaxation)"]
    return "PEP worst case over the class (" + ", ".join(parts) + ")"

