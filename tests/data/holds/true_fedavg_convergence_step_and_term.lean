import Pyfed

/-!
True: Theorem 1 (15) with the stricter step η ≤ 1/(8 L) and L σ² added to the bound (holds by reduction).
-/

open MeasureTheory

namespace FedAvg.Variants

open FedAvg

universe u

theorem ConvergenceStricterStepPlusTerm :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (8 * P.L) →
    ∀ R : Run P μ τ T η, (∫ ω, avgLoss R ω ∂μ) ≤ convergenceRHS P τ T η + P.L * P.σ ^ 2 := by sorry

end FedAvg.Variants
