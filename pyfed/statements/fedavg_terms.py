"""Terms of a statement about a FedAvg run, elaborated: every name resolved as Lean resolves it
(the statement's binders, the model ``FedAvg`` of :mod:`pyfed.statements.fedavg_model`, the
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

The result is a small tree of :class:`Term` nodes that the FedAvg engines evaluate
(:mod:`pyfed.engines.statement.fedavg_access`). Anything outside the subset raises
:class:`~pyfed.lean.terms.LeanSyntaxError` at its ``file:line:col``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..lean import terms
from ..lean.terms import LeanSyntaxError, Node
from . import fedavg_model as fm
from .declarations import Context, header_tokens, make_parser, resolve_name

__all__ = ["Term", "Entry", "FedAvgElaborator", "SORTS", "RUN_FIELDS", "read_def", "FedAvgDef", "binder_kind"]

#: Sorts in the order of coercion (a leaf is coerced up to the largest sort of its tree).
SORTS = ("nat", "real", "rand")
_RANK = {s: i for i, s in enumerate(SORTS)}

_ARITH = {"+", "-", "*", "/", "%"}

#: Fields of the run ``R`` the reader knows: the local iterates ``R.x t k i ω`` and the filtration.
RUN_FIELDS = ("x", "history")

_MATH = {"Real.sqrt": 1, "Real.rpow": 2, "min": 2, "max": 2}


@dataclass(eq=False)
class Term:
    """An elaborated term.

    op : ``num`` (value Fraction), ``var`` (value: the bound name), ``field`` (``L σ ζ``), ``fn``
        (value: a deterministic model definition; args: its explicit arguments after ``P``),
        ``+ - * / %``, ``^`` (natural exponent), ``rpow``, ``neg``, ``inv``, ``cast`` (ℕ → ℝ),
        ``abs``, ``sqrt``, ``min``, ``max``, ``dist_sq`` (``‖P.x0 - P.xstar‖ ^ 2``), ``fstar`` /
        ``f_x0`` (``objective P.f P.xstar`` / ``… P.x0``), ``stat`` (value: a random variable of
        the run, args: its indices), ``condexp`` (args: the function, the round ``t`` of
        ``R.history (t * τ)``), ``sum`` (value: the bound name; args: the bound ``n`` of
        ``Finset.range n`` or None for ``∑ i``, the body), ``integral`` (args: the integrand),
        ``shadow`` / ``iterate`` (random points ``shadow R t k ω`` / ``R.x t k i ω``), ``point``
        (value ``x0`` / ``xstar``).
    sort : see the module docstring.
    node : the source node (position and text for messages).
    """

    op: str
    args: tuple = ()
    value: object = None
    sort: str = "real"
    node: Node | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        return self.node.text if self.node is not None else self.key()

    def walk(self):
        yield self
        for a in self.args:
            if isinstance(a, Term):
                yield from a.walk()

    def key(self) -> str:
        """A canonical text of the term (equal keys: the same term)."""
        if self.op == "num":
            return str(self.value)
        if self.op in ("var", "field", "point"):
            return str(self.value)
        inner = ", ".join(a.key() if isinstance(a, Term) else str(a) for a in self.args)
        return f"{self.op}[{self.value}]({inner})" if self.value is not None else f"{self.op}({inner})"

    def mentions(self, names) -> bool:
        names = set(names)
        return any(t.op == "var" and t.value in names for t in self.walk())

    def random(self) -> bool:
        return self.sort == "rand"


def _num(v, sort, node=None) -> Term:
    return Term("num", (), Fraction(v), sort, node)


@dataclass
class Entry:
    """A name in scope: ``kind`` (``nat real client problem run measure space omega instance
    prop untyped``) and, for a name that stands for a term (a ``let``, an inlined def's
    argument, a bound parameter), that ``term``."""

    kind: str
    term: Term | None = None


@dataclass
class FedAvgDef:
    """A ``def`` of the user's file as the FedAvg reader inlines it: its binders (with kinds),
    result kind, body node and the context its names resolve in."""

    key: str
    name: str
    binders: list
    result: str
    body: Node
    ctx: Context
    location: tuple


def binder_kind(b, resolve) -> str:
    """The kind of a binder's type (see :class:`Entry`); ``resolve(node)`` gives a head name as
    Lean resolves it (the model's names bare). ``unsupported`` for anything else."""
    t = b.type
    if t is None:
        return "untyped"
    if b.style == "instance":
        h = (t.head_name() or "").removeprefix("MeasureTheory.").removeprefix("ProbabilityTheory.")
        return "instance" if h in ("MeasurableSpace", "StandardBorelSpace", "IsProbabilityMeasure") \
            else "unsupported"
    if t.kind == "ident":
        if t.value == "ℕ":
            return "nat"
        if t.value == "ℝ":
            return "real"
        if t.value == "Type":
            return "space"
        if t.value in ("ℚ", "ℤ"):
            return "unsupported"
    if t.kind == "binop" and t.value in ("≤", "<", "=", "≠", "≥", ">", "∧", "∨", "→", "↔"):
        return "prop"
    if t.kind in ("forall", "exists", "not"):
        return "prop"
    h = t.head_name()
    if t.kind == "app" and h == "Fin" and len(t.args) == 2:
        return "client"
    if t.kind == "app" and h in ("Measure", "MeasureTheory.Measure") and len(t.args) == 2:
        return "measure"
    if t.kind in ("app", "ident"):
        r = resolve(t)
        if r == "Problem" and t.kind == "app" and len(t.args) == 3:
            return "problem"
        if r == "Run" and t.kind == "app" and len(t.args) == 6:
            return "run"
        if t.kind == "ident":
            return "omega_type"         # `(ω : Ω)`: checked against the sample space by the caller
    return "unsupported"


class FedAvgElaborator:
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
                self.err(n, f"`{n.text}` ({_what(s)}) in an arithmetic term", "", fm.SUPPORTED_TERMS)
        target = expect
        for s in sorts:
            if s == "poly":
                continue
            if target is None or _RANK[s] > _RANK[target]:
                target = s
        if target is None:
            target = "nat"
        if expect is not None and _RANK[target] > _RANK[expect]:
            bad = next(n for n, s in zip(leaves, sorts) if s != "poly" and _RANK[s] > _RANK[expect])
            what = "a random variable of the run" if target == "rand" else f"real-valued term `{bad.text}`"
            self.err(bad, f"{what} where {_what(expect)} is expected",
                     "Lean would reject this (no coercion to a smaller type)" if target != "rand" else
                     "random variables stand inside ∫ ω, … ∂μ or μ[… | …]", fm.SUPPORTED_TERMS)
        return self._build(node, done, target)

    def _collect(self, node, out):
        if node.kind == "binop" and node.value in _ARITH:
            self._collect(node.args[0], out)
            self._collect(node.args[1], out)
        elif node.kind == "binop" and node.value == "^":
            if _is_norm_sq(node):
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
        if node.kind == "binop" and node.value == "^" and not _is_norm_sq(node):
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
        self.err(node, f"`{node.text}` ({_what(t.sort)}) where {_what(target)} is expected", "", fm.SUPPORTED_TERMS)

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
        if k == "binop" and node.value == "^" and _is_norm_sq(node):
            return self.norm(node.args[0], squared=True, whole=node)
        if k == "sum":
            return self.big_sum(node)
        if k == "let":
            value = self.term(node.args[0], None)
            sub = self.child()
            sub.scope[node.value] = Entry(_entry_kind(value), value)
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
            self.err(node, f"`{name}` ({_what(e.kind)}) in a term", "", fm.SUPPORTED_TERMS)
        fld = self.field(node)
        if fld is not None:
            return fld
        hit = self.resolve(node)
        if hit is not None and hit[0] == "model":
            return self.model_app(node, hit[1], [])
        if hit is not None and hit[0] == "def":
            return self.inline(node, hit[1], [])
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
            self.err(node, f"application of `{name}` ({_what(e.kind)})")
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
            self.err(node, f"`{node.text}` ({_what(t.sort)}) where a real number is expected")
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

    def model_app(self, node, name, args) -> Term:
        if name in fm.FUNCTIONS:
            f = fm.FUNCTIONS[name]
            if len(args) != len(f.params):
                self.err(node, f"`{name}` applied to {len(args)} arguments", f"expects {len(f.params)}: "
                         f"{f.signature}", f.signature)
            if name == "objective":
                return self.objective(node, args)
            self.problem_arg(args[0], name)
            out = []
            for a, kind in zip(args[1:], f.params[1:]):
                out.append(self.nat(a) if kind == "nat" else self.real(a))
            if name == "distance":
                return Term("sqrt", (Term("dist_sq", (), None, "real", node),), None, "real", node)
            return Term("fn", tuple(out), name, "real", node)
        if name in fm.RANDOM:
            f = fm.RANDOM[name]
            n = len(f.params)
            if len(args) not in (n - 1, n):
                self.err(node, f"`{name}` applied to {len(args)} arguments", f"expects {n - 1} (a random variable) "
                         f"or {n} (its value at ω): {f.signature}", f.signature)
            if len(args) == n:
                self.omega_arg(args, node, len(args))
                args = args[:-1]
            self.run_arg(args[0], name)
            idx = []
            for a, kind in zip(args[1:], f.params[1:]):
                idx.append(self.client_arg(a) if kind == "client" else self.nat(a))
            if name == "shadow":
                if len(node.args) - 1 != n:
                    self.err(node, "the random point `shadow R t k` without ω", "",
                             "‖shadow R t k ω - P.xstar‖ ^ 2 and objective P.f (shadow R t k ω)")
                return Term("shadow", tuple(idx), None, "rpoint", node)
            return Term("stat", tuple(idx), name, "rand", node)
        if name in fm.TYPES:
            self.err(node, f"the type `{name}` inside a term")
        self.err(node, f"`{name}`")

    def objective(self, node, args) -> Term:
        f, x = args
        fld = self.field(f) if f.kind == "ident" else None
        if fld is None or fld.op != "clients":
            self.err(f, f"`{f.text}` as the clients of `objective`", "", "objective P.f x")
        p = self.point(x)
        if p.op == "point" and p.value == "xstar":
            return Term("fstar", (), None, "real", node)
        if p.op == "point" and p.value == "x0":
            return Term("f_x0", (), None, "real", node)
        if p.op == "shadow":
            return Term("stat", p.args, "objectiveShadow", "rand", node)
        self.err(x, f"`objective` at `{x.text}`", "", "objective P.f at P.xstar, P.x0 or shadow R t k ω")

    def point(self, node) -> Term:
        if node.kind == "ident":
            fld = self.field(node)
            if fld is not None and fld.sort == "point":
                return fld
        if node.kind == "app":
            head = node.args[0]
            if head.kind == "ident":
                fld = self.field(head)
                if fld is not None and fld.op == "runfield" and fld.value == "x":
                    return self.iterate(node, node.args[1:])
                hit = None if head.value in self.scope else self.resolve(head)
                if hit is not None and hit == ("model", "shadow"):
                    return self.model_app(node, "shadow", node.args[1:])
        self.err(node, f"`{node.text}` as a point of the model space", "",
                 "P.x0, P.xstar, shadow R t k ω, R.x t k i ω")

    def iterate(self, node, args) -> Term:
        if len(args) != 4:
            self.err(node, f"`{node.text}`", "the local iterate is R.x t k i ω", "R.x t k i ω")
        self.omega_arg(args, node, 4)
        return Term("iterate", (self.nat(args[0]), self.nat(args[1]), self.client_arg(args[2])), None, "rpoint",
                    node)

    def norm(self, node, squared, whole=None) -> Term:
        inner = node.args[0]
        where = whole if whole is not None else node
        if not (inner.kind == "binop" and inner.value == "-"):
            self.err(node, f"‖{inner.text}‖", "norms of a difference of two points",
                     "‖P.x0 - P.xstar‖, ‖shadow R t k ω - P.xstar‖ ^ 2, ‖R.x t k i ω - shadow R t k ω‖ ^ 2")
        u, v = self.point(inner.args[0]), self.point(inner.args[1])
        ops = {u.op, v.op}
        if u.sort == "point" and v.sort == "point":
            if {u.value, v.value} == {"x0", "xstar"}:
                d2 = Term("dist_sq", (), None, "real", where)
                return d2 if squared else Term("sqrt", (d2,), None, "real", where)
            if u.value == v.value:
                return _num(0, "real", where)
        if not squared:
            self.err(node, f"the norm of a random point `{node.text}`", "its square is a statistic of the run",
                     "‖shadow R t k ω - P.xstar‖ ^ 2, ‖R.x t k i ω - shadow R t k ω‖ ^ 2")
        if ops == {"shadow", "point"}:
            s, p = (u, v) if u.op == "shadow" else (v, u)
            if p.value == "xstar":
                return Term("stat", s.args, "shadowDistanceSq", "rand", where)
        if ops == {"iterate", "shadow"}:
            it, s = (u, v) if u.op == "iterate" else (v, u)
            if it.args[0].key() == s.args[0].key() and it.args[1].key() == s.args[1].key():
                return Term("stat", it.args, "clientDriftSq", "rand", where)
        self.err(where, f"`{where.text}`", "not a statistic of the model",
                 "‖shadow R t k ω - P.xstar‖ ^ 2, ‖R.x t k i ω - shadow R t k ω‖ ^ 2, ‖P.x0 - P.xstar‖")

    def big_sum(self, node) -> Term:
        rng, body = node.args
        var = node.value
        if rng is None:
            kind, bound = "client", None
        else:
            if rng.kind != "app" or rng.head_name() not in ("Finset.range", "range") or len(rng.args) != 2:
                self.err(rng, f"∑ over `{rng.text}`", "", "∑ k ∈ Finset.range n, body  or  ∑ i, body (clients)")
            kind, bound = "nat", self.nat(rng.args[1])
        sub = self.child()
        sub.scope[var] = Entry(kind, Term("var", (), var, kind, node))
        b = sub.term(body, None)
        if b.sort == "poly":
            b = sub.coerce(b, "nat", body)
        if b.sort not in ("nat", "real", "rand"):
            self.err(body, f"∑ of `{body.text}`", "", "sums of numbers and random variables")
        return Term("sum", (bound, b), var, b.sort, node)

    def sigma_round(self, m) -> Term:
        """The round ``t`` of the σ-algebra ``R.history (t * τ)`` (else a located error)."""
        ok = m.kind == "app" and len(m.args) == 2 and m.args[0].kind == "ident"
        if ok:
            fld = self.field(m.args[0])
            ok = fld is not None and fld.op == "runfield" and fld.value == "history"
        if not ok:
            self.err(m, f"σ-algebra `{m.text}`", "", "R.history (t * τ): the history at the start of round t")
        e = m.args[1]
        tau = self.scope.get("__tau__")
        if e.kind == "binop" and e.value == "*":
            a, b = e.args
            for r, s in ((a, b), (b, a)):
                st = self.nat(s)
                if tau is not None and st.key() == tau.term.key():
                    return self.nat(r)
        self.err(e, f"conditioning on `{m.text}`", "the engines condition on the start of a round",
                 "R.history (t * τ) with τ the run's local steps")

    def condexp(self, node, meas, f, m) -> Term:
        if meas.kind != "ident" or not self._obj(meas.value, "measure"):
            self.err(meas, f"`{meas.text}` as the measure of a conditional expectation", "",
                     "the run's measure μ")
        r = self.sigma_round(m)
        x = self.term(f, "rand")
        return Term("condexp", (x, r), None, "rand", node)

    def integral(self, node) -> Term:
        body, meas = node.args
        if meas.kind != "ident" or not self._obj(meas.value, "measure"):
            self.err(meas, f"`∂{meas.text}`", "", "∫ ω, X ω ∂μ with μ the run's measure")
        sub = self.child(sample=node.value)
        sub.scope.pop(node.value, None)
        x = sub.term(body, "rand")
        return Term("integral", (x,), None, "real", node)

    def lam(self, node) -> Term:
        binders, body = node.value, node.args[0]
        if len(binders) != 1:
            self.err(node, "`fun` of several arguments", "", "fun ω => … (a random variable) or fun _ => c")
        b = binders[0]
        sub = self.child(sample=b.name if b.name != "_" else "__unused_omega__")
        sub.scope.pop(b.name, None)
        t = sub.term(body, "rand")
        return t

    # ------------------------------------------------------------------ the user's defs
    def inline(self, node, key, args) -> Term:
        """A def of the file applied to ``args``: its body elaborated with its binders bound to
        the arguments (implicit ones matched through the explicit ones' types)."""
        d = self.defs.get(key)
        if d is None or isinstance(d, LeanSyntaxError):
            if isinstance(d, LeanSyntaxError):
                raise d
            self.err(node, f"def `{key}`", "not readable as a FedAvg definition")
        if self.depth > 40:
            self.err(node, f"def `{key}` nested too deeply")
        explicit = [b for b in d.binders if b[0].style == "explicit"]
        omega_last = bool(explicit) and explicit[-1][1] == "omega"
        if len(args) == len(explicit) - 1 and omega_last:
            use, partial = explicit[:-1], True
        elif len(args) == len(explicit):
            use, partial = explicit, False
        else:
            self.err(node, f"def `{d.name}` applied to {len(args)} arguments", f"it takes {len(explicit)}")
        scope: dict = {}
        sample = None
        for (b, kind), a in zip(use, args):
            if kind in ("nat", "real"):
                scope[b.name] = Entry(kind, self.term(a, kind))
            elif kind == "client":
                scope[b.name] = Entry("client", self.client_arg(a))
            elif kind == "problem":
                self.problem_arg(a, d.name)
                scope[b.name] = Entry("problem")
                self._match_type(b.type, ("Problem",), scope, node, d)
            elif kind == "run":
                self.run_arg(a, d.name)
                scope[b.name] = Entry("run")
                self._match_type(b.type, ("Run",), scope, node, d)
            elif kind == "measure":
                if a.kind != "ident" or not self._obj(a.value, "measure"):
                    self.err(a, f"`{a.text}` as the measure argument of `{d.name}`")
                scope[b.name] = Entry("measure")
            elif kind == "omega":
                if a.kind != "ident" or a.value != self.sample:
                    self.err(a, f"`{a.text}` as the point of the sample space", "", fm.SUPPORTED_RANDOM)
                sample = b.name
            else:
                self.err(a, f"argument `{a.text}` of def `{d.name}` (binder of kind {kind})")
        if partial:
            sample = explicit[-1][0].name
        for b, kind in d.binders:
            if b.name in scope or kind in ("instance", "space", "omega", "omega_type", "prop"):
                continue
            if kind in ("problem", "run", "measure"):
                scope[b.name] = Entry(kind)
                if kind in ("problem", "run"):
                    self._match_type(b.type, (), scope, node, d)
        for k, v in self.scope.items():      # the statement's own objects (d, M, τ, T, η)
            if k.startswith("__") and k not in scope:
                scope[k] = v
        sub = FedAvgElaborator(self.path, self.decls, d.ctx, {k: v for k, v in scope.items() if v is not None},
                               self.defs, sample=sample if sample is not None else self.sample, depth=self.depth + 1)
        sub.used_defs = self.used_defs
        if d.name not in self.used_defs:
            self.used_defs.append(d.name)
        want = "rand" if sample is not None else d.result
        t = sub.term(d.body, want if want != "nat" else "nat")
        if d.result == "nat" and t.sort not in ("nat",):
            self.err(node, f"def `{d.name}` of type ℕ with a real body")
        return Term(t.op, t.args, t.value, t.sort, t.node) if t.node is not None else t

    def _match_type(self, ty, heads, scope, node, d):
        """Bind the names in a def binder's type (``Problem d M``, ``Run P μ τ T η``) to the
        statement's objects of the same position."""
        names = [a for a in ty.args[1:]]
        h = self.head(ty)
        if h == "Problem":
            targets = [self.scope.get("__d__"), self.scope.get("__M__")]
        elif h == "Run":
            targets = [Entry("problem"), Entry("measure"), self.scope.get("__tau__"), self.scope.get("__T__"),
                       self.scope.get("__eta__")]
        else:
            return
        for a, tgt in zip(names, targets):
            if a.kind == "ident" and tgt is not None and a.value not in scope:
                scope[a.value] = tgt


def _entry_kind(t: Term) -> str:
    return {"nat": "nat", "real": "real", "rand": "rand", "client": "client", "poly": "real"}.get(t.sort, t.sort)


def _is_norm_sq(node) -> bool:
    return (node.kind == "binop" and node.value == "^" and node.args[0].kind == "norm"
            and node.args[1].kind == "num" and node.args[1].value == 2)


def _what(kind) -> str:
    return {"nat": "a natural number", "real": "a real number", "rand": "a random variable of the run",
            "client": "a client index", "problem": "the problem", "run": "the run", "measure": "the measure",
            "space": "the sample space", "omega": "a point of the sample space", "point": "a point",
            "rpoint": "a random point", "clients": "the clients P.f", "runfield": "a field of the run",
            "instance": "an instance argument", "prop": "a hypothesis", "untyped": "a name without a type"
            }.get(kind, kind)


def read_def(key, name, cmd, variables, decls, clean, path, ctx) -> FedAvgDef:
    """A def of the file as the FedAvg reader inlines it (binders with kinds, result ``real`` or
    ``nat``, body). Raises :class:`LeanSyntaxError` for a def outside the subset."""
    from .declarations import used_variables

    toks, body, body_pos = header_tokens(cmd, clean, path, "def", name)
    p = make_parser(toks, path)
    binders = p.binders()
    if not p.at(":"):
        t = p.peek() or (toks[0] if toks else None)
        raise LeanSyntaxError(f"def `{name}` without a result type", "", line=t.line if t else cmd.line,
                              col=t.col if t else cmd.col, path=path, supported="def f … : ℝ := body")
    p.take(":")
    rt = p.term(0)
    result = {"ℝ": "real", "ℕ": "nat"}.get(rt.head_name())
    if result is None:
        raise LeanSyntaxError(f"def `{name}` of type `{rt.text}`", "", line=rt.line, col=rt.col, path=path,
                              supported="defs of type ℝ or ℕ (random variables: a last argument (ω : Ω))")
    if p.peek() is not None:
        t = p.peek()
        raise LeanSyntaxError(f"token {t.text!r}", f"in the header of def `{name}`", line=t.line, col=t.col, path=path)
    if body is None:
        raise LeanSyntaxError(f"def `{name}` without `:=`", "", line=cmd.line, col=cmd.col, path=path,
                              supported="def f … : ℝ := body")
    allb = used_variables(variables, binders, body) + binders
    el = FedAvgElaborator(path, decls, ctx, {}, {})
    spaces = {b.name for b in allb if b.type is not None and b.type.kind == "ident" and b.type.value == "Type"}
    kinds = []
    for b in allb:
        k = binder_kind(b, el.head)
        if k == "omega_type":
            k = "omega" if b.type.value in spaces else "unsupported"
        if k in ("unsupported", "untyped"):
            where = b.type if b.type is not None else None
            raise LeanSyntaxError(f"binder `{b.name}` of def `{name}`" + (f" of type `{b.type.text}`" if where else ""),
                                  "", line=(where or b).line, col=(where or b).col, path=path,
                                  supported=fm.SUPPORTED_BINDERS + ", (ω : Ω)")
        kinds.append((b, k))
    node = terms.parse_term(body, path=path, line=body_pos[0], col=body_pos[1])
    return FedAvgDef(key, name, kinds, result, node, ctx, (cmd.line, cmd.col))
