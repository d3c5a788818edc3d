"""The plan of a run-free statement's instances (:func:`plan`), read once per statement: the
order in which its bound names are drawn (dimensions first, then the names others depend on),
the family each one is drawn from (by its type: scalars, vectors, finite families, sequences,
smooth convex functions, problems, finite probability spaces, oracles, client samples, the
model's inductives) and the names that the hypotheses *define*: a hypothesis ``∀ j < m, E j
≤ᵐ[ν] v (j + 1)`` makes ``v (j + 1)`` equal to ``E j`` plus a nonnegative slack, ``X =ᵐ[ν] E``
makes ``X`` equal to ``E``, ``condExp m ν (g k) =ᵐ[ν] E`` makes ``g k`` equal to ``E`` plus a
noise of conditional mean zero, ``B ∈ s`` draws ``B`` from ``s``, ``(s r).card = S`` fixes a
card, ``IsMinimizer P x⋆`` or ``∀ y, f x⋆ ≤ f y`` makes ``x⋆`` the minimiser and ``Convexity P
μ`` makes ``μ`` the clients' smallest strong convexity."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...lean.terms import Node
from ...statements.elaboration import resolved

__all__ = ["Plan", "plan"]


def _kind(t) -> str:
    t = resolved(t)
    return getattr(t, "kind", "unknown")


@dataclass
class Plan:
    """How to draw a statement's instances: ``order`` (parameter names), ``types`` (name -> Ty),
    ``dims`` (the ℕ names used as dimensions or sizes), ``defined`` (name -> list of
    (hypothesis node, mode)), ``horizon`` names (ℕ names bounding sequence indices)."""

    order: list
    types: dict
    dims: set
    defined: dict = field(default_factory=dict)
    members: dict = field(default_factory=dict)
    cards: dict = field(default_factory=dict)
    minimizers: dict = field(default_factory=dict)
    convexity: dict = field(default_factory=dict)


def plan(st) -> Plan:
    types = {p.name: resolved(p.lty) for p in st.parameters}
    dims = set()
    for t in types.values():
        for sub in _subtypes(t):
            if sub.kind in ("vec", "fin") and isinstance(sub.args[0], Node) and sub.args[0].kind == "ident":
                dims.add(sub.args[0].value)
            if sub.kind == "problem":
                for a in sub.args[1:]:
                    if isinstance(a, Node) and a.kind == "ident":
                        dims.add(a.value)
    defined: dict = {}
    members: dict = {}
    cards: dict = {}
    minimizers: dict = {}
    convexity: dict = {}
    names = set(types)
    for h in st.hypotheses:
        node = h.node
        mz = _minimizer_of(node, names)
        if mz is not None:
            minimizers[mz[0]] = mz[1]
            continue
        cv = _convexity_of(node, names)
        if cv is not None:
            convexity[cv[0]] = cv[1]
        body, _ = _strip_foralls(node)
        if body.kind == "binop" and body.value == "∈" and body.args[0].kind == "ident" and body.args[0].value in names:
            members[body.args[0].value] = body.args[1]
            continue
        if body.kind == "binop" and body.value in ("=",) and body.args[0].kind == "proj" \
                and body.args[0].value == "card":
            inner = body.args[0].args[0]
            if inner.kind == "app" and inner.args[0].kind == "ident" and inner.args[0].value in names:
                cards[inner.args[0].value] = body.args[1]
                continue
        target = _defining_target(body, names)
        if target is not None and _kind(types[target[0]]) == "fun" and not _is_sequence_type(types[target[0]]):
            # processes and families are defined by their hypotheses; scalars are drawn and the
            # hypotheses decided, sequences are left to the linear program
            name, mode = target
            defined.setdefault(name, []).append((h, mode))
    order = sorted(types, key=lambda n: (8 if n in minimizers else
                                         _rank(types[n], n in dims, n in defined or n in members),
                                         [p.name for p in st.parameters].index(n)))
    return Plan(order, types, dims, defined, members, cards, minimizers, convexity)


def _minimizer_of(node, names):
    """``(x, ("problem", P))`` for ``IsMinimizer P x``; ``(x, ("objective", F))`` for
    ``∀ y, objective F x ≤ objective F y``: the point is defined as the minimiser."""
    if node.kind == "app" and getattr(node, "ref", (None,))[0] == "structural" and \
            node.ref[1].rsplit(".", 1)[-1] == "IsMinimizer" and len(node.args) == 3 and \
            node.args[2].kind == "ident" and node.args[2].value in names:
        return node.args[2].value, ("problem", node.args[1])
    if node.kind == "forall" and len(node.value) == 1:
        y = node.value[0].name
        body = node.args[0]
        if body.kind == "binop" and body.value in ("≤",):
            a, b = body.args
            if a.kind == "app" and b.kind == "app" and len(a.args) == 3 and len(b.args) == 3 and \
                    a.args[0].kind == "ident" and a.args[0].value.rsplit(".", 1)[-1] == "objective" and \
                    b.args[2].kind == "ident" and b.args[2].value == y and a.args[2].kind == "ident" and \
                    a.args[2].value in names and a.args[1].text == b.args[1].text:
                return a.args[2].value, ("objective", a.args[1])
    return None


def _convexity_of(node, names):
    """``(μ, P)`` for ``Convexity P μ`` with ``μ`` a bound real: its tight value is the clients'
    smallest strong convexity."""
    if node.kind == "app" and getattr(node, "ref", (None,))[0] == "structural" and \
            node.ref[1].rsplit(".", 1)[-1] == "Convexity" and len(node.args) == 3 and \
            node.args[2].kind == "ident" and node.args[2].value in names:
        return node.args[2].value, node.args[1]
    return None


def _is_sequence_type(t) -> bool:
    t = resolved(t)
    return getattr(t, "kind", "") == "fun" and _kind(t.args[0]) == "nat" and _kind(t.args[1]) == "real"


def _subtypes(t):
    t = resolved(t)
    if t is None or not hasattr(t, "args"):
        return
    yield t
    for a in t.args:
        if hasattr(a, "kind") and hasattr(a, "args") and not isinstance(a, Node):
            yield from _subtypes(a)


def _rank(t, is_dim, is_defined) -> int:
    k = getattr(t, "kind", "")
    if is_dim:
        return 0
    if is_defined:
        return 9
    order = {"nat": 1, "type": 2, "measure": 3, "filtration": 4, "real": 5, "problem": 6, "enum": 6, "vec": 7,
             "fin": 7, "finset": 7}
    if k == "fun":
        return 8
    return order.get(k, 8)


def _strip_foralls(node):
    guards = []
    while True:
        if node.kind == "forall":
            node = node.args[0]
        elif node.kind == "binop" and node.value == "→":
            guards.append(node.args[0])
            node = node.args[1]
        else:
            return node, guards


def _head_binder(node, names):
    """The bound name at the head of an application ``v (j + 1)`` / ``v (j + 1) ω`` / ``g k``."""
    n = node
    while n.kind == "app":
        n = n.args[0]
    if n.kind == "ident" and n.value in names:
        return n.value
    return None


def _defining_target(body, names):
    """``(name, mode)`` when the comparison ``body`` defines a bound name (see the module docstring)."""
    if body.kind != "binop":
        return None
    op = body.value
    a, b = body.args[0], body.args[1]
    if op in ("≤ᵐ", "≤", "=ᵐ"):
        hb = _head_binder(b, names)
        if hb is not None and op != "=ᵐ" and not any(n.kind == "ident" and n.value == hb for n in a.walk()) \
                and any(n.kind == "ident" and n.value in names for n in a.walk()):
            return hb, "upper"          # E ≤ v … with E built from the other names: v := E + slack
        ha = _head_binder(a, names) if a.kind in ("app", "ident") else None
        if op == "=ᵐ" and ha is not None and not any(n.kind == "ident" and n.value == ha for n in b.walk()):
            return ha, "equal"
        if op == "=ᵐ" and a.kind == "app" and a.args[0].kind == "ident" and \
                a.args[0].value.removeprefix("MeasureTheory.") == "condExp" and len(a.args) >= 4:
            hx = _head_binder(a.args[3], names)
            if hx is not None:
                return hx, "condexp"
    return None
