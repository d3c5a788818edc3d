"""The run-free model: theorems without a run -- vectors, sequences, function classes, finite
probability spaces and the model's procedures (SCAFFOLD and Local SGD as Lean definitions) --
behind the model protocol (:mod:`pyfed.models.protocol`).

Its statements are read by :mod:`.reader` (terms elaborated by
:mod:`pyfed.statements.elaboration`, evaluated by :mod:`pyfed.statements.interpret` from the
model's own Lean bodies); instances are drawn inside the hypotheses (:mod:`.plan`,
:mod:`.instances`, :mod:`.hypotheses`) and decided exactly by the search (:mod:`.search`); a
statement over a function class also gets a PEP row with an exact certificate (:mod:`.pep`).
This model claims every theorem no other model claims, so it comes last in the registry.
"""

from __future__ import annotations

from fractions import Fraction

from ...export import counterexample_record, render_values_counterexample
from ...statements.reader import read_text
from ..protocol import Model, NoPEPRow, NotProvided
from .identity import identity_proof
from .pep import NoLemmaPEP, lemma_pep_applies, lemma_pep_case, lemma_pep_plan, lemma_pep_row
from .proof import PUBLISHED, closed_proof, proof_form
from .ranges import certificate_proof
from .reader import RunFreeStatement, statements_from
from .search import largest_candidate_steps, lemma_verdict, recheck_lemma, search_lemma
from .space import evaluate_point, runfree_space
from .two_sided import TwoSidedProfile

__all__ = ["RunFreeModel", "MODEL"]

#: The family whose missing PEP row the report explains (a function-class lemma is the PEP's own ground).
PEP_FAMILY = "function-class lemma"


class RunFreeModel(Model):
    """Run-free theorems (see the module docstring)."""

    tag = "lemma"
    family = "run-free lemma"
    statement_class = RunFreeStatement

    def claims(self, source) -> bool:
        return True

    def read(self, source) -> list:
        return statements_from(*source.args())

    def search_applies(self, st):
        return None

    def search(self, st, *, seed=0, budget=24, progress=None, pool=None):
        return search_lemma(st, seed=seed, budget=budget, progress=progress)

    def evaluation_steps(self, st) -> int | None:
        return largest_candidate_steps(st)

    # the search by optimisation (the protocol's hooks, with the same signatures)
    search_space = staticmethod(runfree_space)
    evaluate_point = staticmethod(evaluate_point)
    search_verdict = staticmethod(lemma_verdict)

    def recheck(self, st, witness):
        return recheck_lemma(st, witness)

    def pep_applies(self, st):
        return lemma_pep_applies(st)

    def explains_missing_pep(self, st) -> bool:
        return st.family == PEP_FAMILY

    def pep_row(self, st, *, quick=False):
        try:
            v = lemma_pep_row(st, quick=quick)
        except NoLemmaPEP as exc:
            raise NoPEPRow(str(exc)) from None
        return v, len(v.details.get("cases", []))

    def applicable(self, st) -> dict:
        why = f"the statement is a {st.family}, not about a SCAFFOLD run"
        out = {k: (False, why) for k in ("exact", "montecarlo", "pep", "search")}
        why_pep = lemma_pep_applies(st)
        out["pep"] = (why_pep is None, why_pep or "the class's PEP at rational parameter values, with an exact "
                                                 "certificate")
        return out

    def witness_fields(self, st, verdict) -> dict:
        balls = getattr(verdict, "balls", None) or {}
        return {"decided_by": "the statement's terms evaluated in certified ball arithmetic (python-flint arb)"
                if balls and (verdict.details or {}).get("lhs_exact") is None else
                "pyfed.statements.interpret (the statement's terms evaluated in exact arithmetic)"}

    def render_counterexample(self, record):
        return render_values_counterexample(record)

    # ------------------------------------------------------------------ proofs of holds
    published = PUBLISHED

    def scalar_reading(self, st):
        return proof_form(st)

    def closed_proof(self, st):
        return closed_proof(st)

    def identity_proof(self, st):
        return identity_proof(st)

    def certificate_proof(self, st):
        return certificate_proof(st)

    def two_sided_profile(self, st):
        """The two-sided profile of a function-class lemma (:class:`.two_sided.TwoSidedProfile`);
        :class:`NotProvided` for a lemma the PEP does not encode."""

        why = lemma_pep_applies(st)
        if why is not None:
            raise NotProvided(f"{st.name} is a {st.family} without a PEP encoding: {why}")
        name = st.name

        def read(text):
            return read_text(text, st.source.rsplit(":", 1)[0], models=(self,), theorem=name.split(".")[0])[0]

        return TwoSidedProfile(st, read)

    def certificate_problem(self, st, values):
        """The lemma's PEP at ``values``; a client count not given is 1 and client indices are 0
        (a lemma about each client separately, e.g. ``∀ i``, is one client's)."""

        try:
            pl = lemma_pep_plan(st)
            vals = {k: Fraction(v) for k, v in values.items()}
            for c in pl.counts:
                vals.setdefault(c, Fraction(1))
            return lemma_pep_case(st, vals, {name: 0 for name, _n in pl.indices}).pep
        except NoLemmaPEP as exc:
            raise NotProvided(str(exc)) from None

    def reverified_pep_record(self, st, verdict, *, seed, budget):
        """The counterexample record of a PEP row whose worst case became an exact witness (a
        fitted quadratic or the interpolating function of the class, re-checked exactly): index
        ``"pep"``, the instance re-decided from the record alone by ``pyfed check --replay``."""
        if verdict.status != "violated":
            return None
        w = getattr(verdict, "witness", None) or {}
        if w.get("origin") != "PEP worst case":
            return None
        view = type(verdict)(verdict.statement, verdict.lhs, verdict.rhs, True, dict(verdict.details or {}),
                             evidence=verdict.evidence, witness=dict(w, index="pep"))
        rec = counterexample_record(st, view, seed=seed, budget=budget)
        rec.update(engine="PEP worst case over the class, made concrete and re-checked exactly",
                   generated_by="pyfed check (PEP row)")
        return rec


#: The run-free model (its statements' ``model``).
MODEL = RunFreeModel()
RunFreeStatement.model = MODEL
