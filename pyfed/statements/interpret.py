"""Evaluation of run-free statements on concrete instances, in exact arithmetic.

The terms elaborated by :mod:`pyfed.statements.elaboration` are evaluated with Lean's semantics on
values of these kinds:

* ℕ: ``int`` (truncated subtraction, floor division, ``x / 0 = 0``); ℝ: exact numbers (``Fraction``;
  an irrational ``Real.sqrt`` / ``Real.rpow`` value stays an exact sympy number), or certified
  balls and mpmath numbers where the instance's data are (the weaker arithmetic wins, as in
  :func:`pyfed.statements.evaluate.unify`);
* ``Space d``: :class:`Vec` (a tuple of reals); ``Fin n``: ``int``; ``Finset``: ``frozenset``;
* functions: :class:`Fun` (a Python function with an optional domain size, a gradient and the
  class properties it is certified to have, see :class:`pyfed.statements.families`);
* a sample space and its measure: :class:`FiniteSpace` (outcomes ``0..n-1`` with rational
  probabilities); a point ω is an ``int``; a filtration: :class:`Filtration` (partitions);
* the model's structures (``ScaffoldState``, ``Problem``): :class:`Record`; inductives: their
  constructor's name (``"SCAFFOLD.ControlOption.optionI"``).

The model's definitions are evaluated from their Lean bodies (:mod:`pyfed.statements.vocabulary`),
including definitions by cases (``localPath``, ``scaffold``) and structure values
(``scaffoldRound``): the Lean file is what a definition means.

:func:`evaluate` returns a value; :func:`holds` decides a proposition (finite quantifiers are
enumerated: ``∀ t < T``, ``∀ i : Fin n``, ``∀ B ∈ s``; ``≤ᵐ[ν]`` is checked at every outcome of
positive probability). A proposition that quantifies over an infinite type (``∀ x : Space d``)
raises :class:`NotFinite`: the engines decide those from the instance's construction.

Why one module: the Interpreter is one recursive evaluator over the elaborated term kinds (its
methods call each other per kind), and the value kinds (Vec, Fun, FiniteSpace, Filtration, Record)
are what it builds and consumes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from ..lean.terms import Node
from .evaluate import (
    NAT_OPS,
    EvaluationError,
    _div,
    _minmax,
    _rpow,
    _sqrt,
    arith,
    compare,
    nat_arith,
    to_exact,
)
from .vocabulary import ModelDecl, model_declarations

__all__ = ["Vec", "Fun", "FiniteSpace", "Filtration", "Record", "Interpreter", "NotFinite", "Structural",
           "vec", "zero_vec"]


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


# --------------------------------------------------------------------------- values

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
    return Vec(Fraction(x) if isinstance(x, (int, str)) else x for x in xs)


def zero_vec(d: int) -> Vec:
    return Vec([Fraction(0)] * d)


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
        key = _memo_key(x)
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


# --------------------------------------------------------------------------- interpreter

def _is_real(v) -> bool:
    return not isinstance(v, (Vec, Fun, frozenset, Record, FiniteSpace, Filtration, Sigma, str, bool))


def _memo_key(v):
    """A memo key for an argument value: the value itself when it is hashable, else its identity
    (the memo keeps the value alive, so the identity is not reused)."""
    try:
        hash(v)
        return ("v", type(v).__name__, v)
    except TypeError:
        return ("id", id(v))


#: (interpreter class, node kind) -> its unbound ``_k_<kind>`` method (the lookup of every eval).
_K_METHODS: dict = {}


class Interpreter:
    """Evaluates the elaborated terms of one statement; ``file_decls`` are the file's own defs
    (they shadow the model's). Definition bodies are elaborated once and cached."""

    def __init__(self, file_decls: dict | None = None, context=None):
        self.file_decls = dict(file_decls or {})
        self.model = model_declarations()
        self.context = context
        self._bodies: dict = {}
        self._memo: dict = {}

    # ---- errors
    def fail(self, node, why):
        raise EvaluationError(node, why)

    # ---- entry points
    def holds(self, node: Node, env: dict) -> bool:
        """The truth of a proposition (see the module docstring)."""
        v = self.eval(node, env)
        if not isinstance(v, bool):
            self.fail(node, "not a proposition")
        return v

    def eval(self, node: Node, env: dict):
        k = node.kind
        meth = _K_METHODS.get((type(self), k))
        if meth is None:
            meth = getattr(type(self), f"_k_{k}", None)
            if meth is None:
                self.fail(node, f"cannot evaluate `{k}`")
            _K_METHODS[(type(self), k)] = meth
        out = meth(self, node, env)
        if getattr(node, "coerce", False) and isinstance(out, int) and not isinstance(out, bool):
            return Fraction(out)
        return out

    # ---- atoms
    def _k_num(self, node, env):
        if node.ty == "nat":
            return int(node.value)
        return Fraction(node.value)

    def _k_ident(self, node, env):
        ref = getattr(node, "ref", None)
        name = node.value
        if ref is not None and ref[0] == "bound" or name in env:
            if name not in env:
                self.fail(node, f"`{name}` has no value")
            v = env[name]
            if node.ty == "real" and isinstance(v, int) and not isinstance(v, bool):
                return Fraction(v)
            return v
        if ref is not None and ref[0] == "field":
            v = env[ref[1]]
            for fld in ref[2].split("."):
                v = self.field(node, v, fld)
            return v
        if ref is not None and ref[0] == "ctor":
            return ref[1]
        if ref is not None and ref[0] == "mathlib":
            if ref[1] == "Finset.univ":
                return self.universe(node, env)
            if ref[1] == "∅":
                return frozenset()
            return self.mathlib(ref[1], node, env)
        if ref is not None and ref[0] == "decl":
            return self.decl_value(node, ref[1], [], env, node)
        if ref is not None and ref[0] == "structural":
            raise Structural(ref[1], node)
        self.fail(node, f"`{name}` has no value")

    def field(self, node, v, fld):
        if isinstance(v, frozenset) and fld == "card":
            return len(v)
        if isinstance(v, Record):
            if fld not in v.fields:
                self.fail(node, f"no field `{fld}` in {v.name}")
            return v.fields[fld]
        if fld == "toReal":
            return v
        self.fail(node, f"field `{fld}` of a value that has none")

    def _k_proj(self, node, env):
        return self.field(node, self.eval(node.args[0], env), node.value)

    # ---- arithmetic
    def _k_binop(self, node, env):
        op = node.value
        if op in ("≤", "<", "=", "≠", "≥", ">"):
            return self.compare(node, env)
        if op in ("≤ᵐ", "=ᵐ"):
            return self.ae(node, env)
        if op == "∧":
            return self.holds(node.args[0], env) and self.holds(node.args[1], env)
        if op == "∨":
            return self.holds(node.args[0], env) or self.holds(node.args[1], env)
        if op == "→":
            return (not self.holds(node.args[0], env)) or self.holds(node.args[1], env)
        if op == "↔":
            return self.holds(node.args[0], env) == self.holds(node.args[1], env)
        if op in ("∈", "∉"):
            a, s = self.eval(node.args[0], env), self.eval(node.args[1], env)
            return (a in s) == (op == "∈")
        if op == "•":
            c = self.eval(node.args[0], env)
            x = self.eval(node.args[1], env)
            return self.smul(node, c, x)
        if op == "^" and node.args[0].kind == "norm" and node.args[1].kind == "num" \
                and node.args[1].value.denominator == 1 and int(node.args[1].value) % 2 == 0:
            return self.norm_sq(node.args[0], env) ** (int(node.args[1].value) // 2)
        a = self.eval(node.args[0], env)
        if op in ("^", "^r"):
            b = self.eval(node.args[1], env)
            if op == "^":
                return a ** int(b) if not isinstance(a, Vec) else self.fail(node, "power of a vector")
            return _rpow(a, b, _Val(), node)
        b = self.eval(node.args[1], env)
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
            return self.fun_arith(node, op, a, b)
        if node.ty == "nat" and isinstance(a, int) and isinstance(b, int) and op in NAT_OPS:
            return nat_arith(op, a, b)
        a, b = _real(a), _real(b)
        if op in ("+", "-", "*"):
            return arith(op, a, b)
        if op == "/":
            return _div(a, b, node)
        self.fail(node, f"operator `{op}`")

    def fun_arith(self, node, op, a, b):
        """Pointwise arithmetic of functions (``fun ω => …`` terms written without the lambda)."""
        def at(x):
            va = a(x) if isinstance(a, Fun) else a
            vb = b(x) if isinstance(b, Fun) else b
            if isinstance(va, Vec) or isinstance(vb, Vec):
                return va + vb if op == "+" else va - vb
            return arith(op, _real(va), _real(vb)) if op != "/" else _div(_real(va), _real(vb), node)
        return Fun(at, name=f"({node.text[:30]})")

    def smul(self, node, c, x):
        c = _real(c)
        if isinstance(x, Vec):
            return x.scale(c)
        if isinstance(x, Fun):
            return Fun(lambda w: self.smul(node, c, x(w)), n=x.n, name=x.name)
        if _is_real(x):
            return arith("*", c, _real(x))
        self.fail(node, "`•` of a value that is not a vector")

    def _k_neg(self, node, env):
        x = self.eval(node.args[0], env)
        if isinstance(x, Vec):
            return -x
        if node.ty == "nat":
            return 0
        return -_real(x)

    def _k_inv(self, node, env):
        x = _real(self.eval(node.args[0], env))
        return _div(Fraction(1), x, node)

    def _k_cast(self, node, env):
        x = self.eval(node.args[0], env)
        if node.ty == "real" and isinstance(x, int) and not isinstance(x, bool):
            return Fraction(x)
        return x

    def _k_coe(self, node, env):
        x = self.eval(node.args[0], env)
        return Fraction(x) if isinstance(x, int) and not isinstance(x, bool) else x

    def _k_norm(self, node, env):
        sq = self.norm_sq(node, env)
        return _sqrt(sq, _Val(), node)

    def norm_sq(self, node, env):
        x = self.eval(node.args[0], env)
        if isinstance(x, Vec):
            return x.norm_sq()
        if _is_real(x):
            return arith("*", _real(x), _real(x))
        self.fail(node, "norm of a value that is not a vector")

    def _k_abs(self, node, env):
        x = _real(self.eval(node.args[0], env))
        return x if compare(0, x) >= 0 else -x

    def _k_let(self, node, env):
        return self.eval(node.args[1], {**env, node.value: self.eval(node.args[0], env)})

    def _k_ite(self, node, env):
        return self.eval(node.args[1], env) if self.holds(node.args[0], env) else self.eval(node.args[2], env)

    def _k_not(self, node, env):
        return not self.holds(node.args[0], env)

    # ---- comparisons
    def compare(self, node, env):
        op = node.value
        a, b = self.eval(node.args[0], env), self.eval(node.args[1], env)
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
        s = compare(_real(a), _real(b)) if not (isinstance(a, int) and isinstance(b, int)) else (b > a) - (b < a)
        return {"≤": s >= 0, "<": s > 0, "=": s == 0, "≠": s != 0}[op]

    def ae(self, node, env):
        """``f ≤ᵐ[ν] g`` / ``f =ᵐ[ν] g`` on a finite space: at every outcome of positive mass."""
        f, g = self.eval(node.args[0], env), self.eval(node.args[1], env)
        space = self.eval(node.args[2], env) if len(node.args) > 2 else None
        if not isinstance(space, FiniteSpace):
            self.fail(node, "`≤ᵐ` needs a finite probability space")
        for w in space.outcomes():
            if space.p[w] == 0:
                continue
            a, b = f(w) if isinstance(f, Fun) else f, g(w) if isinstance(g, Fun) else g
            if isinstance(a, Vec):
                ok = all(compare(x, y) == 0 for x, y in zip(a, b))
                if node.value == "≤ᵐ":
                    self.fail(node, "`≤ᵐ` between vectors")
            elif node.value == "=ᵐ":
                ok = compare(_real(a), _real(b)) == 0
            else:
                ok = compare(_real(a), _real(b)) >= 0
            if not ok:
                return False
        return True

    # ---- quantifiers
    def _k_forall(self, node, env):
        return self.quantify(node, env, all)

    def _k_exists(self, node, env):
        return self.quantify(node, env, any)

    def quantify(self, node, env, mode):
        binders, body = node.value, node.args[0]
        doms = []
        guard_body = body
        for b in binders:
            dom, guard_body = self.domain(b, guard_body, node, env)
            doms.append(dom)
        names = [b.name for b in binders]

        def gen():
            for combo in itertools.product(*doms):
                yield self.holds(body, {**env, **dict(zip(names, combo))})
        return mode(gen())

    def domain(self, b, body, node, env):
        """The finite set a bound name ranges over (its type ``Fin n`` or ``Finset (Fin n)``, or a
        bound ``x < e`` / ``x ≤ e`` / ``x ∈ s`` in front of the body)."""
        t = _resolved(getattr(b, "lty", None))
        kind = getattr(t, "kind", None)
        if kind == "fin":
            n = self.dim(t.args[0], env, node)
            return range(n), body
        if body.kind == "binop" and body.value == "→":
            g = body.args[0]
            if g.kind == "binop" and g.args[0].kind == "ident" and g.args[0].value == b.name:
                if g.value in ("<", "≤") and kind in ("nat", None, "meta"):
                    hi = self.eval(g.args[1], env)
                    return range(int(hi) + (1 if g.value == "≤" else 0)), body
                if g.value == "∈":
                    return sorted(self.eval(g.args[1], env), key=_sort_key), body
        if kind == "finset":
            inner = t.args[0]
            if getattr(inner, "kind", None) == "fin":
                n = self.dim(inner.args[0], env, node)
                return [frozenset(c) for r in range(n + 1) for c in itertools.combinations(range(n), r)], body
        if kind == "point":             # an outcome of a finite sample space
            space = env.get(t.args[0]) if t.args else None
            if isinstance(space, tuple) and space and space[0] == "Ω":
                return range(space[1]), body
            if isinstance(space, FiniteSpace):
                return space.outcomes(), body
        if kind == "enum":
            decl = self.model.get(t.args[0])
            if decl is not None:
                return list(decl.constructors), body
        if kind == "nat":
            bound = env.get("__nat_bound__")
            if bound is not None:
                return range(bound), body
        raise NotFinite(node)

    def dim(self, d, env, node) -> int:
        """The value of a dimension (a Node in the statement's scope, or an int)."""
        if isinstance(d, int):
            return d
        if isinstance(d, Node):
            return int(self.eval(d, env))
        self.fail(node, f"dimension {d!r} is not known")

    # ---- sums, lambdas, integrals
    def _k_sum(self, node, env):
        rng, body = node.args
        if rng is not None:
            items = self.eval(rng, env)
            items = sorted(items, key=_sort_key) if isinstance(items, frozenset) else list(items)
        else:
            it = _resolved(getattr(node, "index_ty", None))
            if getattr(it, "kind", None) != "fin":
                self.fail(node, "∑ over a type that is not Fin n")
            items = range(self.dim(it.args[0], env, node))
        total = None
        for x in items:
            v = self.eval(body, {**env, node.value: x})
            total = v if total is None else self.add(node, total, v)
        if total is None:
            return self.zero_like(node, env)
        return total

    def add(self, node, a, b):
        if isinstance(a, Vec):
            return a + b
        if isinstance(a, int) and isinstance(b, int) and node.ty == "nat":
            return a + b
        return arith("+", _real(a), _real(b))

    def zero_like(self, node, env):
        lt = _resolved(getattr(node, "lty", None))
        if getattr(lt, "kind", None) == "vec":
            return zero_vec(self.dim(lt.args[0], env, node))
        if node.ty == "nat":
            return 0
        return Fraction(0)

    def _k_fun(self, node, env):
        binders = node.value
        domains = getattr(node, "domains", [None] * len(binders))

        def make(i, bound):
            if i == len(binders):
                return self.eval(node.args[0], {**env, **bound})
            b = binders[i]
            n = None
            dt = _resolved(domains[i]) if i < len(domains) else None
            if getattr(dt, "kind", None) == "fin":
                try:
                    n = self.dim(dt.args[0], env, node)
                except Exception:
                    n = None
            return Fun(lambda x, i=i, b=b: make(i + 1, {**bound, b.name: x}), n=n, name=node.text[:30], pure=True)
        return make(0, {})

    def _k_integral(self, node, env):
        space = self.eval(node.args[1], env)
        if not isinstance(space, FiniteSpace):
            self.fail(node, "∫ needs a finite probability space")
        total = None
        for w in space.outcomes():
            v = self.eval(node.args[0], {**env, node.value: w})
            term = v.scale(space.p[w]) if isinstance(v, Vec) else arith("*", space.p[w], _real(v))
            total = term if total is None else self.add(node, total, term)
        return total

    def _k_condexp(self, node, env):
        space = self.eval(node.args[0], env)
        f = self.eval(node.args[1], env)
        sigma = self.eval(node.args[2], env)
        return condexp(space, sigma, f, node)

    def _k_subscript(self, node, env):
        raise Structural(node.value, node)

    # ---- applications
    def _k_app(self, node, env):
        ref = getattr(node, "ref", None)
        args = node.args[1:]
        if ref is not None and ref[0] == "structural":
            return self.structural(node, ref[1], env)
        if ref is not None and ref[0] == "mathlib":
            return self.apply_mathlib(ref[1], node, args, env)
        if ref is not None and ref[0] == "decl":
            vals = [self.eval(a, env) for a in args]
            return self.decl_value(node, ref[1], vals, env, node)
        f = self.eval(node.args[0], env)
        for a in args:
            x = self.eval(a, env)
            f = self.call(node, f, x)
        return f

    def call(self, node, f, x):
        if isinstance(f, Fun):
            return f(x)
        if isinstance(f, Filtration):       # `F j`: the σ-algebra of level j
            return Sigma(f.at(int(x)))
        if callable(f):
            return f(x)
        self.fail(node, f"`{node.args[0].text[:30]}` is not a function")

    def structural(self, node, name, env):
        """Structural propositions decidable on finite spaces; the others raise :class:`Structural`."""
        base = name.removeprefix("MeasureTheory.").removeprefix("ProbabilityTheory.")
        args = node.args[1:]
        head = node.args[0]
        if head.kind == "subscript" and head.value == "StronglyMeasurable":
            sigma = self.eval(head.args[0], env)
            f = self.eval(args[0], env)
            return measurable(sigma, f)
        if base in ("MemLp", "Integrable", "Measurable"):
            return True            # every function on a finite space
        raise Structural(base, node)

    def mathlib(self, name, node, env):
        return Fun(lambda x: self.apply_mathlib(name, node, [_Value(x)], env), name=name)

    def apply_mathlib(self, name, node, args, env):
        def val(a):
            return a.value if isinstance(a, _Value) else self.eval(a, env)
        if name == "inner":
            u, v = val(args[1]), val(args[2])
            return u.dot(v)
        if name == "gradient":
            f = val(args[0])
            g = gradient_of(f, node, self)
            if len(args) == 1:
                return Fun(g, name=f"gradient {getattr(f, 'name', '')}")
            return g(val(args[1]))
        if name in ("condExp", "MeasureTheory.condExp"):
            sigma, space, f = val(args[0]), val(args[1]), val(args[2])
            out = condexp(space, sigma, f, node)
            for a in args[3:]:
                out = out(val(a))
            return out
        vals = [val(a) for a in args]
        if name == "Finset.range":
            return frozenset(range(int(vals[0])))
        if name == "Finset.univ":
            return self.universe(node, env)
        if name == "Finset.powersetCard":
            k, s = int(vals[0]), vals[1]
            return frozenset(frozenset(c) for c in itertools.combinations(sorted(s, key=_sort_key), k))
        if name == "Finset.card":
            return len(vals[0])
        if name == "Nat.choose":
            from math import comb
            return comb(int(vals[0]), int(vals[1]))
        if name == "Real.sqrt":
            return _sqrt(_real(vals[0]), _Val(), node)
        if name == "Real.rpow":
            return _rpow(_real(vals[0]), _real(vals[1]), _Val(), node)
        if name in ("min", "max"):
            a, b = vals
            if isinstance(a, int) and isinstance(b, int):
                return min(a, b) if name == "min" else max(a, b)
            return _minmax(name, _real(a), _real(b), node)
        if name == "abs":
            x = _real(vals[0])
            return x if compare(0, x) >= 0 else -x
        if name == "Real.exp":
            return sympy.exp(sympy.sympify(to_exact(_real(vals[0]))))
        if name == "Real.log":
            # Mathlib's Real.log is log |x| with log 0 = 0 (`Real.log_zero`, `Real.log_abs`): total
            x = _real(vals[0])
            sign = compare(0, x)         # the sign of x - 0
            if sign == 0:
                return 0
            return sympy.log(sympy.sympify(to_exact(x if sign > 0 else -x)))
        self.fail(node, f"`{name}`")

    def universe(self, node, env):
        """``Finset.univ`` of a ``Finset (Fin n)`` (its type from the elaboration)."""
        lt = _resolved(getattr(node, "lty", None))
        if getattr(lt, "kind", None) == "finset" and getattr(lt.args[0], "kind", None) == "fin":
            return frozenset(range(self.dim(lt.args[0].args[0], env, node)))
        self.fail(node, "`Finset.univ` of a type that is not Fin n")

    # ---- the model's definitions
    def decl(self, name) -> ModelDecl:
        d = self.file_decls.get(name) or self.model.get(name)
        if d is None:
            raise EvaluationError(None, f"no definition `{name}`")
        return d

    def decl_value(self, node, name, vals, env, app):
        """The value of the model definition ``name`` applied to ``vals`` (its implicit arguments
        from the elaboration's unification, evaluated in ``env``)."""
        d = self.decl(name)
        key = None
        if d.cases is not None and d.cases[0] is None and len(vals) >= len(d.explicit):
            # a recursive definition: one value per argument tuple, so the recursion's earlier
            # steps are shared by every later step that reads them
            key = ("decl", name, tuple(_memo_key(v) for v in vals[:len(d.explicit)]))
            if key in self._memo:
                out = self._memo[key][1]
                for x in vals[len(d.explicit):]:
                    out = self.call(node, out, x)
                return out
        local = {}
        for b, meta in (getattr(app, "implicits", None) or {}).items():
            from .elaboration import zonk
            z = zonk(meta)
            if isinstance(z, Node):
                try:
                    local[b] = self.eval(z, env)
                except EvaluationError:
                    pass
        explicit = d.explicit
        if len(vals) < len(explicit):
            # a partial application: a function of the missing explicit arguments
            def more(x, vals=vals):
                return self.decl_value(node, name, list(vals) + [x], env, app)
            out = Fun(more, name=d.bare)
            out.partial = (d.name, list(vals))
            return out
        for b, v in zip(explicit, vals):
            local[b.name] = v
        _infer_implicits(d, local, vals)
        extra = vals[len(explicit):]
        out = self.body_value(node, d, local)
        if key is not None:
            self._memo[key] = (vals, out)
        for x in extra:
            out = self.call(node, out, x)
        return out

    def body_value(self, node, d: ModelDecl, local: dict):
        body = self.elaborated_body(d)
        if d.cases is not None:
            return self.by_cases(node, d, body, local)
        if isinstance(body, dict):
            return Record(d.result.text.split()[0] if d.result is not None else d.bare,
                          {f: self.eval(t, local) for f, t in body.items()})
        if body is None:
            self.fail(node, f"the definition `{d.name}` has no body the interpreter reads")
        return self.eval(body, local)

    def by_cases(self, node, d, cases, local):
        scrut, alts, _ = d.cases
        if scrut is not None:           # `match x with | C … => …`
            v = local[scrut]
            for case in alts:
                if case.pattern[0] == "ctor" and _ctor_match(case.pattern[1], v):
                    return self._case_body(case, local)
            self.fail(node, f"no case of `{d.name}` for {v!r}")

        def at(k, local=local):
            key = (d.name, id(local), int(k))
            if key in self._memo:
                return self._memo[key][1]
            if int(k) > 0 and (d.name, id(local), int(k) - 1) not in self._memo:
                # bottom-up: the earlier steps first, each once, so the depth of the Python stack
                # does not grow with the index (structural recursion reads only smaller indices)
                j = int(k) - 1
                while j > 0 and (d.name, id(local), j - 1) not in self._memo:
                    j -= 1
                for i in range(j, int(k)):
                    _force(at(i))
            for case in alts:
                if case.pattern[0] == "nat0" and int(k) == 0:
                    out = self._case_body(case, local)
                    break
                if case.pattern[0] == "succ" and int(k) > 0:
                    inner = dict(local)
                    inner[case.pattern[1]] = int(k) - 1
                    out = self._case_body(case, inner)
                    break
            else:
                self.fail(node, f"no case of `{d.name}` for {k}")
            self._memo[key] = (local, out)
            return out
        return Fun(at, name=d.bare, pure=True)

    def _case_body(self, case, local):
        if isinstance(case.body, dict):
            return Record("structure", {f: self.eval(t, local) for f, t in case.body.items()})
        return self.eval(case.body, local)

    def elaborated_body(self, d: ModelDecl):
        """The body of ``d`` elaborated in ``d``'s own scope (cached; see
        :func:`pyfed.statements.elaboration.elaborate_body`)."""
        if d.name in self._bodies:
            return self._bodies[d.name]
        from .elaboration import elaborate_body
        body = elaborate_body(d, self.file_decls)
        self._bodies[d.name] = body
        return body


def _force(v):
    """Evaluate a step of a recursion ahead of its use: a function value on a finite domain
    (``fun k => …`` over ``Fin workers``) at every point of the domain, so the next step's reads
    hit computed values instead of descending through every earlier step at once."""
    if isinstance(v, Fun) and v.pure and v.n is not None:
        for x in range(v.n):
            _force(v(x))


class _Value:
    """An already evaluated argument."""

    def __init__(self, value):
        self.value = value


class _Val:
    """The arithmetic context of :mod:`pyfed.statements.evaluate` helpers: exact."""

    arithmetic = "exact"

    def num(self, v):
        return Fraction(v)


def _ctor_match(pattern_name: str, value) -> bool:
    if isinstance(value, tuple):       # a constructor applied to arguments
        value = value[0]
    return isinstance(value, str) and (value == pattern_name or value.endswith("." + pattern_name)
                                       or pattern_name.endswith("." + value.rsplit(".", 1)[-1]))


def _resolved(t):
    if t is None:
        return None
    from .elaboration import resolved
    return resolved(t)


def _real(v):
    if isinstance(v, bool):
        raise EvaluationError(None, "a proposition where a number is expected")
    if isinstance(v, int):
        return Fraction(v)
    return v


def _sort_key(x):
    if isinstance(x, frozenset):
        return (len(x), sorted(x))
    return (0, x)


def _infer_implicits(d: ModelDecl, local: dict, vals):
    """Implicit arguments not bound by the elaboration, inferred from the runtime values (a
    ``Space d`` argument's dimension, a ``Fin N → …`` argument's domain size)."""
    for b, v in zip(d.explicit, vals):
        t = b.type
        if t is None:
            continue
        h = t.head_name()
        if h in ("Space", "ModelSpace", "SCAFFOLD.Space") and t.kind == "app" and isinstance(v, Vec):
            nm = t.args[1]
            if nm.kind == "ident" and nm.value not in local:
                local[nm.value] = len(v)
        if t.kind == "binop" and t.value == "→":
            dom = t.args[0]
            if dom.head_name() == "Fin" and dom.kind == "app" and isinstance(v, Fun) and v.n is not None:
                nm = dom.args[1]
                if nm.kind == "ident" and nm.value not in local:
                    local[nm.value] = v.n


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
        term = v.scale(space.p[w]) if isinstance(v, Vec) else arith("*", space.p[w], _real(v))
        acc[lab] = term if lab not in acc else (acc[lab] + term if isinstance(term, Vec) else arith("+", acc[lab], term))
    out = {}
    for lab, m in mass.items():
        if m == 0:
            out[lab] = acc[lab]
        else:
            a = acc[lab]
            out[lab] = a.scale(Fraction(1) / m) if isinstance(a, Vec) else _div(a, m, node)
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
                    else compare(_real(a), _real(v)) == 0)
            if not same:
                return False
        else:
            seen[lab] = v
    return True


def gradient_of(f, node, interp):
    """The gradient of a function value: its own ``grad`` when it has one; for the model's
    ``objective f`` (a partial application, ``N⁻¹ ∑ᵢ fᵢ``) the average of the clients' gradients."""
    if isinstance(f, Fun) and f.grad is not None:
        return f.grad
    part = getattr(f, "partial", None)
    if part is not None and part[0].rsplit(".", 1)[-1] == "objective" and len(part[1]) == 1:
        clients = part[1][0]            # objective f = N⁻¹ ∑ᵢ fᵢ: the gradient is the average gradient
        n = clients.n

        def grad(x):
            total = None
            for i in range(n):
                g = gradient_of(clients(i), node, interp)(x)
                total = g if total is None else total + g
            return total.scale(Fraction(1, n))
        return grad
    raise EvaluationError(node, f"the gradient of `{getattr(f, 'name', f)}` is not known on this instance")
