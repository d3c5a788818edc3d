"""Exact sparse polynomials over ℚ for the proof engine: a polynomial is a dict
``{exponent tuple: Fraction}`` over an ordered tuple of sympy symbols (:class:`Ring`).

The conversions from sympy (:meth:`Ring.poly`) refuse anything that is not a polynomial with
rational coefficients in the ring's symbols (:class:`NotPolynomial`), so nothing inexact or
transcendental enters a certificate; :meth:`Ring.expr` turns a polynomial back into a sympy
expression for the exact identity check and for reports.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

__all__ = ["Ring", "NotPolynomial", "monomial_text", "mono_mul", "mono_div", "mono_degree"]


class NotPolynomial(Exception):
    """An expression that is not a polynomial with rational coefficients in the ring's symbols."""


def mono_mul(a: tuple, b: tuple) -> tuple:
    """The product of two exponent tuples."""
    return tuple(x + y for x, y in zip(a, b))


def mono_div(a: tuple, b: tuple) -> tuple | None:
    """``a / b`` when ``b`` divides ``a``, else None."""
    out = tuple(x - y for x, y in zip(a, b))
    return out if all(e >= 0 for e in out) else None


def mono_degree(a: tuple) -> int:
    """Total degree of an exponent tuple."""
    return sum(a)


def monomial_text(mono: tuple, symbols) -> str:
    """``x*y^2`` (``1`` for the constant monomial)."""
    parts = []
    for s, e in zip(symbols, mono):
        if e == 1:
            parts.append(str(s))
        elif e > 1:
            parts.append(f"{s}^{e}")
    return "*".join(parts) or "1"


class Ring:
    """Polynomials in ``symbols`` (a tuple of sympy Symbols, order fixed) with rational
    coefficients, as dicts ``{exponents: Fraction}`` without zero coefficients."""

    def __init__(self, symbols):
        self.symbols = tuple(symbols)
        self.index = {s: i for i, s in enumerate(self.symbols)}
        self.one_mono = (0,) * len(self.symbols)

    # ------------------------------------------------------------------ conversions
    def poly(self, expr) -> dict:
        """The polynomial of a sympy expression (NotPolynomial when it is not one over ℚ in the
        ring's symbols)."""
        expr = sympy.sympify(expr)
        extra = expr.free_symbols - set(self.symbols)
        if extra:
            raise NotPolynomial(f"symbols {sorted(map(str, extra))} outside the ring")
        if not self.symbols:
            expr = sympy.nsimplify(expr) if expr.is_Float else expr
            if not expr.is_Rational:
                raise NotPolynomial(f"{expr} is not a rational number")
            return {self.one_mono: Fraction(int(expr.p), int(expr.q))} if expr != 0 else {}
        try:
            p = sympy.Poly(sympy.expand(expr), *self.symbols)
        except (sympy.PolynomialError, sympy.GeneratorsNeeded) as exc:
            raise NotPolynomial(str(exc)) from None
        out = {}
        for mono, c in p.terms():
            if not c.is_Rational:
                raise NotPolynomial(f"coefficient {c} is not rational")
            if c != 0:
                out[tuple(mono)] = Fraction(int(c.p), int(c.q))
        return out

    def expr(self, p: dict):
        """The sympy expression of a polynomial."""
        total = sympy.Integer(0)
        for mono, c in p.items():
            term = sympy.Rational(c.numerator, c.denominator)
            for s, e in zip(self.symbols, mono):
                if e:
                    term = term * s ** e
            total = total + term
        return total

    def var(self, s) -> dict:
        """The polynomial of one symbol."""
        mono = [0] * len(self.symbols)
        mono[self.index[s]] = 1
        return {tuple(mono): Fraction(1)}

    def const(self, c) -> dict:
        c = Fraction(c)
        return {self.one_mono: c} if c != 0 else {}

    def monomial(self, mono: tuple) -> dict:
        return {mono: Fraction(1)}

    # ------------------------------------------------------------------ arithmetic
    @staticmethod
    def add(a: dict, b: dict, scale=Fraction(1)) -> dict:
        """``a + scale * b``."""
        out = dict(a)
        for m, c in b.items():
            v = out.get(m, Fraction(0)) + scale * c
            if v:
                out[m] = v
            else:
                out.pop(m, None)
        return out

    @staticmethod
    def mul(a: dict, b: dict) -> dict:
        out: dict = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                m = mono_mul(ma, mb)
                out[m] = out.get(m, Fraction(0)) + ca * cb
        return {m: c for m, c in out.items() if c}

    @staticmethod
    def scale(a: dict, c) -> dict:
        c = Fraction(c)
        return {m: c * v for m, v in a.items()} if c else {}

    @staticmethod
    def degree(a: dict) -> int:
        return max((mono_degree(m) for m in a), default=0)

    def text(self, p: dict) -> str:
        """A readable text of the polynomial (for reports)."""
        return str(sympy.expand(self.expr(p)))
