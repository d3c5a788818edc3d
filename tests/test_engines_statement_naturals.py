"""Naturals moved into a statement's hypotheses (pyfed.engines.statement.naturals) by the three
searches: SCAFFOLD runs (candidates), FedAvg runs (fedavg_search) and run-free lemmas
(lemma_instances). A statement that pins N, S, K, T or τ (``N = 2 →``, ``40 ≤ τ →``) used to get
no decided instance."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pyfed.models.scaffold import candidates
from pyfed.models.fedavg import search as fedavg_search
from pyfed.models.scaffold.exact import decide_exact
from pyfed.models.scaffold.instance import instance_to_json
from pyfed.engines.statement.naturals import nearest_naturals, numerals_of
from pyfed import read_text
from test_models_scaffold_pep import NO_C0

#: The seed's right side without its control-error term, with N, S, K, T pinned to 2.
SCAFFOLD_PINNED = NO_C0.replace("EXTRA", "N = 2 → S = 2 → K = 2 → T = 2 →")

FEDAVG_PINNED = """import Pyfed
open MeasureTheory
namespace FedAvg.Mine
noncomputable def linDriftRHS {d M : ℕ} (P : Problem d M) (τ : ℕ) (η : ℝ) : ℝ :=
  18 * (τ : ℝ) * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2
theorem DriftLinearTauLong {d M : ℕ} (P : Problem d M) {Ω : Type*} [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ) (η : ℝ)
    (hτ : 40 ≤ τ) (hM : M = 3) (hT : 0 < T) (hη : 0 < η) (hstep : η ≤ 1 / (4 * P.L))
    (R : Run P μ τ T η) (t : ℕ) (ht : t < T) (k : ℕ) (hk : k ≤ τ) (i : Fin M) :
    μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ => linDriftRHS P τ η := by
  sorry
end FedAvg.Mine
"""

LEMMAS = """import Pyfed
theorem NatSevenFalse : ∀ (n : ℕ), n = 7 → n / 2 = 4 := by sorry
theorem NatSeven : ∀ (n : ℕ), n = 7 → n / 2 = 3 := by sorry
"""


def test_nearest_naturals_keeps_admissible_values_and_moves_the_fewest():
    assert nearest_naturals({"N": 3, "S": 1}, set(), lambda a: True, caps={}) == {"N": 3, "S": 1}
    # N = 2 ∧ S = 2 from N = 3, S = 1: both must move, to exactly those values
    pinned = nearest_naturals({"N": 3, "S": 1}, {2}, lambda a: a["N"] == 2 and a["S"] == 2, caps={})
    assert pinned == {"N": 2, "S": 2}
    # S = N moves one of the two (the nearest), never both
    eq = nearest_naturals({"N": 3, "S": 1}, set(), lambda a: a["S"] == a["N"], caps={})
    assert eq["S"] == eq["N"] and sum(eq[k] != v for k, v in {"N": 3, "S": 1}.items()) == 1
    # a lower bound: the smallest admitted value, not some larger one
    assert nearest_naturals({"tau": 3}, {40}, lambda a: 40 <= a["tau"], caps={"tau": 64}) == {"tau": 40}
    # beyond the cap: none (the candidate stays outside the hypotheses, counted as such)
    assert nearest_naturals({"T": 3}, {1000}, lambda a: a["T"] == 1000, caps={"T": 200}) is None
    assert numerals_of([Fraction(2), Fraction(1, 2), 0, 40, Fraction(-3)]) == {2, 40}


def test_scaffold_candidates_move_into_pinning_hypotheses_and_find_the_violation():
    st = read_text(SCAFFOLD_PINNED, "pinned.lean")[0]
    index = 16 * candidates.SLOTS         # "controls off": x0 = x*, zero controls, S = 1 of N = 2, T = 10
    inst, desc = candidates.candidate(st, 0, index)
    assert (inst.problem.N, inst.S, inst.K, inst.T) == (2, 2, 2, 2)
    assert "naturals moved into the hypotheses: now S = 2 (was 1), T = 2 (was 10)" in desc
    assert instance_to_json(candidates.candidate(st, 0, index)[0]) == instance_to_json(inst)    # pure in (seed, index)
    v = decide_exact(st, inst)
    assert v.status == "violated" and v.rhs == 0 and v.lhs > 0       # the control error moves x off x*
    # a candidate with N = 3 clients is rebuilt with 2 (clients cycled), S = 1 -> 2
    inst3, desc3 = candidates.candidate(st, 0, 3 * candidates.SLOTS)
    assert (inst3.problem.N, inst3.S, inst3.K, inst3.T) == (2, 2, 2, 2)
    assert "N = 2" in desc3


def test_statements_without_natural_hypotheses_keep_their_candidates():
    st = read_text(NO_C0.replace("EXTRA", ""), "free.lean")[0]
    inst, desc = candidates.candidate(st, 0, 16 * candidates.SLOTS)
    assert (inst.problem.N, inst.S, inst.K, inst.T) == (2, 1, 2, 10) and "naturals" not in desc


def test_fedavg_candidates_move_tau_and_clients():
    st = read_text(FEDAVG_PINNED, "drift.lean")[0]
    inst, desc, _ = fedavg_search.candidate(st, 0, 0)
    assert inst["tau"] == "40" and len(inst["b"]) == 3        # the one-client case, repeated three times
    assert "now M = 3 (was 1, its clients repeated), τ = 40 (was 1)" in desc
    res = fedavg_search.search(st, seed=0, budget=0)
    assert res.verdict.status == "violated"
    outside = [r for r in res.records if r.status == "outside"]
    # only two-client cases stay outside: M moves to multiples of the candidate's clients (repeated
    # clients keep the mean of the b_i and zeta), and 3 is no multiple of 2
    assert outside and all("hM" in r.failing for r in outside)
    assert sum(r.status in ("holds", "violated") for r in res.records) >= 5


def test_lemma_naturals_move_to_a_pinned_value():
    false, true = read_text(LEMMAS, "nat.lean")
    v = false.model.search(false, seed=0, budget=4).verdict
    assert v.status == "violated" and v.witness["instance"]["n"] == 7 and (v.lhs, v.rhs) == (3, 4)
    t = true.model.search(true, seed=0, budget=4)
    assert t.verdict.status == "inconclusive"
    assert sum(r.status == "holds" for r in t.records) >= 1      # decided instances now exist


def test_a_search_says_how_many_candidates_fell_outside_the_hypotheses():
    true_drift = FEDAVG_PINNED.replace("18 * (τ : ℝ) * η ^ 2", "18 * (τ : ℝ) ^ 2 * η ^ 2").replace(
        "DriftLinearTauLong", "DriftPinned")
    st = read_text(true_drift, "drift.lean")[0]
    res = fedavg_search.search(st, seed=0, budget=0)
    outside = sum(r.status == "outside" for r in res.records)
    assert res.verdict.status == "inconclusive" and outside > 0
    assert res.verdict.reason.endswith(f"; {outside} of {len(res.records)} candidates fell outside the hypotheses")
