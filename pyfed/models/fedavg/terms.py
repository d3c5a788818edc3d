"""Terms of a statement about a FedAvg run, elaborated: every name resolved as Lean resolves it
(the statement's binders, the model ``FedAvg`` of :mod:`pyfed.models.fedavg.vocabulary`, the
file's own ``def`` s, inlined) and every subterm given a sort:

* ``nat`` (ℕ, Lean's truncated subtraction and floor division), ``real`` (a number of the
  instance: parameters, ``P.L``, the model's arithmetic definitions …);
* ``rand``: a real random variable of the run (``roundLoss R t``, ``μ[f | R.history (t * τ)]``,
  ``fun ω => …``; a function ``Ω → ℝ`` and its value at the bound ``ω`` are the same term);
* ``client`` (``Fin M``), ``point`` / ``rpoint`` (a point of the model space, deterministic or
  random: only inside ``‖u - v‖ ^ 2`` and ``objective P.f u``).

Arithmetic follows Lean's ``binop%`` rule: the leaves of a tree of ``+ - * / %`` (and the base
of ``^``) are coerced to the largest sort among them and the expected one (ℕ < ℝ < random);
an exponent is elaborated on its own (a natural exponent is ``x ^ n``, a real one
``Real.rpow``).

The terms (:class:`Term`) and the user's defs are :mod:`pyfed.models.fedavg.ir`; the run's random
variables and the inlining of defs are :mod:`pyfed.models.fedavg.random_terms`. The result is a small
tree of :class:`Term` nodes that the FedAvg engines evaluate
(:mod:`pyfed.models.fedavg.access`). Anything outside the subset raises
:class:`~pyfed.lean.terms.LeanSyntaxError` at its ``file:line:col``.
"""

from __future__ import annotations

from ...lean.terms import LeanSyntaxError
from ...statements.declarations import resolve_name, unknown_identifier
from . import vocabulary as fm
from .ir import (
    RANK,
    RUN_FIELDS,
    SORTS,
    Entry,
    FedAvgDef,
    Term,
    binder_kind,
    describe_kind,
    entry_kind,
    is_norm_sq,
    read_def,
)
from .random_terms import RunTerms

__all__ = ["Term", "Entry", "FedAvgElaborator", "SORTS", "RUN_FIELDS", "read_def", "FedAvgDef", "binder_kind"]

_ARITH = {"+", "-", "*", "/", "%"}

_MATH = {"Real.sqrt": 1, "Real.rpow": 2, "min": 2, "max": 2}


#: Sorts in the order of coercion (a leaf is coerced up to the largest sort of its tree).


class FedAvgElaborator(RunTerms):
    """Resolves names and elaborates terms of a FedAvg statement (or of a def being inlined).

    ``scope``: name -> :class:`Entry`; ``ctx``: where names resolve; ``decls``: the file's
    declarations; ``defs``: key -> :class:`FedAvgDef` (the file's defs, read on demand);
    ``objects``: names of the statement's problem, run and measure (a def's own names for
    them are mapped onto these when it is inlined)."""

    def __init__(self, path, decls, ctx, scope, defs, *, sample=None, depth=0):
        self.path = path
        self.decls = decls
        self.ctx = ctx
        self.scope = dict(scope)
        self.defs = defs
        self.sample = sample            # the bound ω (inside `fun ω =>` / `∫ ω, …`)
        self.depth = depth
        self.used_defs: list = []

    # ------------------------------------------------------------------ errors and names
    def err(self, node, construct, detail="", supported=fm.SUPPORTED_TERMS):
        raise LeanSyntaxError(construct, detail, line=node.line, col=node.col, path=self.path, supported=supported)

    def resolve(self, node) -> tuple | None:
        """``("model", name)``, ``("def", key)`` or None for an identifier node that is not bound."""
        return resolve_name(node.value, self.ctx, self.decls, node, self.path, vocab=fm)

    def head(self, node) -> str | None:
        """The head name of a type or application as Lean resolves it (the model's names bare)."""
        ident = node if node.kind == "ident" else (node.args[0] if node.kind == "app" and node.args
                                                   and node.args[0].kind == "ident" else None)
        if ident is None:
            return None
        if ident.value in self.scope:
            return ident.value
        hit = self.resolve(ident)
        if hit is not None and hit[0] == "model":
            return hit[1]
        return ident.value

    def entry(self, name):
        return self.scope.get(name)

    def _obj(self, name, kind):
        e = self.scope.get(name)
        return e is not None and e.kind == kind

    # ------------------------------------------------------------------ entry points
    def term(self, node, expect=None) -> Term:
        """Elaborate ``node``; ``expect`` in ``nat real rand`` or None."""
        if node.kind in ("binop",) and node.value in _ARITH | {"^"} or node.kind == "neg":
            return self.arith(node, expect)
        t = self.leaf(node)
        return self.coerce(t, expect, node)

    def arith(self, node, expect=None) -> Term:
        """An arithmetic tree with Lean's coercion of its leaves (module docstring)."""
        leaves: list = []
        self._collect(node, leaves)
        done = {id(n): self.leaf(n) for n in leaves}
        sorts = [done[id(n)].sort for n in leaves]
        for n, s in zip(leaves, sorts):
            if s not in ("nat", "real", "rand", "poly"):
                self.err(n, f"`{n.text}` ({describe_kind(s)}) in an arithmetic term", "", fm.SUPPORTED_TERMS)
        target = expect
        for s in sorts:
            if s == "poly":
                continue
            if target is None or RANK[s] > RANK[target]:
                target = s
        if target is None:
            target = "nat"
        if expect is not None and RANK[target] > RANK[expect]:
            bad = next(n for n, s in zip(leaves, sorts) if s != "poly" and RANK[s] > RANK[expect])
            what = "a random variable of the run" if target == "rand" else f"real-valued term `{bad.text}`"
            self.err(bad, f"{what} where {describe_kind(expect)} is expected",
                     "Lean would reject this (no coercion to a smaller type)" if target != "rand" else
                     "random variables stand inside ∫ ω, … ∂μ or μ[… | …]", fm.SUPPORTED_TERMS)
        return self._build(node, done, target)

    def _collect(self, node, out):
        if node.kind == "binop" and node.value in _ARITH:
            self._collect(node.args[0], out)
            self._collect(node.args[1], out)
        elif node.kind == "binop" and node.value == "^":
            if is_norm_sq(node):
                out.append(node)
            else:
                self._collect(node.args[0], out)
        elif node.kind == "neg":
            self._collect(node.args[0], out)
        elif node.kind == "binop":
            self.err(node, f"`{node.value}` inside an arithmetic term", "",
                     "+ - * / ^ ⁻¹ between terms; comparisons only in hypotheses and the conclusion")
        else:
            out.append(node)

    def _build(self, node, done, target) -> Term:
        if node.kind == "binop" and node.value in _ARITH:
            a = self._build(node.args[0], done, target)
            b = self._build(node.args[1], done, target)
            if node.value == "%" and target != "nat":
                self.err(node, "`%` of real numbers", "", "n % m of natural numbers")
            if target == "rand" and node.value in ("*", "/"):
                if node.value == "*" and a.sort == "rand" and b.sort == "rand":
                    self.err(node, "product of two random variables", "the engines decide statements linear "
                             "in the run's random variables", fm.SUPPORTED_RANDOM)
                if node.value == "/" and b.sort == "rand":
                    self.err(node, "division by a random variable", "the engines decide statements linear "
                             "in the run's random variables", fm.SUPPORTED_RANDOM)
            sort = "rand" if "rand" in (a.sort, b.sort) else ("real" if target == "rand" else target)
            return Term(node.value, (a, b), None, sort, node)
        if node.kind == "binop" and node.value == "^" and not is_norm_sq(node):
            base = self._build(node.args[0], done, target)
            ex_node = node.args[1]
            ex = self.term(ex_node, None)
            if ex.sort not in ("nat", "real"):
                self.err(ex_node, f"exponent `{ex_node.text}`", "", "natural or real exponents")
            if base.sort == "rand":
                if not (ex.op == "num" and ex.value == 1):
                    self.err(node, "power of a random variable", "the engines decide statements linear in the "
                             "run's random variables", fm.SUPPORTED_RANDOM)
                return base
            if ex.sort == "nat":
                return Term("^", (base, ex), None, base.sort, node)
            if base.sort == "nat":
                self.err(node, "real exponent of a natural number", "", "(x : ℝ) ^ (y : ℝ)")
            return Term("rpow", (base, ex), None, "real", node)
        if node.kind == "neg":
            a = self._build(node.args[0], done, target)
            if target == "nat":
                self.err(node, "negation of a natural number", "", "(x : ℝ) for real numbers")
            return Term("neg", (a,), None, a.sort, node)
        t = done[id(node)]
        return self.coerce(t, target, node)

    def coerce(self, t: Term, target, node) -> Term:
        """``t`` at sort ``target`` (numerals take it; ℕ -> ℝ casts; deterministic values stand
        in random arithmetic as constants)."""
        if target is None and t.sort == "poly":
            target = "real" if t.op == "inv" else "nat"
        if target is None:
            return t
        if t.sort == "poly":
            if t.op == "num" and target == "nat" and t.value.denominator != 1:
                self.err(node, f"decimal `{node.text}` as a natural number", "Lean has no ℕ decimals",
                         "(x : ℝ) for real numbers")
            if t.op == "inv":
                if target == "nat":
                    self.err(node, f"`⁻¹` of the natural number `{node.args[0].text}`", "ℕ has no inverse",
                             "(x : ℝ)⁻¹")
                inner = self.term(node.args[0], "real")
                if inner.sort != "real":
                    self.err(node, "inverse of a random variable", "", fm.SUPPORTED_RANDOM)
                return Term("inv", (inner,), None, "real", node)
            return Term(t.op, t.args, t.value, "real" if target == "rand" else target, t.node)
        if t.sort == target:
            return t
        if t.sort == "nat" and target in ("real", "rand"):
            return Term("cast", (t,), None, "real", node)
        if t.sort == "real" and target == "rand":
            return t
        if t.sort == "client" and target in ("nat", "real", "rand"):
            self.err(node, f"client index `{node.text}` in arithmetic", "", "client indices as arguments only")
        self.err(node, f"`{node.text}` ({describe_kind(t.sort)}) where {describe_kind(target)} is expected", "", fm.SUPPORTED_TERMS)

    # ------------------------------------------------------------------ leaves
    def leaf(self, node) -> Term:
        k = node.kind
        if k == "num":
            return Term("num", (), node.value, "poly", node)
        if k == "ident":
            return self.ident(node)
        if k == "app":
            return self.app(node)
        if k == "cast":
            ty = node.args[1]
            tname = ty.value if ty.kind == "ident" else ty.text
            if tname == "ℝ":
                return self.term(node.args[0], "real")
            if tname == "ℕ":
                return self.term(node.args[0], "nat")
            self.err(node, f"ascription to `{tname}`", "statements are over ℕ and ℝ", "(x : ℝ), (n : ℕ)")
        if k == "coe":
            inner = self.term(node.args[0], None)
            if inner.sort == "nat":
                return Term("cast", (inner,), None, "real", node)
            return inner
        if k == "inv":
            return Term("inv", (), None, "poly", node)     # takes its tree's sort (coerce)
        if k == "abs":
            inner = self.term(node.args[0], "real")
            if inner.sort == "rand":
                self.err(node, "|…| of a random variable", "", fm.SUPPORTED_RANDOM)
            return Term("abs", (inner,), None, "real", node)
        if k == "norm":
            return self.norm(node, squared=False)
        if k == "binop" and node.value == "^" and is_norm_sq(node):
            return self.norm(node.args[0], squared=True, whole=node)
        if k == "sum":
            return self.big_sum(node)
        if k == "let":
            value = self.term(node.args[0], None)
            sub = self.child()
            sub.scope[node.value] = Entry(entry_kind(value), value)
            body = sub.term(node.args[1], None)
            return body
        if k == "condexp":
            return self.condexp(node, node.args[0], node.args[1], node.args[2])
        if k == "integral":
            return self.integral(node)
        if k == "fun":
            return self.lam(node)
        if k in ("binop", "neg"):
            return self.term(node, None)
        what = {"ite": "`if … then … else …`", "proj": "projection `(…).field`", "list": "list literal",
                "subscript": "`Name[m]` (an explicit σ-algebra)", "forall": "`∀` inside a term",
                "exists": "`∃` inside a term", "not": "`¬` inside a term"}.get(k, f"construct `{node.text}`")
        self.err(node, what)

    def child(self, **kw) -> "FedAvgElaborator":
        sub = FedAvgElaborator(self.path, self.decls, self.ctx, self.scope, self.defs,
                               sample=kw.get("sample", self.sample), depth=self.depth)
        sub.used_defs = self.used_defs
        return sub

    def ident(self, node) -> Term:
        name = node.value
        e = self.scope.get(name)
        if e is not None:
            if e.term is not None:
                return e.term
            if e.kind in ("nat", "real", "client"):
                return Term("var", (), name, e.kind, node)
            if e.kind == "untyped":
                self.err(node, f"bound name `{name}` without a type", "give it a type (ℕ, ℝ or Fin M)",
                         fm.SUPPORTED_BINDERS)
            self.err(node, f"`{name}` ({describe_kind(e.kind)}) in a term", "", fm.SUPPORTED_TERMS)
        fld = self.field(node)
        if fld is not None:
            return fld
        hit = self.resolve(node)
        if hit is not None and hit[0] == "model":
            return self.model_app(node, hit[1], [])
        if hit is not None and hit[0] == "def":
            return self.inline(node, hit[1], [])
        unknown = unknown_identifier(node, name, self.path, scope=getattr(self, "scope", ()) or ())
        if unknown is not None:
            raise unknown
        self.err(node, f"name `{name}`", "not a parameter of the statement, a model definition or a def of this "
                 "file", "the statement's own binders and " + fm.SUPPORTED_TERMS)

    def field(self, node) -> Term | None:
        """``P.L``-like names (fields of the bound problem) as terms, else None."""
        name = node.value.removeprefix(fm.NAMESPACE + ".")
        if "." not in name:
            return None
        head, _, fld = name.partition(".")
        e = self.scope.get(head)
        if e is None:
            return None
        if e.kind == "problem":
            if fld in ("L", "σ", "ζ"):
                return Term("field", (), fld, "real", node)
            if fld in fm.POINT_FIELDS:
                return Term("point", (), fld, "point", node)
            if fld == "f":
                return Term("clients", (), "f", "clients", node)
            self.err(node, f"field `{name}` of the problem", "", "P.L, P.σ, P.ζ, P.x0, P.xstar, P.f")
        if e.kind == "run":
            if fld in RUN_FIELDS:
                return Term("runfield", (), fld, "runfield", node)
            self.err(node, f"field `{name}` of the run", "the run's random variables are read through the "
                     "model's statistics", "R.x t k i ω inside ‖…‖, R.history (t * τ) as a σ-algebra, and "
                     + fm.SUPPORTED_RANDOM)
        return None

    # ------------------------------------------------------------------ applications
    def app(self, node) -> Term:
        head, args = node.args[0], node.args[1:]
        if head.kind == "condexp":                 # μ[f | m] ω
            inner = self.leaf(head)
            self.omega_arg(args, node, 1)
            return inner
        if head.kind == "fun":
            self.err(node, "application of a `fun`", "write the body instead", fm.SUPPORTED_RANDOM)
        if head.kind != "ident":
            self.err(node, f"application of `{head.text}`")
        name = head.value
        e = self.scope.get(name)
        if e is not None:
            if e.term is not None and e.term.sort == "rand" and len(args) == 1:
                self.omega_arg(args, node, 1)       # a let-bound random variable applied to ω
                return e.term
            self.err(node, f"application of `{name}` ({describe_kind(e.kind)})")
        fld = self.field(head)
        if fld is not None:
            if fld.op == "runfield" and fld.value == "x":
                return self.iterate(node, args)
            if fld.op == "runfield" and fld.value == "history":
                self.err(node, "the σ-algebra `R.history …` as a term", "",
                         "μ[f | R.history (t * τ)] (conditional expectations given a round start)")
            self.err(node, f"application of the field `{head.text}`")
        if name in _MATH:
            return self.math(node, name, args)
        if name in ("MeasureTheory.condExp", "condExp"):
            if len(args) not in (3, 4):
                self.err(node, f"`{name}` with {len(args)} arguments", "", "condExp (R.history (t * τ)) μ f [ω]")
            t = self.condexp(node, args[1], args[2], args[0])
            if len(args) == 4:
                self.omega_arg(args[3:], node, 1)
            return t
        hit = self.resolve(head)
        if hit is not None and hit[0] == "model":
            return self.model_app(node, hit[1], args)
        if hit is not None and hit[0] == "def":
            return self.inline(node, hit[1], args)
        if name in ("gradient", "inner", "Finset.card", "Real.exp", "Real.log", "Nat.choose"):
            self.err(node, f"`{name}`", "not part of the FedAvg statement subset")
        unknown = unknown_identifier(head, name, self.path, applied=True, scope=getattr(self, "scope", ()) or ())
        if unknown is not None:
            raise unknown
        self.err(head, f"name `{name}`", "not a parameter of the statement, a model definition or a def of this "
                 "file", "the statement's own binders and " + fm.SUPPORTED_TERMS)

    def math(self, node, name, args) -> Term:
        if len(args) != _MATH[name]:
            self.err(node, f"`{name}` applied to {len(args)} arguments", f"{name} takes {_MATH[name]}")
        if name == "Real.sqrt":
            return Term("sqrt", (self.real(args[0]),), None, "real", node)
        if name == "Real.rpow":
            return Term("rpow", (self.real(args[0]), self.real(args[1])), None, "real", node)
        a, b = (self.term(x, None) for x in args)
        if "rand" in (a.sort, b.sort):
            self.err(node, f"`{name}` of random variables", "", fm.SUPPORTED_RANDOM)
        sort = "real" if "real" in (a.sort, b.sort) else ("nat" if "nat" in (a.sort, b.sort) else "poly")
        if sort == "poly":
            sort = "nat"
        a, b = self.coerce(a, sort, args[0]), self.coerce(b, sort, args[1])
        return Term(name, (a, b), None, sort, node)

    def real(self, node) -> Term:
        t = self.term(node, "real")
        if t.sort != "real":
            self.err(node, f"`{node.text}` ({describe_kind(t.sort)}) where a real number is expected")
        return t

    def nat(self, node) -> Term:
        return self.term(node, "nat")

    def problem_arg(self, node, fname):
        if node.kind != "ident" or not self._obj(node.value, "problem"):
            self.err(node, f"`{node.text}` as the problem argument of `{fname}`", "", "the statement's problem P")

    def run_arg(self, node, fname):
        if node.kind != "ident" or not self._obj(node.value, "run"):
            self.err(node, f"`{node.text}` as the run argument of `{fname}`", "", "the statement's run R")

    def client_arg(self, node) -> Term:
        if node.kind == "num":
            if node.value.denominator != 1:
                self.err(node, f"`{node.text}` as a client index", "", "a bound `i : Fin M` or a numeral")
            return Term("num", (), node.value, "client", node)
        if node.kind == "ident":
            e = self.scope.get(node.value)
            if e is not None and e.kind == "client":
                return e.term if e.term is not None else Term("var", (), node.value, "client", node)
        self.err(node, f"`{node.text}` as a client index", "", "a bound `i : Fin M` (or `∀ i, …`) or a numeral")

    def omega_arg(self, args, node, expected_count):
        """The trailing ``ω`` of a random variable applied to a point of the sample space."""
        if len(args) != expected_count:
            self.err(node, f"`{node.text}`", f"expected {expected_count} argument(s) here")
        a = args[-1]
        if a.kind != "ident" or self.sample is None or a.value != self.sample:
            self.err(a, f"`{a.text}` as the point of the sample space", "apply random variables to the ω "
                     "bound by `fun ω =>` or `∫ ω, …`", fm.SUPPORTED_RANDOM)
