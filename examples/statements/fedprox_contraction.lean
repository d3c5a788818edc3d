import Pyfed

/-!
# FedProx contracts toward a common minimiser (a FedProx procedure lemma)

Clients `fᵢ(y) = (aᵢ / 2) ‖y - x⋆‖²` with curvatures `aᵢ ≥ m ≥ 0` share the minimiser `x⋆`; their
exact gradients are `aᵢ (y - x⋆)`. On client `i` the proximal local step maps `e = y - x⋆` to
`qᵢ e + ηl μ e₀` with `qᵢ = 1 - ηl (aᵢ + μ) ∈ [0, 1)` under the step condition, so after `K ≥ 1`
steps `e_K = ρᵢ e₀` with `ρᵢ = (μ + aᵢ qᵢ^K) / (aᵢ + μ)`, a decreasing function of K equal to
`1 - ηl aᵢ` at K = 1. With `ηg = 1` and `S` sampled clients a round multiplies `x - x⋆` by the
average of the sampled `ρᵢ`, at most `1 - ηl m`: FedProx contracts at least as fast as one local
gradient step, whatever μ and K. `pyfed check` draws the curvatures, steps, μ, K, S of N sampled
sets and starts inside the hypotheses (the step size up to its bound) and decides both sides
exactly.
-/

open SCAFFOLD (Space LocalOracle)
open FedProxProcedure

namespace FedProxExamples

theorem FedProxContraction {d N : ℕ} (S K : ℕ) (ηl μ m : ℝ) (a : Fin N → ℝ) (xstar x0 : Space d)
    (samples : ℕ → Finset (Fin N)) (r : ℕ)
    (hμ : 0 ≤ μ) (hm : 0 ≤ m) (ha : ∀ i, m ≤ a i) (hηl : 0 < ηl) (hstep : ∀ i, ηl * (a i + μ) ≤ 1)
    (hK : 1 ≤ K) (hS : 0 < S) (hcard : ∀ t, (samples t).card = S) :
    ‖fedProx S K ηl 1 μ (fun _ i _ y => a i • (y - xstar)) samples x0 r - xstar‖ ^ 2 ≤
      (1 - ηl * m) ^ (2 * r) * ‖x0 - xstar‖ ^ 2 := by
  sorry

end FedProxExamples
