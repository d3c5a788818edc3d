"""Value domains of the evaluator (:mod:`pyfed.evaluation.evaluator`): what numbers, vectors and
functions are, and how Lean's operations combine them.

The evaluator walks a term and hands every operation on values to its domain: a literal
(:meth:`Domain.numeral`), an arithmetic operator (:meth:`Domain.binop`), a power, a norm, a
comparison, a Mathlib function (:meth:`Domain.sqrt`, :meth:`Domain.rpow`, …). A domain may
evaluate only some term kinds (:attr:`Domain.kinds`) and refuse the rest with its own reason
(:meth:`Domain.unsupported`).

:class:`Numbers` is the domain of concrete values: ℕ as ``int`` with Lean's truncated
arithmetic, ℝ as numbers of one arithmetic (``exact`` rationals with exact sympy irrationals,
``ball`` python-flint balls, ``float`` mpmath, ``symbolic`` sympy expressions; see
:mod:`pyfed.evaluation.numbers`), points as :class:`~pyfed.evaluation.values.Vec`, functions as
:class:`~pyfed.evaluation.values.Fun` (pointwise arithmetic). Other domains live with the values
they build: the PEP's linear forms in the Gram entries (:mod:`pyfed.engines.pep.forms`), the
FedAvg run's random variables (:mod:`pyfed.models.fedavg.access`).
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from .numbers import (
    NAT_OPS,
    EvaluationError,
    arith,
    compare,
    lean_abs,
    lean_div,
    lean_exp,
    lean_log,
    lean_minmax,
    lean_rpow,
    lean_sqrt,
    lift,
    nat_arith,
)
from .values import Fun, Record, Vec, is_real, real, zero_vec

__all__ = ["Domain", "Numbers", "numbers", "COMPARISONS"]

#: The comparison operators (``≥``/``>`` are decided as ``≤``/``<`` with the sides swapped).
COMPARISONS = ("≤", "<", "=", "≠", "≥", ">")


def _refused(what: str):
    """A domain operation that refuses: ``what`` is not evaluated in the domain."""
    def op(self, node, *args):
        self.fail(node, f"{what} is not evaluated in this value domain")
    return op


class Domain:
    """The operations of a value domain (the methods' defaults refuse with
    :class:`~pyfed.evaluation.numbers.EvaluationError`). ``arithmetic``: the arithmetic of its
    numbers (:data:`pyfed.evaluation.numbers.MODES`); ``kinds``: the term kinds it evaluates
    (None: every kind); ``propositions``: it decides comparisons and connectives."""

    arithmetic = "exact"
    kinds: frozenset | None = None
    propositions = True

    def fail(self, node, why):
        raise EvaluationError(node, why)

    def unsupported(self, node):
        """Refuse a term of a kind outside :attr:`kinds`."""
        self.fail(node, f"cannot evaluate `{node.kind}`")

    # ---- literals and conversions
    def num(self, v):
        """The exact rational ``v`` as a number of this domain."""
        return lift(v, self.arithmetic)

    def numeral(self, node):
        """A numeral (``node.value`` a Fraction; ``node.ty`` its Lean type)."""
        if node.ty == "nat":
            return int(node.value)
        return self.num(node.value)

    def override(self, node, v):
        """A literal replaced by ``v`` (the constant profile varies a statement's numerals)."""
        return int(v) if node.ty == "nat" else self.num(v)

    def coerce(self, x):
        """``↑n``: a natural number as a real, anything else unchanged."""
        return self.num(x) if isinstance(x, int) and not isinstance(x, bool) else x

    def cast(self, node, x):
        """``(x : T)``: a natural number ascribed ℝ becomes a real."""
        if node.ty == "real" and isinstance(x, int) and not isinstance(x, bool):
            return self.num(x)
        return x

    def zero_vector(self, d: int):
        return zero_vec(d)

    # ---- operations (the domains override those they evaluate; the others refuse)
    binop = _refused("this operator")
    power = _refused("a power")
    neg = _refused("a negation")
    inv = _refused("an inverse")
    smul = _refused("`•`")
    norm_sq = _refused("a norm")
    compare = _refused("a comparison")
    sqrt = _refused("Real.sqrt")
    rpow = _refused("Real.rpow")
    minmax = _refused("min / max")
    abs = _refused("an absolute value")
    log = _refused("Real.log")
    exp = _refused("Real.exp")
    inner = _refused("an inner product")

    def check_exponent(self, node):
        """Refuse the exponent of ``node`` (``a ^ e``) before it is evaluated (default: accept)."""

    def sum_start(self, node):
        """The value a sum ``∑`` starts from: 0 of its type for ℕ and ℝ, None (its first term) for
        anything else (vectors, functions)."""
        if node.ty == "nat":
            return 0
        if node.ty == "real":
            return self.num(0)
        return None

    def summand(self, node, v):
        """A term of a sum ``∑`` (default: as it is)."""
        return v

    def add(self, node, a, b):
        """``a + b`` inside a sum ``∑``."""
        return self.binop(node, "+", a, b)

    def norm(self, node, x):
        """``‖x‖``."""
        return self.sqrt(node, self.norm_sq(node, x))


class Numbers(Domain):
    """Concrete values (module docstring) in the arithmetic ``mode`` (``"exact"``, ``"ball"``,
    ``"float"``, ``"symbolic"``): literals enter in it, and an irrational ``Real.sqrt`` /
    ``Real.rpow`` is given in it; values of other arithmetics met on the way (an instance's balls
    or floats) combine by :func:`~pyfed.evaluation.numbers.unify`."""

    def __init__(self, mode: str = "exact"):
        self.arithmetic = mode

    def __repr__(self):
        return f"Numbers({self.arithmetic!r})"

    def binop(self, node, op, a, b):
        if op == "•":
            return self.smul(node, a, b)
        if op == "^":
            return self.power(node, a, b)
        if op == "^r":
            return self.rpow(node, a, b)
        if isinstance(a, Vec) or isinstance(b, Vec):
            # the numeral 0 among points is the zero of `Space d` (`u + 0`, `0 - v`), as Lean reads it
            if not isinstance(a, Vec) and a == 0:
                a = Vec(Fraction(0) for _ in b)
            if not isinstance(b, Vec) and b == 0:
                b = Vec(Fraction(0) for _ in a)
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            self.fail(node, f"`{op}` of vectors")
        if isinstance(a, Fun) or isinstance(b, Fun):
            return self.pointwise(node, op, a, b)
        if node.ty == "nat" and isinstance(a, int) and isinstance(b, int) and op in NAT_OPS:
            return nat_arith(op, a, b)
        a, b = real(a), real(b)
        if op in ("+", "-", "*"):
            return arith(op, a, b)
        if op == "/":
            return lean_div(a, b, node)
        self.fail(node, f"operator `{op}` on real numbers")

    def pointwise(self, node, op, a, b):
        """Pointwise arithmetic of functions (``fun ω => …`` terms written without the lambda)."""
        def at(x):
            va = a(x) if isinstance(a, Fun) else a
            vb = b(x) if isinstance(b, Fun) else b
            if isinstance(va, Vec) or isinstance(vb, Vec):
                return va + vb if op == "+" else va - vb
            return arith(op, real(va), real(vb)) if op != "/" else lean_div(real(va), real(vb), node)
        return Fun(at, name=f"({node.text[:30]})")

    def power(self, node, a, n):
        if isinstance(a, Vec):
            self.fail(node, "power of a vector")
        if isinstance(n, sympy.Basic) and n.free_symbols:      # a symbolic exponent (a drift check's r + 1)
            return sympy.sympify(a) ** n
        return a ** int(n)

    def rpow(self, node, x, y):
        return lean_rpow(real(x), real(y), self.arithmetic, node)

    def neg(self, node, x):
        if isinstance(x, Vec):
            return -x
        if node.ty == "nat":
            return 0             # Lean: -n = 0 in ℕ
        return -real(x)

    def inv(self, node, x):
        return lean_div(self.num(1), real(x), node)

    def smul(self, node, c, x):
        c = real(c)
        if isinstance(x, Vec):
            return x.scale(c)
        if isinstance(x, Fun):
            return Fun(lambda w: self.smul(node, c, x(w)), n=x.n, name=x.name)
        if is_real(x):
            return arith("*", c, real(x))
        self.fail(node, "`•` of a value that is not a vector")

    def add(self, node, a, b):
        if isinstance(a, Vec):
            return a + b
        if isinstance(a, int) and isinstance(b, int) and node.ty == "nat":
            return a + b
        return arith("+", real(a), real(b))

    def norm_sq(self, node, x):
        if isinstance(x, Vec):
            return x.norm_sq()
        if is_real(x):
            return arith("*", real(x), real(x))
        self.fail(node, "norm of a value that is not a vector")

    def sqrt(self, node, x):
        return lean_sqrt(real(x), self.arithmetic, node)

    def minmax(self, node, head, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b) if head == "min" else max(a, b)
        return lean_minmax(head, real(a), real(b), node)

    def abs(self, node, x):
        return lean_abs(real(x))

    def log(self, node, x):
        return lean_log(real(x))

    def exp(self, node, x):
        return lean_exp(real(x))

    def inner(self, node, u, v):
        return u.dot(v)

    def compare(self, node, op, a, b) -> bool:
        if op in ("≥", ">"):
            a, b, op = b, a, {"≥": "≤", ">": "<"}[op]
        if isinstance(a, Vec) or isinstance(b, Vec):
            if op not in ("=", "≠"):
                self.fail(node, f"`{op}` between vectors")
            eq = len(a) == len(b) and all(compare(x, y) == 0 for x, y in zip(a, b))
            return eq if op == "=" else not eq
        if isinstance(a, (frozenset, str, Record)) or isinstance(b, (frozenset, str, Record)):
            eq = a == b
            return eq if op == "=" else not eq
        if isinstance(a, bool) or isinstance(b, bool):
            self.fail(node, "comparison of propositions")
        s = compare(real(a), real(b)) if not (isinstance(a, int) and isinstance(b, int)) else (b > a) - (b < a)
        return {"≤": s >= 0, "<": s > 0, "=": s == 0, "≠": s != 0}[op]


_NUMBERS = {}


def numbers(mode: str = "exact") -> Numbers:
    """The (stateless, shared) :class:`Numbers` domain of arithmetic ``mode``."""
    d = _NUMBERS.get(mode)
    if d is None:
        d = _NUMBERS[mode] = Numbers(mode)
    return d
