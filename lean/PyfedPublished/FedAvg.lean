import Pyfed.FedAvg.Model

/-!
The four FedAvg statements of the published formalization (`prove2me/formalpedia`,
`envs/c5ea003/Theorems/Thm_FedAvg_*.lean`) with their import replaced by pyfed's model module
alone: the statements, `open MeasureTheory`, `universe u` and the `namespace FedAvg` block are as
published (the four files' common lines stated once). `lake build` (default target
`PyfedPublished`) building this file is the check that each published FedAvg statement
elaborates against pyfed's model; `tests/test_lean_published.py` compares each statement with the
stored copy of the published text (`tests/data/published_statements.lean`) and with
`lean/Pyfed/FedAvg/Theorems.lean`.
-/

open MeasureTheory
universe u

namespace FedAvg

theorem PerRoundProgress :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ (R : Run P μ τ T η) (t : ℕ), t < T →
      μ[roundLoss R t | R.history (t * τ)] ≤ᵐ[μ] progressRHS R t := by sorry

theorem BoundedClientDrift :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ (R : Run P μ τ T η) (t : ℕ), t < T → ∀ k, k ≤ τ → ∀ i,
      μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ ↦ driftRHS P τ η := by sorry

theorem ConvexFedAvgConvergence :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ R : Run P μ τ T η, (∫ ω, avgLoss R ω ∂μ) ≤ convergenceRHS P τ T η := by sorry

theorem TunedConvexFedAvgConvergence :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ),
    0 < τ → 0 < T → 0 < distance P → 0 < P.σ → 0 < P.ζ →
    ∀ R : Run P μ τ T (optimizedStep P τ T),
      (∫ ω, avgLoss R ω ∂μ) ≤ optimizedRHS P τ T := by sorry

end FedAvg
