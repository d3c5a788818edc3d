"""Elaboration of the arithmetic terms of a statement or a def (:class:`Elaborator`): every name
resolved (the statement's binders, the model's definitions of :mod:`pyfed.statements.model`, the
file's own ``def`` s and ``variable`` s) and every arithmetic subterm given Lean's type (ℕ or ℝ, by
Lean's rule for ``binop%`` trees: the leaves of a tree of ``+ - * /`` and comparisons are coerced to
the largest type among them and the expected type; an exponent is elaborated on its own, so
``x ^ (2 / 3)`` has the natural-number exponent 0 as in Lean). :func:`read_declarations` scans a
file and elaborates its defs."""

from __future__ import annotations

from dataclasses import dataclass

from ..lean import terms
from ..lean.terms import LeanSyntaxError, Node
from . import model
from .declarations import (
    Context,
    Declarations,
    header_tokens,
    make_parser,
    resolve_name,
    scan_declarations,
    unknown_identifier,
    used_variables,
)
from .statement import Location, Parameter, UserDef

__all__ = ["read_declarations", "Elaborator", "ScopeName", "canon", "canon_in", "type_kind", "binder_scope", "ARITH",
           "COMPARE"]


ARITH = {"+", "-", "*", "/", "%"}


COMPARE = {"≤", "<", "=", "≠", "≥", ">"}


@dataclass
class ScopeName:
    """A name in scope: kind and, for theorem parameters, the Parameter."""

    kind: str
    param: Parameter | None = None
    type_node: Node | None = None


#: Term constructs of the grammar that a statement about a SCAFFOLD run does not use, with the
#: name its error gives them.
_OUTSIDE = {"integral": "integral `∫ … ∂ν` (write the model's statistic, e.g. `expectedGap A xstar r`)",
            "fun": "lambda `fun x => …`", "condexp": "conditional expectation `μ[f | m]`",
            "ite": "`if … then … else …`", "proj": "projection `(…).field`",
            "subscript": "`Name[m]` (an explicit σ-algebra)"}


class Elaborator:
    """Resolves names and assigns Lean types (``node.ty``) to terms of a statement or a def."""

    def __init__(self, path: str, decls: Declarations, scope: dict, *, allow_stats: bool, ctx=None):
        self.path = path
        self.decls = decls
        self.ctx = ctx if ctx is not None else Context(model.NAMESPACE)
        self.scope = dict(scope)       # name -> ScopeName
        self.allow_stats = allow_stats
        self.used_defs: dict = {}
        self.statistics: list = []

    # ---- errors
    def err(self, node, construct, detail="", supported=model.SUPPORTED_TERMS):
        raise LeanSyntaxError(construct, detail, line=node.line, col=node.col, path=self.path, supported=supported)

    # ---- names
    def resolve(self, node):
        """Resolve an identifier node that is not a binder (:func:`resolve_name`) and rewrite its
        value to the canonical name the evaluator uses (the model's bare name, or the def's key);
        returns that name, or None for a name that is neither."""
        hit = resolve_name(node.value, self.ctx, self.decls, node, self.path)
        if hit is None:
            return None
        node.value = hit[1]
        return hit[1]

    def lookup(self, name: str):
        name = name.removeprefix(model.NAMESPACE + ".")
        return self.scope.get(name)

    def field_of(self, node):
        """(problem name, field) of ``P.β``-like identifiers, else None."""
        name = node.value.removeprefix(model.NAMESPACE + ".")
        if "." not in name:
            return None
        head, _, fld = name.partition(".")
        n = self.scope.get(head)
        if n is None:
            return None
        if n.kind == "problem":
            if fld in model.FIELDS:
                return head, fld
            self.err(node, f"field `{name}`", "the problem's fields usable here are P.β, P.σ, P.x0, P.f",
                     "P.β, P.σ, P.x0, objective P.f x")
        if n.kind == "run":
            self.err(node, f"run field `{name}`", "the run's random variables are read through its statistics",
                     model.SUPPORTED_LEFT)
        return None

    # ---- arithmetic
    def arith(self, node: Node, expected: str | None = None) -> str:
        """Elaborate an arithmetic term; returns ``nat`` or ``real`` and annotates the tree."""
        leaves: list = []
        self._collect(node, leaves)
        kinds = [self.leaf_kind(leaf) for leaf in leaves]
        ty = "real" if expected == "real" or "real" in kinds else "nat"
        if expected == "nat" and "real" in kinds:
            bad = leaves[kinds.index("real")]
            self.err(bad, f"real-valued term `{bad.text}` where a natural number is expected",
                     "Lean would reject this (no coercion ℝ → ℕ)", "ℕ-valued terms here")
        self._annotate(node, ty)
        for leaf, k in zip(leaves, kinds):
            self.finish_leaf(leaf, k, ty)
        return ty

    def _collect(self, node, out):
        if node.kind == "binop" and node.value in ARITH:
            self._collect(node.args[0], out)
            self._collect(node.args[1], out)
        elif node.kind == "binop" and node.value == "^":
            self._collect(node.args[0], out)
        elif node.kind == "neg":
            self._collect(node.args[0], out)
        elif node.kind == "binop":
            self.err(node, f"operator `{node.value}` in an arithmetic term", "",
                     "+ - * / ^ ⁻¹ and comparisons ≤ < = ≠ between arithmetic terms")
        else:
            out.append(node)

    def _annotate(self, node, ty):
        if node.kind == "binop" and node.value in ARITH:
            node.ty = ty
            self._annotate(node.args[0], ty)
            self._annotate(node.args[1], ty)
        elif node.kind == "binop" and node.value == "^":
            node.ty = ty
            self._annotate(node.args[0], ty)
            ety = self.arith(node.args[1], None)
            node.value = "^" if ety == "nat" else "^r"     # ^r: real exponent (Real.rpow)
            if node.value == "^" and ty == "nat":
                pass
        elif node.kind == "neg":
            node.ty = ty
            self._annotate(node.args[0], ty)

    def leaf_kind(self, node) -> str:
        """First pass over a leaf: ``nat``, ``real`` or ``poly`` (takes the tree's type)."""
        k = node.kind
        if k == "num":
            return "poly"
        if k == "ident":
            fld = self.field_of(node)
            if fld is not None:
                kind = model.FIELDS[fld[1]]
                if kind != "real":
                    self.err(node, f"`{node.value}` ({kind}) in an arithmetic term", "",
                             "P.β, P.σ (reals); P.x0 only inside ‖…‖ or as a point")
                return "real"
            n = self.lookup(node.value)
            if n is None:
                name = self.resolve(node)
                if name is not None:
                    return self.application(node, name, [])
                self.unknown(node)
            if n.kind in ("nat", "real"):
                return n.kind
            self.err(node, f"`{node.value}` ({n.kind}) in an arithmetic term", "",
                     "ℕ/ℝ parameters, P.β, P.σ and ℝ-valued definitions")
        if k == "app":
            head = node.args[0]
            if head.kind != "ident":
                self.err(node, f"application of `{head.text}`")
            if self.scope.get(head.value) is None and self.resolve(head) is None \
                    and head.value in self.decls.defs:
                self.unknown(head)       # a def's name that Lean does not see from here
            return self.application(node, head.value, node.args[1:])
        if k == "cast":
            ty = node.args[1]
            tname = ty.value if ty.kind == "ident" else ty.text
            if tname == "ℝ":
                self.arith(node.args[0], "real")
                node.ty = "real"
                return "real"
            if tname == "ℕ":
                self.arith(node.args[0], "nat")
                node.ty = "nat"
                return "nat"
            self.err(node, f"ascription to `{tname}`", "statements are over ℕ and ℝ", "(x : ℝ), (n : ℕ)")
        if k == "coe":
            inner = self.arith(node.args[0], None)
            node.ty = "real"
            return "real" if inner in ("nat", "real") else inner
        if k == "inv":
            return "poly"
        if k == "norm":
            self.vector_expr(node.args[0])
            node.ty = "real"
            return "real"
        if k == "abs":
            self.arith(node.args[0], "real")
            node.ty = "real"
            return "real"
        if k in _OUTSIDE:
            self.err(node, _OUTSIDE[k])
        if k == "sum":
            rng, body = node.args
            if rng is None:
                self.err(node, "∑ over a type (`∑ i, …`)", "sums over clients are not part of the subset",
                         "∑ r ∈ Finset.range T, body")
            if rng.head_name() != "Finset.range" or len(rng.args) != 2:
                self.err(rng, f"∑ over `{rng.text}`", "", "∑ r ∈ Finset.range T, body")
            self.arith(rng.args[1], "nat")
            saved = self.scope.get(node.value)
            self.scope[node.value] = ScopeName("nat")
            try:
                kind = self._probe(body)
            finally:
                self._restore(node.value, saved)
            return "real" if kind == "real" else "poly"
        if k == "let":
            value, body = node.args
            vk = self._probe(value)
            saved = self.scope.get(node.value)
            self.scope[node.value] = ScopeName(vk)
            try:
                kind = self._probe(body)
            finally:
                self._restore(node.value, saved)
            return "real" if kind == "real" else "poly"
        if k in ("binop", "neg"):
            # a parenthesised comparison or connective inside arithmetic
            self.err(node, f"`{node.value}` inside an arithmetic term")
        if k == "list":
            self.err(node, "list literal")
        if k in ("forall", "exists", "not"):
            self.err(node, f"`{k}` inside an arithmetic term")
        self.err(node, f"construct `{node.text}`")

    def _probe(self, body):
        """Kind of a sub-tree without keeping annotations (used to type ∑ bodies)."""
        try:
            leaves: list = []
            self._collect(body, leaves)
            kinds = [self.leaf_kind(leaf) for leaf in leaves]
        except LeanSyntaxError:
            raise
        return "real" if "real" in kinds else "nat"

    def _restore(self, name, saved):
        if saved is None:
            self.scope.pop(name, None)
        else:
            self.scope[name] = saved

    def finish_leaf(self, node, kind, ty):
        """Second pass: give adaptable leaves (numerals, ⁻¹, ∑, let, min/max) the tree's type."""
        k = node.kind
        if k == "num":
            if ty == "nat" and node.value.denominator != 1:
                self.err(node, f"decimal `{node.text}` as a natural number", "Lean has no ℕ decimals",
                         "(x : ℝ) for real numbers")
            node.ty = ty
        elif k == "inv":
            if ty == "nat":
                self.err(node, f"`⁻¹` of the natural number `{node.args[0].text}`", "ℕ has no inverse in Lean",
                         "(x : ℝ)⁻¹")
            self.arith(node.args[0], "real")
            node.ty = "real"
        elif k == "sum":
            rng, body = node.args
            saved = self.scope.get(node.value)
            self.scope[node.value] = ScopeName("nat")
            try:
                node.ty = self.arith(body, ty)
            finally:
                self._restore(node.value, saved)
        elif k == "let":
            value, body = node.args
            vk = self.arith(value, None)
            saved = self.scope.get(node.value)
            self.scope[node.value] = ScopeName(vk)
            try:
                node.ty = self.arith(body, ty)
            finally:
                self._restore(node.value, saved)
        elif k == "app" and node.args[0].kind == "ident" and node.args[0].value in ("min", "max"):
            for a in node.args[1:]:
                self.arith(a, ty)
            node.ty = ty
        elif kind == "nat" and ty == "real":
            node.coerce = True
            if node.ty is None:
                node.ty = "nat"
        elif node.ty is None:
            node.ty = kind if kind != "poly" else ty

    def unknown(self, node):
        unknown = unknown_identifier(node, str(node.value), self.path, scope=getattr(self, "scope", ()) or ())
        if unknown is not None:
            raise unknown
        self.err(node, f"name `{node.value}`", "not a parameter of the statement, a model definition or a def of "
                 "this file", "the statement's own binders and " + model.SUPPORTED_TERMS)

    # ---- applications
    def application(self, node, name, args) -> str:
        if name in model.MATH_FUNCTIONS:
            kinds, arity = model.MATH_FUNCTIONS[name]
            if len(args) != arity:
                self.err(node, f"`{name}` applied to {len(args)} arguments", f"{name} takes {arity}")
            if kinds is None:        # min / max: the max type of the arguments
                ks = [self._probe(a) for a in args]
                return "real" if "real" in ks else "poly"
            for a, kd in zip(args, kinds):
                self.arith(a, kd)
            node.ty = "real"
            return "real"
        if name in model.FUNCTIONS:
            f = model.FUNCTIONS[name]
            self.check_args(node, name, f.params, args, f.signature)
            node.ty = f.result
            return f.result
        if name in model.STATISTICS:
            if not self.allow_stats:
                self.err(node, f"statistic `{name}` of a run here",
                         "statistics of the run belong to the left side of the conclusion", model.SUPPORTED_LEFT)
            f = model.STATISTICS[name]
            self.check_args(node, name, f.params, args, f.signature)
            if name not in self.statistics:
                self.statistics.append(name)
            node.ty = "real"
            return "real"
        if name in model.PREDICATES:
            self.err(node, f"predicate `{name}` inside a term", "", model.SUPPORTED_HYPOTHESES)
        if name in self.decls.def_keys.values() and name not in self.decls.defs:
            self.err(node, f"use of def `{name}` before its declaration", "Lean reads a file top to bottom",
                     "defs declared before the theorem (or def) that uses them")
        if name in self.decls.defs:
            d = self.decls.defs[name]
            if isinstance(d, LeanSyntaxError):
                raise d
            if d.uses_run and not self.allow_stats:
                self.err(node, f"def `{name}` (a statistic of a run) here",
                         "statistics of the run belong to the left side", model.SUPPORTED_LEFT)
            self.check_args(node, name, tuple(p[1] for p in d.params), args, f"{name} with {len(d.params)} "
                            "explicit arguments")
            self.used_defs[name] = d
            for sub in d.statistics_used:
                if sub not in self.statistics:
                    self.statistics.append(sub)
            for nm, sd in d.defs_used.items():
                self.used_defs[nm] = sd
            node.ty = d.result
            return d.result
        if name in ("gradient", "inner", "Finset.range", "Finset.card", "Nat.choose", "Real.exp", "Real.log"):
            self.err(node, f"`{name}`", "not part of the statement subset")
        n = self.lookup(name)
        if n is not None:
            self.err(node, f"application of the parameter `{name}` ({n.kind})")
        self.unknown(node.args[0] if node.kind == "app" else node)

    def check_args(self, node, name, kinds, args, signature):
        if len(args) != len(kinds):
            self.err(node, f"`{name}` applied to {len(args)} arguments", f"expects {len(kinds)}: {signature}",
                     signature)
        for a, kd in zip(args, kinds):
            if kd in ("nat", "real"):
                self.arith(a, kd)
            else:
                self.object_arg(a, kd, name)

    def object_arg(self, node, kind, fname):
        """An argument that is a problem, run, vector, controls or ``P.f``."""
        if kind == "vector":
            self.vector_expr(node, single=True)
            return
        if kind == "clients":
            fld = self.field_of(node) if node.kind == "ident" else None
            if fld is None or fld[1] != "f":
                self.err(node, f"`{node.text}` as the client functions of `{fname}`", "", "objective P.f x")
            return
        if node.kind != "ident":
            self.err(node, f"`{node.text}` as the {kind} argument of `{fname}`", "", f"a bound name of kind {kind}")
        n = self.lookup(node.value)
        if n is None:
            self.unknown(node)
        if n.kind != kind:
            self.err(node, f"`{node.value}` ({n.kind}) as the {kind} argument of `{fname}`", "",
                     f"a bound name of kind {kind}")
        node.ty = kind

    def vector_expr(self, node, single=False):
        """``P.x0``, a vector binder, or (inside ‖…‖) a difference of two of them."""
        if node.kind == "binop" and node.value == "-" and not single:
            self.vector_expr(node.args[0], True)
            self.vector_expr(node.args[1], True)
            node.ty = "vector"
            return
        if node.kind == "ident":
            fld = self.field_of(node)
            if fld is not None and fld[1] == "x0":
                node.ty = "vector"
                return
            n = self.lookup(node.value)
            if n is not None and n.kind == "vector":
                node.ty = "vector"
                return
        self.err(node, f"`{node.text}` as a point of the model space",
                 "", "P.x0, a bound point (xstar), and ‖u - v‖ of two of them")


def canon(node, ctx, decls, path):
    """The head name of a type or proposition, resolved as Lean would (:func:`resolve_name`):
    a model name becomes its bare name (the node is rewritten); other names stay as written.
    Raises :class:`LeanNameError` for a model name out of scope or an ambiguous one."""
    if node is None:
        return None
    ident = node if node.kind == "ident" else (
        node.args[0] if node.kind == "app" and node.args and node.args[0].kind == "ident" else None)
    if ident is None:
        return None
    if ctx is None:
        return ident.value.removeprefix(model.NAMESPACE + ".")
    hit = resolve_name(ident.value, ctx, decls, ident, path)
    if hit is not None and hit[0] == "model":
        ident.value = hit[1]
    return ident.value


def type_kind(node: Node | None, binder_style: str, scope: dict, canon=None):
    """Kind of a binder's type: (kind, info) with info the type's argument nodes. ``canon``:
    resolves a head name (see :func:`canon`); None: the model's names bare or ``SCAFFOLD.``-qualified."""
    if node is None:
        return None, None
    if canon is None:
        def canon(n):
            h0 = n.head_name()
            return h0.removeprefix(model.NAMESPACE + ".") if h0 else h0
    h = canon(node) if binder_style != "instance" else node.head_name()
    if node.kind == "ident":
        if h == "ℕ":
            return "nat", None
        if h == "ℝ":
            return "real", None
        if h == "Type":
            return "space", None
        if h in ("ℚ", "ℤ"):
            return "unsupported-number", None
    if binder_style == "instance":
        if h is not None and h.removeprefix("MeasureTheory.") in model.PROBABILITY_CLASSES:
            return "instance", None
        return "unsupported-instance", None
    if node.kind == "app":
        if h == "Problem" and len(node.args) == 3:
            return "problem", node.args[1:]
        if h == "Measure" or h == "MeasureTheory.Measure":
            return "measure", node.args[1:]
        if h == "Space" and len(node.args) == 2:
            return "vector", node.args[1:]
        if h == "Run" and len(node.args) == 9:
            return "run", node.args[1:]
        if h == "Initialization" and len(node.args) == 3:
            return "init", node.args[1:]
        if h in model.PREDICATES:
            return "prop", None
    if node.kind == "binop" and node.value == "→":
        a, b = node.args
        if a.head_name() == "Fin" and canon(b) == "Space":
            return "controls", [a.args[1] if len(a.args) > 1 else None, b.args[1] if len(b.args) > 1 else None]
    if node.kind == "ident" and h == "Run":
        return "unsupported-run", None
    if _is_prop(node, scope):
        return "prop", None
    return "unsupported", None


def _is_prop(node, scope) -> bool:
    if node.kind == "binop" and node.value in COMPARE | {"∧", "∨", "→", "↔"}:
        return True
    if node.kind in ("forall", "exists", "not"):
        return True
    h = node.head_name()
    return bool(h and h.removeprefix(model.NAMESPACE + ".") in model.PREDICATES)


def binder_scope(binders, path, decls, scope=None, ctx=None):
    """Scope entries for binders (kinds from their types); raises for unsupported binder types."""
    scope = dict(scope or {})
    params = []
    for b in binders:
        kind, info = type_kind(b.type, b.style, scope, canon_in(ctx, decls, path))
        if b.type is None:
            raise LeanSyntaxError(f"binder `{b.name}` without a type", "", line=b.line, col=b.col, path=path,
                                  supported="(x : T)")
        if kind is None or kind.startswith("unsupported"):
            what = {"unsupported-number": "number type (use ℝ or ℕ)",
                    "unsupported-instance": "instance argument",
                    "unsupported-run": "`Run` without its arguments"}.get(kind, "binder type")
            raise LeanSyntaxError(f"{what} `{b.type.text}`", f"binder `{b.name}`", line=b.type.line,
                                  col=b.type.col, path=path,
                                  supported="ℕ, ℝ, Problem d N, Type u, Measure Ω, Space d, Fin N → Space d, "
                                            "Run P ν S K T ηl ηg init, [MeasurableSpace Ω], "
                                            "[StandardBorelSpace Ω], [IsProbabilityMeasure ν], hypotheses")
        params.append((b, kind, info))
        if b.name != "_":
            scope[b.name] = ScopeName(kind, None, b.type)
    return scope, params


def canon_in(ctx, decls, path):
    return None if ctx is None else (lambda n: canon(n, ctx, decls, path))


def _read_def(name, cmd, variables, decls, clean, path, ctx=None) -> UserDef:
    toks, body, body_pos = header_tokens(cmd, clean, path, "def", name)
    p = make_parser(toks, path)
    binders = p.binders()
    result = "real"
    if p.at(":"):
        p.take(":")
        rt = p.term(0)
        h = rt.head_name()
        if h == "ℝ":
            result = "real"
        elif h == "ℕ":
            result = "nat"
        else:
            raise LeanSyntaxError(f"def `{name}` of type `{rt.text}`", "", line=rt.line, col=rt.col, path=path,
                                  supported="arithmetic defs of type ℝ or ℕ")
    else:
        t = p.peek() or (toks[0] if toks else None)
        raise LeanSyntaxError(f"def `{name}` without a result type", "", line=t.line if t else cmd.line,
                              col=t.col if t else cmd.col, path=path, supported="def f (x : ℝ) : ℝ := …")
    if p.peek() is not None:
        t = p.peek()
        raise LeanSyntaxError(f"token {t.text!r}", f"in the header of def `{name}`", line=t.line, col=t.col, path=path)
    if body is None:
        raise LeanSyntaxError(f"def `{name}` without `:=`", "", line=cmd.line, col=cmd.col, path=path,
                              supported="def f … : ℝ := body")
    used_vars = used_variables(variables, binders, body)
    scope, params = binder_scope(used_vars + binders, path, decls, ctx=ctx)
    explicit = [(b.name, kind) for b, kind, _ in params if b.style == "explicit"]
    implicit = [(b.name, kind, info) for b, kind, info in params if b.style != "explicit"]
    for b, kind, _ in params:
        if kind == "prop":
            raise LeanSyntaxError(f"hypothesis argument `{b.name}` of def `{name}`", "", line=b.line, col=b.col,
                                  path=path, supported="defs whose arguments are ℕ, ℝ, problems, points, runs")
    node = terms.parse_term(body, path=path, line=body_pos[0], col=body_pos[1])
    el = Elaborator(path, decls, scope, allow_stats=True, ctx=ctx)
    el.arith(node, result)
    d = UserDef(name, explicit, implicit, result, node, Location(path, cmd.line, cmd.col),
                uses_run=bool(el.statistics))
    d.statistics_used = list(el.statistics)
    d.defs_used = dict(el.used_defs)
    d.binders = {b.name: (kind, info, b.type) for b, kind, info in params}
    if any(s.uses_run for s in el.used_defs.values()):
        d.uses_run = True
    return d


def read_declarations(text: str, path: str = "<text>") -> Declarations:
    """The file's commands (:func:`~pyfed.statements.declarations.scan_declarations`: theorems,
    imports, variables, name-resolution contexts) with its defs read and elaborated.

    Defs are keyed by their name as declared, or by ``_root_.<full name>`` when that name is also
    a model definition or another def's; a def outside the subset is kept as the
    :class:`~pyfed.lean.terms.LeanSyntaxError` met while reading it (reported when used)."""
    decls = scan_declarations(text, path)
    clean = terms.strip_comments(text)
    raw = decls.raw_defs
    # def keys: the declared name, unless it clashes with the model's names, Mathlib's functions
    # or another def's declared name (then the full name, `_root_.`-prefixed: never a clash)
    declared = [r[0] for r in raw]
    for name, full, *_ in raw:
        clash = name in model.MODEL_NAMES or name in model.MATH_FUNCTIONS or declared.count(name) > 1
        decls.def_keys[full] = f"_root_.{full}" if clash else name
    for name, full, *_ in raw:
        parts = full.split(".")[:-1]
        decls.namespaces.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
    # elaborate defs in file order (a def may use the defs before it)
    decls.defs = {}
    for name, full, cmd, variables, ctx in raw:
        key = decls.def_keys[full]
        try:
            decls.defs[key] = _read_def(name, cmd, variables, decls, clean, path, ctx)
            decls.defs[key].name = key
        except LeanSyntaxError as e:
            decls.defs[key] = e
    return decls
