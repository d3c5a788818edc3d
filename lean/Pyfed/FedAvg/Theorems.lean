import Pyfed.FedAvg.Model

/-!
# FedAvg statements (Field Guide, Section 6.1)

The four FedAvg statements of the published formalization (`prove2me/formalpedia`,
`envs/c5ea003/Theorems/Thm_FedAvg_*.lean`), each with the same name and the same statement over
the model of `Pyfed.FedAvg.Model`. Proofs are `sorry`, as in the statement files. Each has a
Python checker of the same name (`checkers/fedavg.py`, registry namespace `FedAvg`).

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1,
Section 6.1.2 (PDF p. 41): Lemma 1 (`PerRoundProgress`; proof in Appendix D.1, PDF pp. 86–87,
equations (24)–(27)), Lemma 2 (`BoundedClientDrift`; proof in Appendix D.2, PDF pp. 87–88),
Theorem 1 equation (15) (`ConvexFedAvgConvergence`) and equations (16)–(17)
(`TunedConvexFedAvgConvergence`, stated where `D, σ, ζ > 0` so the tuned step is positive).
-/

open MeasureTheory

namespace FedAvg

universe u

/-- Lemma 1 (per-round progress): for `τ, T ≥ 1`, `0 < η ≤ 1/(4L)` and every round `t < T`,
`E[A_t | ℱ_{tτ}] ≤ (‖x̄^{t,0} - x⋆‖² - E[‖x̄^{t,τ} - x⋆‖² | ℱ_{tτ}])/(2ητ) + ησ²/M
+ L/(Mτ) ∑ᵢ ∑_{k<τ} E[‖xᵢ^{t,k} - x̄^{t,k}‖² | ℱ_{tτ}]` almost surely. -/
theorem PerRoundProgress :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ (R : Run P μ τ T η) (t : ℕ), t < T →
      μ[roundLoss R t | R.history (t * τ)] ≤ᵐ[μ] progressRHS R t := by sorry

/-- Lemma 2 (bounded client drift): under the same step condition, for every round `t < T`,
client `i` and local step `k ≤ τ`,
`E[‖xᵢ^{t,k} - x̄^{t,k}‖² | ℱ_{tτ}] ≤ 18 τ² η² ζ² + 4 τ η² σ²` almost surely. -/
theorem BoundedClientDrift :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ (R : Run P μ τ T η) (t : ℕ), t < T → ∀ k, k ≤ τ → ∀ i,
      μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ ↦ driftRHS P τ η := by sorry

/-- Theorem 1, equation (15) (constant step): for `τ, T ≥ 1` and `0 < η ≤ 1/(4L)`,
`E[A] ≤ D²/(2ητT) + ησ²/M + 4τη²Lσ² + 18τ²η²Lζ²`. -/
theorem ConvexFedAvgConvergence :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ R : Run P μ τ T η, (∫ ω, avgLoss R ω ∂μ) ≤ convergenceRHS P τ T η := by sorry

/-- Theorem 1, equations (16)–(17) (tuned step): for `τ, T ≥ 1` and `D, σ, ζ > 0`, a run with
the step `optimizedStep P τ T` has `E[A] ≤ optimizedRHS P τ T`. -/
theorem TunedConvexFedAvgConvergence :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ),
    0 < τ → 0 < T → 0 < distance P → 0 < P.σ → 0 < P.ζ →
    ∀ R : Run P μ τ T (optimizedStep P τ T),
      (∫ ω, avgLoss R ω ∂μ) ≤ optimizedRHS P τ T := by sorry

end FedAvg
