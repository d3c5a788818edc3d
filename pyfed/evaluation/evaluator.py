"""The one evaluator of Lean terms: :class:`Evaluator`.

Every term tree pyfed reads (a run statement's sides, a run-free lemma, a model definition's Lean
body, a drift check's right side, a FedAvg statement's lowered terms) is evaluated here, with
Lean's semantics, over a value *domain* (:mod:`pyfed.evaluation.domains`: concrete numbers of one
arithmetic -- exact rationals with exact irrationals, balls, floats, sympy symbols -- or the PEP's
linear forms, or a run's random variables) and with the *atoms* of an instance (:class:`Atoms`:
the quantities an instance supplies, such as a run's statistics, a problem's fields, the points
and functions of a PEP's Gram basis).

Evaluation is call-by-value: an application's arguments are evaluated once, before the body. A
definition read from Lean (:class:`Definitions`) is evaluated from its body; a definition by
structural recursion on ℕ (``scaffold … r``, ``localSGD … t``) is a memoised sequence computed
bottom-up, so its cost is linear in the index and the depth of the Python stack does not grow
with it. A ``fun`` term is a :class:`~pyfed.evaluation.values.Fun` that computes each value once
per argument.

:meth:`Evaluator.eval` returns a value; :meth:`Evaluator.holds` decides a proposition (finite
quantifiers are enumerated: ``∀ t < T``, ``∀ i : Fin n``, ``∀ B ∈ s``; ``≤ᵐ[ν]`` is checked at
every outcome of positive probability). A proposition over an infinite type (``∀ x : Space d``)
raises :class:`~pyfed.evaluation.values.NotFinite`.

Why one module: the evaluator is one recursive function over the term kinds (one method per
kind, each calling the others), with the definitions' bottom-up recursion and the Mathlib
functions it applies; the domains and the atoms are where it is pluggable.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import sympy

from .domains import COMPARISONS, Domain, numbers
from .numbers import EvaluationError, to_sympy
from .values import (
    Filtration,
    FiniteSpace,
    Fun,
    NotFinite,
    Record,
    Sigma,
    Structural,
    Vec,
    condexp,
    measurable,
    memo_key,
)

__all__ = ["Evaluator", "Atoms", "Definitions", "NOT_MINE", "KINDS"]

#: "This atom hook leaves the term to the evaluator."
NOT_MINE = object()

#: The term kinds the evaluator implements (one ``_k_<kind>`` method each).
KINDS = ("num", "ident", "proj", "app", "binop", "neg", "inv", "cast", "coe", "norm", "abs", "let", "ite", "not",
         "forall", "exists", "sum", "fun", "integral", "condexp", "subscript")

_LOGIC = ("∧", "∨", "→", "↔", "∈", "∉", "≤ᵐ", "=ᵐ") + COMPARISONS


class Atoms:
    """What an instance supplies beyond the statement's bound names. Each hook answers a term
    the evaluator is about to evaluate, or :data:`NOT_MINE` to leave it to the evaluator:

    * :meth:`ident` -- a name (a problem's field, a statistic without arguments);
    * :meth:`apply` -- an application (a model quantity, a run's statistic, a class function at a
      point);
    * :meth:`norm_sq` -- ``‖u‖ ^ 2`` of the ``norm`` node (an instance's distances between points
      it keeps opaque);
    * :meth:`sum_items` -- the index values of a ``∑`` (e.g. a model's clients).

    ``overrides``: ``id(node) -> value`` for literals replaced by the constant profile."""

    overrides: dict | None = None

    def ident(self, ev, node, env):
        return NOT_MINE

    def apply(self, ev, node, env):
        return NOT_MINE

    def norm_sq(self, ev, node, env):
        return NOT_MINE

    def sum_items(self, ev, node, env):
        return NOT_MINE


class Definitions:
    """The definitions and types a term refers to (here: none). The statement reader's
    implementation (:class:`pyfed.statements.interpret.LeanDefinitions`) reads the model's Lean
    definitions and the file's own, elaborated in their scope.

    * ``get(name)`` -- the definition or None; ``decl(name)`` -- the definition (an error if none);
      a definition has ``name``, ``bare``, ``explicit`` (binders with ``name``, ``type``),
      ``cases`` (None, or ``(scrutinee or None, alternatives, _)`` of a definition by cases, each
      alternative with ``pattern`` and ``body``), ``result``, ``constructors`` (an inductive);
    * ``body(d)`` -- the elaborated body: a term, a structure value (dict field -> term) or the
      alternatives;
    * ``resolved(t)`` -- a type with its inferred parts filled in; ``implicit(meta)`` -- the term an
      implicit argument stands for (or None)."""

    def get(self, name):
        return None

    def decl(self, name):
        raise EvaluationError(None, f"no definition `{name}`")

    def body(self, d):
        return None

    def resolved(self, t):
        return t

    def implicit(self, meta):
        return None


_NO_ATOMS = Atoms()
_NO_DEFINITIONS = Definitions()

#: (evaluator class, node kind) -> its unbound ``_k_<kind>`` method (the lookup of every eval).
_K_METHODS: dict = {}


class Evaluator:
    """Evaluates terms (module docstring) over ``domain`` (default: exact numbers) with the
    instance's ``atoms`` and the ``definitions`` the terms refer to; ``context``: the caller's
    (kept for it). Definition bodies are elaborated once and cached; values of recursive
    definitions are memoised for the evaluator's lifetime."""

    def __init__(self, domain: Domain | None = None, atoms: Atoms | None = None,
                 definitions: Definitions | None = None, context=None):
        self.domain = domain if domain is not None else numbers("exact")
        self.atoms = atoms if atoms is not None else _NO_ATOMS
        self.definitions = definitions if definitions is not None else _NO_DEFINITIONS
        self.context = context
        self._kinds = self.domain.kinds
        self._overrides = self.atoms.overrides
        self._memo: dict = {}

    @property
    def model(self):
        """The definitions (``.get(name)``)."""
        return self.definitions

    # ---- errors
    def fail(self, node, why):
        raise EvaluationError(node, why)

    # ---- entry points
    def holds(self, node, env: dict) -> bool:
        """The truth of a proposition (see the module docstring)."""
        v = self.eval(node, env)
        if not isinstance(v, bool):
            self.fail(node, "not a proposition")
        return v

    def eval(self, node, env: dict):
        """The value of ``node`` with the bound names ``env`` (name -> value)."""
        if self._overrides and id(node) in self._overrides:
            return self.domain.override(node, self._overrides[id(node)])
        k = node.kind
        if self._kinds is not None and k not in self._kinds:
            self.domain.unsupported(node)
        meth = _K_METHODS.get((type(self), k))
        if meth is None:
            meth = getattr(type(self), f"_k_{k}", None)
            if meth is None:
                self.fail(node, f"cannot evaluate `{k}`")
            _K_METHODS[(type(self), k)] = meth
        out = meth(self, node, env)
        if getattr(node, "coerce", False) and isinstance(out, int) and not isinstance(out, bool):
            return self.domain.coerce(out)
        return out

    def dim(self, d, env, node) -> int:
        """The value of a dimension (a term in the statement's scope, or an int)."""
        if isinstance(d, int):
            return d
        if hasattr(d, "kind") and hasattr(d, "args") and hasattr(d, "text"):
            return int(self.eval(d, env))
        self.fail(node, f"dimension {d!r} is not known")

    # ---- names
    def _k_num(self, node, env):
        if node.ty == "vec":            # `0 : Space d`, the zero point
            return self.zero_like(node, env)
        return self.domain.numeral(node)

    def _k_ident(self, node, env):
        hit = self.atoms.ident(self, node, env)
        if hit is not NOT_MINE:
            return hit
        ref = getattr(node, "ref", None)
        name = node.value
        if ref is not None and ref[0] == "bound" or name in env:
            if name not in env:
                self.fail(node, f"`{name}` has no value")
            v = env[name]
            if node.ty == "real" and isinstance(v, int) and not isinstance(v, bool):
                return self.domain.num(v)
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
            if ref[1] == "∅":                 # the empty Finset
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
        if op in _LOGIC and self.domain.propositions:
            return self.proposition(node, op, env)
        base, expo = node.args
        if op == "^" and base.kind == "norm" and expo.kind == "num" and expo.value.denominator == 1 \
                and int(expo.value) % 2 == 0:
            # ‖u‖ ^ (2k) = (‖u‖²)^k, without a square root
            return self.domain.power(node, self.norm_sq(base, env), int(expo.value) // 2)
        a = self.eval(base, env)
        if op == "^":
            self.domain.check_exponent(node)
        b = self.eval(expo, env)
        return self.domain.binop(node, op, a, b)

    def proposition(self, node, op, env):
        if op in COMPARISONS:
            a, b = self.eval(node.args[0], env), self.eval(node.args[1], env)
            return self.domain.compare(node, op, a, b)
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
        a, s = self.eval(node.args[0], env), self.eval(node.args[1], env)
        return (a in s) == (op == "∈")

    def _k_neg(self, node, env):
        return self.domain.neg(node, self.eval(node.args[0], env))

    def _k_inv(self, node, env):
        return self.domain.inv(node, self.eval(node.args[0], env))

    def _k_cast(self, node, env):
        return self.domain.cast(node, self.eval(node.args[0], env))

    def _k_coe(self, node, env):
        return self.domain.coerce(self.eval(node.args[0], env))

    def _k_norm(self, node, env):
        sq = self.atoms.norm_sq(self, node, env)
        if sq is not NOT_MINE:
            return self.domain.sqrt(node, sq)
        return self.domain.norm(node, self.eval(node.args[0], env))

    def norm_sq(self, node, env):
        """``‖x‖ ^ 2`` of the ``norm`` node ``node``, without a square root."""
        sq = self.atoms.norm_sq(self, node, env)
        if sq is not NOT_MINE:
            return sq
        return self.domain.norm_sq(node, self.eval(node.args[0], env))

    def _k_abs(self, node, env):
        return self.domain.abs(node, self.eval(node.args[0], env))

    def _k_let(self, node, env):
        return self.eval(node.args[1], {**env, node.value: self.eval(node.args[0], env)})

    def _k_ite(self, node, env):
        return self.eval(node.args[1], env) if self.holds(node.args[0], env) else self.eval(node.args[2], env)

    def _k_not(self, node, env):
        return not self.holds(node.args[0], env)

    def ae(self, node, env):
        """``f ≤ᵐ[ν] g`` / ``f =ᵐ[ν] g`` on a finite space: at every outcome of positive mass."""
        f, g = self.eval(node.args[0], env), self.eval(node.args[1], env)
        space = self.eval(node.args[2], env) if len(node.args) > 2 else None
        if not isinstance(space, FiniteSpace):
            self.fail(node, "`≤ᵐ` needs a finite probability space")
        op = "=" if node.value == "=ᵐ" else "≤"
        for w in space.outcomes():
            if space.p[w] == 0:
                continue
            a, b = f(w) if isinstance(f, Fun) else f, g(w) if isinstance(g, Fun) else g
            if isinstance(a, Vec) and node.value == "≤ᵐ":
                self.fail(node, "`≤ᵐ` between vectors")
            if not self.domain.compare(node, op, a, b):
                return False
        return True

    # ---- quantifiers
    def _k_forall(self, node, env):
        return self.quantify(node, env, all)

    def _k_exists(self, node, env):
        return self.quantify(node, env, any)

    def quantify(self, node, env, mode):
        binders, body = node.value, node.args[0]
        ranges = []
        guard_body = body
        for b in binders:
            rng, guard_body = self.binder_range(b, guard_body, node, env)
            ranges.append(rng)
        names = [b.name for b in binders]

        def gen():
            for combo in itertools.product(*ranges):
                yield self.holds(body, {**env, **dict(zip(names, combo))})
        return mode(gen())

    def binder_range(self, b, body, node, env):
        """The finite set a bound name ranges over (its type ``Fin n`` or ``Finset (Fin n)``, or a
        bound ``x < e`` / ``x ≤ e`` / ``x ∈ s`` in front of the body), and the body."""
        t = self.definitions.resolved(getattr(b, "lty", None))
        kind = getattr(t, "kind", None)
        if kind == "fin":
            return range(self.dim(t.args[0], env, node)), body
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
            decl = self.definitions.get(t.args[0])
            if decl is not None:
                return list(decl.constructors), body
        if kind == "nat":
            bound = env.get("__nat_bound__")
            if bound is not None:
                return range(bound), body
        raise NotFinite(node)

    # ---- sums, lambdas, integrals
    def _k_sum(self, node, env):
        rng, body = node.args
        items = self.atoms.sum_items(self, node, env)
        if items is NOT_MINE:
            items = self.sum_items(node, env)
        if isinstance(items, _SymbolicRange):
            return items.sum(self, node, env)
        total = self.domain.sum_start(node)
        for x in items:
            v = self.domain.summand(node, self.eval(body, {**env, node.value: x}))
            total = v if total is None else self.domain.add(node, total, v)
        if total is None:
            return self.zero_like(node, env)
        return total

    def sum_items(self, node, env):
        """The index values of ``∑ x ∈ s, …`` (``Finset.range n``: ``0..n-1``; a symbolic ``n``: the
        symbolic sum) or of ``∑ i, …`` over ``Fin n``."""
        rng = node.args[0]
        if rng is None:
            it = self.definitions.resolved(getattr(node, "index_ty", None))
            if getattr(it, "kind", None) != "fin":
                self.fail(node, "∑ over a type that is not Fin n")
            return range(self.dim(it.args[0], env, node))
        if rng.kind == "app" and len(rng.args) == 2 and rng.head_name() == "Finset.range":
            n = self.eval(rng.args[1], env)
            if isinstance(n, sympy.Basic) and n.free_symbols:
                return _SymbolicRange(n)
            return range(int(n))
        items = self.eval(rng, env)
        return sorted(items, key=_sort_key) if isinstance(items, frozenset) else list(items)

    def zero_like(self, node, env):
        lt = self.definitions.resolved(getattr(node, "lty", None))
        if getattr(lt, "kind", None) == "vec":
            return self.domain.zero_vector(self.dim(lt.args[0], env, node))
        if node.ty == "nat":
            return 0
        return self.domain.num(0)

    def _k_fun(self, node, env):
        binders = node.value
        domains = getattr(node, "domains", [None] * len(binders))

        def make(i, bound):
            if i == len(binders):
                return self.eval(node.args[0], {**env, **bound})
            b = binders[i]
            n = None
            dt = self.definitions.resolved(domains[i]) if i < len(domains) else None
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
            term = self.domain.smul(node, space.p[w], v)
            total = term if total is None else self.domain.add(node, total, term)
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
        hit = self.atoms.apply(self, node, env)
        if hit is not NOT_MINE:
            return hit
        ref = getattr(node, "ref", None)
        args = node.args[1:]
        if ref is not None and ref[0] == "structural":
            return self.structural(node, ref[1], env)
        if ref is not None and ref[0] == "mathlib":
            return self.apply_mathlib(ref[1], node, args, env)
        if ref is not None and ref[0] == "decl":
            vals = [self.eval(a, env) for a in args]
            return self.decl_value(node, ref[1], vals, env, node)
        if ref is None and node.head_name() in MATHLIB:
            return self.apply_mathlib(node.head_name(), node, args, env)
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
        """Structural propositions decidable on finite spaces; the others raise
        :class:`~pyfed.evaluation.values.Structural`."""
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
        """A Mathlib function used as a value (unapplied)."""
        return Fun(lambda x: self.apply_mathlib(name, node, [_Value(x)], env), name=name)

    def apply_mathlib(self, name, node, args, env):
        """A Mathlib function applied to the terms ``args`` (or already evaluated :class:`_Value` s)."""
        def val(a):
            return a.value if isinstance(a, _Value) else self.eval(a, env)
        d = self.domain
        if name == "inner":
            u, v = val(args[1]), val(args[2])
            return d.inner(node, u, v)
        if name == "gradient":
            f = val(args[0])
            g = gradient_of(f, node)
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
            return comb(int(vals[0]), int(vals[1]))
        if name == "Real.sqrt":
            return d.sqrt(node, vals[0])
        if name == "Real.rpow":
            return d.rpow(node, vals[0], vals[1])
        if name in ("min", "max"):
            return d.minmax(node, name, vals[0], vals[1])
        if name == "abs":
            return d.abs(node, vals[0])
        if name == "Real.exp":
            return d.exp(node, vals[0])
        if name == "Real.log":
            return d.log(node, vals[0])
        self.fail(node, f"`{name}`")

    def universe(self, node, env):
        """``Finset.univ`` of a ``Finset (Fin n)`` (its type from the elaboration)."""
        lt = self.definitions.resolved(getattr(node, "lty", None))
        if getattr(lt, "kind", None) == "finset" and getattr(lt.args[0], "kind", None) == "fin":
            return frozenset(range(self.dim(lt.args[0].args[0], env, node)))
        self.fail(node, "`Finset.univ` of a type that is not Fin n")

    # ---- definitions
    def decl(self, name):
        return self.definitions.decl(name)

    def decl_value(self, node, name, vals, env, app):
        """The value of the definition ``name`` applied to ``vals`` (its implicit arguments from the
        elaboration's unification, evaluated in ``env``)."""
        d = self.decl(name)
        key = None
        if d.cases is not None and d.cases[0] is None and len(vals) >= len(d.explicit):
            # a recursive definition: one value per argument tuple, so the recursion's earlier
            # steps are shared by every later step that reads them
            key = ("decl", name, tuple(memo_key(v) for v in vals[:len(d.explicit)]))
            if key in self._memo:
                out = self._memo[key][1]
                for x in vals[len(d.explicit):]:
                    out = self.call(node, out, x)
                return out
        local = {}
        for b, meta in (getattr(app, "implicits", None) or {}).items():
            z = self.definitions.implicit(meta)
            if z is not None:
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

    def body_value(self, node, d, local: dict):
        body = self.definitions.body(d)
        if d.cases is not None:
            return self.by_cases(node, d, body, local)
        if isinstance(body, dict):
            return Record(d.result.text.split()[0] if d.result is not None else d.bare,
                          {f: self.eval(t, local) for f, t in body.items()})
        if body is None:
            self.fail(node, f"the definition `{d.name}` has no body the evaluator reads")
        return self.eval(body, local)

    def by_cases(self, node, d, cases, local):
        """A definition by cases: ``match`` on a constructor, or structural recursion on ℕ (a
        memoised sequence computed bottom-up, module docstring)."""
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


#: Mathlib functions the evaluator applies by name when the reader left the name unresolved.
MATHLIB = frozenset({"min", "max", "Real.sqrt", "Real.rpow", "Real.exp", "Real.log", "abs", "inner", "Nat.choose"})


class _SymbolicRange:
    """``Finset.range n`` for a symbolic ``n``: the sum is sympy's ``Sum`` over a bound symbol
    ``_bound_<name>`` (a drift check's ``∑ r ∈ Finset.range T``)."""

    def __init__(self, n):
        self.n = n

    def sum(self, ev, node, env):
        bound = sympy.Symbol(f"_bound_{node.value}")
        body = ev.eval(node.args[1], {**env, node.value: bound})
        return sympy.Sum(to_sympy(body), (bound, 0, self.n - 1))


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


def _ctor_match(pattern_name: str, value) -> bool:
    if isinstance(value, tuple):       # a constructor applied to arguments
        value = value[0]
    return isinstance(value, str) and (value == pattern_name or value.endswith("." + pattern_name)
                                       or pattern_name.endswith("." + value.rsplit(".", 1)[-1]))


def _sort_key(x):
    if isinstance(x, frozenset):
        return (len(x), sorted(x))
    return (0, x)


def _infer_implicits(d, local: dict, vals):
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


def gradient_of(f, node):
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
                g = gradient_of(clients(i), node)(x)
                total = g if total is None else total + g
            return total.scale(Fraction(1, n))
        return grad
    raise EvaluationError(node, f"the gradient of `{getattr(f, 'name', f)}` is not known on this instance")

