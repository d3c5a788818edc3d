"""The numeric constants of a statement that the constant profile varies (:func:`literals`): the
model's constants inside the right side (``convexRHS``: 9, 12; ``nonconvexRHS``: 14, 70), the
file's numerals of the right side and of each step-size hypothesis; and each constant's data on
one decided instance (:meth:`Literal.instance_data`: the value at which that instance's
inequality, or hypothesis, changes side)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction

import sympy

from ...evaluation.numbers import Undecided, decide_sign, to_exact
from ...statements import model
from ...statements.evaluate import evaluate

__all__ = ["Literal", "literals", "safe_set", "skipped_numerals"]


@dataclass
class Literal:
    """A numeric constant the profile varies.

    key : stable name (``"convexRHS.noise=12"``, ``"step_size:81@12:33"``); value : its value;
    where : ``"rhs"`` (model constant or literal of the right side) or ``"hypothesis"``;
    description; location (``file:line:col`` for literals of the file); ``node`` (the literal's
    syntax node) or ``model`` (``(definition, key)`` of a model constant); ``hyp`` (the
    hypothesis key).
    """

    key: str
    value: Fraction
    where: str
    description: str
    location: str = ""
    node: object = None
    model: tuple | None = None
    hyp: str | None = None

    def _with(self, val, c):
        if self.model is not None:
            val.constants[self.model] = c
        else:
            val.literal_overrides[id(self.node)] = c

    def _reset(self, val):
        if self.model is not None:
            val.constants.pop(self.model, None)
        else:
            val.literal_overrides.pop(id(self.node), None)

    def instance_data(self, st, inst, val, lhs, rhs, holds) -> dict:
        """Per-instance data: for a right-side constant the threshold t with rhs(c) = lhs
        (violated for c on the unsafe side of t); for a hypothesis constant the boundary b of
        the hypothesis in c (admitted on one side) and whether the inequality holds."""
        c = sympy.Symbol("c")
        strict = st.relation == "<"
        if self.where == "rhs":
            self._with(val, Fraction(0))
            r0 = to_exact(evaluate(st.rhs, val))
            self._with(val, Fraction(1))
            r1 = to_exact(evaluate(st.rhs, val))
            self._reset(val)
            slope = r1 - r0
            L = to_exact(lhs)
            if isinstance(r0, Fraction) and isinstance(r1, Fraction) and isinstance(L, Fraction) and \
                    r0 + self.value * slope == to_exact(rhs):
                # linear in the constant: one root, the safe side given by the slope's sign
                if slope == 0:
                    ok = r0 > L if strict else r0 >= L
                    return {"safe": [(None, False, None, False)] if ok else [], "slope": "0"}
                t = (L - r0) / slope
                piece = (t, not strict, None, False) if slope > 0 else (None, False, t, not strict)
                return {"safe": [piece]}
            self._with(val, c)
            expr = sympy.sympify(evaluate(st.rhs, val)) - sympy.sympify(lhs)
            self._reset(val)
            return {"safe": safe_set(expr, c, strict)}
        h = st.hypothesis(self.hyp)
        self._with(val, c)
        try:
            g = sympy.sympify(evaluate(h.node.args[1], val)) - sympy.sympify(evaluate(h.node.args[0], val))
        finally:
            self._reset(val)
        out = _solve_side(g, c, self.value, "hyp")
        out["holds"] = holds
        return out


def _solve_side(expr, c, current, kind) -> dict:
    """Root of ``expr(c) = 0`` nearest to the current value and the side where ``expr >= 0``."""
    expr = sympy.together(sympy.sympify(expr))
    if not expr.has(c):
        return {"constant": bool(decide_sign(expr) >= 0)}
    try:
        roots = [r for r in sympy.solve(sympy.Eq(expr, 0), c) if r.is_real]
    except (NotImplementedError, TypeError, ValueError) as exc:   # e.g. min/max of the constant: no closed form
        raise Undecided(f"no closed-form threshold for the constant in {_compact_expr(expr, c)}") from exc
    roots = [r for r in roots if decide_sign(r) > 0] or roots
    if not roots:
        v = expr.subs(c, sympy.Rational(current.numerator, current.denominator))
        return {"constant": bool(decide_sign(v) >= 0)}
    r = roots[0]
    probe = r + (abs(r) if decide_sign(r) != 0 else sympy.Integer(1))      # a point above r (r may be < 0)
    up = decide_sign(sympy.simplify(expr.subs(c, probe)))
    return {"threshold": to_exact(r), "positive_above": up > 0}


def _lt(a, b) -> bool:
    """a < b for exact numbers, None meaning -inf on the left and +inf on the right is handled
    by the callers."""
    return decide_sign(sympy.sympify(b) - sympy.sympify(a)) > 0 if not (isinstance(a, Fraction) and
                                                                       isinstance(b, Fraction)) else a < b


def safe_set(expr, c, strict: bool = False) -> list:
    """The values of ``c`` where ``expr(c) >= 0`` (``> 0`` when ``strict``), exactly: a list of
    intervals ``(lo, lo_closed, hi, hi_closed)`` (``None``: unbounded), from the real roots of the
    numerator and the poles of the denominator of ``expr`` and the sign of ``expr`` between them
    (decided exactly at a point of each gap). Raises :class:`Undecided` when the roots have no
    closed form (a ``min`` or ``max`` of the constant)."""
    expr = sympy.together(sympy.sympify(expr))
    if not expr.has(c):
        s = decide_sign(expr)
        return [(None, False, None, False)] if (s > 0 or (s == 0 and not strict)) else []
    num, den = sympy.fraction(expr)
    try:
        roots = [r for r in sympy.solve(sympy.Eq(num, 0), c) if r.is_real]
        poles = [r for r in sympy.solve(sympy.Eq(den, 0), c) if r.is_real] if den.has(c) else []
    except (NotImplementedError, TypeError, ValueError) as exc:   # e.g. min/max of the constant: no closed form
        raise Undecided(f"no closed-form threshold for the constant in {_compact_expr(expr, c)}") from exc
    crit = []
    for r in roots + poles:
        r = to_exact(r)
        if not any(decide_sign(sympy.sympify(r) - sympy.sympify(x)) == 0 for x, _ in crit):
            crit.append((r, any(decide_sign(sympy.sympify(r) - sympy.sympify(p)) == 0 for p in poles)))
    crit.sort(key=functools.cmp_to_key(lambda a, b: -1 if _lt(a[0], b[0]) else (1 if _lt(b[0], a[0]) else 0)))

    def sign_at(x):
        return decide_sign(sympy.simplify(expr.subs(c, sympy.sympify(x))))

    def gap_point(lo, hi):
        if lo is None and hi is None:
            return Fraction(0)
        if lo is None:
            return sympy.floor(sympy.sympify(hi)) - 1
        if hi is None:
            return sympy.ceiling(sympy.sympify(lo)) + 1
        return (sympy.sympify(lo) + sympy.sympify(hi)) / 2

    pieces = []        # (lo, lo_closed, hi, hi_closed, safe)
    bounds = [None] + [x for x, _ in crit] + [None]
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        s = sign_at(gap_point(lo, hi))
        pieces.append([lo, False, hi, False, s > 0 or (s == 0 and not strict)])
        if k < len(crit):
            x, is_pole = crit[k]
            ok = False if is_pole else (not strict)
            pieces.append([x, True, x, True, ok])
    out = []
    for lo, lc, hi, hc, ok in pieces:
        if not ok:
            continue
        if out and out[-1][2] is not None and lo is not None and (out[-1][3] or lc) and \
                decide_sign(sympy.sympify(out[-1][2]) - sympy.sympify(lo)) == 0:
            out[-1] = (out[-1][0], out[-1][1], hi, hc)
        else:
            out.append((lo, lc, hi, hc))
    return out


def _compact_expr(expr, c, limit: int = 80) -> str:
    """Short text of an expression in the constant ``c`` for a message: ``~`` its form with every
    number rounded to 6 significant digits when that fits in ``limit`` characters, else the
    functions it applies (``an expression in c with Max, Min, sqrt``); never a number cut off."""
    try:
        text = "~" + re.sub(r"(?<![\d.e])1\.0\*", "", sympy.sstr(expr.evalf(6)).replace(" ", ""))
    except Exception:   # display only
        text = ""
    if text and len(text) <= limit:
        return text
    funcs = sorted({type(f).__name__ for f in sympy.preorder_traversal(expr)
                    if f.args and not isinstance(f, (sympy.Add, sympy.Mul, sympy.Pow))} |
                   ({"sqrt"} if any(p.exp == sympy.Rational(1, 2) for p in expr.atoms(sympy.Pow)) else set()))
    return f"an expression in {c} with {', '.join(funcs)}" if funcs else f"an expression in {c}"


def literals(st) -> list:
    """The constants the profile varies: the model's constants inside the right side
    (``convexRHS``: 9, 12; ``nonconvexRHS``: 14, 70), the file's numerals of the right side
    (other than 0, 1, exponents and natural-number ones), and the numerals of each step-size
    hypothesis (other than 0, 1 and exponents)."""
    out = []
    seen_models = set()

    def walk_rhs(node, seen_defs):
        for n in node.walk():
            if n.kind == "app" and n.head_name() in ("convexRHS", "nonconvexRHS", "initialPotential"):
                for (defn, key), (value, what, _kw) in model.MODEL_CONSTANTS.items():
                    if defn == n.head_name() and (defn, key) not in seen_models:
                        if defn == "initialPotential" and ("convexRHS", "potential") in seen_models:
                            continue
                        seen_models.add((defn, key))
                        out.append(Literal(f"{defn}.{key}={value}", Fraction(value), "rhs",
                                           f"{value} in {defn}: {what}", model=(defn, key)))
            if n.kind == "app" and n.head_name() in st.definitions and n.head_name() not in seen_defs:
                d = st.definitions[n.head_name()]
                seen_defs.add(d.name)
                walk_rhs(d.body, seen_defs)
        for n in _numerals(node):
            out.append(Literal(f"rhs:{n.text}@{n.line}:{n.col}", Fraction(n.value_fraction), "rhs",
                               f"the numeral {n.text} of the right side", f"{st.location.path}:{n.line}:{n.col}",
                               node=n))

    walk_rhs(st.rhs, set())
    for h in st.hypotheses:
        if not h.step:
            continue
        for n in _numerals(h.node):
            out.append(Literal(f"{h.key}:{n.text}@{n.line}:{n.col}", Fraction(n.value_fraction), "hypothesis",
                               f"the numeral {n.text} of the hypothesis `{h.text}`",
                               f"{st.location.path}:{n.line}:{n.col}", node=n, hyp=h.key))
    return out


def _factor_of_product(node, parent_of) -> bool:
    """The numeral ``node`` is an operand of ``*`` (``1 * x``, ``x * 1``): a coefficient the user wrote."""
    p = parent_of.get(id(node))
    return p is not None and p.kind == "binop" and p.value == "*"


def _parents(root) -> dict:
    out = {}
    for n in root.walk():
        for a in n.args:
            if hasattr(a, "kind"):
                out[id(a)] = n
    return out


def _numerals(node, skipped=None):
    """Real-typed numerals (real exponents included, natural-number exponents not); a quotient of two numerals
    (``1 / 2``) is one constant. 0, and 1 anywhere but as a factor of a product (the identities
    of + and ×, e.g. the 1 of ``1 + S / ηg ^ 2``), are left out and listed in ``skipped`` with
    the reason; a 1 written as a coefficient (``1 * x``) is profiled."""
    skip = set()
    parent_of = _parents(node)
    for n in node.walk():
        if n.kind == "binop" and n.value == "^":      # a natural-number exponent is not a real constant
            skip |= {id(x) for x in n.args[1].walk()}
    for n in node.walk():
        if id(n) in skip or n.ty != "real":
            continue
        if n.kind == "binop" and n.value == "/" and all(a.kind == "num" for a in n.args):
            skip |= {id(a) for a in n.args}
            v = n.args[0].value / n.args[1].value if n.args[1].value else None
            if v is not None and (v not in (0, 1) or (v == 1 and _factor_of_product(n, parent_of))):
                n.value_fraction = v
                yield n
            elif v is not None and skipped is not None:
                skipped.append((n, _why_skipped(v, n, parent_of)))
        elif n.kind == "num":
            if n.value not in (0, 1) or (n.value == 1 and _factor_of_product(n, parent_of)):
                n.value_fraction = n.value
                yield n
            elif skipped is not None:
                skipped.append((n, _why_skipped(n.value, n, parent_of)))


def _why_skipped(v, node=None, parent_of=None) -> str:
    """Why the numeral ``node`` (value ``v``: 0 or 1) is not profiled, said of its place in the
    term: the numerator of a reciprocal, a summand, or another 1 outside a product."""
    if v == 0:
        return "0 (the identity of +: scaling it changes nothing)"
    p = (parent_of or {}).get(id(node)) if node is not None else None
    if p is not None and p.kind == "binop" and p.value == "/" and p.args[0] is node:
        return (f"1, the numerator of the reciprocal `{p.text}` (scaling it is scaling the denominator's "
                "constants, which are profiled)")
    if p is not None and p.kind == "binop" and p.value in ("+", "-"):
        return f"1, a summand of `{p.text}` (a structural 1, not a coefficient: scaling it is not a change of constant)"
    return "1 outside a product (the identity of ×: scaling it is not a change of constant)"


def skipped_numerals(st) -> list:
    """``[{"numeral", "location", "why"}]``: the numerals of the right side and the step hypotheses
    that the profile leaves out, with the reason."""
    found: list = []
    for _ in _numerals(st.rhs, found):
        pass
    for h in st.hypotheses:
        if h.step:
            for _ in _numerals(h.node, found):
                pass
    return [{"numeral": n.text, "location": f"{st.location.path}:{n.line}:{n.col}", "why": why} for n, why in found]