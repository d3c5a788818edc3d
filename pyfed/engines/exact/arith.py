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
from flint import arb, arb_mat, fmpq, fmpq_mat

from ...exact import _q, fraction_of, precision, to_arb  # noqa: F401 (precision, to_arb re-exported)

__all__ = ["ExactField", "BallField", "to_arb", "fraction_of", "precision"]


_FROM_COPRIME = getattr(Fraction, "_from_coprime_ints", None)   # Python >= 3.12


def _coprime_fraction(p: int, q: int) -> Fraction:
    """The Fraction p/q of coprime p, q with q > 0 (python-flint keeps every fmpq so), without the
    gcd Fraction(p, q) computes: CPython's gcd of two 10^4-bit integers takes milliseconds, and the
    exact moments of a long run are such numbers."""
    if _FROM_COPRIME is not None:
        return _FROM_COPRIME(p, q)
    try:
        return Fraction(p, q, _normalize=False)   # Python 3.11
    except TypeError:  # pragma: no cover - neither private constructor
        return Fraction(p, q)


class ExactField:
    """Exact rational arithmetic (python-flint fmpq / fmpq_mat)."""

    exact = True
    name = "exact rational (python-flint fmpq_mat)"
    #: the matrix type; ``matcls(rows, cols, entries_list)`` without the checks of :meth:`mat`
    matcls = fmpq_mat

    def scalar(self, value) -> fmpq:
        f = fraction_of(value) if not isinstance(value, (float, np.floating, mpmath.mpf)) else None
        if f is None:
            raise ValueError(f"exact arithmetic requested but {value!r} is not an exact rational")
        return _q(f)

    def mat(self, rows: int, cols: int, entries=None):
        if entries is None:
            return fmpq_mat(rows, cols)
        return fmpq_mat(rows, cols, entries if isinstance(entries, list) else list(entries))

    def public(self, v) -> Fraction:
        """An fmpq as a Python Fraction (the type pyfed reports)."""
        return _coprime_fraction(int(v.p), int(v.q))

    @contextlib.contextmanager
    def active(self):
        yield self


class BallField:
    """Certified ball arithmetic (python-flint arb / arb_mat) at ``prec`` bits."""

    exact = False
    matcls = arb_mat

    def __init__(self, prec: int = 128):
        self.prec = int(prec)
        self.name = f"certified ball arithmetic (python-flint arb_mat, {self.prec} bits)"

    def scalar(self, value) -> arb:
        return to_arb(value)

    def mat(self, rows: int, cols: int, entries=None):
        if entries is None:
            return arb_mat(rows, cols)
        return arb_mat(rows, cols, entries if isinstance(entries, list) else list(entries))

    def public(self, v) -> arb:
        return v

    def active(self):
        return precision(self.prec)
