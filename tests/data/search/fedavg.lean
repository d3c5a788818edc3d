import Pyfed

/-!
# Statements about a FedAvg run (Field Guide model), false and true

Test data of the search by optimisation (`tests/test_models_fedavg_space.py`). Each false
statement's docstring gives the counterexample the test checks by hand.
-/

open MeasureTheory

namespace FedAvg.SearchTests

universe u

/-- False only on non-quadratic clients: with σ = ζ = 0 FedAvg is gradient descent on F, whose
average loss over n = τT steps is below D²/(4ηn) on every quadratic but reaches about D²/(2ηn) on a
Huber function. Witness: M = 1, d = 1, F = H₁ (z²/2 for |z| ≤ 1, |z| - 1/2 beyond), L = 1,
η = 1/4, τ = 40, T = 1, x0 = 11: the iterates 11 - k/4 stay in the linear region, E[A] = 43/8 and
the right side is 121/30. -/
theorem FedAvgThirdOfDistance :
  ∀ (d M : ℕ) (P : FedAvg.Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) → P.σ = 0 → P.ζ = 0 →
    ∀ R : FedAvg.Run P μ τ T η,
      (∫ ω, FedAvg.avgLoss R ω ∂μ) ≤ FedAvg.distance P ^ 2 / (3 * η * (τ : ℝ) * (T : ℝ)) := by sorry

/-- True: the same with the constant 1/2 (gradient descent with η ≤ 1/L: the sum of the losses
after each step is at most D²/(2η)). -/
theorem FedAvgHalfOfDistance :
  ∀ (d M : ℕ) (P : FedAvg.Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) → P.σ = 0 → P.ζ = 0 →
    ∀ R : FedAvg.Run P μ τ T η,
      (∫ ω, FedAvg.avgLoss R ω ∂μ) ≤ FedAvg.distance P ^ 2 / (2 * η * (τ : ℝ) * (T : ℝ)) := by sorry

/-- False only from a far start: the first term is D instead of D². Witness: M = 1, d = 1,
F(x) = x²/2, L = 1, σ = ζ = 0, η = 1/4, τ = T = 1, x0 = 8: E[A] = F(6) = 18 > 16. -/
theorem FedAvgDistanceNotSquared :
  ∀ (d M : ℕ) (P : FedAvg.Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ R : FedAvg.Run P μ τ T η,
      (∫ ω, FedAvg.avgLoss R ω ∂μ) ≤ FedAvg.distance P / (2 * η * (τ : ℝ) * (T : ℝ)) +
        η * P.σ ^ 2 / (M : ℝ) + 4 * (τ : ℝ) * η ^ 2 * P.L * P.σ ^ 2 +
        18 * (τ : ℝ) ^ 2 * η ^ 2 * P.L * P.ζ ^ 2 := by sorry

/-- True: the same when the start is within distance 1 of the minimiser (D ≤ 1 gives D² ≤ D, and
Theorem 1 of the Field Guide holds). -/
theorem FedAvgDistanceNotSquaredNear :
  ∀ (d M : ℕ) (P : FedAvg.Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) → FedAvg.distance P ≤ 1 →
    ∀ R : FedAvg.Run P μ τ T η,
      (∫ ω, FedAvg.avgLoss R ω ∂μ) ≤ FedAvg.distance P / (2 * η * (τ : ℝ) * (T : ℝ)) +
        η * P.σ ^ 2 / (M : ℝ) + 4 * (τ : ℝ) * η ^ 2 * P.L * P.σ ^ 2 +
        18 * (τ : ℝ) ^ 2 * η ^ 2 * P.L * P.ζ ^ 2 := by sorry

/-- False only with long local epochs and weak curvature: Lemma 2 with τ in place of τ² in the
heterogeneity term. Witness: M = 2, d = 1, Fᵢ(x) = x²/2 ∓ x (one Hessian, ζ = 1), L = 1, σ = 0,
η = 1/100, τ = 40, T = 1, round t = 0, step k = 40, client 0: the drift is
(1 - (99/100)^40)² ≈ 0.1096 > 18·40/100² = 0.072. -/
theorem DriftLinearInLocalSteps {d M : ℕ} (P : FedAvg.Problem d M) {Ω : Type*} [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ) (η : ℝ)
    (hτ : 0 < τ) (hT : 0 < T) (hη : 0 < η) (hstep : η ≤ 1 / (4 * P.L))
    (R : FedAvg.Run P μ τ T η) (t : ℕ) (ht : t < T) (k : ℕ) (hk : k ≤ τ) (i : Fin M) :
    μ[FedAvg.clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ =>
      18 * (τ : ℝ) * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2 := by sorry

/-- True: with σ = ζ = 0 FedAvg is gradient descent with η ≤ 1/(4L), which never moves away from
x⋆, so every loss is at most L D²/2. -/
theorem FedAvgLossBelowSmoothness :
  ∀ (d M : ℕ) (P : FedAvg.Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) → P.σ = 0 → P.ζ = 0 →
    ∀ R : FedAvg.Run P μ τ T η,
      (∫ ω, FedAvg.avgLoss R ω ∂μ) ≤ P.L * FedAvg.distance P ^ 2 / 2 := by sorry

/-- False only where noise dominates: Lemma 2 with the noise constant 1/2 in place of 4. Witness:
M = 3 identical clients x²/2 (ζ = 0), σ = 1, τ = 1, η = 1/4, round t = 0, step k = 1: a client's
drift from the clients' mean is η² (ξᵢ - ξ̄)², of expectation η² σ² (1 - 1/3) = 1/24 > 1/32 =
η² σ²/2. Reached only with one local step, clients almost alike and enough noise. -/
theorem DriftHalfNoiseConstant {d M : ℕ} (P : FedAvg.Problem d M) {Ω : Type*} [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ) (η : ℝ)
    (hτ : 0 < τ) (hT : 0 < T) (hη : 0 < η) (hstep : η ≤ 1 / (4 * P.L))
    (R : FedAvg.Run P μ τ T η) (t : ℕ) (ht : t < T) (k : ℕ) (hk : k ≤ τ) (i : Fin M) :
    μ[FedAvg.clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ =>
      18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + (1 / 2) * (τ : ℝ) * η ^ 2 * P.σ ^ 2 := by sorry

end FedAvg.SearchTests
