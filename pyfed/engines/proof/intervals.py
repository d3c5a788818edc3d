"""Certified interval subdivision (python-flint balls) over a bounded box of the parameters: the
second decision procedure of :mod:`pyfed.engines.proof.scalar`, for claims whose polynomial
certificate the linear program does not find.

To prove ``t > 0`` (``t ≥ 0``) on the region where the facts ``p_i ≥ 0`` hold, inside a box
``lo ≤ x ≤ hi`` read from the facts themselves (each variable bounded above and below by facts in
it alone), the box is split in halves along its widest side until, on every piece, either a fact is
certainly negative there (ball arithmetic: the piece is outside the region) or the target is
certainly positive (nonnegative) there. Every evaluation is a ball that contains the exact value
(arb arithmetic with outward rounding), so the cover is a proof; :meth:`BoxCover.verify`
re-evaluates every piece. A refutation is the same cover with every piece outside the region.
A claim that is tight at a point (the target 0 inside the region) cannot be proven this way: the
pieces around it never decide, and the procedure gives up after :data:`MAX_PIECES` pieces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy

__all__ = ["BoxCover", "box_of", "prove_on_box", "MAX_PIECES"]

#: give up after deciding this many pieces
MAX_PIECES = 4000


def _arb(q: Fraction):
    from flint import arb, fmpq
    return arb(fmpq(q.numerator, q.denominator))


def _eval(expr, env):
    """A ball containing the value of a polynomial sympy expression on the balls ``env``."""
    from flint import arb, fmpq
    if expr.is_Symbol:
        return env[expr]
    if expr.is_Rational:
        return arb(fmpq(int(expr.p), int(expr.q)))
    if expr.is_Add:
        out = arb(0)
        for a in expr.args:
            out += _eval(a, env)
        return out
    if expr.is_Mul:
        out = arb(1)
        for a in expr.args:
            out *= _eval(a, env)
        return out
    if expr.is_Pow and expr.args[1].is_Integer and expr.args[1] >= 0:
        base, n = _eval(expr.args[0], env), int(expr.args[1])
        if n % 2 == 0 and base.contains(0):   # an even power of a ball around 0 is ≥ 0
            hi = max(abs(base.lower()), abs(base.upper())) ** n
            return arb(0).union(hi)
        return base ** n
    raise ValueError(f"not a polynomial: {expr}")


def box_of(facts, symbols) -> dict | None:
    """``{symbol: (lo, hi)}`` read from the facts that bound one variable each (``a x + b ≥ 0``),
    or None when a symbol is not bounded on both sides."""
    lo, hi = {}, {}
    for f in facts:
        e = sympy.expand(sympy.sympify(f.expr))
        syms = e.free_symbols
        if len(syms) != 1:
            continue
        (s,) = syms
        p = sympy.Poly(e, s)
        if p.degree() != 1:
            continue
        a, b = (Fraction(int(c.p), int(c.q)) for c in p.all_coeffs())
        root = -b / a
        if a > 0:
            lo[s] = max(lo.get(s, root), root)
        else:
            hi[s] = min(hi.get(s, root), root)
    if any(s not in lo or s not in hi or lo[s] > hi[s] for s in symbols):
        return None
    return {s: (lo[s], hi[s]) for s in symbols}


@dataclass
class BoxCover:
    """A cover of the box by pieces, each decided: ``pieces`` = ``[(box, how)]`` with ``how`` the
    index of a fact certainly negative on the piece, or ``"target"`` (the target certainly
    positive / nonnegative on it)."""

    target: object
    strict: bool
    facts: list
    box: dict
    pieces: list = field(default_factory=list)
    #: display names of the symbols ({Symbol: Symbol})
    names: dict = field(default_factory=dict)

    def used_facts(self) -> list:
        """Indices of the facts the cover uses: those bounding the box and those that put a piece
        outside the region."""
        used = {how for _, how in self.pieces if how != "target"}
        for i, f in enumerate(self.facts):
            if f is not None and box_of([f], list(sympy.sympify(f.expr).free_symbols)) is None and \
                    len(sympy.sympify(f.expr).free_symbols) == 1:
                used.add(i)
        return sorted(used)

    def verify(self) -> bool:
        """Every piece re-evaluated in ball arithmetic, and the pieces tile the box (their volumes
        add up to the box's, each piece inside it)."""
        vol = Fraction(0)
        for piece, how in self.pieces:
            env = {s: _arb(a).union(_arb(b)) for s, (a, b) in piece.items()}
            if how == "target":
                v = _eval(self.target, env)
                if not (v > 0 if self.strict else v >= 0):
                    return False
            else:
                v = _eval(self.facts[how].expr, env)
                if not (v < 0 if not self.facts[how].strict else v <= 0):
                    return False
            part = Fraction(1)
            for s, (a, b) in piece.items():
                lo, hi = self.box[s]
                if a < lo or b > hi:
                    return False
                part *= (b - a) if hi > lo else Fraction(1)
            vol += part
        whole = Fraction(1)
        for lo, hi in self.box.values():
            whole *= (hi - lo) if hi > lo else Fraction(1)
        return vol == whole

    def lean_hints(self) -> list:
        """No ``nlinarith`` hint: a cover is checked by evaluation (``interval_cases``-style), not by
        a linear combination."""
        return []

    def to_json(self) -> dict:
        return {"cover": self.text(), "pieces": len(self.pieces), "strict": self.strict}

    def text(self) -> str:
        out = sum(1 for _, how in self.pieces if how != "target")
        show = {s: self.names.get(s, s) for s in self.box}
        return (f"interval subdivision of {', '.join(f'{show[s]} ∈ [{a}, {b}]' for s, (a, b) in self.box.items())} into "
                f"{len(self.pieces)} pieces ({out} outside the hypotheses), certified in ball arithmetic")


def prove_on_box(target, facts, *, strict: bool = False, refute: bool = False) -> BoxCover | None:
    """A verified :class:`BoxCover` of ``target > 0`` (``≥ 0``) on the region of ``facts``
    (``refute``: every piece outside the region), or None."""
    target = sympy.expand(sympy.sympify(target))
    polys = []
    for f in facts:
        try:
            sympy.Poly(sympy.expand(f.expr), *sorted(sympy.sympify(f.expr).free_symbols, key=str))
            polys.append(f)
        except (sympy.PolynomialError, sympy.GeneratorsNeeded):
            polys.append(None)
    symbols = sorted(set(target.free_symbols).union(*[sympy.sympify(f.expr).free_symbols for f in facts if f]),
                     key=str)
    if not symbols:
        return None         # nothing to subdivide (a closed claim is decided by its evaluation)
    box = box_of([f for f in facts if f is not None], symbols)
    if box is None:
        return None
    cover = BoxCover(target, strict, list(facts), box)
    stack = [dict(box)]
    while stack:
        if len(cover.pieces) + len(stack) > MAX_PIECES:
            return None
        piece = stack.pop()
        env = {s: _arb(a).union(_arb(b)) for s, (a, b) in piece.items()}
        decided = None
        for i, f in enumerate(facts):
            if f is None or polys[i] is None:
                continue
            try:
                v = _eval(sympy.expand(f.expr), env)
            except ValueError:
                continue
            if (v <= 0 if f.strict else v < 0):
                decided = i
                break
        if decided is None and not refute:
            v = _eval(target, env)
            if (v > 0 if strict else v >= 0):
                decided = "target"
        if decided is not None:
            cover.pieces.append((piece, decided))
            continue
        s = max(piece, key=lambda k: piece[k][1] - piece[k][0])
        a, b = piece[s]
        if b - a < Fraction(1, 2 ** 40):
            return None
        m = (a + b) / 2
        stack += [{**piece, s: (a, m)}, {**piece, s: (m, b)}]
    return cover if cover.verify() else None
