import Pyfed

/-!
Not proven: Theorem 1 (15) with the looser step η ≤ 1/(2 L).
-/

open MeasureTheory

namespace FedAvg.Variants

open FedAvg

universe u

theorem ConvergenceLooserStep :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (2 * P.L) →
    ∀ R : Run P μ τ T η, (∫ ω, avgLoss R ω ∂μ) ≤ convergenceRHS P τ T η := by sorry

end FedAvg.Variants
