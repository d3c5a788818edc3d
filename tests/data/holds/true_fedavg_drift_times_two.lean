import Pyfed

/-!
True: Lemma 2 (BoundedClientDrift) with its bound multiplied by 2 (holds by reduction).
-/

open MeasureTheory

namespace FedAvg.Variants

open FedAvg

universe u

theorem DriftTimesTwo :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ (R : Run P μ τ T η) (t : ℕ), t < T → ∀ k, k ≤ τ → ∀ i,
      μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ ↦ 2 * driftRHS P τ η := by sorry

end FedAvg.Variants
