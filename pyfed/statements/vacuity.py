"""Vacuous statements: hypotheses that no instance can satisfy.

A theorem whose hypotheses contradict each other is true in Lean for that reason alone, and no
engine can test it (every instance fails a hypothesis). :func:`vacuity` proves such a
contradiction from the statement's text, exactly, in two cases:

* a comparison between closed terms (numerals and arithmetic on them, e.g. ``(3 : ℝ) < 2``) that
  is false;
* the bounds on one parameter are empty: every comparison of a parameter (``ηl``, ``(T : ℝ)``,
  ``P.β``) with a closed term gives an interval, intersected with the model's structural bounds
  (``Problem``: ``N ≥ 1``, ``P.β > 0``, ``P.σ ≥ 0``; ``Run``: ``S, K, T ≥ 1``; ``Convexity P μ``:
  ``0 ≤ μ``) and, for ℕ parameters, with the integers (e.g. ``0 < ηl`` and ``ηl ≤ 0``; ``T < 1``).
  A statement ``∀ A : Run …`` over runs that cannot exist is vacuous in the same way.

Anything else (contradictions between several parameters) is not detected here; the report then
says when no instance it drew satisfied the hypotheses, without calling the statement vacuous.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .evaluate import Valuation, decide, evaluate

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
    from .evaluate import to_exact
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
        if h.kind != "compare" or h.node is None or len(h.node.args) != 2:
            continue
        a, b = h.node.args
        ca, cb = _closed(a), _closed(b)
        if ca is not None and cb is not None:
            if not decide(h.op, ca, cb):
                return f"the hypothesis `{h.text}` is false"
            continue
        va, vb = _variable(a, st), _variable(b, st)
        if va is not None and cb is not None:
            bounds.setdefault(va[0], []).append((h.op, Fraction(cb), f"`{h.text}`"))
            nat[va[0]] = nat.get(va[0], False) or va[1]
        elif vb is not None and ca is not None:
            bounds.setdefault(vb[0], []).append((_rev(h.op), Fraction(ca), f"`{h.text}`"))
            nat[vb[0]] = nat.get(vb[0], False) or vb[1]
    for name, bs in bounds.items():
        why = _empty(bs, nat.get(name, False))
        if why:
            return f"no value of {name} satisfies {why}"
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
