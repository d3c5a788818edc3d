"""Vacuous statements: hypotheses that no instance can satisfy.

A theorem whose hypotheses contradict each other is true in Lean for that reason alone, and no
engine can test it (every instance fails a hypothesis). :func:`vacuity` proves such a
contradiction from the statement's text, exactly, in three cases:

* a comparison between closed terms (numerals and arithmetic on them, e.g. ``(3 : ℝ) < 2``) that
  is false;
* the bounds on one parameter are empty: every comparison of a parameter (``ηl``, ``(T : ℝ)``,
  ``P.β``) with a closed term gives an interval, intersected with the model's structural bounds
  (``Problem``: ``N ≥ 1``, ``P.β > 0``, ``P.σ ≥ 0``; ``Run``: ``S, K, T ≥ 1``; ``Convexity P μ``:
  ``0 ≤ μ``) and, for ℕ parameters, with the integers (e.g. ``0 < ηl`` and ``ηl ≤ 0``; ``T < 1``).
  A statement ``∀ A : Run …`` over runs that cannot exist is vacuous in the same way;
* the *linear* hypotheses together have no real solution: every comparison whose sides are
  affine with rational coefficients in the parameters and ``P.β``, ``P.σ`` (e.g. ``ηl < ηg`` and
  ``ηg < ηl``; ``ηl + ηg ≤ 1``, ``1 < ηl`` and ``0 ≤ ηg``), together with the structural bounds
  above, is refuted by Fourier–Motzkin elimination in exact rationals (strict and non-strict
  inequalities kept apart). ℕ parameters are relaxed to reals there, which can only miss a
  contradiction, never invent one.

The hypotheses read are the comparisons of a run statement and, of a run-free statement, its
propositions that are comparisons (``0 < a``, ``a < 0``).

Anything else (non-linear hypotheses such as ``effectiveStep K ηl ηg ≤ …``, ``≠``) is not used
for a proof; the report then says when no instance it drew satisfied the hypotheses, without
calling the statement vacuous.
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from ..evaluation.numbers import decide, to_exact
from .evaluate import Valuation, evaluate

__all__ = ["vacuity"]

#: Structural bounds of the model's objects: role or field -> (op, value) meaning ``x op value``.
_STRUCTURAL = {"N": [("≥", 1)], "S": [("≥", 1)], "K": [("≥", 1)], "T": [("≥", 1)],
               "P.β": [(">", 0)], "P.σ": [("≥", 0)]}

class _NoAccess:
    """Model access of a closed term: any model quantity means the term is not closed."""

    def __getattr__(self, name):
        raise LookupError(name)


def _closed(node):
    """The exact value of a closed term (no parameter, no model quantity), else None."""
    try:
        v = evaluate(node, Valuation("exact", {}, _NoAccess()))
    except Exception:   # a name without a value, a model quantity: not closed
        return None
    v = to_exact(v)
    return v if isinstance(v, (int, Fraction)) else None


def _variable(node, st):
    """(key, is_nat) when ``node`` is a parameter (possibly cast to ℝ) or ``P.β``/``P.σ``."""
    while node.kind in ("cast", "coe") and node.args:
        node = node.args[0]
    if node.kind != "ident":
        return None
    name = str(node.value)
    if name.endswith(".β") or name.endswith(".σ"):
        return ("P." + name.rsplit(".", 1)[1], False)
    p = st.parameter(name)
    if p is None or p.kind not in ("nat", "real"):
        return None
    return (name, p.kind == "nat")


def vacuity(st) -> str | None:
    """Why the hypotheses of ``st`` can never hold (one sentence), or None when no contradiction
    is proven (see the module docstring for what is detected)."""
    bounds: dict = {}
    nat: dict = {}
    for p in st.parameters:
        if p.kind == "nat":
            nat[p.name] = True
            bounds.setdefault(p.name, []).append(("≥", Fraction(0), "ℕ"))
        for op, v in _STRUCTURAL.get(p.role or "", []):
            bounds.setdefault(p.name, []).append((op, Fraction(v), f"the model's {p.name} {op} {v}"))
    for key in ("P.β", "P.σ"):
        for op, v in _STRUCTURAL[key]:
            bounds.setdefault(key, []).append((op, Fraction(v), f"the model's {key} {op} {v}"))
    for h in st.hypotheses:
        if h.kind == "convexity" and len(h.args) >= 2:      # Convexity P μ includes 0 ≤ μ
            v = _variable(h.args[1], st)
            if v is not None:
                bounds.setdefault(v[0], []).append(("≥", Fraction(0), f"`{h.text}` (0 ≤ {v[0]})"))
            continue
        cmp = _comparison(h)
        if cmp is None:
            continue
        a, op, b = cmp
        ca, cb = _closed(a), _closed(b)
        if ca is not None and cb is not None:
            if not decide(op, ca, cb):
                return f"the hypothesis `{h.text}` is false"
            continue
        va, vb = _variable(a, st), _variable(b, st)
        if va is not None and cb is not None:
            bounds.setdefault(va[0], []).append((op, Fraction(cb), f"`{h.text}`"))
            nat[va[0]] = nat.get(va[0], False) or va[1]
        elif vb is not None and ca is not None:
            bounds.setdefault(vb[0], []).append((_rev(op), Fraction(ca), f"`{h.text}`"))
            nat[vb[0]] = nat.get(vb[0], False) or vb[1]
    for name, bs in bounds.items():
        why = _empty(bs, nat.get(name, False))
        if why:
            return f"no value of {name} satisfies {why}"
    return _linear_contradiction(st, bounds)


# --------------------------------------------------------------------------- Fourier–Motzkin

#: give up (no proof, no error) when elimination would hold more inequalities than this
_FM_LIMIT = 4000


class _SymbolicAccess:
    """Model access of the linear pass: ``P.β`` and ``P.σ`` are symbols, anything else is not
    a linear term of the parameters."""

    def __init__(self, beta, sigma):
        self.beta, self.sigma = beta, sigma

    def __getattr__(self, name):
        raise LookupError(name)


def _affine(expr, symbols):
    """``(coefficients {symbol: Fraction}, constant Fraction)`` of an affine sympy expression with
    rational coefficients, else None."""
    try:
        expr = sympy.expand(sympy.sympify(expr))
    except (TypeError, sympy.SympifyError):
        return None
    if not expr.free_symbols <= set(symbols):
        return None
    try:
        poly = sympy.Poly(expr, *symbols) if symbols else None
    except sympy.PolynomialError:
        return None
    if poly is None:
        return ({}, Fraction(str(expr))) if expr.is_Rational else None
    if poly.total_degree() > 1:
        return None
    coefs, const = {}, Fraction(0)
    for monom, c in poly.terms():
        if not c.is_Rational:
            return None
        c = Fraction(int(c.p), int(c.q))
        if sum(monom) == 0:
            const = c
        else:
            coefs[symbols[monom.index(1)]] = c
    return coefs, const


def _linear_contradiction(st, bounds) -> str | None:
    """A sentence when the affine hypotheses (with the structural ``bounds``) have no real
    solution, proven by Fourier–Motzkin elimination; None otherwise."""
    names = [p.name for p in st.parameters if p.kind in ("nat", "real")]
    sym = {n: sympy.Symbol(f"v{i}") for i, n in enumerate(names)}
    sym["P.β"], sym["P.σ"] = sympy.Symbol("vbeta"), sympy.Symbol("vsigma")
    symbols = list(sym.values())
    access = _SymbolicAccess(sym["P.β"], sym["P.σ"])
    env = {n: sym[n] for n in names}
    # rows: (coefficients, constant, strict, sources) meaning  Σ c·x + constant  (< or ≤)  0
    rows = []
    for name, bs in bounds.items():
        if name not in sym:
            continue
        x = sym[name]
        for op, v, src in bs:
            rows.extend(_rows({x: Fraction(1)}, -Fraction(v), op, src))
    linear_sources = set()
    for h in st.hypotheses:
        cmp = _comparison(h)
        if cmp is None or cmp[1] == "≠":
            continue
        try:
            a, b = (evaluate(side, Valuation("symbolic", env, access)) for side in (cmp[0], cmp[2]))
            form = _affine(sympy.sympify(a) - sympy.sympify(b), symbols)
        except Exception:   # not a term of the parameters alone (a run statistic, a vector, ...)
            continue
        if form is None:
            continue
        rows.extend(_rows(form[0], form[1], cmp[1], f"`{h.text}`"))
        linear_sources.add(f"`{h.text}`")
    if not linear_sources:       # the bounds alone: the per-parameter pass has decided them
        return None
    why = _eliminate(rows, symbols)
    if why is None:
        return None
    srcs = sorted(why, key=lambda t: (not t.startswith("`"), t))
    return (f"the linear hypotheses {', '.join(srcs[:-1])} and {srcs[-1]} have no common solution "
            "(Fourier–Motzkin elimination over the reals)")


def _rows(coefs, const, op, src):
    """``Σ coefs·x + const  op  0`` as rows of the form ``(coefs, const, strict, {src})`` with
    ``op`` in ``<``/``≤`` (``≥``, ``>`` negated; ``=`` as two rows)."""
    neg = ({k: -c for k, c in coefs.items()}, -const)
    if op in ("≤", "<"):
        return [(dict(coefs), const, op == "<", frozenset([src]))]
    if op in ("≥", ">"):
        return [(neg[0], neg[1], op == ">", frozenset([src]))]
    if op == "=":
        return [(dict(coefs), const, False, frozenset([src])), (neg[0], neg[1], False, frozenset([src]))]
    return []


def _eliminate(rows, symbols):
    """The sources of a contradiction among ``rows`` (Fourier–Motzkin, exact), or None when the
    system is feasible or too large to decide here."""
    rows = list(rows)
    for x in symbols:
        for coefs, const, strict, src in rows:
            if not coefs and (const > 0 or (const == 0 and strict)):
                return src
        pos = [r for r in rows if r[0].get(x, 0) > 0]
        neg = [r for r in rows if r[0].get(x, 0) < 0]
        if not pos and not neg:
            continue
        keep = [r for r in rows if r[0].get(x, 0) == 0]
        if len(keep) + len(pos) * len(neg) > _FM_LIMIT:
            return None
        for cp, kp, sp, srcp in pos:
            for cn, kn, sn, srcn in neg:
                a, b = cp[x], -cn[x]          # a > 0, b > 0: b·(row p) + a·(row n) eliminates x
                coefs = {}
                for k in set(cp) | set(cn):
                    c = b * cp.get(k, 0) + a * cn.get(k, 0)
                    if c != 0 and k is not x:
                        coefs[k] = c
                keep.append((coefs, b * kp + a * kn, sp or sn, srcp | srcn))
        rows = keep
    for coefs, const, strict, src in rows:
        if not coefs and (const > 0 or (const == 0 and strict)):
            return src
    return None


def _comparison(h):
    """``(a, op, b)`` with ``op`` in ≤ < = ≠ when the hypothesis ``h`` is a comparison ``a op b``
    (a run statement's ``compare`` hypothesis, or a run-free statement's proposition that is one;
    ``a > b`` read as ``b < a``), else None."""
    node = h.node
    if h.kind not in ("compare", "prop") or node is None or node.kind != "binop" or len(node.args) != 2:
        return None
    op = node.value if h.kind == "prop" else h.op
    a, b = node.args
    if op in (">", "≥"):
        return b, {">": "<", "≥": "≤"}[op], a
    if op in ("≤", "<", "=", "≠"):
        return a, op, b
    return None


def _rev(op: str) -> str:
    """``c op x`` as ``x op' c``."""
    return {"≤": "≥", "<": ">", "=": "=", "≠": "≠"}[op]


def _empty(bs, is_nat: bool) -> str | None:
    """The bounds' texts when ``x op v`` for every (op, v) of ``bs`` has no solution (x real, or
    an integer when ``is_nat``), else None."""
    lo, lo_strict, lo_src = None, False, None
    hi, hi_strict, hi_src = None, False, None
    eq, eq_src, ne = None, None, []
    for op, v, src in bs:
        if is_nat and op in (">", "<"):       # integers: x > v  <=>  x >= floor(v) + 1
            v = Fraction(math.floor(v) + 1) if op == ">" else Fraction(math.ceil(v) - 1)
            op = "≥" if op == ">" else "≤"
        if op in ("≥", ">"):
            strict = op == ">"
            if lo is None or v > lo or (v == lo and strict):
                lo, lo_strict, lo_src = v, strict, src
        elif op in ("≤", "<"):
            strict = op == "<"
            if hi is None or v < hi or (v == hi and strict):
                hi, hi_strict, hi_src = v, strict, src
        elif op == "=":
            if eq is not None and eq != v:
                return f"{eq_src} and {src}"
            eq, eq_src = v, src
        else:
            ne.append((v, src))
    if is_nat:
        if lo is not None:
            lo = Fraction(math.ceil(lo))
        if hi is not None:
            hi = Fraction(math.floor(hi))
    if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_strict or hi_strict))):
        return f"{lo_src} and {hi_src}"
    if eq is not None:
        if is_nat and eq.denominator != 1:
            return f"{eq_src} (a natural number)"
        if lo is not None and (eq < lo or (eq == lo and lo_strict)):
            return f"{lo_src} and {eq_src}"
        if hi is not None and (eq > hi or (eq == hi and hi_strict)):
            return f"{eq_src} and {hi_src}"
        for v, src in ne:
            if v == eq:
                return f"{eq_src} and {src}"
    if is_nat and lo is not None and hi is not None and lo == hi and any(v == lo for v, _ in ne):
        return f"{lo_src}, {hi_src} and {next(s for v, s in ne if v == lo)}"
    return None
