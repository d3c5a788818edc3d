"""A SCAFFOLD PEP row's worst case made concrete when no quadratic reproduces it: the interpolating
functions of the class through the worst-case points (Taylor, Hendrickx & Glineur, Math. Program.
161, 2017, Thm 4).

:func:`interpolated_reverification` solves the row's PEP again over a slightly smaller class (β' =
(1 − ε) β, μ' = μ + ε (β − μ) when μ > 0), projects the worst case's points, gradients, start and
controls on their span (ℝ^r), rounds them to dyadic rationals, makes the gradients at x⋆ sum to 0
exactly, moves each client's function values to the largest below the solver's that satisfy the
interpolation inequalities of F_{μ,β} (:func:`pyfed.problems.interpolation.repair_values`) and gives
each client the interpolant through its points (:class:`pyfed.problems.interpolation.
InterpolatedFunction`). The statement is then decided on that client set by the exact engine
(:func:`.exact.decide_exact`: every sample path, exact rationals); the run follows its own exact
iterates, near the worst case's, and a violation counts only when it re-checks exactly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...engines.pep.solver import _solve
from ...problems.clients import ClientSet
from ...problems.interpolation import InterpolatedFunction, NotInterpolable, repair_values
from .exact import decide_exact
from .instance import RunInstance

__all__ = ["interpolated_reverification", "SHRINK"]

#: The relative shrinkings of the class tried, in order.
SHRINK = (Fraction(1, 1000), Fraction(1, 100))
_BITS = 40


def _dyadic(v) -> list:
    return [Fraction(round(float(t) * 2 ** _BITS), 2 ** _BITS) for t in np.atleast_1d(v)]


def interpolated_reverification(st, plan, pot_coef: float, solver: str, solver_tol: float, build) -> tuple:
    """``(verdict, info)``: the exact verdict of ``st`` on the interpolated worst case of the row's
    ``plan`` (Violated when it reproduces the violation) and a dict saying what was built, or
    ``(None, info)`` with ``info["reason"]`` when no attempt got that far (module docstring).
    ``build(plan, pot_coef)``: the row's PEPit problem and its handles (:func:`.pep._build`)."""
    info = {"reproduced": False, "how": "interpolating functions of the class through the worst case"}
    for eps in SHRINK:
        v, why, r = _attempt(st, plan, pot_coef, solver, solver_tol, eps, build)
        info.update(reason=why, dimension=r, shrink=str(eps))
        if v is not None and v.status == "violated":
            info.update(reproduced=True, exact_status="violated", reason="",
                        description=(f"the worst case of the PEP row, realised as interpolating functions of the "
                                     f"class (dimension {r}), σ = 0, every client sampled; decided exactly on every "
                                     "sample path"))
            return v, info
    return None, info


def _attempt(st, plan, pot_coef, solver, solver_tol, eps, build):

    beta, mu = plan["beta"], plan["mu"]
    shrunk = dict(plan, beta=beta * (1 - eps), mu=mu + eps * (beta - mu) if mu > 0 else mu)
    problem, handles = build(shrunk, pot_coef)
    _dual, _primal, status, _name, _secs, _tol = _solve(problem, solver, solver_tol, None)
    if status not in ("optimal", "optimal_inaccurate"):
        return None, f"the smaller class's PEP did not solve (status {status!r})", 0
    fs = handles["functions"]
    pts = [[(p.eval(), g.eval(), f.eval()) for (p, g, f) in fn.list_of_points] for fn in fs]
    xs = handles["xs"].eval()
    x0 = handles["x0"].eval()
    c0 = [c.eval() for c in handles.get("c0_points", [])]
    allv = np.array([v for lst in pts for (p, g, _) in lst for v in (p, g)] + [x0, xs] + c0)
    U, s, _ = np.linalg.svd(allv.T, full_matrices=False)
    r = max(1, int(np.sum(s > 1e-8 * max(s[0], 1e-300))))
    P = U[:, :r].T
    xsr = _dyadic(P @ xs)
    clients_data = []
    for lst in pts:
        xs_idx = min(range(len(lst)), key=lambda k: float(np.linalg.norm(lst[k][0] - xs)))
        data = []
        for k, (p, g, f) in enumerate(lst):
            data.append([xsr if k == xs_idx else _dyadic(P @ p), _dyadic(P @ g), Fraction(float(f))])
        clients_data.append((xs_idx, data))
    # the gradients at x⋆ sum to 0 exactly: the last client's is minus the others'
    total = [Fraction(0)] * r
    for xs_idx, data in clients_data[:-1]:
        total = [a + b for a, b in zip(total, data[xs_idx][1])]
    last_idx, last = clients_data[-1]
    last[last_idx][1] = [-a for a in total]
    clients = []
    for i, (_, data) in enumerate(clients_data):
        points, grads, targets = [d[0] for d in data], [d[1] for d in data], [d[2] for d in data]
        try:
            values = repair_values(points, grads, targets, mu, beta)
            clients.append(InterpolatedFunction(points, grads, values, mu, beta))
        except NotInterpolable as exc:
            return None, f"client {i} of the worst case is not interpolable after rounding ({exc})", r
    try:
        cs = ClientSet(clients, xsr, name="PEP worst case, interpolated")
        inst = RunInstance(name="PEP worst case, interpolated", problem=cs, sigma=Fraction(0), S=plan["S"],
                           K=plan["K"], T=plan["T"], eta_l=plan["eta_l"], eta_g=plan["eta_g"],
                           x0=np.array(_dyadic(P @ x0), dtype=object),
                           c0=np.array([_dyadic(P @ c) for c in c0], dtype=object) if c0 else None, mu=mu)
        v = decide_exact(st, inst, arithmetic="exact")
    except Exception as exc:        # noqa: BLE001 -- the reason is reported, the row stays inconclusive
        return None, f"the interpolated instance could not be decided ({type(exc).__name__}: {exc})", r
    if v.status != "violated":
        return v, f"the interpolated worst case gives {v.status} on the exact run", r
    return v, "", r
