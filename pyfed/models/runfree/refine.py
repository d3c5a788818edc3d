"""Refinements of a run-free candidate: the exact worst points of a margin that is a quadratic
form in the statement's vectors (:func:`worst_points`) and the worst values of its sequences by a
linear program over its linear hypotheses (:func:`lp_worst`); each returns candidate environments
the search then decides exactly."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy

from ...checkers import families as fam
from ...lean.terms import Node
from ...statements.evaluate import (
    EvaluationError,
    Undecided,
)
from ...statements.interpret import Fun, NotFinite, Structural, Vec
from .hypotheses import decide_hypothesis
from .instances import (
    _enumerate,
)
from .plan import _strip_foralls

__all__ = ["worst_points", "lp_worst"]


def worst_points(st, pl, env, vecs, interp):
    """Points where the conclusion fails, found exactly when its margin ``rhs − lhs`` is a
    polynomial of degree ≤ 2 in the free points (``vecs``: names of vectors ``Space d`` or of
    families ``Fin m → Space d``, every member's entries then unknowns; every function quadratic):
    the homogenised
    quadratic form's exact LDLᵀ either proves it nonnegative (None: no such points) or gives a
    direction along which it is negative, scaled until the margin is negative exactly."""
    if st.lhs is None or st.rhs is None or st.relation not in ("≤", "<"):
        return None
    syms, local, shapes = [], dict(env), {}
    for n in vecs:
        members = getattr(env[n], "values", None) if not isinstance(env[n], Vec) else None
        if members is not None:        # a family Fin m → Space d: every member's entries are unknowns
            rows = []
            for k, v in enumerate(members):
                xs = [sympy.Symbol(f"{n}_{k}_{i}") for i in range(len(v))]
                syms.extend(xs)
                rows.append(Vec(xs))
            local[n] = Fun(lambda i, rows=rows: rows[int(i)], n=len(rows), name=n)
            shapes[n] = [len(v) for v in members]
            continue
        d = len(env[n])
        xs = [sympy.Symbol(f"{n}_{i}") for i in range(d)]
        syms.extend(xs)
        local[n] = Vec(xs)
        shapes[n] = None
    if not syms:
        return None
    try:
        margin = sympy.expand(sympy.sympify(_sy(interp.eval(st.rhs, local))) -
                              sympy.sympify(_sy(interp.eval(st.lhs, local))))
        poly = sympy.Poly(margin, *syms)
    except Exception:            # not a polynomial in the points (a norm, an absolute value)
        return None
    if poly.total_degree() > 2:
        return None
    n = len(syms)
    M = [[Fraction(0)] * (n + 1) for _ in range(n + 1)]
    for monom, coef in poly.terms():
        c = Fraction(int(sympy.Rational(coef).p), int(sympy.Rational(coef).q))
        idx = [i for i, e in enumerate(monom) for _ in range(e)]
        if len(idx) == 2:
            i, j = idx
            if i == j:
                M[i][i] += c
            else:
                M[i][j] += c / 2
                M[j][i] += c / 2
        elif len(idx) == 1:
            M[idx[0]][n] += c / 2
            M[n][idx[0]] += c / 2
        else:
            M[n][n] += c
    w = _negative_direction(M)
    if w is None:
        return None
    for scale in (Fraction(1), Fraction(2), Fraction(8), Fraction(64), Fraction(1024)):
        v = [x * scale for x in w[:n]]
        hom = w[n] * scale if w[n] != 0 else Fraction(1)
        point = [x / hom for x in v] if w[n] != 0 else [x for x in v]
        vals = dict(zip(syms, point))
        if margin.subs({k: sympy.Rational(x.numerator, x.denominator) for k, x in vals.items()}) < 0:
            out = dict(env)
            k = 0
            for nm in vecs:
                if shapes[nm] is not None:
                    rows = []
                    for d in shapes[nm]:
                        rows.append(Vec(point[k:k + d]))
                        k += d
                    out[nm] = fam.fin_family(rows)
                    continue
                d = len(env[nm])
                out[nm] = Vec(point[k:k + d])
                k += d
            return out
    return None


def _negative_direction(M):
    """A rational vector w with wᵀMw < 0 (M symmetric), or None when M is positive semidefinite."""
    n = len(M)
    A = [row[:] for row in M]
    basis = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]   # row i: the direction of pivot i
    for k in range(n):
        if A[k][k] < 0:
            return basis[k]
        if A[k][k] == 0:
            for j in range(k + 1, n):
                if A[k][j] != 0:
                    # (e_k t + e_j) with t chosen so that A_jj + 2 t A_kj < 0
                    t = -(A[j][j] + 1) / (2 * A[k][j])
                    return [t * a + b for a, b in zip(basis[k], basis[j])]
            continue
        for j in range(k + 1, n):
            f = A[j][k] / A[k][k]
            if f:
                A[j] = [a - f * b for a, b in zip(A[j], A[k])]
                basis[j] = [a - f * b for a, b in zip(basis[j], basis[k])]
        for j in range(k + 1, n):
            A[k][j] = A[j][k] = Fraction(0) if j != k else A[k][k]
    return None


# --------------------------------------------------------------------------- linear programs

def lp_worst(st, pl, env, seqs, interp):
    """The worst sequences for the drawn scalars: maximise ``lhs − rhs`` subject to the hypotheses,
    all linear in the sequences' values (else None); the LP's answer rounded and moved toward a
    strictly feasible point until every hypothesis holds exactly."""
    if st.lhs is None or st.rhs is None or st.relation not in ("≤", "<"):
        return None
    L = max(len(getattr(env[n], "values", [])) for n in seqs)
    symbols = {n: [sympy.Symbol(f"{n}_{t}") for t in range(L)] for n in seqs}
    local = dict(env)
    for n in seqs:
        local[n] = Fun(lambda t, xs=symbols[n]: xs[int(t)] if int(t) < len(xs) else sympy.Integer(0), name=n)
    local["__nat_bound__"] = L
    flat = [s for n in seqs for s in symbols[n]]
    cons = []
    try:
        for h in st.hypotheses:
            if not any(node.kind == "ident" and node.value in seqs for node in h.node.walk()):
                continue
            cons.extend(_linear_constraints(h.node, local, interp))
        objective = sympy.expand(sympy.sympify(_sy(interp.eval(st.lhs, local))) -
                                 sympy.sympify(_sy(interp.eval(st.rhs, local))))
    except (EvaluationError, Undecided, NotFinite, Structural, ZeroDivisionError, TypeError, _NotLinear):
        return None
    try:
        c = _coefficients(objective, flat)
        rows = [_coefficients(e, flat) for e in cons]
    except _NotLinear:
        return None
    from scipy.optimize import linprog
    A_ub = np.array([[-float(x) for x in r[0]] for r in rows]) if rows else None
    b_ub = np.array([float(r[1]) for r in rows]) if rows else None
    res = linprog(-np.array([float(x) for x in c[0]]), A_ub=A_ub, b_ub=b_ub, bounds=[(-100, 100)] * len(flat),
                  method="highs")
    if res.status != 0:
        return None
    x_star = [Fraction(v).limit_denominator(10 ** 6) for v in res.x]
    # a strictly feasible point: maximise the smallest slack
    if rows:
        A2 = np.hstack([A_ub, np.ones((A_ub.shape[0], 1))])
        res2 = linprog(np.r_[np.zeros(len(flat)), -1.0], A_ub=A2, b_ub=b_ub,
                       bounds=[(-100, 100)] * len(flat) + [(None, 1.0)], method="highs")
        x_in = [Fraction(v).limit_denominator(10 ** 4) for v in res2.x[:-1]] if res2.status == 0 else None
    else:
        x_in = None
    for lam in (Fraction(1), Fraction(999, 1000), Fraction(9, 10), Fraction(1, 2)):
        if lam != 1 and x_in is None:
            break
        xs = x_star if lam == 1 else [xi + lam * (xs_ - xi) for xs_, xi in zip(x_star, x_in)]
        out = dict(env)
        k = 0
        for n in seqs:
            out[n] = fam.sequence(xs[k:k + L])
            k += L
        ok = True
        for h in st.hypotheses:
            try:
                if not decide_hypothesis(h, {**out, "__nat_bound__": L}, interp):
                    ok = False
                    break
            except Exception:
                ok = False
                break
        if ok:
            return out
    return None


class _NotLinear(Exception):
    pass


def _sy(v):
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    if isinstance(v, int):
        return sympy.Integer(v)
    return v


def _coefficients(expr, symbols):
    """(coefficients of ``symbols``, constant) of a linear expression; _NotLinear otherwise."""
    expr = sympy.expand(sympy.sympify(expr))
    index = {s: k for k, s in enumerate(symbols)}
    coefs = [sympy.Integer(0)] * len(symbols)
    const = sympy.Integer(0)
    for term, cf in expr.as_coefficients_dict().items():
        if term == 1:
            const += cf
        elif term in index:
            coefs[index[term]] += cf
        else:
            raise _NotLinear()
    return coefs, const


def _linear_constraints(node, env, interp) -> list:
    """Expressions ``e ≥ 0`` whose conjunction is the hypothesis ``node`` (quantifiers over finite
    ranges enumerated, guards decided), for the linear program."""
    if node.kind == "binop" and node.value == "∧":
        return _linear_constraints(node.args[0], env, interp) + _linear_constraints(node.args[1], env, interp)
    if node.kind == "forall":
        body, guards = _strip_foralls(node)
        binders = []
        n = node
        while n.kind == "forall" or (n.kind == "binop" and n.value == "→"):
            if n.kind == "forall":
                binders.extend(n.value)
                n = n.args[0]
            else:
                n = n.args[1]
        out = []
        bound = env.get("__nat_bound__")
        for b in binders:
            if not any(g.kind == "binop" and g.args[0].kind == "ident" and g.args[0].value == b.name for g in guards):
                guards = guards + [Node("binop", "<", [Node("ident", b.name, [], 0, 0, b.name),
                                                       Node("num", Fraction(bound), [], 0, 0, str(bound))], 0, 0, "")]
        for assignment in _enumerate(binders, guards, env, interp):
            local = {**env, **assignment}
            if all(interp.holds(g, local) for g in guards):
                out.extend(_linear_constraints(body, local, interp))
        return out
    if node.kind == "binop" and node.value == "→":
        if interp.holds(node.args[0], env):
            return _linear_constraints(node.args[1], env, interp)
        return []
    if node.kind == "binop" and node.value in ("≤", "<", "≥", ">"):
        a, b = interp.eval(node.args[0], env), interp.eval(node.args[1], env)
        if node.value in ("≥", ">"):
            a, b = b, a
        e = sympy.expand(sympy.sympify(_sy(b)) - sympy.sympify(_sy(a)))
        return [e]
    raise _NotLinear()
