"""The elaborated terms of a statement about a FedAvg run (:class:`Term`), names in scope
(:class:`Entry`), the file's defs as the FedAvg reader inlines them (:class:`FedAvgDef`,
:func:`read_def`) and the kinds of binder types (:func:`binder_kind`). The elaboration itself is
:mod:`pyfed.models.fedavg.terms` (arithmetic) and :mod:`pyfed.models.fedavg.random_terms` (the
run's random variables)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ...lean import terms
from ...lean.terms import LeanSyntaxError, Node
from ...statements.declarations import Context, header_tokens, make_parser, resolve_name, used_variables
from . import vocabulary as fm

__all__ = ["Term", "Entry", "FedAvgDef", "SORTS", "RANK", "RUN_FIELDS", "binder_kind", "read_def", "number_term",
           "entry_kind", "is_norm_sq", "describe_kind"]

#: Sorts of arithmetic in the order of coercion (a leaf is coerced up to the largest of its tree).
SORTS = ("nat", "real", "rand")
RANK = {s: i for i, s in enumerate(SORTS)}

#: Fields of the run ``R`` the reader knows: the local iterates ``R.x t k i ω`` and the filtration.
RUN_FIELDS = ("x", "history")


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


def number_term(v, sort, node=None) -> Term:
    """A numeral of the given sort."""
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



def entry_kind(t: Term) -> str:
    """The scope kind of a let-bound term."""
    return {"nat": "nat", "real": "real", "rand": "rand", "client": "client", "poly": "real"}.get(t.sort, t.sort)


def is_norm_sq(node) -> bool:
    """``‖…‖ ^ 2`` (a squared norm, read as one statistic)."""
    return (node.kind == "binop" and node.value == "^" and node.args[0].kind == "norm"
            and node.args[1].kind == "num" and node.args[1].value == 2)


def describe_kind(kind) -> str:
    """A kind in words, for messages."""
    return {"nat": "a natural number", "real": "a real number", "rand": "a random variable of the run",
            "client": "a client index", "problem": "the problem", "run": "the run", "measure": "the measure",
            "space": "the sample space", "omega": "a point of the sample space", "point": "a point",
            "rpoint": "a random point", "clients": "the clients P.f", "runfield": "a field of the run",
            "instance": "an instance argument", "prop": "a hypothesis", "untyped": "a name without a type"
            }.get(kind, kind)



def read_def(key, name, cmd, variables, decls, clean, path, ctx) -> FedAvgDef:
    """A def of the file as the FedAvg reader inlines it (binders with kinds, result ``real`` or
    ``nat``, body). Raises :class:`LeanSyntaxError` for a def outside the subset."""

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
    def head(node):
        ident = node if node.kind == "ident" else (node.args[0] if node.kind == "app" and node.args
                                                   and node.args[0].kind == "ident" else None)
        if ident is None:
            return None
        hit = resolve_name(ident.value, ctx, decls, ident, path, vocab=fm)
        return hit[1] if hit is not None and hit[0] == "model" else ident.value
    spaces = {b.name for b in allb if b.type is not None and b.type.kind == "ident" and b.type.value == "Type"}
    kinds = []
    for b in allb:
        k = binder_kind(b, head)
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
