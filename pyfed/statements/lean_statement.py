"""The statement builder of Lean theorems read through the general elaborator: vectors,
sequences, function classes, finite probability spaces and the model's procedures.

A theorem ``∀ binders, hypotheses → conclusion`` (binders before or after the colon,
``(x : T) →`` binders, binder predicates ``∀ t < T, …``) becomes a :class:`LeanStatement` (or the
subclass a model passes, :func:`statements_from`): its parameters (each with its
:class:`~pyfed.statements.types.Ty`), its hypotheses (propositions, kept as terms) and its
conclusion (a comparison ``LHS ≤ RHS``, ``<``, ``=``, ``≤ᵐ[ν]`` …, or any proposition). A conclusion
``A ∧ B`` gives one statement per conjunct (``Name.1``, ``Name.2``, as Lean's projections name
them). Terms are elaborated by :mod:`pyfed.statements.elaboration` and evaluated by
:mod:`pyfed.statements.interpret`. The run-free model and the FedProx model read their theorems
with it, each into its own statement class.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lean.terms import Binder, LeanSyntaxError
from . import types as T
from .declarations import (
    Context,
    push_lets,
    theorem_header,
    used_variables,
)
from .elaboration import COMPARE, Elaboration, Meta, kind_of, walk, zonk
from .statement import HypothesisSpec, Location, Parameter, Statement
from .vocabulary import read_decl

__all__ = ["LeanStatement", "statements_from", "statement_family", "peel"]


@dataclass
class LeanStatement(Statement):
    """A theorem read through the general elaborator (see the module docstring). Beyond :class:`Statement`:
    ``conclusion`` (the whole conclusion, a proposition), ``context`` (the namespace and
    ``open`` s in force where it stands) and ``file_decls`` (the file's own defs, by qualified
    name: the evaluator reads their bodies)."""

    conclusion: object = field(default=None, repr=False)
    context: object = field(default=None, repr=False)
    file_decls: dict = field(default_factory=dict, repr=False)


def peel(node, binders, hyps, *, split=None):
    """Split a statement's type into ``[(binders, hypotheses, conclusion, suffix)]``: ``∀`` binders
    and ``→`` hypotheses are peeled off (``(x : T) → …`` is a binder, not a hypothesis); a
    conclusion ``A ∧ B`` gives one entry per conjunct (suffixes ``.1``, ``.2``, as Lean's
    projections name them) unless ``split(node)`` says it is one conclusion."""
    binders, hyps = list(binders), list(hyps)
    while True:
        if node.kind == "forall":
            binders.extend(node.value)
            node = node.args[0]
        elif node.kind == "binop" and node.value == "→":
            ante = node.args[0]
            if ante.kind == "cast" and ante.args[0].kind == "ident":
                binders.append(Binder(ante.args[0].value, ante.args[1], "explicit", ante.line, ante.col))
            else:
                hyps.append((ante, None))
            node = node.args[1]
        else:
            break
    if node.kind == "binop" and node.value == "∧" and (split is None or split(node)):
        out = []
        for k, side in enumerate(node.args[:2], 1):
            for b, h, c, suf in peel(side, binders, hyps, split=split):
                out.append((b, h, c, f".{k}{suf}"))
        return out
    return [(binders, hyps, node, "")]


def _file_decls(decls, clean, path) -> dict:
    """The file's own defs as ModelDecls (keyed by qualified name)."""
    out = {}
    for name, full, cmd, variables, ctx in getattr(decls, "raw_defs", []):
        kind = "abbrev" if cmd.text.lstrip().startswith("abbrev") or " abbrev " in cmd.text[:40] else "def"
        try:
            d = read_decl(kind, name, cmd.text, clean, cmd.offset, ctx.namespace, path, strict=True)
        except LeanSyntaxError:
            continue
        d.context = ctx
        out[d.name] = d
    return out


def statement_family(params, hyps) -> str:
    """The kind of a statement from its parameters' types, in words: ``probability lemma``,
    ``function-class lemma``, ``procedure lemma``, ``sequence lemma``, ``vector lemma`` or ``scalar
    lemma`` (the report's ``family``)."""
    kinds = {str(kind_of(p.lty)) for p in params if getattr(p, "lty", None) is not None}
    tys = [walk(p.lty) for p in params if getattr(p, "lty", None) is not None]
    if "measure" in kinds or "filtration" in kinds:
        return "probability lemma"
    if any(kind_of(t) == "problem" for t in tys) or any(
            kind_of(t) == "fun" and kind_of(t.args[0]) == "vec" and kind_of(t.args[1]) == "real" for t in tys):
        return "function-class lemma"
    if any(kind_of(t) == "enum" or (kind_of(t) == "fun" and kind_of(t.args[0]) == "nat" and kind_of(t.args[1]) == "fun")
           for t in tys):
        return "procedure lemma"
    if any(kind_of(t) == "fun" and kind_of(t.args[0]) == "nat" and kind_of(t.args[1]) == "real" for t in tys):
        return "sequence lemma"
    if any(kind_of(t) == "vec" or (kind_of(t) == "fun" and kind_of(t.args[1]) == "vec") for t in tys):
        return "vector lemma"
    return "scalar lemma"


def statements_from(name, namespace, cmd, variables, decls, clean, path, *, statement_class=LeanStatement,
                    family=statement_family) -> list:
    """Statements of a theorem (see the module docstring), instances of ``statement_class`` (a
    :class:`LeanStatement` subclass: the model's own); ``family(parameters, hypotheses)`` names
    each one's kind (default :func:`statement_family`). Raises
    :class:`~pyfed.lean.terms.LeanSyntaxError` at ``file:line:col`` for what the elaborator does
    not support or Lean would reject."""
    ctx = decls.contexts.get(name, Context(namespace))
    binders, ty, header_text = theorem_header(name, cmd, clean, path)
    file_decls = _file_decls(decls, clean, path)
    out = []
    for own, hyps_raw, conclusion, suffix in peel(ty, binders, []):
        own_names = {b.name for b in own}
        used = [b for b in used_variables(variables, binders, ty.text, exclude=own_names) if b.name not in own_names]
        out.append(_build(name + suffix, namespace, cmd, path, ctx, used + own, hyps_raw, conclusion, header_text,
                          file_decls, statement_class, family))
    return out


def _build(name, namespace, cmd, path, ctx, binders, hyps_raw, conclusion, header_text, file_decls, statement_class,
           family) -> LeanStatement:
    loc = Location(path, cmd.line, cmd.col)
    el = Elaboration(path, ctx, {}, file_decls)
    params, hyps_raw = [], list(hyps_raw)
    seen = set()
    for b in binders:
        if b.type is None:
            # `∀ x, …` without a type: Lean infers it from the use, and so does the elaboration below
            bt = el.fresh(b.name)
        else:
            bt = el.type_of_binder(b.type, b.style)
        if bt.kind == "instance":
            continue
        if bt.kind == "prop":
            hyps_raw.append((b.type, b.name))
            continue
        if b.name in seen and b.name != "_":
            raise LeanSyntaxError(f"name `{b.name}` bound twice", "", line=b.line, col=b.col, path=path,
                                  supported="distinct names")
        seen.add(b.name)
        el.scope[b.name] = bt
        kind = bt.kind if bt.kind in ("nat", "real") else {"vec": "vector", "problem": "problem", "type": "space",
                                                          "measure": "measure"}.get(bt.kind, bt.kind)
        prm = Parameter(b.name, kind, "free", b.type.text if b.type is not None else "ℕ", Location(path, b.line, b.col),
                        b.type)
        prm.lty = bt
        params.append(prm)
    hyps = []
    for i, (hnode, hname) in enumerate(hyps_raw, 1):
        for part, pname in _conjuncts(hnode, hname):
            el.prop(part)
            key = (pname or f"h{len(hyps) + 1}").replace(".", "_")
            hyps.append(HypothesisSpec(key, part.text, Location(path, part.line, part.col), "prop", part,
                                       op=part.value if part.kind == "binop" else None, name=pname))
    conclusion = push_lets(conclusion)
    el.prop(conclusion)
    relation, lhs, rhs = None, conclusion, None
    if conclusion.kind == "binop" and conclusion.value in COMPARE:
        relation = conclusion.value
        lhs, rhs = conclusion.args[0], conclusion.args[1]
        if relation in ("≥", ">"):
            relation = {"≥": "≤", ">": "<"}[relation]
            lhs, rhs = rhs, lhs
    for p in params:
        p.lty = zonk(p.lty)
        if isinstance(p.lty, Meta):
            raise LeanSyntaxError(f"the type of `{p.name}`", "it is not determined by its uses; give it one: (x : T)",
                                  line=p.location.line, col=p.location.col, path=path, supported="(x : T)")
        p.kind = p.lty.kind if p.lty.kind in ("nat", "real") else {"vec": "vector", "type": "space"}.get(
            p.lty.kind, p.lty.kind)
        p.type_text = p.type_text if p.type_node is not None else T.show(p.lty)
    return statement_class(name=name, namespace=namespace, location=loc, parameters=params, hypotheses=hyps,
                           run={}, init="none", controls=None, lhs=lhs, rhs=rhs if rhs is not None else conclusion,
                           relation=relation or "holds", statistics=[], definitions=dict(el.used_decls),
                           text=f"theorem {name} {header_text}", family=family(params, hyps),
                           conclusion=conclusion, context=ctx, file_decls=file_decls)


def _conjuncts(node, name):
    if node.kind == "binop" and node.value == "∧":
        a = _conjuncts(node.args[0], f"{name}.1" if name else None)
        b = _conjuncts(node.args[1], f"{name}.2" if name else None)
        return a + b
    return [(node, name)]
