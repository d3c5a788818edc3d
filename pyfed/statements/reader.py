"""Lean statement reader: theorems about SCAFFOLD runs -> :class:`~pyfed.statements.Statement`.

:func:`read_file` reads a ``.lean`` file that imports the model (``import Pyfed``, or the
published ``import Definitions.Def_SCAFFOLD_Model``), finds its ``theorem`` declarations and
turns each one into a :class:`Statement`; :func:`read_text` does the same for a string.
Both binder shapes are read, and mixtures of them:

* binders after the colon (seed 000): ``theorem X : ∀ (d N : ℕ) (P : Problem d N) …, H₁ → H₂ →
  ∀ A : Run P ν S K T ηl ηg (some c0), LHS ≤ RHS``;
* binders before the colon: ``theorem X {d N : ℕ} (P : Problem d N) … (h₁ : H₁) (A : Run …) :
  LHS ≤ RHS``.

Terms are parsed by the one grammar of :mod:`pyfed.lean.terms` and then *elaborated*: every
name is resolved (the statement's binders, the model's definitions of
:mod:`pyfed.statements.model`, the file's own ``def`` s and ``variable`` s) and every arithmetic
subterm gets Lean's type (ℕ or ℝ, by Lean's rule for ``binop%`` trees: the leaves of a tree of
``+ - * /`` and comparisons are coerced to the largest type among them and the expected type;
an exponent is elaborated on its own, so ``x ^ (2 / 3)`` has the natural-number exponent 0 as in
Lean). Natural-number arithmetic is evaluated as Lean does it (truncated subtraction, floor
division).

Everything outside the supported subset raises :class:`ReaderError` listing each problem as
``file:line:col: unsupported <construct>: …; supported: …`` (never a silent skip). Positions are
1-based lines and columns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..lean import terms
from ..lean.terms import LeanSyntaxError, Node, Parser
from . import model
from .statement import HypothesisSpec, Location, Parameter, Statement, UserDef

__all__ = ["ReaderError", "read_file", "read_text", "read_declarations", "Declarations"]


class ReaderError(InputError):
    """One or more unsupported constructs in a Lean file: ``errors`` is the list of
    :class:`~pyfed.lean.terms.LeanSyntaxError` (each with path, line, column, construct and
    what is supported); ``str()`` lists them one per line."""

    def __init__(self, errors, path: str = "<text>"):
        self.errors = list(errors)
        msg = "\n".join(str(e) for e in self.errors)
        ValueError.__init__(self, msg)
        self.argument = path
        self.reason = msg

    def __str__(self):
        return self.reason


# --------------------------------------------------------------------------- commands

_COMMAND_RE = re.compile(
    r"(?m)^(?=(?:@\[|#|noncomputable\b|private\b|protected\b|def\b|abbrev\b|structure\b|"
    r"class\b|inductive\b|theorem\b|lemma\b|instance\b|example\b|end\b|namespace\b|section\b|"
    r"variable\b|open\b|universe\b|attribute\b|set_option\b|notation\b|macro\b|import\b|axiom\b|opaque\b))")
_DECL_RE = re.compile(
    r"\A(?:@\[[^\]]*\]\s*)?(?P<mods>(?:(?:noncomputable|private|protected|nonrec)\s+)*)"
    r"(?P<kind>def|abbrev|theorem|lemma|example|structure|class|inductive|instance|axiom|opaque)\b\s*"
    r"(?P<name>[^\s({\[⦃:]*)")


class _WithSrc(list):
    """A token list that remembers the text it was cut from (for node texts)."""

    def __init__(self, toks, src):
        super().__init__(toks)
        self.src = src


def _parser(toks, path, stop=()):
    return Parser(list(toks), path=path, stop=stop, src=getattr(toks, "src", None))


@dataclass
class _Command:
    text: str          # comment-stripped text of the command
    offset: int        # offset of text[0] in the file
    line: int
    col: int


@dataclass
class Declarations:
    """What a file declares: ``theorems`` (name -> (namespace, command)), ``defs`` (name ->
    UserDef or the LeanSyntaxError met while reading it), ``imports``, ``errors`` (commands
    outside the subset, reported when the file is checked) and ``variables``."""

    path: str
    theorems: dict = field(default_factory=dict)
    defs: dict = field(default_factory=dict)
    imports: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    order: list = field(default_factory=list)
    contexts: dict = field(default_factory=dict)     # theorem name -> _Context
    def_keys: dict = field(default_factory=dict)     # def full name -> key in ``defs``
    namespaces: set = field(default_factory=lambda: {model.NAMESPACE})


@dataclass(frozen=True)
class _Context:
    """Where a declaration sits for Lean's name resolution: its namespace (``SCAFFOLD.Examples``,
    or ``""``) and the namespaces opened for it (``open X``, ``open X in``), outermost first."""

    namespace: str = ""
    opens: tuple = ()


class LeanNameError(LeanSyntaxError):
    """A name Lean would reject: ``path:line:col: unknown identifier `x` (…)`` or ``ambiguous …``."""

    def __init__(self, message: str, *, line: int, col: int, path: str, construct: str):
        super().__init__(construct, "", line=line, col=col, path=path)
        self.message = self.reason = f"{path}:{line}:{col}: {message}"
        self.args = (self.message,)


def _model_hint(name: str) -> str:
    return (f"the model's definitions live in namespace {model.NAMESPACE}: add `open {model.NAMESPACE}` "
            f"or write {model.NAMESPACE}.{name}")


def resolve_name(written: str, ctx: _Context, decls: "Declarations", node=None, path: str = "<text>"):
    """Resolve ``written`` as Lean 4 does: ``("model", name)`` for a definition of the model
    (namespace SCAFFOLD), ``("def", key)`` for a def of the file (``key`` into ``decls.defs``),
    or None for a name that is neither (a binder, a Mathlib name: the caller decides).

    Order (Lean's ``resolveGlobalName``): the enclosing namespaces, innermost first (a def of
    the current namespace shadows the model's definition of the same name); then the root name
    together with the opened namespaces, where two different hits are ambiguous. ``_root_.x``
    skips the namespaces. Raises :class:`LeanNameError` (at ``node``'s position) for a model
    name that is not in scope (no ``open SCAFFOLD``, not qualified) and for an ambiguous name.
    """
    done = getattr(node, "resolved", None)
    if done is not None:                 # already resolved (and rewritten): the same answer
        return None if done[0] == "other" else done

    def lookup(full):
        if full in decls.def_keys:
            return ("def", decls.def_keys[full])
        pre = model.NAMESPACE + "."
        if full.startswith(pre) and full[len(pre):] in model.MODEL_NAMES:
            return ("model", full[len(pre):])
        return None

    line, col = (node.line, node.col) if node is not None else (0, 0)
    root_only = written.startswith("_root_.")
    w = written[len("_root_."):] if root_only else written
    if not root_only and ctx.namespace:
        parts = ctx.namespace.split(".")
        for k in range(len(parts), 0, -1):
            hit = lookup(".".join(parts[:k]) + "." + w)
            if hit is not None:
                return _mark(node, hit)
    hits: dict = {}
    for full in [w] + ([] if root_only else [o + "." + w for o in ctx.opens]):
        hit = lookup(full)
        if hit is not None and hit not in hits.values():
            hits[full] = hit
    if len(hits) > 1:
        raise LeanNameError(f"ambiguous identifier `{written}`, possible interpretations: "
                            + ", ".join(f"`{h}`" for h in hits) + " (Lean rejects it: qualify the name)",
                            line=line, col=col, path=path, construct=f"ambiguous identifier `{written}`")
    if hits:
        return _mark(node, next(iter(hits.values())))
    if w in model.MODEL_NAMES:
        raise LeanNameError(f"unknown identifier `{written}` ({_model_hint(w)})", line=line, col=col, path=path,
                            construct=f"unknown identifier `{written}`")
    _mark(node, ("other", written))
    return None


def _mark(node, hit):
    if node is not None:
        node.resolved = hit
    return hit


def _split_commands(text: str) -> list[_Command]:
    starts = [m.start() for m in _COMMAND_RE.finditer(text)]
    if not starts or starts[0] != 0:
        # text before the first command: only whitespace is allowed
        first = starts[0] if starts else len(text)
        head = text[:first]
        if head.strip():
            k = len(head) - len(head.lstrip())
            line, col = terms.position_of(text, k)
            raise ReaderError([LeanSyntaxError("text outside a command", repr(head.strip()[:40]), line=line, col=col,
                                               supported="import, namespace, open, variable, def, theorem")])
    out = []
    for a, b in zip(starts, starts[1:] + [len(text)]):
        line, col = terms.position_of(text, a)
        out.append(_Command(text[a:b], a, line, col))
    return out


def _cut_at_assign(text: str) -> tuple[str, str | None]:
    """(header, body) split at the first ``:=`` outside brackets (body None when absent)."""
    depth = 0
    pairs = {"(": 1, "[": 1, "{": 1, "⦃": 1, "⟨": 1, ")": -1, "]": -1, "}": -1, "⦄": -1, "⟩": -1}
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in pairs:
            depth += pairs[ch]
        elif depth == 0 and text.startswith(":=", i):
            return text[:i], text[i + 2:]
        i += 1
    return text, None


# --------------------------------------------------------------------------- elaboration

_ARITH = {"+", "-", "*", "/", "%"}
_COMPARE = {"≤", "<", "=", "≠", "≥", ">"}


@dataclass
class _Name:
    """A name in scope: kind and, for theorem parameters, the Parameter."""

    kind: str
    param: Parameter | None = None
    type_node: Node | None = None


class _Elaborator:
    """Resolves names and assigns Lean types (``node.ty``) to terms of a statement or a def."""

    def __init__(self, path: str, decls: Declarations, scope: dict, *, allow_stats: bool, ctx=None):
        self.path = path
        self.decls = decls
        self.ctx = ctx if ctx is not None else _Context(model.NAMESPACE)
        self.scope = dict(scope)       # name -> _Name
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
        if node.kind == "binop" and node.value in _ARITH:
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
        if node.kind == "binop" and node.value in _ARITH:
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
        if k == "sum":
            rng, body = node.args
            if rng is None:
                self.err(node, "∑ over a type (`∑ i, …`)", "sums over clients are not part of the subset",
                         "∑ r ∈ Finset.range T, body")
            if rng.head_name() != "Finset.range" or len(rng.args) != 2:
                self.err(rng, f"∑ over `{rng.text}`", "", "∑ r ∈ Finset.range T, body")
            self.arith(rng.args[1], "nat")
            saved = self.scope.get(node.value)
            self.scope[node.value] = _Name("nat")
            try:
                kind = self._probe(body)
            finally:
                self._restore(node.value, saved)
            return "real" if kind == "real" else "poly"
        if k == "let":
            value, body = node.args
            vk = self._probe(value)
            saved = self.scope.get(node.value)
            self.scope[node.value] = _Name(vk)
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
            self.scope[node.value] = _Name("nat")
            try:
                node.ty = self.arith(body, ty)
            finally:
                self._restore(node.value, saved)
        elif k == "let":
            value, body = node.args
            vk = self.arith(value, None)
            saved = self.scope.get(node.value)
            self.scope[node.value] = _Name(vk)
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


# --------------------------------------------------------------------------- binder kinds

def _canon(node, ctx, decls, path):
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


def _type_kind(node: Node | None, binder_style: str, scope: dict, canon=None):
    """Kind of a binder's type: (kind, info) with info the type's argument nodes. ``canon``:
    resolves a head name (see :func:`_canon`); None: the model's names bare or ``SCAFFOLD.``-qualified."""
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
        if h in model.PROBABILITY_CLASSES:
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
    if node.kind == "binop" and node.value in _COMPARE | {"∧", "∨", "→", "↔"}:
        return True
    if node.kind in ("forall", "exists", "not"):
        return True
    h = node.head_name()
    return bool(h and h.removeprefix(model.NAMESPACE + ".") in model.PREDICATES)


# --------------------------------------------------------------------------- file reading

def _open_names(spec: str) -> list:
    """Namespaces of an ``open`` command's argument text (``scoped``, ``hiding …``, ``renaming …``
    and explicit ``(names)`` lists are read as opening the namespace)."""
    out = []
    for w in spec.split():
        if w in ("scoped", "hiding", "renaming") or w.startswith("("):
            if w != "scoped":
                break
            continue
        out.append(w)
    return out


def _resolve_namespace(name: str, ns: str, known: set) -> list:
    """The namespaces ``open name`` opens inside namespace ``ns`` (Lean resolves it relative to
    the enclosing namespaces first); an unknown one (Mathlib's) is kept as written."""
    parts = ns.split(".") if ns else []
    found = [".".join(parts[:k] + [name]) for k in range(len(parts), 0, -1)
             if ".".join(parts[:k] + [name]) in known]
    if name in known or not found:
        found.append(name)
    return found


def read_declarations(text: str, path: str = "<text>") -> Declarations:
    """The file's commands: theorems, defs (read and elaborated), imports, variables.

    Tracks ``namespace``/``section``/``end`` and ``open`` (file-, namespace- and section-level,
    and ``open … in`` for one command) so that names are resolved as Lean resolves them
    (:func:`resolve_name`): each theorem's :class:`_Context` is in ``contexts``; defs are keyed
    by their name as declared, or by ``_root_.<full name>`` when that name is also a model
    definition or another def's.

    Raises :class:`ReaderError` for a text that cannot be split into commands; unsupported
    commands are collected in ``errors`` (reported when theorems are read)."""
    clean = terms.strip_comments(text)
    decls = Declarations(path)
    frames: list = [["root", "", []]]   # [kind, name, opened namespaces]
    variables: list = []        # [(binder, section depth)]
    raw: list = []              # [(declared name, full name, cmd, variables, context)]
    pending: list = []          # namespaces of an `open … in` line, for the next command
    # namespaces the file declares (for `open X` relative to the enclosing namespace)
    for m in re.finditer(r"(?m)^namespace\s+(\S+)", clean):
        parts = m.group(1).split(".")
        decls.namespaces.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))

    def current_ns():
        return ".".join(n for k, n, _ in frames if k == "namespace" and n)

    for cmd in _split_commands(clean):
        body = cmd.text.strip()
        first = body.split(None, 1)[0] if body else ""
        once: list = []
        if first == "open":
            m = re.match(r"open\s+(.*?)\s+in\b\s*", body, re.S)
            if m is None:        # `open X Y`: until the end of the enclosing namespace or section
                for name in _open_names(body[len("open"):]):
                    frames[-1][2].extend(_resolve_namespace(name, current_ns(), decls.namespaces))
                continue
            for name in _open_names(m.group(1)):
                once.extend(_resolve_namespace(name, current_ns(), decls.namespaces))
            rest = body[m.end():]
            if not rest.strip():
                # `open X in` on its own line: it applies to the next command
                pending = once
                continue
            lead = len(cmd.text) - len(cmd.text.lstrip())
            off = cmd.offset + lead + m.end()
            line, col = terms.position_of(clean, off)
            cmd = _Command(rest, off, line, col)
            body = rest.strip()
            first = body.split(None, 1)[0] if body else ""
        elif pending:
            once, pending = pending, []
        if first == "import":
            decls.imports.extend(body.split()[1:])
            continue
        if first in ("universe", "set_option", "attribute", "notation", "macro") or first.startswith("#"):
            if first in ("notation", "macro"):
                decls.errors.append(LeanSyntaxError(f"`{first}` command", "new syntax is not read",
                                                    line=cmd.line, col=cmd.col, path=path,
                                                    supported="the model's own notation"))
            continue
        if first == "namespace":
            frames.append(["namespace", body.split()[1] if len(body.split()) > 1 else "", []])
            continue
        if first == "section" or body.startswith("noncomputable section"):
            frames.append(["section", "", []])
            continue
        if first == "end":
            if len(frames) > 1:
                frames.pop()
            depth = len(frames) - 1
            variables = [(b, d) for b, d in variables if d <= depth]
            continue
        if first == "variable":
            header = body[len("variable"):]
            try:
                start = cmd.offset + cmd.text.index("variable") + len("variable")
                line, col = terms.position_of(clean, start)
                bs = terms.parse_binders(header, path=path, line=line, col=col)
            except LeanSyntaxError as e:
                decls.errors.append(e)
                continue
            variables.extend((b, len(frames) - 1) for b in bs)
            continue
        m = _DECL_RE.match(body)
        if not m:
            decls.errors.append(LeanSyntaxError(f"command `{first}`", "", line=cmd.line, col=cmd.col, path=path,
                                                supported="import, namespace, section, open, variable, def, theorem"))
            continue
        kind, name = m.group("kind"), m.group("name")
        namespace = current_ns()
        ctx = _Context(namespace, tuple(o for _, _, opens in frames for o in opens) + tuple(once))
        if kind in ("theorem", "lemma"):
            decls.theorems[name] = (namespace, cmd, [b for b, _ in variables])
            decls.contexts[name] = ctx
            decls.order.append(name)
        elif kind in ("def", "abbrev"):
            full = name[len("_root_."):] if name.startswith("_root_.") else \
                (f"{namespace}.{name}" if namespace else name)
            raw.append((name, full, cmd, [b for b, _ in variables], ctx))
        elif kind == "example":
            decls.errors.append(LeanSyntaxError("`example`", "give the statement a name with `theorem`",
                                                line=cmd.line, col=cmd.col, path=path, supported="theorem NAME : …"))
        else:
            decls.errors.append(LeanSyntaxError(f"`{kind}` declaration", "the reader knows the model's own "
                                                "structures only", line=cmd.line, col=cmd.col, path=path,
                                                supported="def (arithmetic) and theorem"))
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


def _header_tokens(cmd: _Command, clean: str, path: str, kind: str, name: str):
    """Tokens of a declaration from after its name up to ``:=`` (and the body text after it)."""
    text = cmd.text
    m = _DECL_RE.match(text.lstrip())
    lead = len(text) - len(text.lstrip())
    after = lead + m.end()
    header, body = _cut_at_assign(text[after:])
    line, col = terms.position_of(clean, cmd.offset + after)
    toks = terms.tokenize(header, line=line, col=col, path=path)
    toks = _WithSrc(toks, header)
    body_pos = None
    if body is not None:
        boff = cmd.offset + after + len(header) + 2
        body_pos = terms.position_of(clean, boff)
    return toks, body, body_pos


def _binder_scope(binders, path, decls, scope=None, ctx=None):
    """Scope entries for binders (kinds from their types); raises for unsupported binder types."""
    scope = dict(scope or {})
    params = []
    for b in binders:
        kind, info = _type_kind(b.type, b.style, scope, _canon_in(ctx, decls, path))
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
            scope[b.name] = _Name(kind, None, b.type)
    return scope, params


def _canon_in(ctx, decls, path):
    return None if ctx is None else (lambda n: _canon(n, ctx, decls, path))


def _read_def(name, cmd, variables, decls, clean, path, ctx=None) -> UserDef:
    toks, body, body_pos = _header_tokens(cmd, clean, path, "def", name)
    p = _parser(toks, path)
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
    used_vars = _used_variables(variables, binders, body)
    scope, params = _binder_scope(used_vars + binders, path, decls, ctx=ctx)
    explicit = [(b.name, kind) for b, kind, _ in params if b.style == "explicit"]
    implicit = [(b.name, kind, info) for b, kind, info in params if b.style != "explicit"]
    for b, kind, _ in params:
        if kind == "prop":
            raise LeanSyntaxError(f"hypothesis argument `{b.name}` of def `{name}`", "", line=b.line, col=b.col,
                                  path=path, supported="defs whose arguments are ℕ, ℝ, problems, points, runs")
    node = terms.parse_term(body, path=path, line=body_pos[0], col=body_pos[1])
    el = _Elaborator(path, decls, scope, allow_stats=True, ctx=ctx)
    el.arith(node, result)
    d = UserDef(name, explicit, implicit, result, node, Location(path, cmd.line, cmd.col),
                uses_run=bool(el.statistics))
    d.statistics_used = list(el.statistics)
    d.defs_used = dict(el.used_defs)
    d.binders = {b.name: (kind, info, b.type) for b, kind, info in params}
    if any(s.uses_run for s in el.used_defs.values()):
        d.uses_run = True
    return d


def _used_variables(variables, binders, body_text: str, exclude=frozenset()):
    """Section ``variable`` binders a declaration uses (Lean includes those whose names occur in
    it, and the variables their types mention); names in ``exclude`` are the declaration's own."""
    text = " ".join([b.type.text if b.type is not None else "" for b in binders] + [body_text or ""])
    words = set(re.findall(r"[^\W\d][\w'.₀-₉]*", text))
    words |= {w.split(".")[0] for w in words}
    words -= set(exclude)
    keep: list = []
    changed = True
    chosen = set()
    while changed:
        changed = False
        for i, b in enumerate(variables):
            if i in chosen:
                continue
            if b.name in words:
                chosen.add(i)
                changed = True
                if b.type is not None:
                    ws = set(re.findall(r"[^\W\d][\w'₀-₉]*", b.type.text))
                    words |= ws
    for i, b in enumerate(variables):
        if i in chosen:
            keep.append(b)
    return keep


# --------------------------------------------------------------------------- theorems

def _is_run_type(t) -> bool:
    """``Run …`` however qualified (resolution proper happens when the binder's type is read)."""
    h = t.head_name() or ""
    return h.removeprefix("_root_.").removeprefix(model.NAMESPACE + ".") == "Run"


def _peel(node, own_binders, hyps_raw):
    """Split a statement's type into [(binders, hypotheses, conclusion, suffix)]: ∀ binders and
    → hypotheses are peeled off; a conclusion ``(∀ …, …) ∧ (∀ …, …)`` whose conjuncts are both
    statements about a run gives one entry per conjunct (suffixes ``.1``, ``.2``, as Lean's
    projections name them)."""
    own_binders, hyps_raw = list(own_binders), list(hyps_raw)
    while True:
        if node.kind == "forall":
            own_binders.extend(node.value)
            node = node.args[0]
        elif node.kind == "binop" and node.value == "→":
            ante = node.args[0]
            if ante.kind == "cast" and ante.args[0].kind == "ident":
                # `(x : T) → …` is a binder, not a hypothesis
                own_binders.append(terms.Binder(ante.args[0].value, ante.args[1], "explicit", ante.line, ante.col))
            else:
                hyps_raw.append((ante, None))
            node = node.args[1]
        else:
            break
    if node.kind == "binop" and node.value == "∧" and all(
            any(n.kind == "forall" and any(b.type is not None and _is_run_type(b.type)
                                           for b in n.value) for n in side.walk()) for side in node.args):
        out = []
        for k, side in enumerate(node.args, 1):
            for b, h, c, suf in _peel(side, own_binders, hyps_raw):
                out.append((b, h, c, f".{k}{suf}"))
        return out
    return [(own_binders, hyps_raw, node, "")]


def _statements_from(name, namespace, cmd, variables, decls, clean, path) -> list:
    toks, _body, _ = _header_tokens(cmd, clean, path, "theorem", name)
    p = _parser(toks, path, stop={":="})
    binders = p.binders()
    if not p.at(":"):
        t = p.peek() or (toks[-1] if toks else None)
        raise LeanSyntaxError("theorem header", "expected `:` and the statement", line=t.line if t else cmd.line,
                              col=t.col if t else cmd.col, path=path)
    p.take(":")
    ty = p.term(0)
    if p.peek() is not None:
        t = p.peek()
        raise LeanSyntaxError(f"token {t.text!r}", "after the statement", line=t.line, col=t.col, path=path)
    header_text = " ".join(toks.src.split()) if getattr(toks, "src", None) else " ".join(t.text for t in toks)
    out = []
    for own_binders, hyps_raw, conclusion, suffix in _peel(ty, binders, []):
        out.append(_build_statement(name + suffix, namespace, cmd, variables, decls, path, binders, ty,
                                    own_binders, hyps_raw, conclusion, header_text,
                                    ctx=decls.contexts.get(name, _Context(namespace))))
    return out


def _statement_from(name, namespace, cmd, variables, decls, clean, path) -> Statement:
    """The statement of a theorem that states one run inequality (see :func:`_statements_from`)."""
    sts = _statements_from(name, namespace, cmd, variables, decls, clean, path)
    if len(sts) != 1:
        raise LeanSyntaxError(f"theorem `{name}` with {len(sts)} conjuncts", "", line=cmd.line, col=cmd.col,
                              path=path, supported="use _statements_from")
    return sts[0]


def _build_statement(name, namespace, cmd, variables, decls, path, binders, ty, own_binders, hyps_raw, conclusion,
                     header_text, ctx=None) -> Statement:
    loc = Location(path, cmd.line, cmd.col)
    canon = _canon_in(ctx, decls, path)
    if not any(b.type is not None and _is_run_type(b.type) for b in own_binders) \
            and not any(b.type is not None and _is_run_type(b.type) for b in variables):
        raise LeanSyntaxError(f"theorem `{name}` without a run", "the reader reads statements about SCAFFOLD runs "
                              "(`∀ A : Run P ν S K T ηl ηg init, …`)", line=cmd.line, col=cmd.col, path=path,
                              supported="theorems quantifying over `A : Run P ν S K T ηl ηg (some c0)` or `… none`")
    own_names = {b.name for b in own_binders}
    used_vars = [b for b in _used_variables(variables, binders, ty.text, exclude=own_names)
                 if b.name not in own_names]
    all_binders = list(used_vars) + own_binders
    # parameters
    scope: dict = {}
    params: list = []
    for b in all_binders:
        if b.type is None:
            raise LeanSyntaxError(f"binder `{b.name}` without a type", "give every bound name a type",
                                  line=b.line, col=b.col, path=path, supported="∀ (x : T), …")
        kind, info = _type_kind(b.type, b.style, scope, canon)
        if kind is None or kind.startswith("unsupported"):
            _binder_scope([b], path, decls, scope, ctx=ctx)   # raises with the construct named
        if kind == "prop":
            hyps_raw.append((b.type, b.name))
            params.append(Parameter(b.name, "prop", None, b.type.text, Location(path, b.line, b.col), b.type))
            continue
        if b.name in scope and b.name != "_":
            raise LeanSyntaxError(f"name `{b.name}` bound twice", "", line=b.line, col=b.col, path=path,
                                  supported="distinct names")
        prm = Parameter(b.name, kind, None, b.type.text, Location(path, b.line, b.col), b.type)
        params.append(prm)
        if b.name != "_":
            scope[b.name] = _Name(kind, prm, b.type)
    runs = [p_ for p_ in params if p_.kind == "run"]
    if not runs:
        raise LeanSyntaxError(f"theorem `{name}` without a run", "the reader reads statements about SCAFFOLD runs "
                              "(`∀ A : Run P ν S K T ηl ηg init, …`)", line=cmd.line, col=cmd.col, path=path,
                              supported="theorems quantifying over `A : Run P ν S K T ηl ηg (some c0)` or `… none`")
    if len(runs) > 1:
        r2 = runs[1]
        raise LeanSyntaxError("a second run", f"`{r2.name}`", line=r2.location.line, col=r2.location.col, path=path,
                              supported="one run per statement")
    problems = [p_ for p_ in params if p_.kind == "problem"]
    if len(problems) != 1:
        where = problems[1].location if len(problems) > 1 else loc
        raise LeanSyntaxError("problems" if problems else "statement without `P : Problem d N`",
                              f"{len(problems)} bound problems", line=where.line, col=where.col, path=path,
                              supported="exactly one `P : Problem d N`")
    el = _Elaborator(path, decls, scope, allow_stats=False, ctx=ctx)
    run = _run_args(runs[0], scope, el, path)
    _problem_args(problems[0], scope, el, path)
    for prm in params:
        if prm.kind == "vector" or prm.kind == "controls":
            pass
    problems[0].role = "P"
    runs[0].role = "A"
    if run["P"].value != problems[0].name:
        raise LeanSyntaxError(f"run of `{run['P'].text}`", f"the problem is `{problems[0].name}`", line=run["P"].line,
                              col=run["P"].col, path=path, supported="Run P ν … of the statement's problem P")
    # hypotheses
    hyps: list = []
    for hnode, hname in hyps_raw:
        hyps.extend(_hypotheses(hnode, hname, scope, el, path))
    # conclusion
    if not (conclusion.kind == "binop" and conclusion.value in ("≤", "<", "≥", ">")):
        raise LeanSyntaxError(f"conclusion `{conclusion.text[:60]}`", "", line=conclusion.line, col=conclusion.col,
                              path=path, supported="LHS ≤ RHS (or <, ≥, >) with the run's statistics on the left")
    lhs, rhs = conclusion.args
    relation = conclusion.value
    if relation in ("≥", ">"):
        lhs, rhs = rhs, lhs
        relation = {"≥": "≤", ">": "<"}[relation]
    left = _Elaborator(path, decls, scope, allow_stats=True, ctx=ctx)
    left.arith(lhs, "real")
    if not left.statistics:
        raise LeanSyntaxError(f"left side `{lhs.text[:60]}`", "it does not involve the run",
                              line=lhs.line, col=lhs.col, path=path, supported=model.SUPPORTED_LEFT)
    right = _Elaborator(path, decls, scope, allow_stats=False, ctx=ctx)
    right.arith(rhs, "real")
    # roles
    _assign_roles(params, run, hyps)
    # keys
    _assign_keys(hyps, params, run)
    defs = {**left.used_defs, **right.used_defs}
    for e in (el,):
        defs.update(e.used_defs)
    st = Statement(name=name, namespace=namespace, location=loc, parameters=params, hypotheses=hyps, run=run,
                   init="some" if run["init"].kind == "app" else "none",
                   controls=run["init"].args[1].value if run["init"].kind == "app" else None,
                   lhs=lhs, rhs=rhs, relation=relation, statistics=list(left.statistics), definitions=defs,
                   text=f"theorem {name} {header_text}")
    st.problem_args = problems[0].type_node.args[1:]
    return st


def _run_args(run_param, scope, el, path) -> dict:
    args = run_param.type_node.args[1:]
    names = ("P", "nu", "S", "K", "T", "eta_l", "eta_g", "init")
    out = dict(zip(names, args))
    P, nu = out["P"], out["nu"]
    for node, kind in ((P, "problem"), (nu, "measure")):
        if node.kind != "ident" or node.value not in scope or scope[node.value].kind != kind:
            raise LeanSyntaxError(f"`{node.text}` as the {kind} of the run", "", line=node.line, col=node.col,
                                  path=path, supported=f"the statement's bound {kind}")
    for role in ("S", "K", "T", "eta_l", "eta_g"):
        node = out[role]
        want = "nat" if role in ("S", "K", "T") else "real"
        if node.kind == "num":
            el.arith(node, want)
            continue
        if node.kind != "ident" or node.value not in scope or scope[node.value].kind != want:
            raise LeanSyntaxError(f"`{node.text}` as the run's {role}", "", line=node.line, col=node.col, path=path,
                                  supported=f"a bound {'ℕ' if want == 'nat' else 'ℝ'} name or a numeral")
        node.ty = want
    init = out["init"]
    if init.kind == "ident" and init.value == "none":
        pass
    elif init.kind == "app" and init.args[0].kind == "ident" and init.args[0].value == "some" and len(init.args) == 2 \
            and init.args[1].kind == "ident" and init.args[1].value in scope \
            and scope[init.args[1].value].kind == "controls":
        pass
    else:
        raise LeanSyntaxError(f"initialisation `{init.text}`", "", line=init.line, col=init.col, path=path,
                              supported="`some c0` (c0 : Fin N → Space d) or `none` (warm start)")
    seen = {}
    for role in ("S", "K", "T", "eta_l", "eta_g"):
        node = out[role]
        if node.kind == "ident":
            if node.value in seen:
                raise LeanSyntaxError(f"`{node.value}` as both the run's {seen[node.value]} and {role}", "",
                                      line=node.line, col=node.col, path=path, supported="distinct names")
            seen[node.value] = role
    return out


def _problem_args(prob_param, scope, el, path):
    for node, role in zip(prob_param.type_node.args[1:], ("d", "N")):
        if node.kind == "num":
            el.arith(node, "nat")
            continue
        if node.kind != "ident" or node.value not in scope or scope[node.value].kind != "nat":
            raise LeanSyntaxError(f"`{node.text}` as the problem's {role}", "", line=node.line, col=node.col,
                                  path=path, supported="a bound ℕ name or a numeral")


def _hypotheses(node, name, scope, el, path) -> list:
    """HypothesisSpecs of one hypothesis (conjunctions split)."""
    loc = Location(path, node.line, node.col)
    if node.kind == "binop" and node.value == "∧":
        a = _hypotheses(node.args[0], f"{name}.1" if name else None, scope, el, path)
        b = _hypotheses(node.args[1], f"{name}.2" if name else None, scope, el, path)
        return a + b
    if node.kind == "binop" and node.value in _COMPARE:
        op = node.value
        lhs, rhs = node.args
        if op in ("≥", ">"):
            op = {"≥": "≤", ">": "<"}[op]
            lhs, rhs = rhs, lhs
        cmp = Node("binop", op, [lhs, rhs], node.line, node.col, node.text)
        # binrel%: both sides share one type
        kinds = []
        for side in (lhs, rhs):
            leaves: list = []
            el._collect(side, leaves)
            kinds.extend(el.leaf_kind(x) for x in leaves)
        ty = "real" if "real" in kinds else "nat"
        el.arith(lhs, ty)
        el.arith(rhs, ty)
        cmp.ty = ty
        return [HypothesisSpec("", node.text, loc, "compare", cmp, op=op, name=name)]
    h = node.head_name()
    if h and node.kind in ("app", "ident") and h not in scope:
        h = _canon(node, el.ctx, el.decls, path)
    h = h.removeprefix(model.NAMESPACE + ".") if h else None
    if h in model.PREDICATES and node.kind == "app":
        kinds = model.PREDICATES[h]
        args = node.args[1:]
        if len(args) != len(kinds):
            raise LeanSyntaxError(f"`{h}` applied to {len(args)} arguments", "", line=node.line, col=node.col,
                                  path=path, supported=f"{h} P {'μ' if h == 'Convexity' else 'xstar'}")
        el.object_arg(args[0], "problem", h)
        if h == "Convexity":
            el.arith(args[1], "real")
            return [HypothesisSpec("", node.text, loc, "convexity", node, [args[0], args[1]], name=name)]
        el.object_arg(args[1], "vector", h)
        if args[1].kind != "ident" or args[1].value not in scope:
            raise LeanSyntaxError(f"`IsMinimizer` of `{args[1].text}`", "", line=args[1].line, col=args[1].col,
                                  path=path, supported="IsMinimizer P xstar with xstar a bound point")
        return [HypothesisSpec("", node.text, loc, "minimizer", node, [args[0], args[1]], name=name)]
    if node.kind == "forall" and len(node.value) == 1:
        b = node.value[0]
        body = node.args[0]
        if b.type is None or _canon(b.type, el.ctx, el.decls, path) == "Space":
            if body.kind == "binop" and body.value in ("≤", "≥"):
                lo, hi = body.args if body.value == "≤" else body.args[::-1]
                if hi.kind == "app" and _canon(hi, el.ctx, el.decls, path) == "objective" and len(hi.args) == 3 \
                        and hi.args[2].kind == "ident" and hi.args[2].value == b.name:
                    el.object_arg(hi.args[1], "clients", "objective")
                    if b.name in {n.value for n in lo.walk() if n.kind == "ident"}:
                        raise LeanSyntaxError("lower bound depending on the point", "", line=lo.line, col=lo.col,
                                              path=path, supported="∀ x, fLower ≤ objective P.f x")
                    el.arith(lo, "real")
                    return [HypothesisSpec("", node.text, loc, "lower_bound", node, [lo], name=name)]
        raise LeanSyntaxError(f"hypothesis `∀ {b.name}, …`", node.text[:60], line=node.line, col=node.col, path=path,
                              supported=model.SUPPORTED_HYPOTHESES)
    what = {"binop": f"hypothesis with `{node.value}`", "not": "negated hypothesis `¬ …`",
            "exists": "existential hypothesis `∃ …`", "forall": "hypothesis `∀ …`"}.get(node.kind, "hypothesis")
    raise LeanSyntaxError(what, f"`{node.text[:60]}`", line=node.line, col=node.col, path=path,
                          supported=model.SUPPORTED_HYPOTHESES)


def _assign_roles(params, run, hyps):
    by_name = {p.name: p for p in params}
    for role in ("S", "K", "T", "eta_l", "eta_g"):
        node = run[role]
        if node.kind == "ident":
            by_name[node.value].role = role
    by_name[run["nu"].value].role = "nu"
    prob = next(p for p in params if p.kind == "problem")
    for node, role in zip(prob.type_node.args[1:], ("d", "N")):
        if node.kind == "ident":
            p = by_name[node.value]
            if p.role is None:
                p.role = role
    if run["init"].kind == "app":
        by_name[run["init"].args[1].value].role = "c0"
    for h in hyps:
        if h.kind == "convexity" and h.args[1].kind == "ident" and h.args[1].value in by_name:
            p = by_name[h.args[1].value]
            if p.role is None and p.kind == "real":
                p.role = "mu"
        elif h.kind == "minimizer":
            p = by_name[h.args[1].value]
            if p.role is None:
                p.role = "xstar"
        elif h.kind == "lower_bound" and h.args[0].kind == "ident" and h.args[0].value in by_name:
            p = by_name[h.args[0].value]
            if p.role is None and p.kind == "real":
                p.role = "f_low"
    for p in params:
        if p.role is None and p.kind in ("nat", "real", "vector", "controls"):
            p.role = "free"
        elif p.role is None and p.kind == "space":
            p.role = "Omega"


def _is_h(node, run) -> bool:
    """``node`` is ``effectiveStep K ηl ηg`` of the run's own names."""
    if node.kind != "app" or node.head_name() not in ("effectiveStep", model.NAMESPACE + ".effectiveStep"):
        return False
    want = [run["K"].text, run["eta_l"].text, run["eta_g"].text]
    return [a.text for a in node.args[1:]] == want


def _mentions(node, name) -> bool:
    return any(n.kind == "ident" and n.value == name for n in node.walk())


def _assign_keys(hyps, params, run):
    mu = next((p.name for p in params if p.role == "mu"), None)
    eta_l, eta_g = run["eta_l"].text, run["eta_g"].text
    used: dict = {}
    for i, h in enumerate(hyps, 1):
        key = None
        if h.kind == "convexity":
            key = "convexity"
        elif h.kind == "minimizer":
            key = "minimizer"
        elif h.kind == "lower_bound":
            key = "f_low"
        elif h.kind == "compare":
            lhs, rhs = h.node.args
            if h.op in ("≤", "<") and _is_h(lhs, run):
                key, h.step = "step_size", True
            elif h.op in ("≤", "<") and lhs.kind == "binop" and lhs.value == "*" and mu is not None \
                    and lhs.args[0].kind == "ident" and lhs.args[0].value == mu and _is_h(lhs.args[1], run):
                key, h.step = "mu_h", True
            elif h.op == "<" and lhs.kind == "num" and lhs.value == 0 and rhs.kind == "ident" and rhs.value == eta_l:
                key = "eta_l"
            elif h.op == "≤" and lhs.kind == "num" and lhs.value == 1 and rhs.kind == "ident" and rhs.value == eta_g:
                key = "eta_g"
            elif h.op in ("≤", "<") and (_mentions(lhs, eta_l) or any(_is_h(n, run) for n in lhs.walk())) \
                    and not _mentions(rhs, eta_l):
                key, h.step = "step_size", True
        if key is None:
            key = (h.name or f"h{i}").replace(".", "_")
        base, k = key, 2
        while key in used:
            key = f"{base}_{k}"
            k += 1
        used[key] = h
        h.key = key


# --------------------------------------------------------------------------- public API

def _check_imports(decls: Declarations):
    ok = any(imp == m or imp.startswith(m + ".") for imp in decls.imports for m in model.MODEL_IMPORTS)
    if not ok:
        where = decls.imports and "the file's imports: " + ", ".join(decls.imports) or "no import"
        raise ReaderError([LeanSyntaxError("file without the model's import", where, line=1, col=1, path=decls.path,
                                           supported="import Pyfed (or import Definitions.Def_SCAFFOLD_Model)")],
                          decls.path)


#: What ``pyfed check PATH.lean`` says about a FedAvg theorem (namespace ``FedAvg``).
FEDAVG_POINTER = ("the statement reader of `pyfed check PATH.lean` checks theorems about a SCAFFOLD run "
                  "(`Run P ν S K T ηl ηg init`, namespace SCAFFOLD), not FedAvg statements; the FedAvg "
                  "statements (FedAvg.PerRoundProgress, FedAvg.BoundedClientDrift, FedAvg.ConvexFedAvgConvergence, "
                  "FedAvg.TunedConvexFedAvgConvergence of lean/Pyfed/FedAvg/Theorems.lean) are checked by "
                  "`pyfed check` without a PATH (its FedAvg tables and statement checkers) and searched by "
                  "`pyfed search FedAvg.NAME` (`pyfed search --list` lists the names)")


def _is_fedavg(namespace: str) -> bool:
    """True for a theorem declared in namespace ``FedAvg`` (or one nested in it)."""
    return namespace == "FedAvg" or namespace.startswith("FedAvg.")


def missing_theorem_message(theorem: str, where: str, names) -> str:
    """The error of ``--theorem NAME`` when no file has NAME: where it was looked for, the
    theorems available there and how to pick one."""
    names = list(names)
    avail = ", ".join(names) if names else "none"
    return (f"no theorem {theorem!r} in {where}; available theorems: {avail}"
            + (f" (pick one with --theorem NAME, e.g. --theorem {names[0].split(' (')[0]}, or omit --theorem to check them all)"
               if names else ""))


def read_text(text: str, path: str = "<text>", *, theorem: str | None = None,
              require_import: bool = True, skip=()) -> list[Statement]:
    """Statements of every theorem in ``text`` (or only ``theorem``), in file order.

    Raises :class:`ReaderError` listing every unsupported construct (file:line:col); an unknown
    ``theorem`` name is an :class:`~pyfed.errors.InputError` naming ``--theorem``."""
    try:
        decls = read_declarations(text, path)
    except LeanSyntaxError as e:
        raise ReaderError([e], path) from None
    if require_import:
        _check_imports(decls)
    names = [n for n in decls.order if n not in set(skip)]
    if theorem is not None:
        bare = theorem.split(".")[-1]
        if bare not in decls.theorems:
            err = InputError("--theorem", missing_theorem_message(theorem, path, names))
            err.available = list(names)
            raise err
        names = [bare]
    if not names:
        raise ReaderError([LeanSyntaxError("file without theorems", "", line=1, col=1, path=path,
                                           supported="theorem NAME : … about a SCAFFOLD run")], path)
    fedavg = [n for n in names if _is_fedavg(decls.theorems[n][0])]
    if fedavg and len(fedavg) == len(names):
        raise InputError(path, f"{', '.join('FedAvg.' + n for n in fedavg)}: " + FEDAVG_POINTER)
    errors = list(decls.errors) if theorem is None else []
    if fedavg:       # a file mixing SCAFFOLD and FedAvg theorems: one error at the first FedAvg one
        cmd = decls.theorems[fedavg[0]][1]
        errors.append(LeanSyntaxError("FedAvg theorem" + ("s " if len(fedavg) > 1 else " ")
                                      + ", ".join(f"`{n}`" for n in fedavg), FEDAVG_POINTER,
                                      line=getattr(cmd, "line", 1), col=getattr(cmd, "col", 1), path=path,
                                      supported="theorems about a SCAFFOLD run (namespace SCAFFOLD); "
                                                "--theorem NAME checks one SCAFFOLD theorem of the file"))
    names = [n for n in names if n not in fedavg]
    out = []
    clean = terms.strip_comments(text)
    for name in names:
        namespace, cmd, variables = decls.theorems[name]
        try:
            out.extend(_statements_from(name, namespace, cmd, variables, decls, clean, path))
        except LeanSyntaxError as e:
            errors.append(e)
    if errors:
        raise ReaderError(errors, path)
    return out


def read_file(path, *, theorem: str | None = None, require_import: bool = True, skip=()) -> list[Statement]:
    """Statements of the theorems of a ``.lean`` file (see :func:`read_text`).

    Raises :class:`~pyfed.errors.InputError` (argument ``PATH``) if the file cannot be read,
    :class:`ReaderError` for unsupported constructs."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError("PATH", f"cannot read {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    return read_text(text, str(path), theorem=theorem, require_import=require_import, skip=skip)
