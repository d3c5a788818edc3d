"""Deterministic numbers of the FedAvg engines in one arithmetic (:class:`Scalars`): exact
rationals with exact irrationals (sympy), certified balls (python-flint ``arb``) or mpmath floats.
Its operations are Lean's arithmetic of the evaluator (:mod:`pyfed.evaluation.numbers`:
``x / 0 = 0``, ``Real.sqrt`` of a negative number is 0, ``min``/``max`` of balls certified), so the
engines' own formulas and the statements' terms (:class:`pyfed.models.fedavg.access.RandomVariables`)
compute alike."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

from ...errors import InputError
from ...evaluation.numbers import (
    Undecided,
    arith,
    decide_sign,
    lean_abs,
    lean_div,
    lean_minmax,
    lean_rpow,
    lean_sqrt,
    to_exact,
    to_sympy,
)
from ...exact import to_arb, to_fraction, to_mpf

__all__ = ["Scalars", "is_ball", "to_sympy"]


class Scalars:
    """Deterministic arithmetic of one mode: ``exact`` (Fraction; irrational values as exact
    sympy numbers), ``ball`` (python-flint arb at the current precision) or ``float`` (mpmath).
    Lean's conventions (module docstring) throughout."""

    def __init__(self, mode: str = "exact"):
        if mode not in ("exact", "ball", "float"):
            raise ValueError(mode)
        self.mode = mode

    def __repr__(self):
        return f"Scalars({self.mode!r})"

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
        return arith("+", a, b)

    def sub(self, a, b):
        return arith("-", a, b)

    def mul(self, a, b):
        return arith("*", a, b)

    def is_zero(self, b) -> bool:
        try:
            return decide_sign(b) == 0
        except Undecided:
            raise Undecided("division by a ball containing 0") from None

    def div(self, a, b):
        return lean_div(a, b)

    def neg(self, a):
        return -a

    def pow(self, a, n: int):
        return a ** int(n)

    def sqrt(self, a):
        return lean_sqrt(a, self.mode)

    def rpow(self, a, y):
        return lean_rpow(a, y, self.mode)

    def minmax(self, op, a, b):
        return lean_minmax(op, a, b)

    def abs(self, a):
        return lean_abs(a)

    def theory(self, v):
        """A value for :mod:`pyfed.theory` (Fraction, sympy, arb, mpf as the mode wants)."""
        if self.mode == "exact":
            return to_sympy(v) if isinstance(v, sympy.Basic) else v
        return self.lift(v)


def is_ball(x) -> bool:
    """True for a python-flint ball."""
    from flint import arb
    return isinstance(x, arb)
