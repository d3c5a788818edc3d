import Pyfed

/-!
The five SCAFFOLD statements of the published formalization (`prove2me/formalpedia`,
`envs/c5ea003/Theorems/Thm_SCAFFOLD_*.lean`), as statements only (the same terms with the same
binders; no proofs, no prose), stated against pyfed's model: the published files import
`Definitions.Def_SCAFFOLD_Model`, here `Pyfed` is imported instead and nothing else changes.
They are wrapped in the namespace `SCAFFOLD.PyfedTestPublished`, so the restated
`namespace SCAFFOLD` block opens `SCAFFOLD.PyfedTestPublished.SCAFFOLD`: the declarations stay apart
from the library's own, and every model name resolves through the enclosing namespace `SCAFFOLD`
exactly as in the published file (which is elaborated inside `namespace SCAFFOLD`), not through an
`open`, which would also accept a root-level declaration of the same name.
`lake test` building this file is the check that every published SCAFFOLD statement elaborates
against pyfed's model; `tests/test_lean_published.py` checks that each statement between the markers
equals the statement of the same name in `lean/Pyfed/Scaffold/Theorems.lean`.
-/

namespace SCAFFOLD.PyfedTestPublished

open MeasureTheory
universe u

-- BEGIN published SCAFFOLD statements
namespace SCAFFOLD

theorem ConvexFiniteRoundConvergence :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar := by sorry

theorem NonconvexFiniteRoundConvergence :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg fLower : ℝ),
    (∀ x, fLower ≤ objective P.f x) → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤
      Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β) →
    ∀ A : Run P ν S K T ηl ηg none,
      averageGradientSq A ≤ nonconvexRHS P S K T ηl ηg fLower := by sorry

theorem FiniteRoundConvergence :
(
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar
) ∧ (
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg fLower : ℝ),
    (∀ x, fLower ≤ objective P.f x) → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤
      Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β) →
    ∀ A : Run P ν S K T ηl ηg none,
      averageGradientSq A ≤ nonconvexRHS P S K T ηl ηg fLower
) := by sorry

theorem GradientGrowth :
  ∀ (d N : ℕ) (P : Problem d N) (xstar : Space d),
    Convexity P 0 → IsMinimizer P xstar → ∀ x,
      (N : ℝ)⁻¹ * ∑ i, ‖gradient (P.f i) x - gradient (P.f i) xstar‖ ^ 2 ≤
        2 * P.β * (objective P.f x - objective P.f xstar) := by sorry

theorem PerturbedStrongConvexity :
  ∀ (d N : ℕ) (P : Problem d N) (μ : ℝ), Convexity P μ →
    ∀ (i : Fin N) (x y z : Space d),
      P.f i z - P.f i y + μ / 4 * ‖y - z‖ ^ 2 - P.β * ‖z - x‖ ^ 2 ≤
        inner ℝ (gradient (P.f i) x) (z - y) := by sorry

end SCAFFOLD
-- END published SCAFFOLD statements

end SCAFFOLD.PyfedTestPublished
