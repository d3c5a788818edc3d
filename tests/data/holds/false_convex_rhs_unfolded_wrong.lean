import Pyfed

/-!
False: convexRHS written out with 6 in place of 12 in the noise term.
-/

open MeasureTheory

namespace SCAFFOLD.Variants

universe u

theorem ConvexRhsUnfoldedWrong :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ initialPotential P S (effectiveStep K ηl ηg) c0 xstar /
        (effectiveStep K ηl ηg * weightSum μ (effectiveStep K ηl ηg) T) +
      6 * effectiveStep K ηl ηg * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2) := by sorry


end SCAFFOLD.Variants
