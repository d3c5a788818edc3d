import Pyfed

/-!
# Lemma 2 of the Field Guide with a smaller constant

`driftRHS` has `18 τ² η² ζ²`; this file's right side (the def `smallDriftRHS`) has `1/2` there
and keeps the noise term. It is false: clients that pull apart along a direction of small
curvature drift apart by almost η ζ per local step, so after τ steps a client's drift is close
to τ² η² ζ², above `(1/2) τ² η² ζ²`. `pyfed check` reports it violated (exit 1): on the built-in
rational quadratic instance (decided exactly at every round start) and by the adversarial search,
each with an exact witness round start. The binders stand before the colon.
-/

open MeasureTheory

namespace FedAvg.Examples

/-- `(1/2) τ² η² ζ² + 4 τ η² σ²`. -/
noncomputable def smallDriftRHS {d M : ℕ} (P : Problem d M) (τ : ℕ) (η : ℝ) : ℝ :=
  (1 / 2) * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2

theorem DriftSmallConstant {d M : ℕ} (P : Problem d M) {Ω : Type*} [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ) (η : ℝ)
    (hτ : 0 < τ) (hT : 0 < T) (hη : 0 < η) (hstep : η ≤ 1 / (4 * P.L))
    (R : Run P μ τ T η) (t : ℕ) (ht : t < T) (k : ℕ) (hk : k ≤ τ) (i : Fin M) :
    μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ => smallDriftRHS P τ η := by
  sorry

end FedAvg.Examples
