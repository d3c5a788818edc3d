"""The two-sided constant profile of a function-class lemma (pyfed.models.runfree.two_sided):
witnesses and certificates at the same parameters, from the Lean text edited numeral by numeral."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pyfed.commands.constant_profile import resolve_statement
from pyfed.models.runfree.two_sided import _edit, lemma_constants


def test_the_numerals_of_the_hypotheses_and_right_side_are_the_constants():
    st, text, _src = resolve_statement("GradientStepNonexpansive")
    (c,) = lemma_constants(st)
    assert c.key.startswith("hypothesis:2@") and c.value == 2
    edited = _edit(text, c.node, Fraction(9, 4))
    assert "(hη : η ≤ (9 / 4 : ℝ) / β)" in edited and edited.count("\n") == text.count("\n")


@pytest.mark.slow
def test_the_step_numeral_is_certified_up_to_2_and_violated_from_9_4_at_the_same_parameters(tmp_path):
    st, text, _src = resolve_statement("GradientStepNonexpansive")
    tool = st.model.two_sided_profile(st)
    res = tool.profile(tool.resolve_constants([]), text=text, halvings=2, refine=3)      # 4, then 3, 5/2, 9/4
    pep = res["constants"][0]["points"][0]["pep"]
    assert pep["certified_from"] == Fraction(2) and pep["largest_witness"] == Fraction(9, 4)
    assert pep["direction"] == "at most" and not res["violated_at_own_value"]
    assert all(p["parameters"].startswith("β=1") for p in pep["points"])
