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

Why one module: the two modes, their conversions, the certified digits printed from them and the
report's number forms are one contract (a number enters in one mode and is printed with only digits
that mode certifies); keeping them together keeps every caller on the same rules.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import numbers
import re
import sys
from decimal import ROUND_HALF_EVEN, ROUND_UP, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

import mpmath
import numpy as np

from .errors import InputError

if TYPE_CHECKING:        # python-flint is imported where it is used (start-up time)
    from flint import arb, fmpq

#: Working precision (decimal digits) of the mpmath mode.
DEFAULT_DPS = 50

Scalar = Fraction | mpmath.mpf


def _sympy():
    """The sympy module, imported on first use (it costs most of pyfed's start-up time)."""
    import sympy

    return sympy


def _is_flint(value, name: str) -> bool:
    """True for a python-flint object of type ``name`` (``"arb"``, ``"fmpq"``); python-flint is
    imported by the code that makes such objects, never by this test."""
    mod = sys.modules.get("flint")
    return mod is not None and isinstance(value, getattr(mod, name))


def _is_sympy(value) -> bool:
    """True for a sympy object; no sympy object exists before sympy is imported, so this never
    imports it."""
    mod = sys.modules.get("sympy")
    return mod is not None and isinstance(value, mod.Basic)


@functools.lru_cache(maxsize=4096)
def _sympy_fraction(value) -> Fraction | None:
    """:func:`to_fraction` of a sympy expression that is not a Rational literal (nsimplify, whose
    PSLQ search costs milliseconds; the searches meet the same expressions many times, so the
    answers are kept: sympy expressions are immutable and hash by structure)."""
    sympy = _sympy()
    simplified = sympy.nsimplify(value, rational=False) if value.is_number else value
    if getattr(simplified, "is_Rational", False):
        return Fraction(int(simplified.p), int(simplified.q))
    return None


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
    if _is_sympy(value):
        if value.is_Rational:
            return Fraction(int(value.p), int(value.q))
        return _sympy_fraction(value)
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
        if _is_sympy(value):
            return mpmath.mpf(_sympy().N(value, dps + 10))
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
    return _is_sympy(value) and bool(value.free_symbols)


def _to_sympy(value):
    sympy = _sympy()
    f = to_fraction(value) if not _is_sympy(value) else None
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
    if exact == "ball" or any(_is_flint(v, "arb") for v in values):
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
    """Float for display and plots only (never feed the result back into an exact computation).

    Exact rationals are correctly rounded (CPython's int/int division); a value beyond the float
    range gives ``+-inf`` (use :func:`report_float` for reports, which never contain inf/NaN)."""
    if isinstance(value, Fraction):
        try:
            return value.numerator / value.denominator
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if _is_flint(value, "arb"):
        return float(value.mid()) if value.is_finite() else math.nan
    f = to_fraction(value) if not isinstance(value, (float, np.floating, mpmath.mpf)) else None
    if f is not None:
        return as_float(f)
    try:
        return float(value)
    except OverflowError:
        return math.inf


def report_float(value) -> float | None:
    """The correctly rounded float of ``value`` for a JSON report, or ``None`` when it is not a
    finite float (beyond the float range, or NaN): reports never contain inf or NaN, and then
    carry a :func:`decimal_str` beside it."""
    v = as_float(value)
    return v if math.isfinite(v) else None


def mpf_to_fraction(x) -> Fraction:
    """The exact dyadic rational value of a finite ``mpmath.mpf``."""
    if not mpmath.isfinite(x):
        raise ValueError(f"cannot convert non-finite {x!r} to a rational")
    man, exp = x.man_exp
    # mpmath's man_exp gives the mantissa without its sign (mpf(-0.75).man_exp == (3, -2)):
    # the sign is taken from the number itself
    value = Fraction(abs(int(man))) * Fraction(2) ** int(exp)
    return -value if x < 0 else value


def int_str(n: int) -> str:
    """Decimal digits of any Python int: also beyond CPython's 4300-digit int->str limit
    (``sys.int_info.str_digits_check_threshold``), through python-flint's fmpz."""
    n = int(n)
    if n.bit_length() < 12000:  # < 3600 decimal digits: below the interpreter's limit
        return str(n)
    from flint import fmpz
    return str(fmpz(n))


def rational_str(value) -> str:
    """``"p/q"`` (or ``"p"``) for an exact rational, in full (any length); ``str(value)`` otherwise."""
    f = to_fraction(value) if not isinstance(value, bool) else None
    if f is None:
        return str(value)
    return f"{int_str(f.numerator)}/{int_str(f.denominator)}" if f.denominator != 1 else int_str(f.numerator)


def _decimal_exponent(n: int, d: int) -> int:
    """e with 10^e <= n/d < 10^(e+1), for integers n, d > 0 (exact)."""
    e = int(math.floor((n.bit_length() - d.bit_length()) * 0.30102999566398120))
    while True:  # the estimate is within 1 or 2 of e; adjust exactly
        lo_ok = n >= d * 10 ** e if e >= 0 else n * 10 ** (-e) >= d
        if not lo_ok:
            e -= 1
            continue
        hi_ok = n < d * 10 ** (e + 1) if e + 1 >= 0 else n * 10 ** (-(e + 1)) < d
        if not hi_ok:
            e += 1
            continue
        return e


def _format_digits(sign: str, digits: str, e: int, sig: int) -> str:
    """%g-style text of the decimal 0.d1d2... * 10^(e+1) with mantissa ``digits`` (no trailing zeros)."""
    if -4 <= e < sig:
        if e >= 0:
            if len(digits) <= e + 1:
                text = digits + "0" * (e + 1 - len(digits))
            else:
                text = digits[:e + 1] + "." + digits[e + 1:]
        else:
            text = "0." + "0" * (-e - 1) + digits
        return sign + text
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mant}e{'-' if e < 0 else '+'}{abs(e):02d}"


def exact_decimal(value, digits: int = 17) -> str:
    """The exact rational ``value`` correctly rounded (half to even) to ``digits`` significant
    digits, in ``%g`` style (``"0.0239184"``, ``"1.2345e+400"``): every printed digit is right,
    at any magnitude (no float overflow, no int->str limit)."""
    f = to_fraction(value)
    if f is None:
        raise ValueError(f"exact_decimal needs an exact rational, got {value!r}")
    if f == 0:
        return "0"
    sign = "-" if f < 0 else ""
    n, d = abs(f.numerator), f.denominator
    e = _decimal_exponent(n, d)
    shift = digits - 1 - e
    num, den = (n * 10 ** shift, d) if shift >= 0 else (n, d * 10 ** (-shift))
    m, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and m % 2 == 1):
        m += 1
    if m == 10 ** digits:  # rounding carried into a new digit
        m //= 10
        e += 1
    text = int_str(m).rstrip("0") or "0"
    return _format_digits(sign, text, e, digits)


def ball_decimal(ball, digits: int = 17) -> str:
    """The digits a certified ball (python-flint ``arb``) certifies, at most ``digits`` of them
    (``arb.str(n, radius=False)``: the midpoint rounded so that the printed digits are correct,
    up to one unit in the last place). A ball too wide to certify a digit (relative accuracy
    below 4 bits, e.g. one containing 0) is printed as the enclosure ``"[mid +/- rad]"``."""
    if ball.rel_accuracy_bits() < 4:  # (almost) no certified digit: show the enclosure itself
        return ball.str(3, radius=True)
    return ball.str(digits, radius=False)


def decimal_str(value, digits: int = 17) -> str:
    """Short decimal text of a number in which every digit is meaningful: exact rationals
    correctly rounded (:func:`exact_decimal`), balls to their certified digits
    (:func:`ball_decimal`), mpmath numbers and floats to ``min(digits, 15)`` digits."""
    if _is_flint(value, "arb"):
        return ball_decimal(value, digits)
    f = to_fraction(value) if not isinstance(value, (float, np.floating, mpmath.mpf)) else None
    if f is not None:
        return exact_decimal(f, digits)
    if isinstance(value, mpmath.mpf):
        return mpmath.nstr(value, min(digits, 15))
    return f"{float(value):.{min(digits, 15)}g}"


#: Reports (``pyfed check --json``, ``tightness.json``, verdict ``to_json``) print an exact rational
#: as "p/q" only up to this many characters; longer ones are given by their correctly rounded
#: decimal, their length and the SHA-256 of the full "p/q" text. The full value stays in the
#: Python objects (``Verdict.lhs``, ...) and in ``pyfed search`` exports.
REPORT_EXACT_CHARS = 120


def number_json(value, max_chars: int | None = REPORT_EXACT_CHARS):
    """A number for JSON reports: only certified digits, never NaN or inf.

    * exact rationals -> ``{"exact": "p/q", "float": x}`` ("p" for integers; x correctly rounded,
      ``None`` beyond the float range, then with ``"decimal"``). When "p/q" is longer than
      ``max_chars`` (``None``: no limit) ``"exact"`` is replaced by ``"decimal"`` (17 correctly
      rounded digits), ``"exact_chars"`` and ``"exact_sha256"`` (of the full "p/q" text);
    * arb balls -> ``{"decimal": certified digits, "ball": "[mid +/- rad]", "float": midpoint}``;
    * mpmath numbers -> ``{"float": x, "mpmath": 15 significant digits}``;
    * floats -> ``{"float": x}`` (``{"float": None, "nonfinite": "inf"}`` for inf/NaN);
    * ``None`` -> ``None``.
    """
    if value is None:
        return None
    if _is_flint(value, "arb"):
        return {"decimal": ball_decimal(value, 17), "ball": value.str(radius=True),
                "float": report_float(value.mid()) if value.mid().is_finite() else None}
    f = to_fraction(value) if not isinstance(value, (float, np.floating)) else None
    if f is not None:
        out = {"float": report_float(f)}
        text = rational_str(f)
        if max_chars is None or len(text) <= max_chars:
            out["exact"] = text
            if out["float"] is None:
                out["decimal"] = exact_decimal(f, 17)
        else:
            out.update(decimal=exact_decimal(f, 17), exact_chars=len(text),
                       exact_sha256=hashlib.sha256(text.encode("ascii")).hexdigest())
        return out
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            return {"float": None, "nonfinite": str(value)}
        return {"float": report_float(value), "mpmath": mpmath.nstr(value, 15)}
    v = float(value)
    if not math.isfinite(v):
        return {"float": None, "nonfinite": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
    return {"float": v}


_RATIONAL_TEXT = None


def cap_report(obj, max_chars: int | None = REPORT_EXACT_CHARS):
    """A JSON-ready report with every exact rational written as text ("p/q" or "p") longer than
    ``max_chars`` replaced by its :func:`number_json` form (17 correctly rounded digits, a float,
    its length and SHA-256): whichever engine put it there, a report never dumps a giant
    fraction. Other values (and short rationals) are returned unchanged; dicts and lists are
    copied. ``max_chars=None`` returns ``obj`` itself."""
    global _RATIONAL_TEXT
    if max_chars is None:
        return obj
    if _RATIONAL_TEXT is None:
        _RATIONAL_TEXT = re.compile(r"-?[0-9]+(/[0-9]+)?")
    if isinstance(obj, dict):
        return {k: cap_report(v, max_chars) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [cap_report(v, max_chars) for v in obj]
    if isinstance(obj, str) and len(obj) > max_chars and _RATIONAL_TEXT.fullmatch(obj):
        return number_json(fraction_from_text(obj), max_chars)
    return obj


def fraction_from_text(text) -> Fraction:
    """``Fraction(text)`` at any length: text ``"p/q"`` or ``"p"`` (the inverse of
    :func:`rational_str`) also beyond CPython's 4300-digit str->int limit, read through
    python-flint's fmpz. Short text and non-text values go to ``Fraction`` unchanged (so decimals
    such as ``"0.5"`` and ints are accepted as ``Fraction`` accepts them). Raises ValueError,
    TypeError or ZeroDivisionError as ``Fraction`` does."""
    if not isinstance(text, str) or len(text) < 3600:
        return Fraction(text)

    def to_int(part: str) -> int:
        part = part.strip()
        if not part.lstrip("-").isdigit():
            raise ValueError(f"not an exact rational: {part[:40]}...")
        if len(part) < 3600:
            return int(part)
        from flint import fmpz
        return int(fmpz(part))
    num, sep, den = text.partition("/")
    return Fraction(to_int(num), to_int(den) if sep else 1)


def format_number(value, digits: int = 6) -> str:
    """Short display form (``"-"`` for None); never used in a computation. Exact rationals are
    correctly rounded at any magnitude, balls show only their certified digits; an mpmath number
    and an exact ball (radius 0) print their exact binary value the same way as a rational, so a
    ratio of 1 reads "1" whichever arithmetic produced it."""
    if value is None:
        return "-"
    try:
        if _is_flint(value, "arb"):
            if value.is_exact():        # a point: its exact value, printed like an exact rational ("1", not "1.00000")
                man, exp = value.man_exp()
                return exact_decimal(Fraction(int(man)) * Fraction(2) ** int(exp), digits)
            return ball_decimal(value, digits)
        f = to_fraction(value) if not isinstance(value, (float, np.floating, mpmath.mpf)) else None
        if f is not None:
            return exact_decimal(f, digits)
        if isinstance(value, mpmath.mpf):
            if mpmath.isfinite(value):  # its exact binary value, printed like an exact rational ("1", not "1.0")
                sign, man, exp, _bc = value._mpf_
                return exact_decimal((-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp), digits)
            return mpmath.nstr(value, digits)
        return f"{float(value):.{digits}g}"
    except (TypeError, ValueError, OverflowError):
        return str(value)


def short_exact(value, max_chars: int = 40) -> str:
    """A side for a one-line message: the exact text ("p/q", or the closed form of an algebraic
    number) when at most ``max_chars`` characters, else ``~`` and its 6 correctly rounded digits
    (:func:`format_number`); the JSON report keeps every digit. Never a cut-off digit string."""
    text = rational_str(value)
    return text if len(text) <= max_chars else "~" + format_number(value)


#: A decimal float literal ("5.49", ".5", "1e-06", "-3.5E+10"); a plain integer does not match.
_FLOAT_TEXT = re.compile(r"[+-]?(?:\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)")


def format_parameter(value, digits: int = 6) -> str:
    """Display form of one parameter of an instance (``beta=…``, ``sigma=…``); never used in a
    computation. Exact values stay exact (an int, a Fraction or its ``"p/q"`` text, a plain
    integer text); a float, an mpmath number or a decimal float text (``"5.493258883212322"``,
    ``"1e-06"``) is shown to ``digits`` significant digits (``"5.49326"``). Any other text (a name,
    a description) is returned unchanged."""
    if isinstance(value, str):
        if _FLOAT_TEXT.fullmatch(value.strip()):
            try:
                return f"{float(value):.{digits}g}"
            except ValueError:  # pragma: no cover - the pattern is a float literal
                return value
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (float, np.floating, mpmath.mpf)):
        return format_number(value, digits)
    f = to_fraction(value) if (isinstance(value, numbers.Rational) or _is_flint(value, "fmpq")) else None
    return str(f) if f is not None else str(value)


def format_estimate(mean, half_width) -> str:
    """Display form ``"m ± w"`` of an estimate (a Monte Carlo mean) with a confidence-interval
    half-width; never used in a computation. Only meaningful digits are printed:

    * ``w`` to 2 significant digits, rounded *up* (the printed interval is never narrower than
      the computed one);
    * ``m`` rounded half-even to the decimal place of ``w``'s leading digit (digits below the
      half-width's first digit are noise).

    E.g. ``format_estimate(0.511315, 0.000152) == "0.5113 ± 0.00016"``. Outside 1e-4 <= |m| <
    1e6 both share a power of ten: ``"(2.41 ± 0.15)e-05"``. A zero, negative or non-finite
    half-width, or a non-finite mean, falls back to :func:`format_number` on both.
    """
    parts = _estimate_parts(mean, half_width)
    if parts is None:
        m, w = float(mean), float(half_width)
        return f"{format_number(m)} ± {format_number(w, 2)}"
    dm, w2 = parts
    k = (dm if dm != 0 else w2).adjusted()
    if -4 <= k < 6:
        return f"{dm:f} ± {w2:f}"
    return f"({dm.scaleb(-k):f} ± {w2.scaleb(-k):f})e{k:+03d}"


def estimate_digits(mean, half_width) -> int | None:
    """Significant digits of the mean as :func:`format_estimate` prints it: 0 when it prints as
    0 (the half-width exceeds the mean: no digit of it is significant), None when the fallback
    form is used (zero or non-finite half-width: no limit from the estimate)."""
    parts = _estimate_parts(mean, half_width)
    if parts is None:
        return None
    dm = parts[0]
    return 0 if dm == 0 else len(dm.as_tuple().digits)


def format_estimate_ratio(ratio, mean, half_width, digits: int = 4) -> str:
    """Display form of ``ratio`` = an estimate's mean over an exact side, with no more significant
    digits than the estimate's printed mean has (:func:`estimate_digits`, at most ``digits``):
    ``"-"`` when the printed mean has no significant digit (``0 ± 41``) or there is no ratio.
    Never used in a computation."""
    if ratio is None:
        return "-"
    n = estimate_digits(mean, half_width)
    if n == 0:
        return "-"
    return format_number(ratio, digits if n is None else min(digits, n))


def _estimate_parts(mean, half_width):
    """(mean, half-width) as Decimals rounded for display (see :func:`format_estimate`), or None
    when the half-width is zero, negative or non-finite or the mean is non-finite."""

    m, w = float(mean), float(half_width)
    if not (math.isfinite(m) and math.isfinite(w) and w > 0):
        return None
    dw = Decimal(repr(w))
    lead = dw.adjusted()
    w2 = dw.quantize(Decimal(1).scaleb(lead - 1), rounding=ROUND_UP)
    if w2.adjusted() > lead:        # 0.0000996 -> 0.00010: the leading digit moved up
        lead = w2.adjusted()
        w2 = dw.quantize(Decimal(1).scaleb(lead - 1), rounding=ROUND_UP)
    dm = Decimal(repr(m)).quantize(Decimal(1).scaleb(lead), rounding=ROUND_HALF_EVEN)
    return dm, w2


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
    from flint import ctx

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
    if _is_sympy(value) and value.is_Float:
        return fraction_of(mpmath.mpf(value._mpf_))
    return None


def _q(f: Fraction) -> "fmpq":
    from flint import fmpq

    return fmpq(f.numerator, f.denominator)


def to_arb(value) -> "arb":
    """A certified enclosing ball of ``value`` at the current flint precision.

    Raises
    ------
    InputError
        The value is not a real number pyfed can enclose (e.g. a symbol, ``zoo``).
    """
    from flint import arb

    if _is_flint(value, "arb"):
        return value
    f = fraction_of(value)
    if f is not None:
        return arb(_q(f))
    if _is_sympy(value):
        return _sympy_to_arb(value)
    if isinstance(value, str):
        return _sympy_to_arb(_sympy().sympify(value))
    raise InputError("value", f"cannot enclose {value!r} in a certified ball")


def _sympy_to_arb(e) -> "arb":
    from flint import arb, fmpq

    sympy = _sympy()
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


def enclosure(v) -> tuple:
    """(lo, hi) Fractions with lo <= v <= hi: v itself for a rational; for an exact irrational
    sympy number (roots of the hypotheses' rpow terms) its 60-digit evaluation widened by a
    relative 10^-40 (far beyond evalf's guaranteed accuracy at that precision)."""
    f = to_fraction(v)
    if f is not None:
        return f, f
    approx = Fraction(str(_sympy().N(v, 60)))
    w = abs(approx) / 10**40 + Fraction(1, 10**300)
    return approx - w, approx + w


def outward_decimal(v, up: bool, digits: int = 6) -> str:
    """A decimal of ``digits`` significant digits bounding the exact number ``v`` from above
    (``up``) or below: every printed digit is certified, and the rounding goes toward the safe
    side of a threshold (up for "at least", down for "at most"). Integers and short decimals
    that are exact print as themselves."""
    lo, hi = enclosure(v)
    f = hi if up else lo
    if f == 0:
        return "0"
    neg = f < 0
    n, d = abs(f.numerator), f.denominator
    e = _decimal_exponent(n, d)
    shift = digits - 1 - e
    num, den = (n * 10 ** shift, d) if shift >= 0 else (n, d * 10 ** (-shift))
    m, rem = divmod(num, den)
    away = up != neg           # rounding up a positive or down a negative: away from zero
    if rem and away:
        m += 1
    if m == 10 ** digits:
        m //= 10
        e += 1
    text = str(m).rstrip("0") or "0"
    return _format_digits("-" if neg else "", text, e, digits)
