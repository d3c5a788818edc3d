"""Vacuity (:mod:`pyfed.statements.vacuity`) of run-free statements: their propositions that are
comparisons are read like a run statement's hypotheses (bounds per parameter, then Fourier–Motzkin
over the linear ones); a satisfiable set proves nothing."""

from __future__ import annotations

from pyfed import read_text
from pyfed.statements.vacuity import vacuity

TEXT = """import Pyfed
open SCAFFOLD
theorem Bounds {d : ℕ} (u : Space d) (a : ℝ) (ha : 0 < a) (hb : a < 0) : ‖u‖ ≤ a := by sorry
theorem Linear (a b : ℝ) (h1 : a + b ≤ 1) (h2 : a > 1) (h3 : b ≥ 1) : a ≤ b := by sorry
theorem Integers (n : ℕ) (h1 : n > 2) (h2 : n < 3) : (n : ℝ) ≤ 0 := by sorry
theorem Satisfiable (a b : ℝ) (h1 : a + b ≤ 1) (h2 : a > 1) : a ≤ a + 1 := by sorry
"""


def test_contradictory_propositions_of_a_run_free_statement_are_proven_vacuous():
    why = {st.name.split(".")[-1]: vacuity(st) for st in read_text(TEXT, "v.lean")}
    assert why["Bounds"] == "no value of a satisfies `0 < a` and `a < 0`"
    assert why["Linear"].startswith("the linear hypotheses `a + b ≤ 1`, `a > 1` and `b ≥ 1` have no common solution")
    assert why["Integers"] == "no value of n satisfies `n > 2` and `n < 3`"
    assert why["Satisfiable"] is None
