import Pyfed

/-!
# The nonconvex statement with a smaller constant

`nonconvexRHS` has `14 (F(x0) - fLower) / (h T)`; this file's right side (the def
`halfGapRHS`) has `1/2` there instead and keeps the noise term. It is false: on a noisy
two-client quadratic over T = 40 rounds the average squared gradient needs a constant of about
0.73 in front of `(F(x0) - fLower) / (h T)`. `pyfed check` finds the instance and its constant
profile says how small the constant can be on the instances it decided.
-/

open MeasureTheory

namespace SCAFFOLD.Examples

universe u

/-- `(1/2) (F(x0) - fLower) / (h T) + 70 β h σ² / (K S) (1 + S / ηg²)` with `h = K ηl ηg`. -/
noncomputable def halfGapRHS {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg fLower : ℝ) : ℝ :=
  let h := effectiveStep K ηl ηg
  (1 / 2) * (objective P.f P.x0 - fLower) / (h * (T : ℝ)) +
    70 * P.β * h * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2)

theorem NonconvexSmallConstant :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg fLower : ℝ),
    (∀ x, fLower ≤ objective P.f x) → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤
      Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β) →
    ∀ A : Run P ν S K T ηl ηg none,
      averageGradientSq A ≤ halfGapRHS P S K T ηl ηg fLower := by sorry

end SCAFFOLD.Examples
