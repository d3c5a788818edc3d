"""PEP certificates over parameter ranges (pyfed.models.runfree.ranges): homogeneity weights,
class inclusion in μ, convexity in the step with certificates at the interval's ends, client
counts stated, never extended."""

from __future__ import annotations

import pytest

from pyfed.models.registry import read_file, read_text
from pyfed.models.runfree.pep import lemma_pep_plan
from pyfed.models.runfree.ranges import certificate_proof, homogeneity_weights
from pyfed.lean.paths import source_lean_dir

INEQ = source_lean_dir() / "Pyfed" / "Lemmas" / "Inequalities.lean"


def _nonexpansive(edit=None):
    text = INEQ.read_text(encoding="utf-8")
    if edit:
        text = text.replace(*edit)
    return [s for s in read_text(text, str(INEQ)) if s.name == "GradientStepNonexpansive"][0]


def test_homogeneity_weights_of_the_nonexpansive_step():
    st = _nonexpansive()
    assert homogeneity_weights(st, lemma_pep_plan(st)) == {"β": 1, "η": -1}


def test_a_weight_system_without_solution_means_no_homogeneity():
    # η ≤ 2 / β and η ≤ 2 (the step would need weight −1 and 0 at once)
    st = _nonexpansive(("(hη : η ≤ 2 / β)", "(hη : η ≤ 2 / β) (hη2 : η ≤ 2)"))
    assert homogeneity_weights(st, lemma_pep_plan(st)) is None


@pytest.mark.slow
def test_the_whole_step_range_is_covered_by_two_certificates():
    p = certificate_proof(_nonexpansive())
    assert p.complete and p.kind == "certificate" and p.scope == "the whole hypothesis region"
    ends = [s.claim for s in p.steps if s.claim.startswith("exact PEP certificate")]
    assert ends == ["exact PEP certificate at β = 1, η = 0", "exact PEP certificate at β = 1, η = 2"]
    assert any("convex in η" in s.claim for s in p.steps)


@pytest.mark.slow
def test_a_longer_step_range_is_not_covered_and_says_where():
    att = certificate_proof(_nonexpansive(("(hη : η ≤ 2 / β)", "(hη : η ≤ 3 / β)")))
    assert att.kind == "certificate" and att.reason.startswith("no exact certificate at β = 1, η = 3")


@pytest.mark.slow
def test_a_client_count_is_stated_never_extended():
    st = [s for s in read_file(source_lean_dir() / "Pyfed" / "Scaffold" / "Theorems.lean") if s.name == "GradientGrowth"][0]
    p = certificate_proof(st)
    assert not p.complete and p.scope == "N = 2" and p.label == "holds for N = 2 only"
