"""Proving that a whole statement holds, written once for every model: the kinds of proof are
tried in order and each asks the statement's model (:class:`pyfed.models.protocol.Model`) for what
is particular to it.

1. **vacuity** -- the hypotheses (the model's scalar reading, ``proof_form``) refuted by an exact
   certificate (:meth:`~.scalar.Region.contradiction`): ``holds (vacuously)``;
2. **closed** -- nothing left to quantify over, decided exactly (``closed_proof``);
3. **published / reduction** -- against each published statement of the same model
   (``published_proofs`` names them and where their proofs are; the caller passes the statements
   read from ``lean/PyfedPublished``), :func:`~.reduction.reduce_to`;
4. **identity** -- the model's algebra decided symbolically (``identity_proof``);
5. **certificate** -- a PEP certificate over the parameter ranges (``certificate_proof``).

The first complete proof decides; partial proofs (a part of the region, e.g. "N = 2") and the
attempts that failed are kept for the report (:class:`ProofOutcome`). Nothing here samples: a
statement holds only with a proof of every part of its hypothesis region.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .proof import Attempt, Proof, Step
from .reduction import candidate, reduce_to
from .scalar import Region, Relation

__all__ = ["ProofOutcome", "prove_statement", "published_forms", "combine_proofs"]


@dataclass
class ProofOutcome:
    """What the proof engine found for one statement: ``proof`` (a complete :class:`~.proof.Proof`
    or None), ``partial`` (proofs of parts of the region), ``attempts`` (what was tried and why it
    failed, :class:`~.proof.Attempt`)."""

    proof: Proof | None = None
    partial: list = field(default_factory=list)
    attempts: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"proof": None if self.proof is None else self.proof.to_json(),
                "partial": [p.to_json() for p in self.partial],
                "attempts": [a.to_json() for a in self.attempts]}


def _not_provided(exc) -> bool:
    return type(exc).__name__ == "NotProvided"


def published_forms(published) -> list:
    """``[(record, statement, form or None, why)]`` of the published statements ``published``
    (``[(Published record, statement)]``), each read by its model's ``proof_form``."""
    out = []
    for rec, pst in published:
        try:
            out.append((rec, pst, pst.model.proof_form(pst), ""))
        except Exception as exc:     # a published statement without a scalar reading: not a candidate
            out.append((rec, pst, None, str(exc)))
    return out


def prove_statement(st, published=(), *, forms=None) -> ProofOutcome:
    """Try every kind of proof on ``st`` (module docstring). ``published``: ``[(Published,
    statement)]`` (read from ``lean/PyfedPublished`` by the caller); ``forms``: their
    :func:`published_forms` when already computed."""
    out = ProofOutcome()
    model = st.model
    form, why_form = None, ""
    try:
        form = model.proof_form(st)
    except Exception as exc:      # NotProvided or a term without a scalar reading
        why_form = str(exc)
    region = None
    if form is not None:
        region = Region(form)
        cert = region.contradiction()
        if cert is not None:
            cert.names = region.names()
            used = [cert.facts[i].why.removeprefix("hypothesis ") for i in cert.used_facts()]
            out.proof = Proof(st.qualified_name, "vacuous",
                              [Step("the hypotheses have no common solution", "exact certificate (Positivstellensatz)",
                                    detail=cert.text(), certificate=cert)],
                              summary=", ".join(dict.fromkeys(used)) + " have no common solution (exact certificate: "
                                      f"{cert.text()})")
            return out
    for hook in ("closed_proof",):
        got = _ask(model, hook, st, out)
        if isinstance(got, Proof) and got.complete:
            out.proof = got
            return out
    if form is not None:
        forms = forms if forms is not None else published_forms(published)
        seen = set()
        for rec, pst, pform, why in forms:
            if pst.model is not model or pform is None:
                continue
            reason = candidate(form, pform)
            key = _form_key(pform)
            if reason or key in seen:      # a conjunct restating another published statement: tried once
                continue
            seen.add(key)
            res = reduce_to(form, pform, rec.to_json(), region=region)
            if isinstance(res, Proof):
                out.proof = res
                return out
            out.attempts.append(res)
        direct = _direct(st, form, region)
        if isinstance(direct, Proof):
            out.proof = direct
            return out
        out.attempts.append(direct)
    elif why_form:
        out.attempts.append(Attempt("reduction", "-", f"no scalar reading of the statement: {why_form}"))
    for hook in ("identity_proof", "certificate_proof"):
        got = _ask(model, hook, st, out)
        if isinstance(got, Proof):
            if got.complete:
                out.proof = got
                return out
            out.partial.append(got)
    return out


def _form_key(form) -> tuple:
    """What makes two published statements the same candidate (a conjunct restating another)."""
    import sympy

    def canon(e):
        e = sympy.sympify(e)
        return sympy.srepr(e.xreplace({d: sympy.Symbol("_index") for d in e.atoms(sympy.Dummy)}))
    return (form.shape, form.relation, canon(form.lhs), canon(form.rhs), tuple(sorted(s.key for s in form.structural)),
            tuple(sorted(canon(sympy.sympify(h.rhs) - sympy.sympify(h.lhs)) + h.op for h in form.hypotheses)))


def _direct(st, form, region):
    """The conclusion proven from the hypotheses alone, its atoms (norms, function values, …)
    treated as independent numbers with the facts the model gives them: sound whatever they stand
    for, so an exact certificate proves the statement for every value of everything."""
    if form.relation not in ("≤", "<", "="):
        return Attempt("identity", "scalar reading", f"relation {form.relation}")
    st_ = region.step(Relation(form.lhs, form.relation, form.rhs), f"`{form.lhs_text} {form.relation} {form.rhs_text}` "
                      "from the hypotheses", name="h_goal")
    if not st_.ok:
        return Attempt("identity", "scalar reading", "no exact certificate of the conclusion from the hypotheses alone "
                       "(its norms, inner products and function values taken as independent numbers)", [st_])
    return Proof(st.qualified_name, "identity", [st_],
                 summary=f"the conclusion follows from the hypotheses for every value of its terms (exact certificate: "
                         f"{st_.detail})")


def _ask(model, hook, st, out):
    """The model's answer to a proof hook (a Proof, an Attempt recorded in ``out``, or None)."""
    try:
        got = getattr(model, hook)(st)
    except Exception as exc:
        if _not_provided(exc):
            return None
        raise
    if isinstance(got, Attempt):
        out.attempts.append(got)
        return None
    return got


def combine_proofs(name: str, proofs: list):
    """One proof of a statement whose conjuncts have the complete ``proofs`` (None when one of
    them has none): of their kind when they share it, ``reduction`` otherwise."""
    if not proofs or any(p is None or not p.complete for p in proofs):
        return None
    if len(proofs) == 1:
        return proofs[0]
    kinds = {p.kind for p in proofs}
    kind = kinds.pop() if len(kinds) == 1 else "reduction"
    return Proof(name, kind, [s for p in proofs for s in p.steps], source=proofs[0].source,
                 summary="; ".join(f"conjunct {k + 1}: {p.summary}" for k, p in enumerate(proofs)))
