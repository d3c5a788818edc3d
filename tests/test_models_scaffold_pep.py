"""The statement-level PEP row in the wider regimes (pyfed.models.scaffold.pep): a statement
whose hypotheses exclude σ = 0 or S = N gets the σ > 0 (expectation relaxation) or S = 1 < N = 2
row, certified where it holds; the default regime is unchanged."""

from fractions import Fraction
from pathlib import Path

import pytest

from pyfed.models.scaffold.pep import NoPEP, find_plan, pep_row
from pyfed import read_text

F = Fraction
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "statements"
HYPS = "Convexity P μ → IsMinimizer P xstar →"


def _seed_with(extra: str):
    text = (EXAMPLES / "seed_convex.lean").read_text().replace(HYPS, f"{HYPS} {extra}")
    (st,) = read_text(text, "x.lean")
    return st


def test_regimes_follow_the_hypotheses():
    h = F(1, 81)
    plan = find_plan(_seed_with(""))
    assert (plan["S"], plan["sigma"], plan["rho"]) == (2, 0, None)
    plan = find_plan(_seed_with("0 < P.σ →"))
    # 12 h σ²/(K S) (1 + S/ηg²) at K = S = 2, ηg = 1: ρ = 12 h · 3/4 = 1/9
    assert (plan["S"], plan["sigma"], plan["rho"]) == (2, 1, 9 * h) and plan["alpha"] == F(81, 2)
    plan = find_plan(_seed_with("S < N →"))
    assert (plan["S"], plan["N"], plan["sigma"]) == (1, 2, 0)
    assert plan["gamma"] / plan["alpha"] == 9 * 2 * h**2 / 1        # 9 N h²/S
    plan = find_plan(_seed_with("S < N → 0 < P.σ →"))
    assert (plan["S"], plan["sigma"]) == (1, 1)
    from pyfed.engines.statement.engines import applicable_engines
    applies, why = applicable_engines(_seed_with("S < N → 0 < P.σ →"))["pep"]
    assert applies and "S = 1 < N = 2" in why and "sigma > 0" in why
    with pytest.raises(NoPEP, match="every regime tried: σ = 0, S = N = 2; σ > 0, S = N = 2; σ = 0, S = 1 < N = 2; "
                                    "σ > 0, S = 1 < N = 2.*the hypotheses fail: N < S") as info:
        find_plan(_seed_with("N < S →"))
    assert info.value.tried
    with pytest.raises(NoPEP, match="no regime applies: .*σ = 0, S = N = 2.*S < N; 0 < P.σ; 3 ≤ K.*"
                                    "σ > 0, S = 1 < N = 2.*hypotheses fail: 3 ≤ K"):
        find_plan(_seed_with("S < N → 0 < P.σ → 3 ≤ K →"))


def test_a_reason_shared_by_several_regimes_is_said_once():
    """A right side without the potential term fails the same way at S = N and at S < N: the
    message lists the σ = 0 and σ > 0 reasons once each."""
    text = (EXAMPLES / "seed_convex.lean").read_text().replace(
        "convexRHS P S K T ηl ηg μ c0 xstar", "12 * effectiveStep K ηl ηg * P.σ ^ 2 / ((K : ℝ) * (S : ℝ))")
    (st,) = read_text(text, "nopot.lean")
    with pytest.raises(NoPEP) as info:
        find_plan(st)
    parts = str(info.value).removeprefix("no regime applies: ").split(" | ")
    assert len(parts) == len(set(parts)) == 2 and all("no positive multiple of ‖x0 - x⋆‖²" in p for p in parts)


def test_noisy_statement_gets_a_certified_relaxation_row():
    from pyfed import read_file
    (example,) = read_file(EXAMPLES / "convex_partial_noisy.lean")
    plan = find_plan(example)
    assert (plan["S"], plan["N"], plan["sigma"]) == (1, 2, 1)
    v = pep_row(_seed_with("0 < P.σ →"))
    assert v.status == "holds" and v.evidence.value == "PEP certificate over the class"
    assert "expectation relaxation" in v.details["engine"] and "relaxation" in v.details
    assert v.details["rhs"]["rho"] == "1/9" and v.details["pep_certificate"]["verified"]


@pytest.mark.slow
def test_partial_participation_statement_gets_a_certified_row():
    v = pep_row(_seed_with("S < N →"))
    assert v.status == "holds" and v.evidence.value == "PEP certificate over the class"
    assert "average over subset sequences" in v.details["engine"]
    assert v.details["parameters"]["S"] == 1


def test_noise_free_right_side_at_sigma_positive_is_never_violated():
    """ConvexWithoutNoiseTerm with 0 < σ: false (noise from x0 = x⋆ makes the left side positive
    while the right side is 0), but the relaxation alone cannot say so: inconclusive."""
    text = (EXAMPLES / "convex_no_noise.lean").read_text().replace(
        "(hmin : IsMinimizer P xstar)", "(hmin : IsMinimizer P xstar) (hs : 0 < P.σ)")
    (st,) = read_text(text, "x.lean")
    v = pep_row(st)
    assert v.status == "inconclusive" and "unbounded" in v.reason


def _small_constant(extra: str):
    text = (EXAMPLES / "seed_convex.lean").read_text().replace(HYPS, f"{HYPS} {extra}").replace(
        "convexRHS P S K T ηl ηg μ c0 xstar := by", "convexRHS P S K T ηl ηg μ c0 xstar / 100 := by")
    (st,) = read_text(text, "x.lean")
    return st


@pytest.mark.slow
def test_partial_participation_violation_is_reproduced_exactly():
    """Right side / 100 at S = 1 < N = 2: the PEP's value is about 1.22 × α; a quadratic fitted
    to the primal worst case violates the statement in exact arithmetic."""
    v = pep_row(_small_constant("S < N →"))
    assert v.status == "violated" and v.exact and v.evidence.value.startswith("exact")
    assert v.details["reverification"]["reproduced"] and v.lhs > v.rhs
    assert v.details["pep_ratio"] > 1.2


def test_relaxation_value_above_the_claim_is_inconclusive():
    v = pep_row(_small_constant("0 < P.σ →"))
    assert v.status == "inconclusive" and "relaxation" in v.reason


#: The seed's right side without the initial control error 9 N h² C₀/S: the controls are free in the
#: PEP (γ = 0), so its finite optimum is no evidence; the statement is false at the row's parameters.
NO_C0 = """import Pyfed
open MeasureTheory
namespace SCAFFOLD.Mine
universe u
noncomputable def noC0RHS {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg μ : ℝ)
    (xstar : Space d) : ℝ :=
  let h := effectiveStep K ηl ηg
  ‖P.x0 - xstar‖ ^ 2 / (h * weightSum μ h T) +
    12 * h * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2)
theorem NoControlTerm :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → EXTRA 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ noC0RHS P S K T ηl ηg μ xstar := by sorry
end SCAFFOLD.Mine
"""


@pytest.mark.slow
def test_free_controls_are_never_a_numerical_hold():
    from pyfed.verdicts import Evidence
    (st,) = read_text(NO_C0.replace("EXTRA ", ""), "noc0.lean")
    v = pep_row(st)
    # f_1 = x²/2, f_2 = 0, x0 = x⋆ = 0, c⁰ = (1, -1), N = S = K = T = 2, ηl = 1/162, ηg = β = 1:
    # E weightedGap = 1/22039921152 (computed independently in exact rationals) > 0 = right side
    assert v.status == "violated" and v.evidence == Evidence.EXACT
    assert (v.lhs, v.rhs) == (F(1, 22039921152), 0)
    assert v.details["reverification"]["reproduced"] and "free initial controls" in v.details["reverification"]["description"]
    assert st.model.recheck(st, v.witness).status == "violated"
    (st,) = read_text(NO_C0.replace("EXTRA ", "S < N → "), "noc0.lean")
    v = pep_row(st)     # S = 1 of N = 2: the same clients and controls, in expectation over the subsets
    assert v.status == "violated" and v.evidence == Evidence.EXACT and v.rhs == 0 < v.lhs
    assert st.model.recheck(st, v.witness).status == "violated"
