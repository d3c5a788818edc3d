import Pyfed

/-!
False in general: the nonconvex statement with its right side halved.
-/

open MeasureTheory

namespace SCAFFOLD.Variants

universe u

theorem NonconvexRhsHalf :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg fLower : ℝ),
    (∀ x, fLower ≤ objective P.f x) → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤
      Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β) →
    ∀ A : Run P ν S K T ηl ηg none,
      averageGradientSq A ≤ 1 / 2 * nonconvexRHS P S K T ηl ηg fLower := by sorry

end SCAFFOLD.Variants
