"""A FedAvg statement's terms on the one evaluator of Lean terms (:mod:`pyfed.evaluation`): the
value domain of the run's random variables (:class:`RandomVariables`: deterministic numbers of one
arithmetic and :class:`Rand`, linear in the statistics backend's parts) and the lowering of the
FedAvg reader's terms (:class:`pyfed.models.fedavg.ir.Term`) onto the evaluator's node kinds
(:func:`lower`; the model's quantities and the run's statistics become atoms the instance
answers, :class:`pyfed.models.fedavg.access.Evaluator`)."""

from __future__ import annotations

import weakref
from fractions import Fraction

from ...errors import InputError
from ...evaluation.domains import Domain
from ...evaluation.numbers import nat_arith
from ...lean.terms import Node
from .ir import Term
from .scalars import Scalars

__all__ = ["Rand", "NotLinear", "RandomVariables", "lower"]


class NotLinear(Exception):
    """The statement combines the run's random variables non-linearly (products, powers,
    divisions by them): the engines need a linear combination."""


class Rand:
    """A random variable of the run, linear in the backend's parts: ``const + part``.

    ``const`` is a deterministic number; ``part`` is what the statistics backend computes
    (None: no random part) and is combined only by the backend's ``add``/``scale``."""

    __slots__ = ("const", "part")

    def __init__(self, const, part):
        self.const, self.part = const, part


class RandomVariables(Domain):
    """The value domain of a FedAvg statement's terms for the evaluator: ℕ as ``int`` (client
    indices too), deterministic reals in the arithmetic of ``S`` (:class:`Scalars`), random
    variables as :class:`Rand` combined linearly through ``backend`` (:class:`NotLinear` for a
    product, power or division by one)."""

    def __init__(self, S: Scalars, backend):
        self.S, self.backend = S, backend
        self.arithmetic = S.mode

    def fail(self, node, why):
        raise InputError("statement", f"`{node.text}`: {why}")

    def num(self, v):
        return self.S.lift(v)

    def real(self, v):
        return self.S.lift(v) if isinstance(v, int) else v

    def cast(self, node, x):
        return self.S.lift(int(x))

    def sum_start(self, node):
        return 0 if node.ty == "nat" else self.S.lift(0)

    def add(self, node, a, b):
        if node.ty == "nat":
            return int(a) + int(b)
        if isinstance(a, Rand) or isinstance(b, Rand):
            return self.add_rand(a, b)
        return self.S.add(a, self.real(b))

    def add_rand(self, a, b) -> Rand:
        """``a + b`` with a random variable among them."""
        if not isinstance(a, Rand):
            a, b = b, a
        if not isinstance(b, Rand):
            return Rand(self.S.add(a.const, b), a.part)
        part = a.part if b.part is None else (b.part if a.part is None else self.backend.add(a.part, b.part))
        return Rand(self.S.add(a.const, b.const), part)

    def scale(self, r: Rand, s) -> Rand:
        """The random variable ``r`` times the deterministic ``s``."""
        s = self.real(s)
        if isinstance(s, Rand):
            raise NotLinear("a product of random variables")
        return Rand(self.S.mul(r.const, s), None if r.part is None else self.backend.scale(r.part, s))

    def binop(self, node, op, a, b):
        if op == "^":
            return self.power(node, a, b)
        if op == "^r":
            return self.rpow(node, a, b)
        if node.ty == "nat":
            return nat_arith(op, int(a), int(b))
        S = self.S
        a, b = self.real(a), self.real(b)
        ra, rb = isinstance(a, Rand), isinstance(b, Rand)
        if op in ("+", "-"):
            if not ra and not rb:
                return S.add(a, b) if op == "+" else S.sub(a, b)
            if op == "-":
                b = self.scale(b, S.lift(-1)) if rb else S.neg(b)
            return self.add_rand(a, b)
        if op == "*":
            if ra and rb:
                raise NotLinear(f"`{node.text}` multiplies two random variables")
            if ra or rb:
                return self.scale(a, b) if ra else self.scale(b, a)
            return S.mul(a, b)
        if op == "/":
            if rb:
                raise NotLinear(f"`{node.text}` divides by a random variable")
            if ra:
                if S.is_zero(b):
                    return S.lift(0)
                return self.scale(a, S.div(S.lift(1), b))
            return S.div(a, b)
        raise InputError("statement", f"`{node.text}`: `%` of real numbers")

    def power(self, node, a, n):
        if isinstance(a, Rand):
            if n == 1:
                return a
            raise NotLinear(f"`{node.text}` is a power of a random variable")
        if node.ty == "nat":
            return int(a) ** int(n)
        return self.S.pow(self.real(a), int(n))

    def rpow(self, node, x, y):
        return self.S.rpow(self.real(x), self.real(y))

    def neg(self, node, x):
        if isinstance(x, Rand):
            return self.scale(x, self.S.lift(-1))
        return self.S.neg(self.real(x))

    def inv(self, node, x):
        return self.S.div(self.S.lift(1), self.real(x))

    def abs(self, node, x):
        return self.S.abs(self.real(x))

    def sqrt(self, node, x):
        return self.S.sqrt(self.real(x))

    def minmax(self, node, head, a, b):
        if node.ty == "nat":
            return min(int(a), int(b)) if head == "min" else max(int(a), int(b))
        return self.S.minmax(head, self.real(a), self.real(b))


#: Term op -> the evaluator's node kind (binary operators keep their op; ``rpow`` is ``^r``).
_KINDS = {"neg": "neg", "inv": "inv", "cast": "cast", "abs": "abs", "sum": "sum"}
_MATHLIB = {"sqrt": "Real.sqrt", "min": "min", "max": "max"}
_LOWERED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def lower(t: Term) -> Node:
    """``t`` as a term of the evaluator (:mod:`pyfed.evaluation.evaluator`): arithmetic as its node
    kinds (sort -> ``ty``), the model's quantities and the run's statistics as atoms (``ref``
    ``("atom",)``, answered by the instance). Cached per term."""
    out = _LOWERED.get(t)
    if out is None:
        out = _LOWERED[t] = _lower(t)
    return out


def _lower(t: Term) -> Node:
    n = t.node
    pos = dict(line=n.line if n is not None else 0, col=n.col if n is not None else 0, text=t.text)
    ty = "nat" if t.sort in ("nat", "client") else "real"
    op = t.op
    if op == "num" and t.sort != "client":
        out = Node("num", Fraction(t.value), [], ty=ty, **pos)
    elif op in ("+", "-", "*", "/", "%", "^", "rpow"):
        out = Node("binop", "^r" if op == "rpow" else op, [lower(a) for a in t.args], ty=ty, **pos)
    elif op in _KINDS and op != "sum":
        out = Node(_KINDS[op], None, [lower(a) for a in t.args], ty=ty, **pos)
    elif op == "sum":
        bound, body = t.args
        out = Node("sum", t.value, [None if bound is None else lower(bound), lower(body)], ty=ty, **pos)
    elif op in _MATHLIB:
        head = Node("ident", _MATHLIB[op], [], **pos)
        out = Node("app", None, [head] + [lower(a) for a in t.args], ty=ty, **pos)
        out.ref = ("mathlib", _MATHLIB[op])
    elif op in ("fn", "stat", "condexp", "integral"):
        out = Node("app", None, [Node("ident", op, [], **pos)], ty=ty, **pos)
        out.ref = ("atom",)
    else:                   # numerals of Fin M, names, the problem's fields and points, …
        out = Node("ident", t.value, [], ty=ty, **pos)
        out.ref = ("atom",)
    out.term = t
    return out
