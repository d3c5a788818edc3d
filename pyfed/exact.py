"""Exact and high-precision scalar arithmetic shared by every formula in pyfed.

Two modes, chosen from the inputs and never mixed:

* ``exact``: every input is rational (``int``, ``fractions.Fraction``, ``sympy.Rational``,
  ``flint.fmpq``, numpy integers, or a string such as ``"1/81"``). All arithmetic is
  done in :class:`fractions.Fraction`; no float ever enters.
* ``mpmath``: some input is a float or an irrational sympy expression (``1/(81*sqrt(2))``).
  Arithmetic is done in ``mpmath.mpf`` at ``DEFAULT_DPS`` decimal digits (stated in every
  report). Floats are converted exactly (a float *is* a dyadic rational), irrational sympy
  expressions are evaluated to the working precision.

Python floats are deliberately treated as inexact: ``0.1`` means "about one tenth" to a
user, so a formula fed ``0.1`` reports an mpmath result, not the rational 3602879701896397/2**55.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Iterable

import mpmath
import numpy as np
import sympy

#: Working precision (decimal digits) of the mpmath mode.
DEFAULT_DPS = 50

Scalar = Fraction | mpmath.mpf


def to_fraction(value) -> Fraction | None:
    """Return ``value`` as a Fraction if it is an exact rational, else ``None``.

    Accepts int, Fraction, sympy.Rational/Integer, flint.fmpq/fmpz, numpy integers and
    strings like ``"3/4"``. Floats, mpmath numbers and irrational sympy expressions give ``None``.
    """
    if isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (numbers.Integral, np.integer)):
        return Fraction(int(value))
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            return None
    if isinstance(value, sympy.Basic):
        if value.is_Rational:
            return Fraction(int(value.p), int(value.q))
        simplified = sympy.nsimplify(value, rational=False) if value.is_number else value
        if getattr(simplified, "is_Rational", False):
            return Fraction(int(simplified.p), int(simplified.q))
        return None
    mod = type(value).__module__
    if mod.startswith("flint"):
        name = type(value).__name__
        if name == "fmpz":
            return Fraction(int(value))
        if name == "fmpq":
            return Fraction(int(value.p), int(value.q))
    return None


def to_mpf(value, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Convert any supported real scalar to ``mpmath.mpf`` at ``dps`` digits (floats exactly)."""
    with mpmath.workdps(dps):
        frac = to_fraction(value)
        if frac is not None:
            return mpmath.mpf(frac.numerator) / frac.denominator
        if isinstance(value, sympy.Basic):
            return mpmath.mpf(sympy.N(value, dps + 10))
        if isinstance(value, (float, np.floating)):
            return mpmath.mpf(float(value))
        return mpmath.mpf(value)


def all_exact(values: Iterable) -> bool:
    """True when every scalar (arrays are flattened) is an exact rational."""
    for v in values:
        if isinstance(v, np.ndarray) or isinstance(v, (list, tuple)):
            if not all_exact(np.asarray(v, dtype=object).ravel().tolist()):
                return False
        elif to_fraction(v) is None:
            return False
    return True


def is_symbolic(value) -> bool:
    """True for a sympy expression with free symbols (used by the Lean drift check)."""
    return isinstance(value, sympy.Basic) and bool(value.free_symbols)


def _to_sympy(value):
    f = to_fraction(value) if not isinstance(value, sympy.Basic) else None
    if f is not None:
        return sympy.Rational(f.numerator, f.denominator)
    return sympy.sympify(value)


def coerce(values: Iterable, *, exact: bool | None = None, dps: int = DEFAULT_DPS):
    """Convert scalars to one arithmetic: all Fraction (exact) or all mpf.

    Parameters
    ----------
    values : iterable of scalars
    exact : bool, None or "symbolic"
        ``None`` (default) picks exact iff every value is rational; ``True`` demands it
        (raises ``ValueError`` naming the first inexact value); ``False`` forces mpmath.
        ``"symbolic"`` (also chosen automatically when a value is a sympy expression with
        free symbols) returns sympy objects: formulas then build expressions, which is how
        the Lean drift check proves them equal to the Lean definitions.

    Returns
    -------
    (list, bool | "symbolic")
        Converted values and the mode (True exact, False mpmath, "symbolic").
    """
    values = list(values)
    if exact == "symbolic" or any(is_symbolic(v) for v in values):
        return [_to_sympy(v) for v in values], "symbolic"
    if exact is None:
        exact = all_exact(values)
    if exact:
        out = []
        for v in values:
            f = to_fraction(v)
            if f is None:
                raise ValueError(f"exact arithmetic requested but {v!r} is not an exact rational")
            out.append(f)
        return out, True
    return [to_mpf(v, dps) for v in values], False


def coerce_array(array, exact: bool, dps: int = DEFAULT_DPS) -> np.ndarray:
    """Element-wise :func:`coerce` of an array into an object array of Fraction or mpf."""
    a = np.asarray(array, dtype=object)
    conv = (lambda v: to_fraction(v)) if exact else (lambda v: to_mpf(v, dps))
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        c = conv(v)
        if c is None:
            raise ValueError(f"exact arithmetic requested but entry {idx}={v!r} is not rational")
        out[idx] = c
    return out


def sum_squares(vectors) -> Scalar:
    """Exact (or mpf) sum of squares of all entries of an object array."""
    total = 0
    for v in np.asarray(vectors, dtype=object).ravel():
        total += v * v
    return total


def as_float(value) -> float:
    """Float for display only (never feed the result back into an exact computation)."""
    if isinstance(value, Fraction):
        return value.numerator / value.denominator if abs(value.numerator) < 2**1000 else float(mpmath.mpf(value.numerator) / value.denominator)
    return float(value)


def mpf_to_fraction(x) -> Fraction:
    """The exact dyadic rational value of a finite ``mpmath.mpf``."""
    if not mpmath.isfinite(x):
        raise ValueError(f"cannot convert non-finite {x!r} to a rational")
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def compare(lhs, rhs) -> int:
    """Exact sign of ``rhs - lhs`` for Fraction/int/float operands (floats converted exactly).

    Returns +1 if lhs < rhs, 0 if equal, -1 if lhs > rhs. An mpf operand is a binary
    floating-point number, converted exactly to its dyadic rational, so the comparison itself
    adds no rounding (the mpf's own rounding error is the caller's to state).
    """
    def conv(x):
        if isinstance(x, (float, np.floating)):
            return Fraction(float(x))
        if isinstance(x, mpmath.mpf):
            return mpf_to_fraction(x)
        f = to_fraction(x)
        return f if f is not None else x
    a, b = conv(lhs), conv(rhs)
    if a < b:
        return 1
    if a > b:
        return -1
    return 0
