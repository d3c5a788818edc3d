import Pyfed

/-!
False: Lemma 2 with its bound halved.
-/

open MeasureTheory

namespace FedAvg.Variants

open FedAvg

universe u

theorem DriftHalf :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ (R : Run P μ τ T η) (t : ℕ), t < T → ∀ k, k ≤ τ → ∀ i,
      μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ ↦ driftRHS P τ η / 2 := by sorry

end FedAvg.Variants
