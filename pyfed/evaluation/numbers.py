"""Lean's arithmetic on numbers of every arithmetic pyfed computes in, and its exact decisions.

A number is one of

* ``rational`` -- ``int`` (ℕ), :class:`fractions.Fraction` (also sympy ``Rational``, flint
  ``fmpq``);
* ``irrational`` -- an exact sympy number that is not rational (``sqrt(2)``, ``2**(1/3)``,
  ``log(3)``);
* ``float`` -- ``mpmath.mpf`` or a Python float (taken at its exact binary value when decided);
* ``ball`` -- a python-flint ``arb`` ball (certified: it contains the true value);
* ``symbolic`` -- a sympy expression with free symbols (statistics of a run, a drift check's
  parameters).

Values of different arithmetics meet through :func:`unify`: the weaker arithmetic wins
(rational < irrational < float < ball; symbolic stays symbolic), never a silent float. Lean's
semantics are kept by :func:`lean_div` (``x / 0 = 0``), :func:`nat_arith` (truncated
subtraction, floor division, ``n % 0 = n``), :func:`lean_sqrt` (``Real.sqrt`` of a negative
number is 0), :func:`lean_rpow` (``Real.rpow`` with ``0 ^ y = 0`` for ``y ≠ 0``),
:func:`lean_log` (Mathlib's ``Real.log`` is ``log |x|`` with ``log 0 = 0``), :func:`lean_minmax`.
The ``mode`` argument of :func:`lift`, :func:`lean_sqrt` and :func:`lean_rpow` is the
arithmetic of the evaluation (``"exact"``, ``"ball"``, ``"float"``, ``"symbolic"``): the
arithmetic a literal enters in, and the one an irrational result is given in.

:func:`compare` and :func:`decide_sign` decide signs exactly (Fractions; certified balls with
escalating precision for irrational values, an exact sympy test when two sides are equal) and
raise :class:`Undecided` when no certified answer exists (a ball containing 0).
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt

import mpmath
import numpy as np
import sympy

from ..errors import InputError
from ..exact import _sympy_to_arb, fraction_of, precision, to_arb, to_fraction, to_mpf

__all__ = ["EvaluationError", "Undecided", "MODES", "lift", "to_exact", "to_sympy", "kind_of", "unify", "arith",
           "NAT_OPS", "nat_arith", "lean_div", "lean_sqrt", "lean_rpow", "lean_minmax", "lean_abs", "lean_log",
           "lean_exp", "compare", "decide_sign", "decide", "is_zero"]

#: The arithmetics of an evaluation (see the module docstring).
MODES = ("exact", "ball", "float", "symbolic")


class EvaluationError(InputError):
    """A term cannot be evaluated on an instance (e.g. ``Real.rpow`` of a negative base, a
    statistic at a round the run does not have); ``node`` locates it (None: no position)."""

    def __init__(self, node, reason: str):
        self.node = node
        where = f"{node.line}:{node.col} `{node.text[:50]}`: " if node is not None else ""
        super().__init__("statement", where + reason)


class Undecided(Exception):
    """A comparison whose sign could not be certified (ball containing 0 at the highest precision)."""


def lift(v, mode: str):
    """The exact rational ``v`` (int, Fraction) as a number of the arithmetic ``mode``: a ball,
    a sympy Rational (``symbolic``), a Fraction otherwise (ints become Fractions)."""
    if mode == "ball":
        return to_arb(v)
    if mode == "symbolic":
        f = to_fraction(v)
        return sympy.Rational(f.numerator, f.denominator) if f is not None else sympy.sympify(v)
    return Fraction(v) if isinstance(v, int) else v


def to_exact(x):
    """sympy rational -> Fraction; other values unchanged."""
    if isinstance(x, sympy.Basic) and x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    return x


def to_sympy(x):
    """An exact or float number as sympy (floats and mpf at their exact binary value); sympy values
    and anything else unchanged."""
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    if isinstance(x, int):
        return sympy.Integer(x)
    if isinstance(x, (float, mpmath.mpf)):
        f = fraction_of(x)
        return sympy.Rational(f.numerator, f.denominator)
    return x


def _is_ball(x) -> bool:
    from flint import arb
    return isinstance(x, arb)


def is_zero(x) -> bool:
    """True iff x is certainly 0 (exact zero, or a ball that is exactly 0)."""
    if _is_ball(x):
        return x.is_exact() and x == 0
    if isinstance(x, sympy.Basic):
        return x.is_zero is True
    return x == 0


def _maybe_zero(x) -> bool:
    if _is_ball(x):
        return x.contains(0)
    return is_zero(x)


#: Exact types :func:`kind_of` calls "rational" at once (subclasses such as bool take the long way).
_PLAIN_RATIONAL = frozenset({int, Fraction})
_RANK = {"rational": 0, "irrational": 1, "float": 2, "ball": 3, "symbolic": 4}


def kind_of(x) -> str:
    """The arithmetic a value belongs to: ``"symbolic"``, ``"ball"``, ``"float"``,
    ``"irrational"`` or ``"rational"`` (module docstring)."""
    if type(x) in _PLAIN_RATIONAL:   # the common case, without the tests below
        return "rational"
    if _is_ball(x):
        return "ball"
    if isinstance(x, sympy.Basic):
        if x.free_symbols:
            return "symbolic"
        if x.is_Rational:
            return "rational"
        if x.is_Float:
            return "float"
        return "irrational"
    if isinstance(x, (float, mpmath.mpf, np.floating)):
        return "float"
    return "rational"


def _to_kind(x, kind):
    """``x`` converted to ``kind`` (see :func:`kind_of`): exactly for rationals and exact sympy
    numbers, at the exact binary value for floats, as an enclosing ball for ``"ball"``."""
    if kind == "ball":
        return to_arb(x)
    if kind == "float":
        if isinstance(x, mpmath.mpf):
            return x
        return to_mpf(x)
    if kind in ("irrational", "symbolic"):
        return to_sympy(to_exact(x)) if not isinstance(x, sympy.Basic) else x
    return to_exact(x)


def unify(*xs):
    """The values ``xs`` in one arithmetic, the weakest of theirs (rational < exact irrational <
    mpmath float < certified ball; sympy expressions with symbols stay symbolic): Fractions never
    meet mpf or arb values directly (Python raises TypeError there, and sympy would silently turn a
    ball into an uncertified Float)."""
    if all(type(x) in _PLAIN_RATIONAL for x in xs):   # ints and Fractions: unchanged
        return list(xs)
    kinds = [kind_of(x) for x in xs]
    top = max(kinds, key=_RANK.__getitem__)
    if top == "rational":       # int, Fraction, sympy Rational, flint fmpq/fmpz: ints stay ints
        return [x if isinstance(x, (int, Fraction)) else to_fraction(x) for x in xs]
    return [x if k == top else _to_kind(x, top) for x, k in zip(xs, kinds)]


def arith(op: str, a, b):
    """``a op b`` for op in ``+ - *`` after :func:`unify` (division: :func:`lean_div`)."""
    a, b = unify(a, b)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    return a * b


#: The operators of :func:`nat_arith`.
NAT_OPS = ("+", "-", "*", "/", "%")


def nat_arith(op: str, a: int, b: int) -> int:
    """``a op b`` as Lean computes it on ℕ: truncated subtraction (``2 - 3 = 0``), floor division
    and modulo with ``a / 0 = 0`` and ``a % 0 = a``. ``op`` is one of :data:`NAT_OPS`."""
    if op == "+":
        return a + b
    if op == "-":
        return max(a - b, 0)
    if op == "*":
        return a * b
    if op == "/":
        return a // b if b else 0
    return a % b if b else a


def lean_div(a, b, node=None):
    """``a / b`` with Lean's ``x / 0 = 0``; :class:`Undecided` when ``b`` is a ball containing 0."""
    a, b = unify(a, b)
    if is_zero(b):
        return b * 0          # Lean: x / 0 = 0
    if _maybe_zero(b):
        where = f" at {node.line}:{node.col}" if node is not None else ""
        raise Undecided(f"division by a ball containing 0{where}")
    return a / b


def _exact_sqrt(f: Fraction):
    """sqrt of a rational >= 0 as a Fraction when it is one (perfect squares), else None."""
    p, q = f.numerator, f.denominator
    rp, rq = isqrt(p), isqrt(q)
    return Fraction(rp, rq) if rp * rp == p and rq * rq == q else None


def lean_sqrt(x, mode: str = "exact", node=None):
    """Real.sqrt x (Lean: 0 for x <= 0). A rational perfect square gives an exact rational in
    every arithmetic but balls; a ball (or ``mode`` ``"ball"``) gives the certified ball of
    sqrt(max(x, 0)) (never undecided); floats give mpmath (also a non-square rational in
    ``"float"`` mode); exact irrational inputs stay exact (sympy)."""
    k = kind_of(x)
    if mode == "ball" or k == "ball":
        b = to_arb(x)
        if b < 0:
            return b * 0
        return b.nonnegative_part().sqrt()
    if k == "rational":
        f = to_exact(x)
        f = Fraction(f) if isinstance(f, int) else f
        if f <= 0:
            return Fraction(0)
        r = _exact_sqrt(f)
        if r is not None:
            return r
        if mode == "float":
            return mpmath.sqrt(to_mpf(f))
        return sympy.sqrt(to_sympy(f))
    if k == "float":
        xf = to_mpf(x)
        return mpmath.sqrt(xf) if xf > 0 else mpmath.mpf(0)
    sx = sympy.sympify(to_sympy(x))
    if sx.is_number and sx.is_negative:
        return lift(0, mode)
    if mode == "float" and k == "irrational":
        xf = to_mpf(sx)
        return mpmath.sqrt(xf) if xf > 0 else mpmath.mpf(0)
    return to_exact(sympy.sqrt(sx))


def lean_rpow(x, y, mode: str = "exact", node=None):
    """Real.rpow x y for x >= 0 (an integral y: the exact power, ``x ^ (-n) = 1 / x ^ n``);
    :class:`EvaluationError` for a negative base (Mathlib's value there is the real part of a
    complex power, not computed), :class:`Undecided` for a ball containing 0."""
    fy = to_fraction(y) if not isinstance(y, sympy.Basic) or y.is_Rational else None
    if fy is not None and fy.denominator == 1:
        n = int(fy)
        if n >= 0:
            return x ** n
        return lean_div(lift(1, mode), x ** (-n), node)
    if mode == "ball" or "ball" in (kind_of(x), kind_of(y)):
        x, y = to_arb(x), to_arb(y)
        if x < 0:
            raise EvaluationError(node, "Real.rpow of a negative base is not supported")
        if not (x > 0):
            if is_zero(x):
                return x * 0
            raise Undecided("Real.rpow of a ball containing 0")
        return x ** y
    if mode == "float" or "float" in (kind_of(x), kind_of(y)):
        if kind_of(x) == "symbolic" or kind_of(y) == "symbolic":
            raise EvaluationError(node, "Real.rpow of a symbolic value")
        xf, yf = to_mpf(x), to_mpf(y)
        if xf < 0:
            raise EvaluationError(node, "Real.rpow of a negative base is not supported")
        if xf == 0:
            return mpmath.mpf(0) if yf != 0 else mpmath.mpf(1)
        return mpmath.power(xf, yf)
    sx, sy = sympy.sympify(to_sympy(x)), sympy.sympify(to_sympy(y))
    if sx.is_number and sx.is_negative:
        raise EvaluationError(node, "Real.rpow of a negative base is not supported")
    if sx == 0:
        return lift(0, mode) if sy != 0 else lift(1, mode)
    return to_exact(sympy.Pow(sx, sy))


def lean_minmax(head: str, a, b, node=None):
    """Lean ``min a b`` / ``max a b`` for every mix of numbers: exact inputs give the chosen input
    itself (decided exactly, floats at their binary value); a ball among them gives the certified
    ball of the min/max (overlapping balls included); symbolic expressions give sympy's
    ``Min``/``Max``."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b) if head == "min" else max(a, b)
    kinds = (kind_of(a), kind_of(b))
    if "symbolic" in kinds:
        sa, sb = to_sympy(to_exact(a)), to_sympy(to_exact(b))
        if "ball" not in kinds:
            return sympy.Min(sa, sb) if head == "min" else sympy.Max(sa, sb)
        raise EvaluationError(node, f"`{head}` of a ball and a symbolic expression")
    if "ball" in kinds:
        ba, bb = to_arb(a), to_arb(b)
        if ba < bb or bb < ba:       # certified order: the chosen ball itself
            lower_first = ba < bb
            return (ba if lower_first else bb) if head == "min" else (bb if lower_first else ba)
        # overlapping balls: [min/max of the lower ends, min/max of the upper ends] (endpoints are exact)
        pick = (lambda x, y: x if x < y else y) if head == "min" else (lambda x, y: x if x > y else y)
        return pick(ba.lower(), bb.lower()).union(pick(ba.upper(), bb.upper()))
    d = compare(a, b)
    if head == "min":
        return a if d >= 0 else b
    return b if d >= 0 else a


def lean_abs(x):
    """``|x|``, the sign decided exactly (:class:`Undecided` for a ball containing 0)."""
    return x if compare(0, x) >= 0 else -x


def lean_log(x):
    """Mathlib's ``Real.log``: ``log |x|`` with ``log 0 = 0`` (``Real.log_zero``,
    ``Real.log_abs``), an exact sympy number."""
    s = compare(0, x)         # the sign of x - 0
    if s == 0:
        return 0
    return sympy.log(sympy.sympify(to_exact(x if s > 0 else -x)))


def lean_exp(x):
    """``Real.exp x`` as an exact sympy number."""
    return sympy.exp(sympy.sympify(to_exact(x)))


# --------------------------------------------------------------------------- decisions

def _exact_value(x):
    """An exact value of a non-ball number for comparisons: Fraction (floats and mpf at their
    exact binary value) or an exact sympy number; None for a symbolic expression."""
    k = kind_of(x)
    if k == "symbolic":
        return None
    if k == "irrational":
        return x
    return fraction_of(x)


def compare(a, b) -> int:
    """Sign of ``b - a`` decided exactly (balls: certified, Undecided if they overlap)."""
    if "ball" in (kind_of(a), kind_of(b)):
        return decide_sign(to_arb(b) - to_arb(a))
    ea, eb = _exact_value(a), _exact_value(b)
    if ea is None or eb is None:
        raise Undecided("comparison of symbolic expressions")
    if isinstance(ea, sympy.Basic) or isinstance(eb, sympy.Basic):
        return decide_sign(to_sympy(eb) - to_sympy(ea))
    return decide_sign(eb - ea)


_PRECISIONS = (64, 128, 256, 512, 1024, 2048, 4096)


def decide_sign(x) -> int:
    """Exact sign (-1, 0, +1) of a Fraction, int, certified arb ball, mpf/float (taken at its
    exact binary value) or exact sympy number. Raises :class:`Undecided` for a ball containing 0,
    for an irrational sympy number whose sign no precision up to 4096 bits certifies and for a
    sympy value no certified ball encloses."""
    if isinstance(x, (int, Fraction)):
        return (x > 0) - (x < 0)
    if isinstance(x, (float, mpmath.mpf)):
        f = fraction_of(x)
        return (f > 0) - (f < 0)
    if _is_ball(x):
        if x > 0:
            return 1
        if x < 0:
            return -1
        if x.is_exact() and x == 0:
            return 0
        raise Undecided(f"ball {x.str(10, radius=True)} contains 0")
    if isinstance(x, sympy.Basic):
        if x.is_Rational:
            return int(bool(x > 0)) - int(bool(x < 0))
        for bits in _PRECISIONS:
            with precision(bits):
                try:
                    b = _sympy_to_arb(x)
                except InputError as exc:      # a value no ball encloses (e.g. complex): not decidable here
                    raise Undecided(f"sign of {x} not decidable: {exc.reason}") from None
                if b > 0:
                    return 1
                if b < 0:
                    return -1
        if sympy.simplify(x) == 0 or x.equals(0):
            return 0
        raise Undecided(f"sign of {x} not certified at 4096 bits")
    raise TypeError(f"cannot decide the sign of {x!r}")


def decide(op: str, lhs, rhs) -> bool:
    """``lhs op rhs`` decided exactly (see :func:`decide_sign`); ``op`` in ``≤ < = ≠``."""
    s = compare(lhs, rhs) if not (isinstance(lhs, int) and isinstance(rhs, int)) else \
        ((rhs > lhs) - (rhs < lhs))
    return {"≤": s >= 0, "<": s > 0, "=": s == 0, "≠": s != 0}[op]
