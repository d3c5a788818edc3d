"""Deterministic numbers of the FedAvg engines in one arithmetic (:class:`Scalars`): exact
rationals with exact irrationals (sympy), certified balls (python-flint ``arb``) or mpmath floats,
with Lean's conventions (``x / 0 = 0``, ``Real.sqrt`` of a negative number is 0)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

from ...errors import InputError
from ...exact import to_arb, to_fraction, to_mpf
from ...statements.evaluate import Undecided, compare, decide_sign, to_exact, unify

__all__ = ["Scalars", "is_ball", "to_sympy"]


class Scalars:
    """Deterministic arithmetic of one mode: ``exact`` (Fraction; irrational values as exact
    sympy numbers), ``ball`` (python-flint arb at the current precision) or ``float`` (mpmath).
    Lean's conventions (module docstring) throughout."""

    def __init__(self, mode: str = "exact"):
        if mode not in ("exact", "ball", "float"):
            raise ValueError(mode)
        self.mode = mode

    def lift(self, v):
        """A number of any kind in this mode (ints stay ints for ℕ)."""
        if isinstance(v, int) and not isinstance(v, bool):
            return Fraction(v) if self.mode == "exact" else (to_arb(v) if self.mode == "ball" else mpmath.mpf(v))
        if self.mode == "exact":
            if isinstance(v, sympy.Basic):
                return to_exact(v)
            f = to_fraction(v)
            if f is None:
                raise InputError("instance", f"{v!r} is not exact: the exact engine needs rational data")
            return f
        if self.mode == "ball":
            return to_arb(v)
        return to_mpf(v)

    def add(self, a, b):
        a, b = unify(a, b)
        return a + b

    def sub(self, a, b):
        a, b = unify(a, b)
        return a - b

    def mul(self, a, b):
        a, b = unify(a, b)
        return a * b

    def is_zero(self, b) -> bool:
        try:
            return decide_sign(b) == 0
        except Undecided:
            raise Undecided("division by a ball containing 0") from None

    def div(self, a, b):
        a, b = unify(a, b)
        if self.is_zero(b):
            return b * 0                  # Lean: x / 0 = 0
        return a / b

    def neg(self, a):
        return -a

    def pow(self, a, n: int):
        return a ** int(n)

    def sqrt(self, a):
        if self.mode == "ball" or is_ball(a):
            b = to_arb(a)
            return b * 0 if b < 0 else b.nonnegative_part().sqrt()
        if self.mode == "float" or isinstance(a, (float, mpmath.mpf)):
            x = to_mpf(a)
            return mpmath.sqrt(x) if x > 0 else mpmath.mpf(0)
        e = to_exact(a)
        if isinstance(e, (int, Fraction)):
            f = Fraction(e)
            if f <= 0:
                return Fraction(0)
            return to_exact(sympy.sqrt(sympy.Rational(f.numerator, f.denominator)))
        if e.is_number and e.is_negative:
            return Fraction(0)
        return to_exact(sympy.sqrt(e))

    def rpow(self, a, y):
        fy = to_exact(y) if isinstance(y, sympy.Basic) else to_fraction(y)
        if isinstance(fy, Fraction) and fy.denominator == 1:
            n = int(fy)
            return a ** n if n >= 0 else self.div(self.lift(1), a ** (-n))
        if self.mode == "ball" or is_ball(a) or is_ball(y):
            x, yy = to_arb(a), to_arb(y)
            if x < 0:
                raise InputError("statement", "Real.rpow of a negative base is not supported")
            if not (x > 0):
                if x.is_exact() and x == 0:
                    return x * 0
                raise Undecided("Real.rpow of a ball containing 0")
            return x ** yy
        if self.mode == "float":
            x = to_mpf(a)
            return mpmath.power(x, to_mpf(y)) if x > 0 else mpmath.mpf(0)
        sx = sympy.sympify(to_sympy(a))
        if sx.is_number and sx.is_negative:
            raise InputError("statement", "Real.rpow of a negative base is not supported")
        if sx == 0:
            return Fraction(0) if to_sympy(y) != 0 else Fraction(1)
        return to_exact(sympy.Pow(sx, to_sympy(y)))

    def minmax(self, op, a, b):
        a, b = unify(a, b)
        s = compare(a, b)           # sign of b - a
        if op == "min":
            return a if s >= 0 else b
        return b if s >= 0 else a

    def abs(self, a):
        return a if decide_sign(a) >= 0 else -a

    def theory(self, v):
        """A value for :mod:`pyfed.theory` (Fraction, sympy, arb, mpf as the mode wants)."""
        if self.mode == "exact":
            return to_sympy(v) if isinstance(v, sympy.Basic) else v
        return self.lift(v)


def is_ball(x) -> bool:
    """True for a python-flint ball."""
    from flint import arb
    return isinstance(x, arb)


def to_sympy(x):
    """An exact number as sympy (Fraction, int); anything else unchanged."""
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    if isinstance(x, int):
        return sympy.Integer(x)
    return x
