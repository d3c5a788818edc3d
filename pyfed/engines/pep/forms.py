"""The PEP's value domain for the evaluator (:class:`LinearForms`): a term evaluated over a PEP is
a rational scalar (:class:`~fractions.Fraction`), a vector (a rational combination of the Gram
basis' leaves, :class:`~pyfed.engines.pep.exact_pep.Vec`), a linear form in the Gram entries and
function values (:class:`~pyfed.engines.pep.exact_pep.Form`) or a multiple of a norm
(:class:`Norm`, compared through its square). Anything that is not such a value -- a product of two
non-constant terms, a division by one, a norm without a square inside a sum, a proposition -- is
refused with the reason, as an ``error`` (the caller's exception class)."""

from __future__ import annotations

from fractions import Fraction

from ...evaluation.domains import Domain
from .exact_pep import Form, Vec, _q, sq

__all__ = ["LinearForms", "Norm", "as_form"]


class Norm:
    """c · ‖v‖ (allowed only as a whole side, compared through squares, or squared)."""

    def __init__(self, v: Vec, c=Fraction(1)):
        self.v, self.c = v, _q(c)


def as_form(v, error=ValueError) -> Form:
    """A scalar or form as a :class:`Form` (``error`` for anything else)."""
    if isinstance(v, Form):
        return v
    if isinstance(v, (Fraction, int)):
        return Form({}, {}, _q(v))
    raise error("a side that is not a scalar")


class LinearForms(Domain):
    """Scalars, vectors, forms and norms of one PEP (module docstring); ``error``: the exception
    class of a refusal (its message is the reason)."""

    arithmetic = "exact"
    kinds = frozenset({"num", "ident", "cast", "coe", "neg", "inv", "norm", "binop", "app", "sum"})
    propositions = False

    def __init__(self, error=ValueError):
        self.error = error

    def fail(self, node, why):
        raise self.error(why)

    def unsupported(self, node):
        k = node.kind
        raise self.error(f"`{node.text}` ({'∃' if k == 'exists' else k}) is not a linear form in the Gram entries "
                         "and function values")

    def num(self, v):
        return _q(v)

    def numeral(self, node):
        return _q(node.value)

    def coerce(self, x):
        return x

    def cast(self, node, x):
        return x

    def zero_vector(self, d: int):
        return Vec()

    def check_exponent(self, node):
        e = node.args[1]
        if e.kind != "num" or _q(e.value).denominator != 1:
            raise self.error(f"`{node.text}`: exponent not a natural number")

    def power(self, node, a, n):
        n = int(n)
        if isinstance(a, Norm) and n == 2:
            return (a.c * a.c) * sq(a.v)
        if isinstance(a, Fraction):
            return a ** n
        if isinstance(a, Form) and n == 1:
            return a
        raise self.error(f"`{node.text}` is not a linear form in the Gram entries (a power other than ‖u‖ ^ 2)")

    def binop(self, node, op, a, b):
        if op == "^":
            return self.power(node, a, b)
        if op in ("+", "-"):
            return self._add(a, b, op, node)
        if op in ("*", "•"):
            return self._mul(a, b, node)
        if op == "/":
            return self._div(a, b, node)
        raise self.error(f"`{node.text}`: operator {op} inside a side")

    def neg(self, node, x):
        return self._mul(Fraction(-1), x, node)

    def inv(self, node, x):
        return self._div(Fraction(1), x, node)

    def norm(self, node, x):
        if not isinstance(x, Vec):
            raise self.error(f"`{node.text}`: a norm of something that is not a vector")
        return Norm(x)

    def norm_sq(self, node, x):
        return self.power(node, self.norm(node, x), 2)

    def sum_start(self, node):
        return None

    def summand(self, node, v):
        if isinstance(v, Norm):
            raise self.error(f"`{node.text}`: a sum of norms without squares is not a linear form")
        return v

    def add(self, node, a, b):
        return self._add(a, b, "+", node)

    @staticmethod
    def scalar(x):
        """``x`` as a Fraction when it is a constant (a number or a form without variables), else None."""
        if isinstance(x, Fraction):
            return x
        if isinstance(x, int):
            return Fraction(x)
        if isinstance(x, Form) and not x.gram and not x.fval:
            return x.const
        return None

    def _add(self, a, b, op, node):
        s = 1 if op == "+" else -1
        if isinstance(a, Vec) and isinstance(b, Vec):
            return a + s * b
        if isinstance(a, Norm) or isinstance(b, Norm):
            raise self.error(f"`{node.text}`: a norm ‖u‖ without a square is not a linear form in the Gram entries")
        if isinstance(a, Vec) or isinstance(b, Vec):
            raise self.error(f"`{node.text}`: a vector added to a scalar")
        sa, sb = self.scalar(a), self.scalar(b)
        if sa is not None and sb is not None:
            return sa + s * sb
        fa = a if isinstance(a, Form) else Form({}, {}, _q(a))
        fb = b if isinstance(b, Form) else Form({}, {}, _q(b))
        return fa + s * fb

    def _mul(self, a, b, node):
        sa, sb = self.scalar(a), self.scalar(b)
        if sa is None and sb is None:
            raise self.error(f"`{node.text}`: a product of two non-constant terms is not a linear form in the Gram "
                             "entries")
        if sa is None:
            a, b, sa, sb = b, a, sb, sa
        if isinstance(b, Norm):
            return Norm(b.v, sa * b.c)
        if isinstance(b, (Vec, Form)):
            return sa * b
        return sa * sb

    def _div(self, a, b, node):
        sb = self.scalar(b)
        if sb is None:
            raise self.error(f"`{node.text}`: a division by a non-constant term is not a linear form")
        if sb == 0:
            raise self.error(f"`{node.text}`: division by zero at the chosen parameters")
        return self._mul(1 / sb, a, node)
