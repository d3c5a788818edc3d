"""The values Lean terms evaluate to beyond numbers (numbers: :mod:`pyfed.evaluation.numbers`).

* ``Space d``: :class:`Vec` (a tuple of reals, exact where the data are); ``Fin n``: ``int``;
  ``Finset``: ``frozenset``;
* functions: :class:`Fun` (a Python function with an optional domain size, a gradient and the
  class properties it is certified to have, see :mod:`pyfed.checkers.families`);
* a sample space and its measure: :class:`FiniteSpace` (outcomes ``0..n-1`` with rational
  probabilities); a point ω is an ``int``; a filtration: :class:`Filtration` (partitions), one
  of its σ-algebras: :class:`Sigma`;
* the model's structures (``ScaffoldState``, ``Problem``): :class:`Record`; inductives: their
  constructor's name (``"SCAFFOLD.ControlOption.optionI"``).

:func:`condexp` and :func:`measurable` are the conditional expectation and measurability on a
finite space. :class:`NotFinite` and :class:`Structural` are the two propositions an
evaluation cannot decide by enumeration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .numbers import EvaluationError, arith, compare, lean_div

__all__ = ["Vec", "vec", "zero_vec", "Fun", "FiniteSpace", "Filtration", "Sigma", "Record", "NotFinite",
           "Structural", "memo_key", "is_real", "real", "condexp", "measurable"]


class NotFinite(Exception):
    """A proposition quantifies over an infinite type (``∀ x : Space d``): not decidable by
    enumeration. ``node`` is the quantifier."""

    def __init__(self, node, why=""):
        super().__init__(why or f"`{node.text}` quantifies over an infinite type")
        self.node = node


class Structural(Exception):
    """A structural proposition (``HasGradientAt``, ``ConvexOn``, ``Convexity P μ`` …) that the
    instance does not certify; ``name`` is its head."""

    def __init__(self, name, node):
        super().__init__(f"`{name}` is not certified by the instance")
        self.name, self.node = name, node


class Vec(tuple):
    """A point of ``Space d`` (a tuple of reals, exact where the data are)."""

    def __add__(self, o):
        return Vec(arith("+", a, b) for a, b in zip(self, o))

    def __sub__(self, o):
        return Vec(arith("-", a, b) for a, b in zip(self, o))

    def __neg__(self):
        return Vec(-a for a in self)

    def scale(self, c):
        return Vec(arith("*", c, a) for a in self)

    def dot(self, o):
        out = Fraction(0)
        for a, b in zip(self, o):
            out = arith("+", out, arith("*", a, b))
        return out

    def norm_sq(self):
        return self.dot(self)

    @property
    def dim(self):
        return len(self)


def vec(xs) -> Vec:
    """A :class:`Vec` of exact coordinates (ints and strings such as ``"1/3"`` become Fractions)."""
    return Vec(Fraction(x) if isinstance(x, (int, str)) else x for x in xs)


def zero_vec(d: int) -> Vec:
    """The origin of ``Space d``."""
    return Vec([Fraction(0)] * d)


def memo_key(v):
    """A memo key for an argument value: the value itself when it is hashable, else its identity
    (a memo keeps the value alive, so the identity is not reused)."""
    try:
        hash(v)
        return ("v", type(v).__name__, v)
    except TypeError:
        return ("id", id(v))


@dataclass
class Fun:
    """A function value: ``fn(arg)``; ``n``: the size of its ``Fin n`` domain when it has one;
    ``grad(x)``: its gradient (a :class:`Vec`) for a function on ``Space d``; ``props``: the class
    properties it is certified to have (``{"convex": True, "smooth": β, "strongly_convex": μ}``);
    ``name``: for messages; ``pure``: the value at an argument depends on the argument alone (a
    Lean ``fun`` term or a recursive definition's sequence), so each value is computed once per
    argument (call-by-value: a state's field read twice, ``s.ci i`` then ``newControl … s i``,
    costs one evaluation, and a recursion over rounds costs linear time in the round index)."""

    fn: object
    n: int | None = None
    grad: object = None
    props: dict = field(default_factory=dict)
    name: str = "function"
    pure: bool = False
    _values: dict | None = field(default=None, repr=False, compare=False)

    def __call__(self, x):
        if not self.pure:
            return self.fn(x)
        key = memo_key(x)
        if self._values is None:
            self._values = {}
        hit = self._values.get(key)
        if hit is not None:
            return hit[1]
        out = self.fn(x)
        self._values[key] = (x, out)     # the argument is kept alive: an identity key is not reused
        return out


@dataclass
class FiniteSpace:
    """A finite probability space: outcomes ``0..n-1`` with probabilities ``p`` (Fractions
    summing to 1). It is both the sample space ``Ω`` and its measure ``ν``."""

    p: tuple

    @property
    def n(self):
        return len(self.p)

    def outcomes(self):
        return range(len(self.p))


@dataclass
class Filtration:
    """A filtration of a finite space: ``parts[j]`` is the partition generating ``F j`` (a tuple of
    block labels, one per outcome); indices beyond the last are the last partition (the
    filtration extended constantly)."""

    parts: tuple

    def at(self, j: int):
        return self.parts[min(int(j), len(self.parts) - 1)]


@dataclass
class Record:
    """A value of a model structure: ``fields`` (name -> value), ``name`` the structure's."""

    name: str
    fields: dict

    def get(self, fld):
        return self.fields[fld]


@dataclass
class Sigma:
    """A σ-algebra of a finite space given by a partition (block labels per outcome)."""

    labels: tuple


def is_real(v) -> bool:
    """True for a number (not a vector, function, set, record, space, name or proposition)."""
    return not isinstance(v, (Vec, Fun, frozenset, Record, FiniteSpace, Filtration, Sigma, str, bool))


def real(v):
    """A number where a real is expected (ℕ values as Fractions); a proposition is an error."""
    if isinstance(v, bool):
        raise EvaluationError(None, "a proposition where a number is expected")
    if isinstance(v, int):
        return Fraction(v)
    return v


def condexp(space, sigma, f, node=None):
    """``E[f | σ]`` on a finite space: the block averages of ``f`` over the partition of ``σ``
    (a :class:`Sigma`, or a partition's labels), as a function of the outcome."""
    labels = sigma.labels if isinstance(sigma, Sigma) else sigma
    if not isinstance(space, FiniteSpace):
        raise EvaluationError(node, "conditional expectation needs a finite probability space")
    mass, acc = {}, {}
    for w in space.outcomes():
        lab = labels[w]
        v = f(w) if isinstance(f, Fun) or callable(f) else f
        mass[lab] = arith("+", mass.get(lab, Fraction(0)), space.p[w])
        term = v.scale(space.p[w]) if isinstance(v, Vec) else arith("*", space.p[w], real(v))
        acc[lab] = term if lab not in acc else (acc[lab] + term if isinstance(term, Vec) else arith("+", acc[lab], term))
    out = {}
    for lab, m in mass.items():
        if m == 0:
            out[lab] = acc[lab]
        else:
            a = acc[lab]
            out[lab] = a.scale(Fraction(1) / m) if isinstance(a, Vec) else lean_div(a, m, node)
    return Fun(lambda w: out[labels[w]], name="condExp")


def measurable(sigma, f) -> bool:
    """``f`` is measurable for the σ-algebra of a partition: constant on its blocks."""
    labels = sigma.labels if isinstance(sigma, Sigma) else sigma
    seen = {}
    for w, lab in enumerate(labels):
        v = f(w)
        if lab in seen:
            a = seen[lab]
            same = (all(compare(x, y) == 0 for x, y in zip(a, v)) if isinstance(v, Vec)
                    else compare(real(a), real(v)) == 0)
            if not same:
                return False
        else:
            seen[lab] = v
    return True
