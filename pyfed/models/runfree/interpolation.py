"""A run-free PEP row's positive worst case made concrete: the interpolating function of the class.

When the PEP of a function-class lemma (:mod:`.pep`) finds LHS − RHS > 0 and no quadratic of the
class reproduces it, :func:`interpolation_witness` builds the counterexample the PEP's
interpolation conditions promise (Taylor, Hendrickx & Glineur, Math. Program. 161, 2017, Thm 4):

1. the PEP is solved again over a slightly smaller class, F_{μ',L'} with L' = (1 − ε) L and
   μ' = μ + ε (L − μ) when μ > 0 (ε = 10⁻³, then 10⁻²), so that its worst case satisfies the
   class's inequalities with room to spare;
2. its Gram matrix is factorised (points of ℝ^r, r its numerical rank) and every leaf vector rounded
   to a dyadic rational; every point and gradient of the method is then the exact rational
   combination of the rounded leaves the PEP defines, so the statement's own terms, evaluated by
   the interpreter, meet exactly the data points;
3. the function values are moved to the largest values below the solver's that satisfy the
   interpolation inequalities of F_{μ,L} exactly (:func:`pyfed.problems.interpolation.repair_values`),
   and each function becomes the interpolant through its points
   (:class:`pyfed.problems.interpolation.InterpolatedFunction`, class certified exactly); a
   Problem's clients each become one, with the minimiser's gradients summing to 0 exactly;
4. the instance is decided by the run-free search's own exact decision; it is a witness only when
   every hypothesis holds and the conclusion fails exactly. Otherwise the reason says which step
   did not go through.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np

from ...checkers import families as fam
from ...engines.pep.direct import solve_direct
from ...engines.pep.exact_pep import Form
from ...problems.interpolation import InterpolatedFunction, NotInterpolable, repair_values
from .search import decide_lemma_instance, recheck_lemma

__all__ = ["interpolation_witness", "SHRINK"]

#: The relative shrinkings of the class tried, in order.
SHRINK = (Fraction(1, 1000), Fraction(1, 100))
_BITS = 40


def _dyadic(t: float) -> Fraction:
    return Fraction(round(float(t) * 2 ** _BITS), 2 ** _BITS)


def _shrunk(pep, eps):
    """A copy of ``pep`` over the smaller class of every function (step 1)."""
    out = copy.deepcopy(pep)
    for f in out.functions:
        f.L = f.L * (1 - eps)
        if f.mu > 0:
            f.mu = f.mu + eps * (f.L - f.mu)
    out._constraints = None
    return out


def _solution(pep):
    """(leaf coordinates (n, r) floats, function values) of the trace-normalised worst case, or None."""
    work = copy.copy(pep)
    work.metric = Form(dict(pep.metric.gram), dict(pep.metric.fval), Fraction(0))
    work.init = Form({(a, a): Fraction(1) for a in range(len(pep.leaves))})
    sol = solve_direct(work)
    if sol.status not in ("optimal", "optimal_inaccurate") or not sol.grams or sol.x is None:
        return None, f"the solver's status is {sol.status!r}"
    G = 0.5 * (sol.grams[0] + sol.grams[0].T)
    lam, U = np.linalg.eigh(G)
    keep = lam > 1e-9 * max(float(lam.max()), 1e-300)
    if not keep.any():
        return None, "the worst case's Gram matrix is zero"
    V = U[:, keep] * np.sqrt(lam[keep])
    n = len(pep.leaves)
    fvals = np.asarray(sol.x[n * (n + 1) // 2: n * (n + 1) // 2 + len(pep.fvalues)], dtype=float)
    return (V, fvals), ""


def _coords(v, leaves):
    """The exact coordinates of a PEP vector (a rational combination of leaves)."""
    r = len(leaves[0]) if leaves else 0
    out = [Fraction(0)] * r
    for a, c in v.coef.items():
        out = [o + c * x for o, x in zip(out, leaves[a])]
    return out


def interpolation_witness(st, case) -> tuple:
    """``(record, "")`` with the violated :class:`~.search.LemmaRecord` of the interpolated worst
    case of ``case`` (a :class:`~.pep.LemmaPEPCase` whose PEP found LHS − RHS > 0), or ``(None,
    reason)`` (module docstring)."""
    why = "no attempt"
    for eps in SHRINK:
        rec, why = _attempt(st, case, eps)
        if rec is not None:
            return rec, ""
    return None, why


def _attempt(st, case, eps):

    pep = _shrunk(case.pep, eps)
    sol, why = _solution(pep)
    if sol is None:
        return None, why
    V, fvals = sol
    leaves = [[_dyadic(t) for t in row] for row in V]
    r = V.shape[1]
    env = {d: r for d in case.dims}
    env.update({k: v for k, v in case.values.items() if isinstance(v, Fraction)})
    for name, v in case.leaves.items():
        if hasattr(v, "coef"):
            env[name] = fam.vec(_coords(v, leaves))
    made = {}
    for f_orig, f in zip(case.pep.functions, pep.functions):
        pts = [_coords(x, leaves) for _, x, _, _ in f.points]
        grads = [_coords(g, leaves) for _, _, g, _ in f.points]
        targets = [_dyadic(fvals[j]) for _, _, _, j in f.points]
        try:
            values = repair_values(pts, grads, targets, f_orig.mu, f_orig.L)
            made[f_orig.index] = fam.interpolated(InterpolatedFunction(pts, grads, values, f_orig.mu, f_orig.L),
                                                  name=f"f{f_orig.index}")
        except NotInterpolable as exc:
            return None, f"function {f_orig.index} of the worst case is not interpolable after rounding ({exc})"
    for name, v in case.leaves.items():
        if not hasattr(v, "coef"):
            env[name] = made[v.index]
    for name, problem in (case.problem_values or {}).items():
        ns, fs = problem
        clients = [made[f.index] for f in fs]
        d = r
        env[name] = fam.problem(ns, clients, {"β": max(Fraction(c.props["beta"]) for c in clients),
                                              "σ": Fraction(0), "x0": fam.vec([Fraction(0)] * d)})
    points = sum(len(f.points) for f in pep.functions)
    rec = decide_lemma_instance(st, env, description=f"PEP worst case at {case.label()}, realised as a function "
                                                     f"of the class (interpolated through {points} points, dimension {r})")
    if rec.status != "violated":
        why = rec.reason or (f"hypotheses {', '.join(rec.failing)} fail" if rec.failing else rec.status)
        return None, f"the interpolated worst case is not a counterexample ({why})"
    again = recheck_lemma(st, {"instance": rec.instance})       # from its exact JSON alone
    if again.status != "violated":
        return None, f"the interpolated worst case does not re-check from its JSON ({again.status})"
    return rec, ""
