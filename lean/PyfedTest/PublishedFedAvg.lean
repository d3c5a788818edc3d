import Pyfed

/-!
The four FedAvg statements of the published formalization (`prove2me/formalpedia`,
`envs/c5ea003/Theorems/Thm_FedAvg_*.lean`), as statements only (the same terms with the same
binders; no proofs, no prose), stated against pyfed's model: the published files import
`Definitions.Def_FedAvg_Model`, here `Pyfed` is imported instead and nothing else changes. They
are wrapped in the namespace `FedAvg.PyfedTestPublished`, so the restated `namespace FedAvg` block
opens `FedAvg.PyfedTestPublished.FedAvg` and every model name resolves through the enclosing
namespace `FedAvg` exactly as in the published files (no `open`, which would also accept a
root-level declaration of the same name). `lake test` building this file is the check that every
published FedAvg statement elaborates against pyfed's model; `tests/test_lean_published.py`
checks that each statement between the markers equals the statement of the same name in
`lean/Pyfed/FedAvg/Theorems.lean`.
-/

namespace FedAvg.PyfedTestPublished

open MeasureTheory
universe u

-- BEGIN published FedAvg statements
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
      μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ => driftRHS P τ η := by sorry

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
-- END published FedAvg statements

end FedAvg.PyfedTestPublished
