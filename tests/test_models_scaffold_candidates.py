"""The candidates' per-process memos (pyfed.models.scaffold.candidates): the largest admissible
steps are shared by statements with the same binders, run and hypotheses (whatever their name and
conclusion) and never by statements whose hypotheses differ; a memoised candidate is the one
computed afresh."""

from dataclasses import replace
from fractions import Fraction

from pyfed.models.scaffold import candidates as C
from pyfed.models.scaffold.hypotheses import max_eta_l
from pyfed.models.scaffold.model import our_statements


def _convex():
    return our_statements()["ConvexFiniteRoundConvergence"]


def test_the_step_signature_ignores_name_position_and_conclusion_only():
    st = _convex()
    again = _convex()                                  # read again: another object, the same content
    assert again is not st and C._step_signature(again) == C._step_signature(st)
    other_conclusion = replace(st, name="Other", lhs=st.rhs, rhs=st.lhs, relation="<")
    assert C._step_signature(other_conclusion) == C._step_signature(st)
    fewer_hypotheses = replace(st, hypotheses=st.hypotheses[:-1])
    assert C._step_signature(fewer_hypotheses) != C._step_signature(st)
    step = next(h for h in st.hypotheses if h.key == "step_size")
    other_text = replace(step, text=step.text + " ", node=replace(step.node, value="<"))
    edited = replace(st, hypotheses=[other_text if h is step else h for h in st.hypotheses])
    assert C._step_signature(edited) != C._step_signature(st)


def test_a_memoised_candidate_is_the_fresh_one():
    st = _convex()
    C._STEPS.clear()
    first_structured, _ = C.candidate(st, 0, 0)
    first_random, _ = C.candidate(st, 0, C.structured_count(st))
    assert C._STEPS                                    # both went into the memo
    for index, first in ((0, first_structured), (C.structured_count(st), first_random)):
        again, _ = C.candidate(_convex(), 0, index)    # another object of the same statement: a memo hit
        assert again.eta_l == first.eta_l and again.T == first.T and again.S == first.S
    # the structured candidate's step is the largest admissible one, computed afresh
    fresh = C._build(st, C._STRUCTURED[0])
    top, bounded = max_eta_l(st, fresh, bits=C._STRUCTURED[0].bits)
    assert bounded and first_structured.eta_l == top and isinstance(top, Fraction)


def test_a_statement_with_an_opaque_attribute_keeps_its_own_memo():
    st = _convex()
    odd = replace(st, hypotheses=list(st.hypotheses))
    odd.hypotheses[0] = replace(odd.hypotheses[0])
    odd.hypotheses[0].extra = object()                 # set after construction, not a plain value
    assert C._has_identity(C._step_signature(odd)) and not C._has_identity(C._step_signature(st))
    assert C._step_memo(odd) is not C._step_memo(st) and C._step_memo(odd) is C._step_memo(odd)
    assert C.candidate(odd, 0, 0)[0].eta_l == C.candidate(st, 0, 0)[0].eta_l
