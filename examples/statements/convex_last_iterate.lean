import Pyfed

/-!
# A last-iterate variant of the seed statement

The left side is the last iterate's expected gap `E[F(x_T) - F(x⋆)]` instead of the weighted
average over rounds `0 … T-1`, through a def of this file (`lastGap`, whose `T` is the run's own).
The seed statement does not claim this.
-/

open MeasureTheory

namespace SCAFFOLD.Examples

universe u

/-- `E[F(x_T) - F(x⋆)]`: the expected gap of the run's last iterate. -/
noncomputable def lastGap {d N : ℕ} {P : Problem d N} {Ω : Type*} [MeasurableSpace Ω]
    [StandardBorelSpace Ω] {ν : Measure Ω} [IsProbabilityMeasure ν] {S K T : ℕ} {ηl ηg : ℝ}
    {init : Initialization d N} (A : Run P ν S K T ηl ηg init) (xstar : Space d) : ℝ :=
  expectedGap A xstar T

theorem ConvexLastIterate :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      lastGap A xstar ≤ convexRHS P S K T ηl ηg μ c0 xstar := by sorry

end SCAFFOLD.Examples
