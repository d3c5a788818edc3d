"""Mutations are statement variants: every mutation of every statement of pyfed's Lean files is an
edit of the Lean text, read back by the one reader and caught by the same engines as a user's
statement, with a witness that re-checks exactly; the statements themselves are never violated."""

from __future__ import annotations

import pytest

from pyfed.checkers.mutations import TextMutation, mutated_text, theorem_span
from pyfed.checkers.registry import catalogue, get, statements_of
from pyfed.errors import InputError

#: Statements whose searches are expensive (exact runs of SCAFFOLD, the local SGD step): their
#: mutations run in the full suite only.
SLOW = {"SCAFFOLD.ConvexFiniteRoundConvergence", "SCAFFOLD.NonconvexFiniteRoundConvergence",
        "SCAFFOLD.FiniteRoundConvergence", "SCAFFOLD.LocalSGDOneStep", "SCAFFOLD.StichWeightedAveraging",
        "SCAFFOLD.GeometricAveraging"}


def _cases():
    out = []
    for e in catalogue():
        for m in e.mutations:
            marks = [pytest.mark.slow] if e.name in SLOW else []
            out.append(pytest.param(e.name, m.name, id=f"{e.bare}-{m.name}", marks=marks))
    return out


def _searchable(name):
    return all(st.model.search_applies(st) is None for st in statements_of(name))


def test_every_scaffold_and_lemma_statement_has_mutations():
    for e in catalogue():
        if e.namespace == "SCAFFOLD":
            assert len(e.mutations) >= 1, e.name


@pytest.mark.slow
@pytest.mark.parametrize("name,mutation", _cases())
def test_every_mutation_is_caught_with_an_exact_witness(name, mutation):
    sts = statements_of(name, mutate=mutation)
    if not all(st.model.search_applies(st) is None for st in sts):
        pytest.skip(f"{name}: no adversarial search for its shape in this installation")
    found = []
    for st in sts:
        res = st.model.search(st, seed=0, budget=24)
        if res.verdict.status == "violated":
            found.append((st, res.verdict))
    assert found, f"{name} mutated by {mutation} is not caught"
    st, v = found[0]
    assert v.certified and v.witness
    if st.shape == "scaffold_run":
        from pyfed.models.scaffold.exact import recheck
        assert recheck(st, v.witness).status == "violated"
    elif st.shape == "fedavg_run":
        from pyfed.models.fedavg.search import recheck_witness
        assert recheck_witness(st, v.witness).status == "violated"
    else:
        from pyfed.models.runfree.search import recheck_lemma
        assert recheck_lemma(st, v.witness).status == "violated"


def _lemmas():
    return [pytest.param(e.name, id=e.bare, marks=[pytest.mark.slow] if e.name in SLOW else [])
            for e in catalogue() if e.namespace == "SCAFFOLD"]


@pytest.mark.slow
@pytest.mark.parametrize("name", _lemmas())
def test_our_statements_are_never_violated(name):
    for st in statements_of(name):
        res = st.model.search(st, seed=0, budget=8)
        assert res.verdict.status != "violated", (st.name, res.verdict.details)


def test_a_mutation_edits_only_its_theorem():
    e = get("YoungInner")
    text = e.text()
    m = e.mutation("u_constant_halved")
    new = mutated_text(text, e.bare, m)
    a, b = theorem_span(text, e.bare)
    assert new[:a] == text[:a]                     # RelaxedTriangle, above it, is untouched
    assert "a / 2 * ‖u‖ ^ 2" in new[a:] and new.count("a / 2 * ‖u‖ ^ 2") == 1


def test_a_stale_mutation_is_an_error_not_a_silent_no_op():
    e = get("YoungInner")
    with pytest.raises(InputError) as info:
        mutated_text(e.text(), e.bare, TextMutation("x", "y", "no such text", "z"))
    assert info.value.argument == "mutation" and "does not contain" in info.value.reason
    with pytest.raises(InputError) as info:
        e.mutation("nope")
    assert info.value.argument == "mutate"


def test_count_zero_edits_every_occurrence():
    e = get("FiniteRoundConvergence")
    m = e.mutation("drop_noise_term")
    a, b = theorem_span(e.text(), e.bare)
    before = e.text()[a:b].count(m.old)
    assert before >= 1
    new = mutated_text(e.text(), e.bare, m)
    a, b = theorem_span(new, e.bare)
    assert m.old not in new[a:b] and new[a:b].count(m.new) == before


def test_relax_removes_a_binder_or_an_antecedent():
    assert [h.key for h in statements_of("GradientStepNonexpansive", relax=["hη"])[0].hypotheses] == \
        ["hβ", "hgrad", "hconv", "hsmooth", "hη0"]
    keys = [h.key for h in statements_of("ConvexFiniteRoundConvergence", relax=["step_size"])[0].hypotheses]
    assert "step_size" not in keys and "mu_h" in keys
    with pytest.raises(InputError) as info:
        statements_of("YoungInner", relax=["nope"])
    assert info.value.argument == "relax" and "ha" in info.value.reason
