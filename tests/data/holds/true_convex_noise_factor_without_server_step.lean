import Pyfed

/-!
True: the convex statement with the noise factor `1 + S / ηg²` replaced by `1 + S`: with `1 ≤ ηg`,
`S / ηg² ≤ S`, so the right side only grows (holds by reduction; the certificate multiplies the
hypothesis `ηg - 1 ≥ 0` by monomials of the published right side).
-/

open MeasureTheory

namespace SCAFFOLD.Variants

universe u

noncomputable def noiseFactorWithoutServerStep {d N : ℕ} (P : Problem d N) (S K T : ℕ)
    (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d) : ℝ :=
  initialPotential P S (effectiveStep K ηl ηg) c0 xstar /
      (effectiveStep K ηl ηg * weightSum μ (effectiveStep K ηl ηg) T) +
    12 * effectiveStep K ηl ηg * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ))

theorem ConvexNoiseFactorWithoutServerStep :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ noiseFactorWithoutServerStep P S K T ηl ηg μ c0 xstar := by sorry

end SCAFFOLD.Variants
