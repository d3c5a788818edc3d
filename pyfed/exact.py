"""Exact and high-precision scalar arithmetic shared by every formula in pyfed.

Two modes, chosen from the inputs and never mixed:

* ``exact``: every input is rational (``int``, ``fractions.Fraction``, ``sympy.Rational``,
  ``flint.fmpq``, numpy integers, or a string such as ``"1/81"``). All arithmetic is
  done in :class:`fractions.Fraction`; no float ever enters.
* ``mpmath``: some input is a float or an irrational sympy expression (``1/(81*sqrt(2))``).
  Arithmetic is done in ``mpmath.mpf`` at ``DEFAULT_DPS`` decimal digits (stated in every
  report). Floats are converted exactly (a float *is* a dyadic rational), irrational sympy
  expressions are evaluated to the working precision.

* ``ball``: some input is a python-flint ``arb``; every result is a certified ball that
  contains the true value (used by the exact-moment engine for irrational inputs).
* ``symbolic``: some input is a sympy expression with free symbols; formulas return sympy
  expressions (used by the Lean drift check).

Python floats are deliberately treated as inexact: ``0.1`` means "about one tenth" to a
user, so a formula fed ``0.1`` reports an mpmath result, not the rational 3602879701896397/2**55.
"""

from __future__ import annotations

import contextlib
import numbers
from fractions import Fraction
from typing import Iterable

import mpmath
import numpy as np
import sympy
from flint import arb, ctx, fmpq

from .errors import InputError

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


def coerce(values: Iterable, *, exact: bool | None = None, dps: int = DEFAULT_DPS, names=None):
    """Convert scalars to one arithmetic: all Fraction (exact) or all mpf.

    Parameters
    ----------
    values : iterable of scalars
    exact : bool, None or "symbolic"
        ``None`` (default) picks exact iff every value is rational; ``True`` demands it
        (raises ``ValueError`` naming the first inexact value); ``False`` forces mpmath.
        ``"symbolic"`` (also chosen automatically when a value is a sympy expression with
        free symbols) returns sympy objects: formulas then build expressions, which is how
        the Lean drift check proves them equal to the Lean definitions. ``"ball"`` (also
        chosen when a value is a python-flint ``arb``) returns certified balls at flint's
        current precision (see :func:`precision`).

    names : sequence of str, optional
        Argument names of ``values``; when given, a NaN or infinite value raises
        :class:`pyfed.errors.InputError` naming it.

    Returns
    -------
    (list, bool | "symbolic" | "ball")
        Converted values and the mode (True exact, False mpmath, "symbolic", "ball").
    """
    values = list(values)
    if names is not None:
        for name, v in zip(names, values):
            if isinstance(v, (float, np.floating, mpmath.mpf)) and not mpmath.isfinite(v):
                raise InputError(name, f"is {v} (NaN or infinite)")
    if exact == "symbolic" or any(is_symbolic(v) for v in values):
        return [_to_sympy(v) for v in values], "symbolic"
    if exact == "ball" or any(isinstance(v, arb) for v in values):
        return [to_arb(v) for v in values], "ball"
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


def rational_str(value) -> str:
    """``"p/q"`` (or ``"p"``) for an exact rational; ``str(value)`` otherwise."""
    f = to_fraction(value) if not isinstance(value, bool) else None
    if f is None:
        return str(value)
    return f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator)


def number_json(value):
    """A number for JSON reports, never losing exactness.

    Exact rationals -> ``{"exact": "p/q", "float": x}`` ("p" for integers, as ``str(Fraction)``); mpmath numbers ->
    ``{"float": x, "mpmath": "<30 digits>"}``; arb balls -> ``{"float": midpoint, "ball": str}``;
    floats -> ``{"float": x}``; ``None`` -> ``None``.
    """
    if value is None:
        return None
    if isinstance(value, arb):
        return {"float": float(value.mid()), "ball": value.str(radius=True)}
    f = to_fraction(value) if not isinstance(value, (float, np.floating)) else None
    if f is not None:
        return {"exact": rational_str(f), "float": as_float(f)}
    if isinstance(value, mpmath.mpf):
        return {"float": float(value), "mpmath": mpmath.nstr(value, 30)}
    return {"float": float(value)}


def format_number(value, digits: int = 6) -> str:
    """Short display form (``"-"`` for None); never used in a computation."""
    if value is None:
        return "-"
    try:
        if isinstance(value, arb):
            return f"{float(value.mid()):.{digits}g}"
        return f"{as_float(value):.{digits}g}"
    except (TypeError, ValueError, OverflowError):
        return str(value)


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


# -- certified balls (python-flint arb) ---------------------------------------------------
# A third arithmetic, used where inputs are irrational but a *certified* sign is needed (the
# exact-moment engine): every arb ball contains the true real value. ``coerce`` switches to
# it when any input is already an ``arb``, so the theory formulas evaluate in balls unchanged.

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
        return mpf_to_fraction(value) if mpmath.isfinite(value) else None
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

