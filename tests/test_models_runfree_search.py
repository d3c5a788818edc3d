"""The run-free search (:mod:`pyfed.models.runfree.search`) on statement variants a user
would write, one set per family: for each, false variants (a constant too small, a term dropped,
a hypothesis loosened) are violated with a witness that re-checks exactly, and true variants
(the right side enlarged, a hypothesis tightened) are never violated. Each variant is an edit of
the Lean text of pyfed's own statement, read by the same reader."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from pyfed.checkers.registry import get
from pyfed.checkers.mutations import theorem_span
from pyfed import read_text


def _variant(name: str, edits) -> object:
    """The statement ``name`` of pyfed's Lean files with ``edits`` ([(old, new)], each old text
    occurring in the theorem) applied to its text, renamed ``<name>Variant``."""
    e = get(name)
    text = e.text()
    a, b = theorem_span(text, e.bare)
    span = text[a:b]
    for old, new in edits:
        assert old in span, (name, old)
        span = span.replace(old, new)
    span = span.replace(f"theorem {e.bare}", f"theorem {e.bare}Variant", 1)
    (st,) = read_text(text[:a] + span + text[b:], f"{e.bare}_variant.lean", theorem=f"{e.bare}Variant")
    return st


def _violated(st, budget=8):
    v = st.model.search(st, seed=0, budget=budget).verdict
    assert v.status == "violated", (st.name, v.status, getattr(v, "reason", ""))
    assert v.certified and v.witness
    again = st.model.recheck(st, v.witness)
    assert again.status == "violated"
    # exact sides: rationals, or algebraic numbers (a norm is a square root), compared exactly
    lhs, rhs = sympy.sympify(v.details["lhs_exact"]), sympy.sympify(v.details["rhs_exact"])
    assert bool(lhs > rhs) if st.relation == "≤" else bool(lhs >= rhs)
    return v


def _never_violated(st, budget=8):
    v = st.model.search(st, seed=0, budget=budget).verdict
    assert v.status == "inconclusive", (st.name, v.details.get("description"))
    assert v.details["decided"] > 0            # decided instances, not a search that drew nothing
    return v


VECTOR = [   # (statement, edits, false?)
    ("YoungInner", [("a * ‖u‖ ^ 2", "a / 2 * ‖u‖ ^ 2")], True),                  # a constant too small
    ("YoungInner", [(" + a⁻¹ * ‖v‖ ^ 2", "")], True),                              # a term dropped
    ("YoungInner", [("a * ‖u‖ ^ 2", "2 * a * ‖u‖ ^ 2")], False),                   # right side enlarged
    ("YoungInner", [("(ha : 0 < a)", "(ha : 1 ≤ a)")], False),                    # hypothesis tightened
    ("RelaxedTriangle", [("(1 + a⁻¹) * ‖v‖ ^ 2", "‖v‖ ^ 2")], True),
    ("SumSquares", [("(m : ℝ) * ∑ j", "((m : ℝ) - 1) * ∑ j")], True),
    ("SumSquares", [("(hm : 1 ≤ m)", "(hm : 2 ≤ m)")], False),
]

FUNCTION_CLASS = [
    ("GradientGrowth", [("2 * P.β *", "(3 / 2) * P.β *")], True),                  # 2β → (3/2)β
    ("GradientGrowth", [("Convexity P 0 → ", "")], True),                          # convexity dropped
    ("GradientGrowth", [("2 * P.β *", "4 * P.β *")], False),
    ("GradientStepNonexpansive", [("(hη : η ≤ 2 / β)", "(hη : η ≤ 3 / β)")], True),   # step bound loosened
    ("GradientStepNonexpansive", [("(hη : η ≤ 2 / β)", "(hη : η ≤ 1 / β)")], False),  # tightened
]

SEQUENCE = [
    ("UniformAveraging", [(" + c * η ^ 2", "")], True),                            # the c term dropped
    ("UniformAveraging", [("dist 0 / (a * η * (R : ℝ))", "dist 0 / (2 * a * η * (R : ℝ))")], True),
    ("UniformAveraging", [("(b * η + c * η ^ 2) / a", "(2 * b * η + c * η ^ 2) / a")], False),
    ("UniformAveraging", [("(hb : 0 ≤ b)", "(hb : 1 ≤ b)")], False),
]


def _ids(cases):
    return [f"{n}-{'false' if f else 'true'}-{i}" for i, (n, _, f) in enumerate(cases)]


@pytest.mark.parametrize("name,edits,false", VECTOR, ids=_ids(VECTOR))
def test_vector_lemma_variants(name, edits, false):
    st = _variant(name, edits)
    assert st.family == "vector lemma"
    (_violated if false else _never_violated)(st)


@pytest.mark.slow
@pytest.mark.parametrize("name,edits,false", FUNCTION_CLASS, ids=_ids(FUNCTION_CLASS))
def test_function_class_lemma_variants(name, edits, false):
    st = _variant(name, edits)
    assert st.family == "function-class lemma"
    (_violated if false else _never_violated)(st)


@pytest.mark.slow
@pytest.mark.parametrize("name,edits,false", SEQUENCE, ids=_ids(SEQUENCE))
def test_sequence_lemma_variants(name, edits, false):
    st = _variant(name, edits)
    assert st.family == "sequence lemma"
    (_violated if false else _never_violated)(st)


LOCAL_SGD = [
    ("LocalSGDOneStep", [("η ^ 2 * ∫ ω, ‖workerMean (fun k => g k ω) -\n          workerMean (fun k => gradient (objective fs) (x k ω))‖ ^ 2 ∂ν -",
                          "0 -")], True),                                            # the noise term dropped
    ("LocalSGDOneStep", [("(1 - μ * η) *", "(1 - 2 * μ * η) *")], True),             # contraction too strong
    ("LocalSGDOneStep", [("2 * η * L / (workers : ℝ) *", "4 * η * L / (workers : ℝ) *")], False),
    ("LocalSGDOneStep", [("(hη : η ≤ 1 / (4 * L))", "(hη : η ≤ 1 / (8 * L))")], False),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,edits,false", LOCAL_SGD, ids=_ids(LOCAL_SGD))
def test_local_sgd_variants(name, edits, false):
    st = _variant(name, edits)
    (_violated if false else _never_violated)(st, budget=4)


def test_a_witness_side_too_long_to_print_is_shown_by_its_rounded_value_never_cut():
    """1/2 + 1/10^900 has 1801 characters as "p/q": the one-line witness shows ~0.5, the
    details keep every digit."""
    text = """import Pyfed
open SCAFFOLD
theorem YoungTiny {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    2 * |inner ℝ u v| ≤ a * ‖u‖ ^ 2 / 10 ^ 900 + a⁻¹ * ‖v‖ ^ 2 := by sorry
"""
    (st,) = read_text(text, "tiny.lean")
    v = _violated(st, budget=2)
    assert len(v.details["rhs_exact"]) > 1000
    assert "right side ~0.5" in v.details["witness_text"] and "0000000000" not in v.details["witness_text"]


def test_a_term_that_cannot_be_evaluated_is_not_reported_as_failed_hypotheses():
    """Every draw with a < 0 meets its hypotheses on the numbers but `Real.rpow` of a negative
    base cannot be evaluated: the search says so, it never claims that the hypotheses failed."""
    from pyfed.models.runfree.search import search_lemma
    text = ("import Pyfed\n\ntheorem NegRpow (a : ℝ) (ha : a < 0) (h : Real.rpow a (1 / 2) ≤ 10) : a ≤ 0 := by sorry\n")
    [st] = read_text(text, "t.lean")
    res = search_lemma(st, seed=0, budget=2)
    v = res.verdict
    assert v.status == "inconclusive"
    assert v.details["decided"] == 0 and v.details["undecided"] > 0
    assert "Real.rpow of a negative base" in v.reason
    assert "hypotheses" not in v.reason


EXISTS = """import Pyfed

namespace SCAFFOLD.Mine

theorem T5 {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    ∃ b : ℝ, ‖u + v‖ ^ 2 ≤ (1 + b) * ‖u‖ ^ 2 + (1 + a⁻¹) * ‖v‖ ^ 2 := by sorry

end SCAFFOLD.Mine
"""


def test_an_undecidable_conclusion_counts_the_candidates_inside_the_hypotheses():
    # ∃ over ℝ cannot be enumerated: nothing is decided, but `0 < a` holds on many candidates
    (st,) = read_text(EXISTS, "exists.lean")
    v = st.model.search(st, seed=0, budget=2).verdict
    d = v.details
    assert v.status == "inconclusive" and d["decided"] == 0
    assert d["in_hypotheses"] > 0
    assert d["in_hypotheses"] + d["outside_hypotheses"] == d["candidates"]
    # the reason quotes the whole quantified proposition, never cut inside a term
    assert d["undecided_reason"] == ("`∃ b : ℝ, ‖u + v‖ ^ 2 ≤ (1 + b) * ‖u‖ ^ 2 + (1 + a⁻¹) * ‖v‖ ^ 2` "
                                     "quantifies over an infinite type")


LOGS = """import Pyfed
theorem LogZero : Real.log 0 = 0 := by sorry
theorem LogAbs : ∀ (x : ℝ), Real.log |x| = Real.log x := by sorry
theorem LogFalse : Real.log 0 = 1 := by sorry
theorem LogNoHyp : ∀ (x : ℝ), Real.log x ≤ x - 1 := by sorry
theorem LogPositive : ∀ (x : ℝ), 0 < x → Real.log x ≤ x - 1 := by sorry
"""


def test_real_log_follows_mathlib_at_zero_and_negative_arguments():
    """Mathlib's Real.log is log |x| with log 0 = 0 (`Real.log_zero`, `Real.log_abs`): the true
    statements are never violated, the false ones are violated with an exact witness (log 0 = 0,
    so `log x ≤ x - 1` fails at x = 0), and no statement aborts the search."""
    zero, absolute, false, nohyp, positive = read_text(LOGS, "logs.lean")
    for st in (zero, absolute, positive):
        assert st.model.search(st, seed=0, budget=8).verdict.status == "inconclusive", st.name
    v = false.model.search(false, seed=0, budget=8).verdict
    assert v.status == "violated" and (v.lhs, v.rhs) == (0, 1)
    w = nohyp.model.search(nohyp, seed=0, budget=8).verdict
    assert w.status == "violated" and Fraction(w.witness["instance"]["x"]) <= 0
    assert nohyp.model.recheck(nohyp, w.witness).status == "violated"


DIAGONAL = """import Pyfed
theorem Diag1 : ∀ (a b : ℝ), 2 * a * b + 1 / 1000 ≤ a ^ 2 + b ^ 2 := by sorry
theorem Diag2 : ∀ (a b : ℝ), 0 < (a - b) ^ 2 := by sorry
theorem Young : ∀ (a b : ℝ), 2 * a * b ≤ a ^ 2 + b ^ 2 := by sorry
"""


def test_the_diagonal_of_equal_scalars_is_a_structured_case():
    """Inequalities tight exactly where a = b (2ab ≤ a² + b²) are violated by their false variants
    at a structured case, whatever the budget: cases 12 and 13 give every real the same value."""
    d1, d2, young = read_text(DIAGONAL, "diag.lean")
    v1 = d1.model.search(d1, seed=0, budget=0).verdict
    assert v1.status == "violated" and v1.lhs - v1.rhs == Fraction(1, 1000)
    inst = v1.witness["instance"]
    assert inst["a"] == inst["b"]
    v2 = d2.model.search(d2, seed=0, budget=0).verdict
    assert v2.status == "violated" and v2.lhs == v2.rhs == 0
    res = young.model.search(young, seed=0, budget=0)
    assert res.verdict.status == "inconclusive"
    assert "equal real scalars, equal members of each family" in " ".join(r.description for r in res.records)


WEIGHTS = """import Pyfed
open SCAFFOLD
theorem WJensen {d n : ℕ} (w : Fin n → ℝ) (u : Fin n → Space d)
    (hw : ∀ i, 0 ≤ w i) (hsum : ∑ i, w i = 1) :
    ‖∑ i, w i • u i‖ ^ 2 ≤ ∑ i, w i * ‖u i‖ ^ 2 := by sorry
theorem WJensenNeg {d n : ℕ} (w : Fin n → ℝ) (u : Fin n → Space d)
    (hsum : ∑ i, w i = 1) :
    ‖∑ i, w i • u i‖ ^ 2 ≤ ∑ i, w i * ‖u i‖ ^ 2 := by sorry
"""


def test_weights_that_must_sum_to_one_are_solved_for_their_last_value():
    """∑ i, w i = 1 is rarely met by drawn weights when n > 1: the last weight is solved from it.
    Without 0 ≤ w i, weighted Jensen for ‖·‖² is false (w = (2, -1): the gap is -2‖u₀ - u₁‖²)."""
    true, false = read_text(WEIGHTS, "weights.lean")
    v = false.model.search(false, seed=0, budget=8).verdict
    assert v.status == "violated" and "the last value of w solved from its hypotheses" in v.details["description"]
    weights = [Fraction(x) for x in v.witness["instance"]["w"]["values"]]
    assert sum(weights) == 1 and min(weights) < 0
    assert false.model.recheck(false, v.witness).status == "violated"
    res = true.model.search(true, seed=0, budget=8)
    assert res.verdict.status == "inconclusive"
    assert any("solved from its hypotheses" in r.description and r.status == "holds" for r in res.records)
