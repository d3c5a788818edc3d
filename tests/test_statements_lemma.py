"""The run-free statement builder (:mod:`pyfed.statements.lemma`): type ascriptions elaborate as
Lean does, the expected type flowing into an arithmetic tree, so ``(1 / 2 : ℝ)`` is one half
while ``((n / 3 : ℕ) : ℝ)`` keeps ℕ division; decided through the run-free search and its exact
re-check."""

from __future__ import annotations

import pytest

from pyfed.engines.statement.engines import recheck_statement, search_statement
from pyfed.statements import read_text

TEXT = """import Pyfed
namespace Trial
theorem Half (a : ℝ) (ha : a = 8) : a * (1 / 2 : ℝ) = 4 := by sorry
theorem HalfFalse (a : ℝ) (ha : a = 8) : a * (1 / 2 : ℝ) = 0 := by sorry
theorem NatHalf (a : ℝ) (ha : a = 8) : a * ((1 / 2 : ℕ) : ℝ) = 0 := by sorry
theorem NatThird (n : ℕ) (hn : n = 8) : ((n / 3 : ℕ) : ℝ) = 2 := by sorry
theorem RealThird (n : ℕ) (hn : n = 8) : (n / 3 : ℝ) = 8 / 3 := by sorry
theorem RealThirdFalse (n : ℕ) (hn : n = 8) : (n / 3 : ℝ) ≤ 2 := by sorry
theorem CubeRoot (a : ℝ) (ha : a = 8) : a ^ (1 / 3 : ℝ) = 2 := by sorry
end Trial
"""


def _verdict(name):
    (st,) = read_text(TEXT, "ascription.lean", theorem=f"Trial.{name}")
    return search_statement(st, seed=0, budget=4).verdict, st


@pytest.mark.parametrize("name", ["Half", "NatHalf", "NatThird", "RealThird", "CubeRoot"])
def test_true_statements_with_ascriptions_are_never_violated(name):
    v, _ = _verdict(name)
    assert v.status == "inconclusive", (name, v.details.get("lhs_exact"), v.details.get("rhs_exact"))
    assert v.details["decided"] > 0


@pytest.mark.parametrize("name,lhs,rhs", [("HalfFalse", "4", "0"), ("RealThirdFalse", "8/3", "2")])
def test_false_statements_with_ascriptions_are_violated_with_the_real_quotient(name, lhs, rhs):
    v, st = _verdict(name)
    assert v.status == "violated" and v.certified
    assert (v.details["lhs_exact"], v.details["rhs_exact"]) == (lhs, rhs)
    assert recheck_statement(st, v.witness).status == "violated"
