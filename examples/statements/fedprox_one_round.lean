import Pyfed

/-!
# One FedProx round in closed form (FedProx procedure lemmas)

The proximal term `μ (y - x)` of FedProx's local step vanishes at the first step, where the local
model still equals the round's start `x`: with one local step a FedProx round is one step of the
sampled clients' average gradient, `x - (ηl ηg / S) ∑ᵢ gᵢ(x)`, whatever μ. From the second step on
it pulls the local model back to `x`: with two steps, `y₁ = x - ηl g(x)` and
`y₂ = y₁ - ηl (g(y₁) + μ (y₁ - x)) = x - ηl ((1 - ηl μ) g(x) + g(y₁))`, so the first gradient is
damped by `1 - ηl μ`. Both identities hold for every oracle (the call index is the local step);
`pyfed check` decides them exactly on quadratic clients with affine oracles, noisy in some draws.
-/

open SCAFFOLD (Space LocalOracle)
open FedProxProcedure

namespace FedProxExamples

theorem FedProxOneLocalStep {d N : ℕ} (S : ℕ) (ηl ηg μ : ℝ) (oracle : Fin N → LocalOracle d)
    (sample : Finset (Fin N)) (x : Space d) :
    fedProxRound S 1 ηl ηg μ oracle sample x =
      x - (ηl * ηg / (S : ℝ)) • ∑ i ∈ sample, oracle i 0 x := by
  sorry

theorem FedProxTwoLocalSteps {d N : ℕ} (S : ℕ) (ηl ηg μ : ℝ) (oracle : Fin N → LocalOracle d)
    (sample : Finset (Fin N)) (x : Space d) :
    fedProxRound S 2 ηl ηg μ oracle sample x =
      x - (ηl * ηg / (S : ℝ)) •
        ∑ i ∈ sample, ((1 - ηl * μ) • oracle i 0 x + oracle i 1 (x - ηl • oracle i 0 x)) := by
  sorry

end FedProxExamples
