import Pyfed

open MeasureTheory

namespace FedAvg.Mine

universe u

/-- Theorem 1 without the heterogeneity term 18 τ² η² L ζ²: FALSE
(x0 = x⋆, σ = 0, non-quadratic heterogeneous clients drift the shadow away from x⋆) -/
noncomputable def noZetaRHS {d M : ℕ} (P : Problem d M) (τ T : ℕ) (η : ℝ) : ℝ :=
  distance P ^ 2 / (2 * η * (τ : ℝ) * (T : ℝ)) + η * P.σ ^ 2 / (M : ℝ) +
    4 * (τ : ℝ) * η ^ 2 * P.L * P.σ ^ 2

theorem F3_NoZetaTerm :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ R : Run P μ τ T η, (∫ ω, avgLoss R ω ∂μ) ≤ noZetaRHS P τ T η := by sorry

end FedAvg.Mine
