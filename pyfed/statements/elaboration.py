"""The statement builder for run-free theorems: vectors, sequences, function classes, finite
probability spaces and the model's procedures.

A run-free theorem ``∀ binders, hypotheses → conclusion`` (binders before or after the colon,
``(x : T) →`` binders, binder predicates ``∀ t < T, …``) becomes a
:class:`~pyfed.statements.Statement` with ``shape = "lemma"``: its parameters (each with its
:class:`~pyfed.statements.types.Ty`), its hypotheses (propositions, kept as terms) and its
conclusion (a comparison ``LHS ≤ RHS``, ``<``, ``=``, ``≤ᵐ[ν]`` …, or any proposition). A
conclusion ``A ∧ B`` gives one statement per conjunct (``Name.1``, ``Name.2``, as Lean's
projections name them).

Terms are *elaborated* against the model's vocabulary (:mod:`pyfed.statements.vocabulary`, read
from the model's Lean files) and the file's own definitions: every name resolved as Lean resolves
it, every subterm typed (:mod:`pyfed.statements.types`), numerals and natural numbers in a real
context coerced by Lean's ``binop%`` rule, and the implicit arguments of every application of a
model definition inferred by unification (``objective {d N}`` from its ``Fin N → Space d → ℝ``
argument; through lambdas: ``uniformSampleMean S (fun B => sampleAverage S v B)``). The
interpreter (:mod:`pyfed.statements.interpret`) then evaluates the typed terms on instances.
Anything outside the subset is a :class:`~pyfed.lean.terms.LeanSyntaxError` at file:line:col.

Why one module: the Elaboration is one type checker over the term kinds (its methods call each other
per kind, unifying metavariables shared across a statement), and the statement builder is its only
caller.
"""

from __future__ import annotations

import copy

from ..lean.terms import LeanError, LeanSyntaxError, LeanTypeError, Node
from . import types as T
from .declarations import Context, unknown_identifier
from .types import Ty
from .vocabulary import ModelDecl, model_declarations, model_namespaces

__all__ = ["Elaboration", "Meta", "FAMILIES", "SUPPORTED", "COMPARE", "resolved", "zonk", "walk", "kind_of",
           "elaborate_body"]

#: What the lemma builder reads (named in its errors).
SUPPORTED = ("binders of types ℕ, ℝ, Space d, Fin n, A → B, Finset A, Problem d N, LocalOracle d, Type*, Measure Ω, "
             "Filtration ℕ m, the model's structures and inductives; terms: numerals, + - * / ^ ⁻¹ •, casts, ‖·‖, |·|, "
             "inner ℝ u v, ⟪u, v⟫_ℝ, gradient f x, ∑ x ∈ s, ∑ i, fun x => …, if … then … else, ∫ ω, f ω ∂ν, "
             "condExp / μ[f | m], ≤ᵐ[ν], =ᵐ[ν], Finset.range / univ / powersetCard / card, ∅, Nat.choose, Real.sqrt, "
             "Real.rpow, Real.exp, Real.log, min, max, |·|, the model's definitions and the file's own defs")


class Meta:
    """A dimension or type still to be inferred (an implicit argument of one application)."""

    __slots__ = ("name", "ref")
    kind = "meta"         # an unknown type behaves as one nobody constrains
    args = ()

    def __init__(self, name: str):
        self.name, self.ref = name, None

    def __repr__(self):
        return f"?{self.name}" if self.ref is None else repr(self.ref)


def walk(x):
    while isinstance(x, Meta) and x.ref is not None:
        x = x.ref
    return x


def resolved(t):
    """A type with its metas replaced by what the elaboration inferred (:func:`zonk`)."""
    return zonk(t)


def zonk(t):
    """``t`` with every bound :class:`Meta` replaced by what it stands for."""
    t = walk(t)
    if isinstance(t, Ty):
        return Ty(t.kind, tuple(zonk(a) if isinstance(a, (Ty, Meta)) else a for a in t.args))
    return t


def _dim_eq(a, b) -> bool:
    a, b = walk(a), walk(b)
    if isinstance(a, Meta):
        if a is not b:
            a.ref = b
        return True
    if isinstance(b, Meta):
        b.ref = a
        return True
    return True        # two written dimensions: equal values are checked when the terms are evaluated


def _unify(p, a) -> bool:
    """Unify two types (binding metas); numeric coercion ℕ → ℝ is allowed from ``a`` to ``p``."""
    p, a = walk(p), walk(a)
    if isinstance(p, Meta):
        if p is not a:
            p.ref = a
        return True
    if isinstance(a, Meta):
        a.ref = p
        return True
    if a.kind == "unknown" or p.kind == "unknown":
        return True
    if p.kind == "poly" or a.kind == "poly":
        return (p.kind in ("nat", "real", "poly")) and (a.kind in ("nat", "real", "poly"))
    if p.kind != a.kind:
        return p.kind == "real" and a.kind == "nat"
    if p.kind in ("vec", "fin"):
        return _dim_eq(p.args[0], a.args[0])
    if p.kind in ("fun", "finset"):
        return all(_unify(x, y) for x, y in zip(p.args, a.args))
    if p.kind == "problem":
        return p.args[0] == a.args[0] and _dim_eq(p.args[1], a.args[1]) and _dim_eq(p.args[2], a.args[2])
    if p.kind in ("enum", "struct"):
        return p.args[0] == a.args[0] and all(_dim_eq(x, y) for x, y in zip(p.args[1:], a.args[1:]))
    return True


POLY = Ty("poly")
_ARITH = {"+", "-", "*", "/", "%"}
COMPARE = {"≤", "<", "=", "≠", "≥", ">", "≤ᵐ", "=ᵐ"}
_CONNECTIVES = {"∧", "∨", "→", "↔"}

#: Mathlib names the interpreter knows, with their types (metas are fresh per use).
_MATHLIB = {"Finset.range", "Finset.univ", "Finset.powersetCard", "Finset.card", "Nat.choose", "Real.sqrt",
            "Real.rpow", "Real.exp", "Real.log", "min", "max", "inner", "gradient", "MeasureTheory.condExp",
            "condExp", "abs", "∅"}

#: Propositions about objects that are decided from their construction (instance families) or
#: by finite computation on a finite probability space, never by evaluating a term.
STRUCTURAL = {"HasGradientAt", "ConvexOn", "StronglyMeasurable", "MemLp", "MeasureTheory.MemLp",
              "ProbabilityTheory.iCondIndepFun", "Integrable", "MeasureTheory.Integrable",
              "Convexity", "IsMinimizer", "IsUniformSample", "Measurable"}

#: The statement families of run-free statements, by what they quantify over.
FAMILIES = ("function-class lemma", "probability lemma", "procedure lemma", "sequence lemma", "vector lemma",
            "scalar lemma")


class Elaboration:
    """Elaborates the terms of one statement (or of a definition's body).

    ``scope``: name -> Ty of the bound names; ``ctx``: the Lean context (namespace, opens) for
    resolving the model's names; ``file_decls``: the file's own definitions as
    :class:`~pyfed.statements.vocabulary.ModelDecl` (they shadow the model's when Lean would)."""

    def __init__(self, path: str, ctx: Context, scope: dict, file_decls: dict | None = None, checked=None):
        self.path, self.ctx = path, ctx
        self.scope = dict(scope)
        self.file_decls = dict(file_decls or {})
        self.model = model_declarations()
        self.used_decls: dict = {}
        self._fresh = 0
        self._checked = set() if checked is None else checked   # the file's defs already checked

    # ---- errors
    def err(self, node, construct, detail="", supported=SUPPORTED):
        raise LeanSyntaxError(construct, detail, line=node.line, col=node.col, path=self.path, supported=supported)

    # ---- names
    def resolve(self, written: str, node=None):
        """The declaration (file's or model's) a written name refers to, as Lean resolves it, or None.
        An ambiguous name raises :class:`~pyfed.lean.terms.LeanSyntaxError` at ``node``'s position."""
        w = written.removeprefix("_root_.")
        cands = [w]
        parts = self.ctx.namespace.split(".") if self.ctx.namespace else []
        for k in range(len(parts), 0, -1):
            cands.append(".".join(parts[:k]) + "." + w)
        for full in reversed(cands[1:]):
            pass
        # innermost namespace first, then the root name and the opened namespaces
        for full in cands[1:] + cands[:1]:
            if full in self.file_decls:
                return self.file_decls[full]
            if full in self.model:
                return self.model[full]
        hits = {}
        for o in self.ctx.opens:
            full = f"{o}.{w}"
            d = self.file_decls.get(full) or self.model.get(full)
            if d is not None:
                hits[d.name] = d
        if len(hits) > 1:
            raise LeanSyntaxError(f"ambiguous identifier `{written}`", "possible interpretations: "
                                  + ", ".join(f"`{h}`" for h in hits) + " (Lean rejects it: qualify the name)",
                                  line=node.line if node is not None else 0, col=node.col if node is not None else 0,
                                  path=self.path, supported="a qualified name")
        if hits:
            return next(iter(hits.values()))
        bare = w.rsplit(".", 1)[-1]
        if "." not in w and any(f"{ns}.{bare}" in self.model for ns in model_namespaces()):
            return _Unopened(w)
        return None

    def fresh(self, name):
        self._fresh += 1
        return Meta(f"{name}{self._fresh}")

    # ---- types written in binders
    def type_of_binder(self, node: Node, style: str = "explicit") -> Ty:
        """The Ty of a binder's type (a proposition gives ``prop``)."""
        if node is None:
            return T.UNKNOWN
        k = node.kind
        if k == "binop" and node.value == "→":
            a = self.type_of_binder(node.args[0])
            if a.kind == "prop":
                return T.PROP
            return T.fun(a, self.type_of_binder(node.args[1]))
        h = node.head_name()
        if k == "ident" and h in self.scope:
            bound = walk(self.scope[h])
            if not isinstance(bound, Meta) and bound.kind == "tyvar":
                return Ty("var", (h,))
            if not isinstance(bound, Meta) and bound.kind == "type":
                return Ty("point", (h,))
        if k == "ident":
            if h == "ℕ":
                return T.NAT
            if h in ("ℝ", "ℚ"):
                # ℚ is a subfield of ℝ with the same `x / 0 = 0`, and every number the engines
                # draw or solve for is rational, so a ℚ statement is read as the ℝ one and a
                # cast ℚ → ℝ is the identity
                return T.REAL
            if h == "ℤ":
                self.err(node, "number type `ℤ`", "statements are over ℕ, ℚ and ℝ", "ℕ, ℚ, ℝ")
            if h in ("Type", "Prop"):
                return T.TYPE if h == "Type" else Ty("sort")
        if k in ("app", "ident") and h is not None:
            args = node.args[1:] if k == "app" else []
            base = h.removeprefix("MeasureTheory.").removeprefix("_root_.")
            if base in ("Measure",):
                return T.MEASURE
            if base == "Filtration":
                return T.FILTRATION
            if base == "Fin" and len(args) == 1:
                return T.fin(args[0])
            if base == "Finset" and len(args) == 1:
                return T.finset(self.type_of_binder(args[0]))
            if base == "EuclideanSpace" and len(args) == 2:
                inner = args[1]
                if inner.head_name() == "Fin" and len(inner.args) == 2:
                    return T.vec(inner.args[1])
            if base in STRUCTURAL or base in ("MeasurableSpace", "IsProbabilityMeasure", "StandardBorelSpace",
                                              "AddCommGroup", "Module", "NormedAddCommGroup", "InnerProductSpace"):
                return T.PROP if style != "instance" else Ty("instance")
            d = self.resolve(h, node)
            if isinstance(d, _Unopened):
                raise LeanError(f"unknown identifier '{h}'", d.hint(), line=node.line, col=node.col, path=self.path)
            if isinstance(d, ModelDecl):
                return self.decl_type(d, args, node)
        if self.is_prop(node):
            return T.PROP
        self.err(node, f"binder type `{node.text}`", "", SUPPORTED)

    def decl_type(self, d: ModelDecl, args, node) -> Ty:
        """The type a model declaration used as a type denotes (``Space d``, ``Problem d N`` …)."""
        bare = d.bare
        if d.kind == "abbrev" and bare in ("Space", "ModelSpace") and len(args) == 1:
            return T.vec(args[0])
        if d.kind == "abbrev" and bare == "LocalOracle" and len(args) == 1:
            return T.fun(T.NAT, T.fun(T.vec(args[0]), T.vec(args[0])))
        if d.kind == "structure" and bare == "Problem" and len(args) == 2:
            return Ty("problem", (d.name.rsplit(".", 1)[0], args[0], args[1]))
        if d.kind == "structure" and bare == "Run":
            self.err(node, "`Run` in a run-free statement", "", SUPPORTED)
        if d.kind == "structure":
            return Ty("struct", (d.name,) + tuple(args))
        if d.kind == "inductive":
            return Ty("enum", (d.name,) + tuple(args))
        if d.kind == "abbrev" and d.body is not None:
            sub = Elaboration(self.path, Context(d.name.rsplit(".", 1)[0]), {})
            return sub.type_of_binder(_substitute(d.body, {b.name: a for b, a in zip(d.explicit, args)}))
        if d.result is not None and d.result.text == "Prop":
            return T.PROP
        self.err(node, f"type `{node.text}`", "", SUPPORTED)

    def is_prop(self, node) -> bool:
        if node.kind == "binop" and node.value in COMPARE | _CONNECTIVES | {"∈", "∉"}:
            return True
        if node.kind in ("forall", "exists", "not", "subscript"):
            return True
        h = node.head_name()
        if h and h.removeprefix("MeasureTheory.").removeprefix("ProbabilityTheory.") in STRUCTURAL:
            return True
        if h:
            d = self.resolve(h, node)
            if isinstance(d, ModelDecl) and d.result is not None and d.result.text == "Prop":
                return True
        return False

    # ---- terms
    def term(self, node: Node, expected: Ty | None = None) -> Ty:
        """Elaborate ``node`` (annotating it) and return its type."""
        t = self._term(node, expected)
        node.lty = t            # metas are resolved when the value is needed (later uses may bind them)
        if node.ty is None:
            node.ty = kind_of(t)
        return t

    def _term(self, node, expected):
        k = node.kind
        if k == "binop" and node.value in _ARITH:
            return self.arith(node, expected)
        if k == "binop" and node.value == "^":
            return self.arith(node, expected)
        if k == "neg":
            return self.arith(node, expected)
        if k == "num":
            if expected is not None and kind_of(expected) == "vec" and node.value == 0:
                # Lean's `0 : Space d` (the `Zero` instance): the zero point where a point is expected
                node.ty = "vec"
                node.lty = walk(expected)
                return walk(expected)
            if expected is not None and kind_of(expected) in ("nat", "real"):
                node.ty = kind_of(expected)
                return walk(expected)
            node.ty = "nat" if node.value.denominator == 1 else "real"
            return T.NAT if node.value.denominator == 1 else T.REAL
        if k == "binop" and node.value == "•":
            self.term(node.args[0], T.REAL)
            node.args[0].ty = "real" if node.args[0].ty in ("nat", "real", "poly") else node.args[0].ty
            _coerce_real(node.args[0])
            return self.term(node.args[1], expected)
        if k == "binop" and node.value in COMPARE:
            self.relation(node)
            return T.PROP
        if k == "binop" and node.value in _CONNECTIVES:
            for a in node.args:
                self.prop(a)
            return T.PROP
        if k == "binop" and node.value in ("∈", "∉"):
            a = self.term(node.args[0])
            s = self.term(node.args[1])
            if kind_of(s) == "finset":
                _unify(walk(s).args[0], a)
            return T.PROP
        if k in ("forall", "exists"):
            saved = dict(self.scope)
            try:
                for b in node.value:
                    self.scope[b.name] = self.type_of_binder(b.type) if b.type is not None else self.fresh(b.name)
                self.prop(node.args[0])
                for b in node.value:
                    b.lty = zonk(self.scope[b.name])
            finally:
                self.scope = saved
            return T.PROP
        if k == "not":
            self.prop(node.args[0])
            return T.PROP
        if k == "ident":
            return self.ident(node, expected)
        if k == "app":
            return self.app(node, expected)
        if k == "norm":
            self.term(node.args[0])
            return T.REAL
        if k == "abs":
            self.term(node.args[0], T.REAL)
            _coerce_real(node.args[0])
            return T.REAL
        if k == "inv":
            self.term(node.args[0], T.REAL)
            _coerce_real(node.args[0])
            node.ty = "real"
            return T.REAL
        if k == "cast":
            target = node.args[1]
            tt = self.type_of_binder(target)
            if tt.kind in ("nat", "real"):
                inner = node.args[0]
                arithmetic = inner.kind in ("num", "neg") or (inner.kind == "binop" and (inner.value in _ARITH
                                                                                         or inner.value == "^"))
                # Lean elaborates `(e : ℝ)` with ℝ expected: an arithmetic tree's numerals and ℕ
                # leaves become reals (`(1 / 2 : ℝ)` is one half); a name is coerced as a whole.
                self.term(inner, tt if tt.kind == "nat" or arithmetic else None)
                if tt.kind == "real":
                    _coerce_real(node.args[0])
                node.ty = tt.kind
                return tt
            got = self.term(node.args[0], tt)
            _unify(tt, got)
            return tt
        if k == "coe":
            self.term(node.args[0])
            _coerce_real(node.args[0])
            node.ty = "real"
            return T.REAL
        if k == "sum":
            return self.big_sum(node, expected)
        if k == "fun":
            return self.lam(node, expected)
        if k == "let":
            vt = self.term(node.args[0])
            saved = self.scope.get(node.value)
            self.scope[node.value] = vt
            try:
                return self.term(node.args[1], expected)
            finally:
                if saved is None:
                    self.scope.pop(node.value, None)
                else:
                    self.scope[node.value] = saved
        if k == "ite":
            self.prop(node.args[0])
            a = self.term(node.args[1], expected)
            b = self.term(node.args[2], expected if expected is not None else a)
            _unify(a, b)
            return a
        if k == "integral":
            saved = self.scope.get(node.value)
            self.scope[node.value] = Ty("point")
            try:
                t = self.term(node.args[0])
            finally:
                if saved is None:
                    self.scope.pop(node.value, None)
                else:
                    self.scope[node.value] = saved
            self.term(node.args[1])
            return t
        if k == "condexp":
            self.term(node.args[0])
            self.term(node.args[2])
            return self.term(node.args[1])
        if k == "proj":
            base = self.term(node.args[0])
            return self.field(node, walk(base), node.value)
        if k == "subscript":
            self.term(node.args[0])
            return Ty("measurable_at")
        if k == "list":
            self.err(node, "list literal")
        self.err(node, f"construct `{node.text[:40]}`")

    def prop(self, node):
        t = self.term(node)
        if kind_of(t) not in ("prop", "measurable_at", "unknown"):
            self.err(node, f"`{node.text[:50]}` where a proposition is expected")

    def relation(self, node):
        op = node.value
        a, b = node.args[0], node.args[1]
        if op in ("≤ᵐ", "=ᵐ"):
            ta = self.term(a)
            tb = self.term(b, ta)
            _unify(ta, tb)
            if len(node.args) > 2:
                self.term(node.args[2])
            return
        leaves: list = []
        for side in (a, b):
            _leaves(side, leaves)
        kinds = [self.leaf_kind(x) for x in leaves]
        if any(kind_of(k) not in ("nat", "real", "poly") for k in kinds):
            ta = self.term(a)
            tb = self.term(b, ta)
            if not _unify(ta, tb) and not _unify(tb, ta):
                raise LeanTypeError(f"type mismatch: `{a.text[:40]}` has type `{T.show(zonk(ta))}` and "
                                    f"`{b.text[:40]}` has type `{T.show(zonk(tb))}`", f"`{op}` compares two "
                                    "values of one type", line=node.line, col=node.col, path=self.path)
            return
        ty = T.REAL if any(kind_of(k) == "real" for k in kinds) else T.NAT
        self.arith(a, ty)
        self.arith(b, ty)
        node.cmp_ty = ty.kind

    def leaf_kind(self, node) -> Ty:
        """The type of an arithmetic leaf, elaborated on its own (numerals: ``poly``)."""
        if node.kind == "num":
            return POLY
        if node.kind == "inv":
            self.term(node)
            return T.REAL
        return self.term(node)

    def arith(self, node, expected=None) -> Ty:
        """An arithmetic tree by Lean's ``binop%`` rule: its leaves elaborated on their own, the
        tree's type the largest among them and the expected type (ℕ < ℝ); natural-number leaves
        of a real tree are coerced; vectors stay vectors."""
        leaves: list = []
        _leaves(node, leaves)
        kinds = [walk(self.leaf_kind(x)) for x in leaves]
        vecs = [k for k in kinds if kind_of(k) not in ("nat", "real", "poly", "unknown")]
        if vecs:
            ty = vecs[0]
            if kind_of(ty) == "vec":
                self._point_arith(node, leaves, kinds, ty)
        elif (expected is not None and kind_of(expected) == "real") or any(kind_of(k) == "real" for k in kinds):
            ty = T.REAL
        elif expected is not None and kind_of(expected) in ("nat",):
            ty = T.NAT
        else:
            ty = T.NAT
        _annotate(self, node, ty)
        for leaf, k in zip(leaves, kinds):
            if leaf.kind == "num":
                if ty.kind == "nat" and leaf.value.denominator != 1:
                    self.err(leaf, f"decimal `{leaf.text}` as a natural number", "Lean has no ℕ decimals",
                             "(x : ℝ) for real numbers")
                leaf.ty = ty.kind if ty.kind in ("nat", "real") else "real"
            elif kind_of(k) == "nat" and ty.kind == "real":
                leaf.coerce = True
        node.lty = ty
        return ty

    def _point_arith(self, node, leaves, kinds, ty):
        """An arithmetic tree over points of ``Space d``: only ``+``, ``-`` and negation of points
        (and the numeral 0) type-check in Lean; a product, quotient or power, or a number among the
        points, raises :class:`~pyfed.lean.terms.LeanTypeError` (scaling a point is ``a • u``)."""
        space = T.show(zonk(ty))
        points = {id(leaf) for leaf, k in zip(leaves, kinds) if kind_of(k) not in ("nat", "real", "poly", "unknown")}

        def has_point(n):
            if id(n) in points:
                return True
            if n.kind == "binop" and n.value in _ARITH:
                return has_point(n.args[0]) or has_point(n.args[1])
            if n.kind == "binop" and n.value in ("^", "^r") or n.kind == "neg":
                return has_point(n.args[0])
            return False

        def numbers(n):                # the largest point-free operands of the sum, whole
            if not has_point(n):
                if not (n.kind == "num" and n.value == 0):
                    raise LeanTypeError(f"`{n.text[:40]}` is a number in a sum of points of `{space}`",
                                        "Lean rejects it (type mismatch)", line=n.line, col=n.col, path=self.path)
            elif n.kind == "binop" and n.value in ("+", "-"):
                numbers(n.args[0])
                numbers(n.args[1])
            elif n.kind == "neg":
                numbers(n.args[0])

        def ops(n):
            if not has_point(n):       # a number inside the sum (`(1 + a) * ‖u‖ ^ 2`) is no product
                return                 # with a point; `numbers` names it after this pass
            if n.kind == "binop" and n.value in _ARITH | {"^", "^r"}:
                if n.value not in ("+", "-"):
                    raise LeanTypeError(f"`{n.value}` in `{n.text[:40]}` involves a point of `{space}`",
                                        f"Lean has no `{n.value}` between numbers and points (scale a point with "
                                        "`•`: `a • u`)", line=n.line, col=n.col, path=self.path)
                ops(n.args[0])
                ops(n.args[1])
            elif n.kind == "neg":
                ops(n.args[0])
        ops(node)                      # first the product at fault (`a * u`), then a number in the sum
        numbers(node)
        for leaf, k in zip(leaves, kinds):
            if kind_of(k) in ("nat", "real") or (leaf.kind == "num" and leaf.value != 0):
                raise LeanTypeError(f"`{leaf.text[:40]}` is a number in a sum of points of `{space}`",
                                    "Lean rejects it (type mismatch)", line=leaf.line, col=leaf.col, path=self.path)

    def big_sum(self, node, expected):
        rng, body = node.args
        saved = self.scope.get(node.value)
        if rng is not None:
            st = walk(self.term(rng))
            self.scope[node.value] = st.args[0] if st.kind == "finset" else self.fresh(node.value)
        else:
            self.scope[node.value] = self.fresh(node.value)
        try:
            t = self.term(body, expected)
            node.index_ty = zonk(self.scope[node.value])
        finally:
            if saved is None:
                self.scope.pop(node.value, None)
            else:
                self.scope[node.value] = saved
        if kind_of(node.index_ty) not in ("fin", "nat") and rng is None:
            self.err(node, f"∑ over `{node.value}` whose type is not inferred", "write `∑ i : Fin n, …`",
                     "∑ i ∈ s, body  or  ∑ i, body over Fin n")
        return t

    def lam(self, node, expected):
        exp = walk(expected) if expected is not None else None
        saved = dict(self.scope)
        dom_types = []
        try:
            et = exp
            for b in node.value:
                if b.type is not None:
                    bt = self.type_of_binder(b.type)
                elif et is not None and et.kind == "fun":
                    bt = et.args[0]
                else:
                    bt = self.fresh(b.name)
                if et is not None and et.kind == "fun":
                    _unify(et.args[0], bt)
                    et = walk(et.args[1])
                else:
                    et = None
                self.scope[b.name] = bt
                dom_types.append(bt)
            body_t = self.term(node.args[0], et)
        finally:
            self.scope = saved
        out = body_t
        for bt in reversed(dom_types):
            out = T.fun(bt, out)
        node.domains = dom_types
        return out

    def ident(self, node, expected):
        name = node.value
        if name in self.scope:
            node.ref = ("bound", name)
            return self.scope[name]
        if "." in name:
            head, _, rest = name.partition(".")
            if head in self.scope:
                node.ref = ("field", head, rest)
                t = walk(self.scope[head])
                for fld in rest.split("."):
                    t = walk(self.field(node, t, fld))
                return t
        return self.global_(node, name, [], expected)

    def field(self, node, t, fld) -> Ty:
        """The type of ``x.fld`` for ``x : t``."""
        if t.kind == "finset" and fld == "card":
            return T.NAT
        if fld == "toReal":
            return T.REAL
        if t.kind in ("problem", "struct"):
            name = f"{t.args[0]}.Problem" if t.kind == "problem" else t.args[0]
            decl = self.model.get(name)
            if decl is None:
                self.err(node, f"field `{fld}` of `{T.show(t)}`")
            fields = dict(decl.fields)
            if fld not in fields or fields[fld] is None:
                self.err(node, f"field `{fld}` of `{T.show(t)}`", "", ", ".join(f for f, _ in decl.fields))
            params = [b.name for b in decl.binders if b.style == "explicit"]
            dims = t.args[1:] if t.kind == "problem" else t.args[1:]
            sub = Elaboration(self.path, Context(decl.name.rsplit(".", 1)[0]), {})
            ftype = _substitute(fields[fld], {p: d for p, d in zip(params, dims) if isinstance(d, Node)})
            return sub.type_of_binder(ftype)
        self.err(node, f"field `{fld}` of a value of type `{T.show(t)}`")

    def app(self, node, expected):
        head, args = node.args[0], node.args[1:]
        if head.kind == "subscript" or (head.kind == "ident" and _structural_name(head.value)):
            # a proposition decided from the objects' construction (measurability, differentiability,
            # integrability, independence): its arguments are elaborated, it is not evaluated as a term
            if head.kind == "subscript":
                self._sigma_loose(head.args[0])
            for a in args:
                self._loose(a)
            node.ref = ("structural", head.value if head.kind == "ident" else head.value)
            return T.PROP
        if head.kind == "ident" and head.value.partition(".")[0] not in self.scope:
            return self.global_(head, head.value, args, expected, app=node)
        ft = walk(self.term(head))
        return self.apply(node, ft, args)

    def apply(self, node, ft, args) -> Ty:
        for a in args:
            ft = walk(ft)
            if ft.kind != "fun":
                self.err(a, f"argument `{a.text[:30]}` to a value of type `{T.show(zonk(ft))}`", "too many arguments")
            dom = ft.args[0]
            if not isinstance(walk(dom), Meta) and kind_of(dom) in ("field", "sigma"):
                if kind_of(dom) == "sigma":      # a σ-algebra: a filtration's member `F j`
                    self._sigma(a)
                ft = ft.args[1]
                continue
            at = self.term(a, dom if not isinstance(walk(dom), Meta) else None)
            if not _unify(dom, at):
                self.err(a, f"argument `{a.text[:30]}` of type `{T.show(zonk(at))}`",
                         f"expected `{T.show(zonk(dom))}`")
            if kind_of(dom) == "real" and kind_of(at) in ("nat", "poly"):
                _coerce_real(a)
            ft = ft.args[1]
        return ft

    def _loose(self, node):
        """Elaborate an argument of a structural proposition when it is a term (ℝ, Set.univ and the
        σ-algebra arguments are not)."""
        if node.kind == "ident" and (node.value in ("ℝ", "Set.univ") or node.value.endswith(".le")):
            return
        if node.kind == "app" and node.args[0].kind == "ident" and node.args[0].value.split(".")[-1] == "le":
            return
        if node.kind == "num":
            return
        try:
            self.term(node)
        except LeanSyntaxError:
            if node.kind == "app":
                self._sigma_loose(node)
            else:
                raise

    def _sigma_loose(self, node):
        try:
            self._sigma(node)
        except LeanSyntaxError:
            self.term(node)

    def _sigma(self, node):
        """A σ-algebra argument: ``F j`` of a filtration ``F`` (the index elaborated as ℕ)."""
        if node.kind == "app" and len(node.args) == 2:
            ht = walk(self.term(node.args[0]))
            if ht.kind == "filtration":
                self.term(node.args[1], T.NAT)
                node.ty = "sigma"
                return
        self.err(node, f"σ-algebra `{node.text[:40]}`", "", "F j for a filtration F : Filtration ℕ m")

    def global_(self, node, name, args, expected, app=None) -> Ty:
        """A name that is not bound: a Mathlib function, a model declaration or a file's def."""
        base = name.removeprefix("_root_.")
        short = base.removeprefix("MeasureTheory.")
        target = app if app is not None else node
        if base in _MATHLIB or short in _MATHLIB:
            t = self.mathlib(short, node)
            target.ref = ("mathlib", short)
            return self.apply(target, t, args) if args else t
        d = self.resolve(base, node)
        if isinstance(d, _Unopened):
            raise LeanError(f"unknown identifier '{name}'", d.hint(), line=node.line, col=node.col, path=self.path)
        if d is None:
            if "." in base:
                ns, _, ctor = base.rpartition(".")
                ind = self.resolve(ns, node)
                if isinstance(ind, ModelDecl) and ind.kind == "inductive" and f"{ind.name}.{ctor}" in ind.constructors:
                    target.ref = ("ctor", f"{ind.name}.{ctor}")
                    return Ty("enum", (ind.name,))
            unknown = unknown_identifier(node, name, self.path, applied=app is not None, scope=self.scope)
            if unknown is not None:      # a typo, a binder left out: Lean's own error, at its position
                raise unknown
            self.err(node, f"name `{name}`", "not a bound name, a model definition or a def of this file "
                     "(if it is Mathlib's, it is outside the vocabulary pyfed reads)", SUPPORTED)
        self.used_decls[d.name] = d
        if self.file_decls.get(d.name) is d:
            self.check_file_def(d)
        if d.kind in ("structure", "inductive"):
            self.err(node, f"`{name}` ({d.kind}) as a term")
        metas = {b.name: self.fresh(b.name) for b in d.binders if b.style in ("implicit", "strict")}
        sub = Elaboration(self.path, Context(d.name.rsplit(".", 1)[0], model_namespaces()), {})
        sub.scope = {}
        for b in d.binders:
            if b.style in ("implicit", "strict"):
                if b.type is not None and b.type.head_name() == "Type":
                    sub.scope[b.name] = Ty("tyvar")
                else:
                    sub.scope[b.name] = T.NAT if b.type is not None and b.type.text == "ℕ" else T.UNKNOWN
        ft = None
        ptypes = []
        for b in d.explicit:
            ptypes.append(_instantiate(sub.type_of_binder(b.type) if b.type is not None else T.UNKNOWN, metas))
        rt = _instantiate(sub.type_of_binder(d.result), metas) if d.result is not None else T.UNKNOWN
        if d.result is not None and d.result.kind == "ident" and d.result.value in metas:
            rt = metas[d.result.value]
        ft = rt
        for pt in reversed(ptypes):
            ft = T.fun(pt, ft)
        target.ref = ("decl", d.name)
        out = self.apply(target, ft, args) if args else ft
        target.implicits = metas
        return out

    def check_file_def(self, d: ModelDecl):
        """A def of the file that the statement uses, checked as Lean checks it when the file is
        read: its text inside the grammar (else the error met while reading it) and its body
        elaborated in its own scope (a copy, so the interpreter elaborates the original). The defs
        it uses are checked in turn. Raises :class:`~pyfed.lean.terms.LeanSyntaxError`."""
        if d.name in self._checked:
            return
        self._checked.add(d.name)
        if d.error is not None:
            raise d.error
        elaborate_body(copy.deepcopy(d), self.file_decls, self._checked)

    def mathlib(self, name, node) -> Ty:
        m = self.fresh
        if name == "Finset.range":
            return T.fun(T.NAT, T.finset(T.NAT))
        if name in ("Finset.univ", "∅"):
            return T.finset(m("α"))
        if name == "Finset.powersetCard":
            a = m("α")
            return T.fun(T.NAT, T.fun(T.finset(a), T.finset(T.finset(a))))
        if name == "Finset.card":
            return T.fun(T.finset(m("α")), T.NAT)
        if name == "Nat.choose":
            return T.fun(T.NAT, T.fun(T.NAT, T.NAT))
        if name in ("Real.sqrt", "Real.exp", "Real.log", "abs"):
            return T.fun(T.REAL, T.REAL)
        if name == "Real.rpow":
            return T.fun(T.REAL, T.fun(T.REAL, T.REAL))
        if name in ("min", "max"):
            a = m("α")
            return T.fun(a, T.fun(a, a))
        if name == "inner":
            v = T.vec(m("d"))
            return T.fun(Ty("field"), T.fun(v, T.fun(v, T.REAL)))
        if name == "gradient":
            v = T.vec(m("d"))
            return T.fun(T.fun(v, T.REAL), T.fun(v, v))
        if name in ("condExp", "MeasureTheory.condExp"):
            f = m("f")
            return T.fun(Ty("sigma"), T.fun(T.MEASURE, T.fun(f, f)))
        self.err(node, f"`{name}`")


def elaborate_body(d: ModelDecl, file_decls: dict, checked=None):
    """Elaborate the body of definition ``d`` (the model's or a file's) in its own scope, in place:
    a term, a structure value (dict field -> term), or the alternatives of a definition by cases;
    returns it (``d.cases`` for a definition by cases, None for a definition without a body).
    ``file_decls``: the file's defs (they shadow the model's); ``checked``: names of the file's
    defs already checked (shared, for defs that use each other). A file's def is elaborated in the
    context it is declared in, a model definition with the model's namespaces open. Raises
    :class:`~pyfed.lean.terms.LeanSyntaxError` for a body Lean would reject or the subset lacks."""
    ns = d.name.rsplit(".", 1)[0] if "." in d.name else ""
    ctx = d.context if d.context is not None else Context(ns, model_namespaces())
    el = Elaboration(d.path, ctx, {}, file_decls, checked)
    for b in d.binders:
        if b.style == "instance":
            continue
        if b.type is not None and b.type.head_name() == "Type":
            el.scope[b.name] = Ty("type")
            continue
        el.scope[b.name] = el.type_of_binder(b.type) if b.type is not None else T.UNKNOWN
    result_t = el.type_of_binder(d.result) if d.result is not None and d.result.text not in ("Prop",) else None
    if d.cases is not None:
        scrut, alts, _ = d.cases
        for case in alts:
            if case.pattern[0] == "succ":
                el.scope[case.pattern[1]] = T.NAT
            if case.pattern[0] == "ctor":
                for nm in case.pattern[2]:
                    el.scope[nm] = _ctor_arg_type(case.pattern[1])
            exp = result_t.args[1] if (scrut is None and result_t is not None and result_t.kind == "fun") \
                else result_t
            if isinstance(case.body, dict):
                for t in case.body.values():
                    el.term(t)
            else:
                el.term(case.body, exp)
        return d.cases
    body = d.body
    if isinstance(body, dict):
        for t in body.values():
            el.term(t)
    elif body is not None:
        got = el.term(body, result_t)
        if result_t is not None and d.context is not None and not _unify(result_t, got):
            raise LeanTypeError(f"type mismatch: the body of `{d.bare}` has type `{T.show(zonk(got))}`",
                                f"its declared type is `{T.show(zonk(result_t))}`", line=body.line, col=body.col,
                                path=d.path)
    return body


def _ctor_arg_type(ctor):
    """The type of a constructor's argument (``FedAvgMode.weighted (counts : Fin N → ℕ)``)."""
    if ctor.endswith("weighted"):
        return Ty("fun", (Ty("fin", (None,)), T.NAT))
    return T.UNKNOWN


def _structural_name(name: str) -> bool:
    base = name.removeprefix("_root_.")
    return base in STRUCTURAL or base.removeprefix("MeasureTheory.") in STRUCTURAL or \
        base.removeprefix("ProbabilityTheory.") in STRUCTURAL


class _Unopened:
    """A model name written bare where no namespace of the model is open."""

    def __init__(self, written):
        self.written = written

    def hint(self) -> str:
        nss = [ns for ns in model_namespaces() if f"{ns}.{self.written}" in model_declarations()]
        ns = nss[0]
        return f"the model's definitions live in namespace {ns}: add `open {ns}` or write {ns}.{self.written}"


def kind_of(t) -> str:
    t = walk(t)
    if isinstance(t, Meta):
        return "unknown"
    return t.kind


def _coerce_real(node):
    if node.ty == "nat" or node.ty == "poly":
        if node.kind == "num":
            node.ty = "real"
        else:
            node.coerce = True


def _leaves(node, out):
    if node.kind == "binop" and node.value in _ARITH:
        _leaves(node.args[0], out)
        _leaves(node.args[1], out)
    elif node.kind == "binop" and node.value == "^":
        _leaves(node.args[0], out)
    elif node.kind == "neg":
        _leaves(node.args[0], out)
    else:
        out.append(node)


def _annotate(el, node, ty):
    kind = ty.kind if ty.kind in ("nat", "real") else ty.kind
    if node.kind == "binop" and node.value in _ARITH:
        node.ty = kind
        node.lty = ty
        _annotate(el, node.args[0], ty)
        _annotate(el, node.args[1], ty)
    elif node.kind == "binop" and node.value == "^":
        node.ty = kind
        node.lty = ty
        _annotate(el, node.args[0], ty)
        et = el.arith(node.args[1], None)
        node.value = "^" if kind_of(et) == "nat" else "^r"
    elif node.kind == "neg":
        node.ty = kind
        node.lty = ty
        _annotate(el, node.args[0], ty)


def _instantiate(t, metas):
    """``t`` with the identifier dimensions naming implicit parameters replaced by their metas."""
    t = walk(t)
    if isinstance(t, Meta):
        return t
    out = []
    for a in t.args:
        if isinstance(a, Ty):
            out.append(_instantiate(a, metas))
        elif isinstance(a, Node) and a.kind == "ident" and a.value in metas:
            out.append(metas[a.value])
        else:
            out.append(a)
    if t.kind == "var" and t.args and t.args[0] in metas:
        return metas[t.args[0]]
    return Ty(t.kind, tuple(out))


def _substitute(node: Node, mapping: dict) -> Node:
    """A copy of ``node`` with identifiers renamed to the nodes of ``mapping``."""
    if node.kind == "ident" and node.value in mapping:
        return mapping[node.value]
    new = Node(node.kind, node.value, [(_substitute(a, mapping) if isinstance(a, Node) else a) for a in node.args],
               node.line, node.col, node.text)
    return new
