import Pyfed

/-!
True, vacuously: lower bounds 1 ≤ ηl, ηg, K, β make h β = K ηl ηg β ≥ 1, against the step-size
hypothesis h ≤ 1/(81 β). The refutation multiplies each lower bound by a monomial of the
others (a product of four facts in degree four).
-/

open MeasureTheory

namespace SCAFFOLD.Variants

universe u

theorem ConvexVacuousStepLowerBounds :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 1 ≤ ηl → 1 ≤ ηg → 1 ≤ K → 1 ≤ P.β →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ 0 := by sorry

end SCAFFOLD.Variants
