"""Reduction of a statement to a published statement with an accepted proof.

A statement ``∀ …, H_u → L_u ≤ R_u`` follows from a proved ``∀ …, H_p → L_p ≤ R_p`` of the same
model and shape when, on the statement's whole hypothesis region,

1. every divisor of either statement's terms is nonzero (so Lean's ``x / 0 = 0`` and field
   arithmetic agree there);
2. every structural hypothesis of the published statement (``Convexity P μ`` …) is one of the
   statement's, and every scalar hypothesis of the published statement is implied by the
   statement's hypotheses and the model's facts (an exact certificate each);
3. the left side is ``L_u = a · L_p + b`` with ``a ≥ 0`` on the region (``a``, ``b`` free of the
   run's statistics);
4. ``R_u − L_u ≥ 0`` (``> 0`` for a strict conclusion) follows from the region's facts and the
   published conclusion ``L_p ≤ R_p`` (an exact certificate: typically ``R_u − a R_p − b ≥ 0``).

Then ``L_u = a L_p + b ≤ a R_p + b ≤ R_u``. When the hypotheses, the sides and the relation are
those of the published statement itself, the proof's kind is ``published``; otherwise
``reduction``. Every step is stated; the first that fails ends the attempt with its reason
(:class:`~.proof.Attempt`).
"""

from __future__ import annotations

import sympy

from .lean import rename
from .proof import Attempt, Proof, Step
from .scalar import Region, Relation, ScalarForm, _Atomizer, relation_text

__all__ = ["reduce_to", "candidate"]


def candidate(user: ScalarForm, pub: ScalarForm) -> str | None:
    """None when ``pub`` may prove ``user`` (same model and shape, compatible relations, the
    published left side's statistics among the statement's), else why not (no solving)."""
    if user.model != pub.model or user.shape != pub.shape:
        return f"{pub.name} is about a {pub.shape}, the statement about a {user.shape}"
    if pub.relation not in ("≤", "<", "≤ᵐ"):
        return f"{pub.name}'s conclusion is not an upper bound"
    if (pub.relation == "≤ᵐ") != (user.relation == "≤ᵐ") or user.relation not in ("≤", "<", "≤ᵐ"):
        return f"the conclusions' relations differ ({user.relation} and {pub.relation})"
    if not pub.lhs_atoms or not pub.lhs_atoms <= set(sympy.sympify(user.lhs).free_symbols):
        return f"the left side is not built from {pub.name}'s left side"
    return None


def _split_lhs(user: ScalarForm, pub: ScalarForm):
    """``(a, b)`` with ``L_u = a · L_p + b``, or None."""
    Lp = sympy.Symbol("L_published")
    lu = sympy.expand(sympy.sympify(user.lhs).subs(sympy.sympify(pub.lhs), Lp))
    if sympy.sympify(pub.lhs) not in (Lp,) and set(pub.lhs_atoms) & lu.free_symbols:
        lu = sympy.expand(lu.subs(sympy.expand(pub.lhs), Lp))
    a = sympy.expand(sympy.diff(lu, Lp))
    b = sympy.expand(lu - a * Lp)
    stats = set(user.lhs_atoms) | set(pub.lhs_atoms) | {Lp}
    if (a.free_symbols | b.free_symbols) & stats:
        return None
    return a, b


def _words(text: str) -> str:
    return " ".join(str(text).split())


def _same_hypotheses(user: ScalarForm, pub: ScalarForm, region: Region) -> bool:
    if sorted(s.key for s in user.structural) != sorted(s.key for s in pub.structural):
        return False
    if len(user.hypotheses) != len(pub.hypotheses):
        return False
    left = list(user.hypotheses)
    for h in pub.hypotheses:
        d = h.difference()
        match = next((u for u in left if u.difference()[1:] == d[1:]
                      and region.identical(u.difference()[0], d[0])), None)
        if match is None:
            return False
        left.remove(match)
    return True


def reduce_to(user: ScalarForm, pub: ScalarForm, source: dict, *, region: Region | None = None) -> Proof | Attempt:
    """The proof that ``user`` follows from the proved ``pub`` (module docstring), or the
    :class:`~.proof.Attempt` saying which step failed. ``source``: the published statement's
    record (name, file, where its proof is); ``region``: the statement's :class:`~.scalar.Region`
    when already built (it is shared by every candidate)."""
    why = candidate(user, pub)
    if why:
        return Attempt("reduction", pub.name, why)
    steps = [Step(f"{pub.name} is proved", "published, accepted proof", detail=source.get("proof", ""),
                  name="h_published")]
    region = region.extended([]) if region is not None else Region(user, atomizer=_Atomizer())
    steps.extend(region.steps)

    def fail(reason):
        return Attempt("reduction", pub.name, reason, steps)

    seen = []
    for den, where in list(user.denominators) + list(pub.denominators):
        den = sympy.sympify(den)
        if any(region.identical(den, d) for d in seen):
            continue
        seen.append(den)
        st = region.nonzero_step(den, where)
        if not st.ok:
            steps.append(st)
            return fail(f"divisor {user.show(den)} not proven nonzero on the hypothesis region: Lean's x / 0 = 0 "
                        "could differ from field division there")
    have = {s.key: s for s in user.structural}
    for s in pub.structural:
        if s.key not in have:
            return fail(f"hypothesis `{s.text}` of {pub.name} is not among the statement's hypotheses")
        steps.append(Step(f"`{s.text}` is a hypothesis", "given", name=have[s.key].name or ""))
    by_key = {k: n for n, k in user.keys.items()}
    names = {n: by_key[k] for n, k in pub.keys.items() if k in by_key}
    for k, h in enumerate(pub.hypotheses):
        st = region.step(h, f"the hypotheses imply `{relation_text(h)}`", name=f"h_{h.key or k}")
        st.statement = rename(h.text, names) if h.text else ""
        steps.append(st)
        if not st.ok:
            return fail(f"hypothesis implication undecided: `{relation_text(h)}` of {pub.name} "
                        f"({st.detail})")
    split = _split_lhs(user, pub)
    a, b = split if split is not None else (None, None)
    if split is not None and (a != 1 or b != 0):
        st = region.step(Relation(a, "≥", 0), f"left side = {sympy.sstr(a)} · (published left side) + "
                                              f"{sympy.sstr(b)} with {sympy.sstr(a)} ≥ 0", name="h_scale")
        steps.append(st)
        if not st.ok:
            return fail(f"the factor {sympy.sstr(a)} of the published left side is not proven ≥ 0")
    conclusion = Relation(pub.lhs, "≤", pub.rhs, f"{pub.name}'s conclusion", "h_published")
    dom = region.extended([conclusion])
    strict = user.relation == "<" and pub.relation != "<"
    target = Relation(user.lhs, "<" if strict else "≤", user.rhs)
    claim = (f"right side `{user.rhs_text}` ≥ " +
             (f"`{pub.rhs_text}`" if (a, b) == (1, 0) else
              f"{sympy.sstr(a)}·`{pub.rhs_text}` + {sympy.sstr(b)}" if a is not None else
              f"the left side, using {pub.name}'s conclusion `{pub.lhs_text} ≤ {pub.rhs_text}`"))
    st = dom.step(target, claim, name="h_rhs")
    steps.append(st)
    if not st.ok:
        return fail(f"right-side domination undecided: the statement's right side is not proven ≥ "
                    f"{pub.name}'s on the hypothesis region ({st.detail})")
    # "published": the statement is the published one up to the names of its bound variables (its
    # hypotheses and sides are the published texts renamed), so the published proof term proves it
    same = split is not None and a == 1 and b == 0 and user.relation == pub.relation and \
        _same_hypotheses(user, pub, region) and region.identical(user.rhs, pub.rhs) and \
        _words(rename(pub.rhs_text, names)) == _words(user.rhs_text) and \
        _words(rename(pub.lhs_text, names)) == _words(user.lhs_text) and \
        sorted(_words(rename(h.text, names)) for h in pub.hypotheses) == sorted(_words(h.text) for h in user.hypotheses)
    kind = "published" if same else "reduction"
    hyp_claims = [s.claim for s in steps if s.claim.startswith("the hypotheses imply")]
    summary = (f"it is {pub.name} (published, proved)" if same else
               f"follows from {pub.name} (published, proved): "
               + ("hypotheses imply " + ", ".join(c.removeprefix("the hypotheses imply ") for c in hyp_claims)
                  if hyp_claims else "same hypotheses")
               + "; " + claim)
    hyps = []
    for kind_, i in pub.order:
        hyps.append(rename(pub.structural[i].text if kind_ == "S" else pub.hypotheses[i].text, names))
    application = {"named": [(n, m) for n, m in names.items() if n != "_"], "hypotheses": hyps,
                   "conclusion": rename(f"{pub.lhs_text} ≤ {pub.rhs_text}", names)}
    return Proof(user.name, kind, steps, source=source, summary=summary, application=application)
