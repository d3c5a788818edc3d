import Pyfed

/-!
# FedProx does not contract like K local gradient steps (a false FedProx procedure lemma)

Without the proximal term (μ = 0) each of the K local steps on `fᵢ(y) = (aᵢ / 2) ‖y - x⋆‖²`
contracts `y - x⋆` by `1 - ηl aᵢ ≤ 1 - ηl m`, so a round contracts by `(1 - ηl m)^K`. The
statement below claims that rate for FedProx; it is false for μ > 0, where the proximal term pulls
every local step back toward the round's start. By hand: d = 1, one client (N = S = 1) with
`a = m = 1`, μ = 1, ηl = 1/2, K = 2, `x⋆ = 0`, `x0 = 1`, one round: `y₁ = 1 - (1/2)(1 + 0) = 1/2`,
`y₂ = 1/2 - (1/2)(1/2 + (1/2 - 1)) = 1/2`, so the left side is `(1/2)² = 1/4` while the right side
is `(1 - 1/2)^4 · 1 = 1/16`. `pyfed check` finds a violation exactly, with a witness that
`pyfed check --replay` re-decides.
-/

open SCAFFOLD (Space LocalOracle)
open FedProxProcedure

namespace FedProxExamples

theorem FedProxLocalStepsRate {d N : ℕ} (S K : ℕ) (ηl μ m : ℝ) (a : Fin N → ℝ) (xstar x0 : Space d)
    (samples : ℕ → Finset (Fin N)) (r : ℕ)
    (hμ : 0 ≤ μ) (hm : 0 ≤ m) (ha : ∀ i, m ≤ a i) (hηl : 0 < ηl) (hstep : ∀ i, ηl * (a i + μ) ≤ 1)
    (hK : 1 ≤ K) (hS : 0 < S) (hcard : ∀ t, (samples t).card = S) :
    ‖fedProx S K ηl 1 μ (fun _ i _ y => a i • (y - xstar)) samples x0 r - xstar‖ ^ 2 ≤
      (1 - ηl * m) ^ (2 * K * r) * ‖x0 - xstar‖ ^ 2 := by
  sorry

end FedProxExamples
