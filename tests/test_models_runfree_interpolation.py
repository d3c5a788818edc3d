"""A run-free PEP row's positive worst case realised as the interpolating function of its class
(pyfed.models.runfree.interpolation), re-checked exactly and exported replayable."""

from pathlib import Path

import pytest

from pyfed.models.registry import read_file
from pyfed.models.runfree.pep import decide_case, lemma_pep_cases, lemma_pep_row
from pyfed.models.runfree.search import recheck_lemma

DATA = Path(__file__).parent / "data" / "search" / "lemmas.lean"


def _st(name):
    return next(s for s in read_file(DATA) if s.name == name)


@pytest.mark.slow
def test_symmetrised_bregman_pep_worst_case_is_realised():
    st = _st("BregmanSymmetrised")
    v = lemma_pep_row(st)
    assert v.status == "violated"
    assert "realised as a function of the class, re-checked exactly" in v.details["instance"]
    inst = v.witness["instance"]
    assert inst["h"]["family"] == "interpolated"
    assert recheck_lemma(st, {"instance": inst}).status == "violated"
    assert v.lhs > v.rhs


@pytest.mark.slow
def test_a_quadratic_never_reproduces_it_but_the_interpolant_does():
    from pyfed.models.runfree.interpolation import interpolation_witness
    from pyfed.models.runfree.pep import exact_witness
    st = _st("BregmanSymmetrised")
    case = lemma_pep_cases(st)[0]
    assert decide_case(case, certify=False)["outcome"] == "positive"
    rec, why = exact_witness(st, case)
    assert rec is None and "not a counterexample" in why       # an identity on quadratics
    rec, why = interpolation_witness(st, case)
    assert rec is not None and rec.status == "violated" and why == ""


@pytest.mark.slow
def test_true_class_lemma_keeps_its_certificate():
    v = lemma_pep_row(_st("GradientCocoercive"))
    assert v.status == "holds"
