"""Arithmetic back ends of the exact-moment engine: exact rationals or certified balls.

* :class:`ExactField` — python-flint ``fmpq`` scalars and ``fmpq_mat`` matrices; every
  number is an exact rational, no float ever enters.
* :class:`BallField` — python-flint ``arb`` scalars and ``arb_mat`` matrices at a stated
  binary precision. Every ball *contains* the true real value (interval arithmetic with
  outward rounding, Arb library), so a ball that excludes 0 certifies a sign.

:func:`to_arb` turns any supported scalar — int, Fraction, str "p/q", float (exact dyadic),
mpmath.mpf (exact dyadic), and sympy expressions built from rationals, floats, +, *, powers,
sqrt, pi, E, exp, log, sin, cos — into an enclosing ball. An unsupported sympy expression
raises :class:`pyfed.errors.InputError` rather than being evaluated uncertified.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from flint import arb, arb_mat, ctx, fmpq, fmpq_mat

from ..errors import InputError
from ..exact import to_fraction

__all__ = ["ExactField", "BallField", "to_arb", "fraction_of", "precision"]


@contextlib.contextmanager
def precision(bits: int):
    """Temporarily set python-flint's working precision (bits) for arb arithmetic."""
    old = ctx.prec
    ctx.prec = int(bits)
    try:
        yield
    finally:
        ctx.prec = old


def fraction_of(value) -> Fraction | None:
    """Exact Fraction of a rational scalar, including floats and mpf (exact dyadics).

    Returns None for irrational sympy expressions and other non-rational inputs.
    """
    f = to_fraction(value)
    if f is not None:
        return f
    if isinstance(value, (float, np.floating)):
        return Fraction(float(value))
    if isinstance(value, mpmath.mpf):
        sign, man, exp, _bc = value._mpf_
        if not man and exp:  # inf / nan
            return None
        f = Fraction(int(man)) * (Fraction(2) ** int(exp))
        return -f if sign else f
    if isinstance(value, sympy.Float):
        return fraction_of(mpmath.mpf(value._mpf_))
    return None


def _q(f: Fraction) -> fmpq:
    return fmpq(f.numerator, f.denominator)


def to_arb(value) -> arb:
    """A certified enclosing ball of ``value`` at the current flint precision.

    Raises
    ------
    InputError
        The value is not a real number pyfed can enclose (e.g. a symbol, ``zoo``).
    """
    if isinstance(value, arb):
        return value
    f = fraction_of(value)
    if f is not None:
        return arb(_q(f))
    if isinstance(value, sympy.Basic):
        return _sympy_to_arb(value)
    if isinstance(value, str):
        return _sympy_to_arb(sympy.sympify(value))
    raise InputError("value", f"cannot enclose {value!r} in a certified ball")


def _sympy_to_arb(e) -> arb:
    if e.is_Rational:
        return arb(fmpq(int(e.p), int(e.q)))
    if e.is_Float:
        return arb(_q(fraction_of(e)))
    if e is sympy.pi:
        return arb.pi()
    if e is sympy.E:
        return arb(1).exp()
    if e.is_Add:
        out = arb(0)
        for a in e.args:
            out = out + _sympy_to_arb(a)
        return out
    if e.is_Mul:
        out = arb(1)
        for a in e.args:
            out = out * _sympy_to_arb(a)
        return out
    if e.is_Pow:
        base, ex = e.args
        b = _sympy_to_arb(base)
        if ex.is_Integer:
            n = int(ex)
            return b ** n if n >= 0 else 1 / (b ** (-n))
        if ex == sympy.Rational(1, 2):
            return b.sqrt()
        if ex == sympy.Rational(-1, 2):
            return 1 / b.sqrt()
        return b ** _sympy_to_arb(ex)
    funcs = {sympy.exp: "exp", sympy.log: "log", sympy.sin: "sin", sympy.cos: "cos"}
    for fn, name in funcs.items():
        if isinstance(e, fn):
            return getattr(_sympy_to_arb(e.args[0]), name)()
    raise InputError("value", f"cannot enclose the sympy expression {e} in a certified ball "
                              "(supported: rationals, floats, +, *, powers, sqrt, pi, E, exp, log, sin, cos)")


class ExactField:
    """Exact rational arithmetic (python-flint fmpq / fmpq_mat)."""

    exact = True
    name = "exact rational (python-flint fmpq_mat)"

    def scalar(self, value) -> fmpq:
        f = fraction_of(value) if not isinstance(value, (float, np.floating, mpmath.mpf)) else None
        if f is None:
            raise ValueError(f"exact arithmetic requested but {value!r} is not an exact rational")
        return _q(f)

    def mat(self, rows: int, cols: int, entries=None):
        return fmpq_mat(rows, cols) if entries is None else fmpq_mat(rows, cols, list(entries))

    def public(self, v) -> Fraction:
        """An fmpq as a Python Fraction (the type pyfed reports)."""
        return Fraction(int(v.p), int(v.q))

    @contextlib.contextmanager
    def active(self):
        yield self


class BallField:
    """Certified ball arithmetic (python-flint arb / arb_mat) at ``prec`` bits."""

    exact = False

    def __init__(self, prec: int = 128):
        self.prec = int(prec)
        self.name = f"certified ball arithmetic (python-flint arb_mat, {self.prec} bits)"

    def scalar(self, value) -> arb:
        return to_arb(value)

    def mat(self, rows: int, cols: int, entries=None):
        return arb_mat(rows, cols) if entries is None else arb_mat(rows, cols, list(entries))

    def public(self, v) -> arb:
        return v

    def active(self):
        return precision(self.prec)
