import Pyfed.Algorithms.LocalPath

/-!
# FedProx as a procedure (Li et al., MLSys 2020, Algorithm 2)

FedProx is federated averaging whose selected clients approximately minimise a proximal local
objective instead of their own loss. In round `r + 1` the server sends `x_r` to the sampled set
`𝒮_r`; client `i ∈ 𝒮_r` takes `K` gradient steps from `y_{i,0} = x_r` on

  `hᵢ(y; x_r) = fᵢ(y) + (μ / 2) ‖y - x_r‖²`,   `∇hᵢ(y; x_r) = ∇fᵢ(y) + μ (y - x_r)`,

with its oracle `gᵢ` in place of `∇fᵢ`:

  `y_{i,k+1} = y_{i,k} - ηl (gᵢ(y_{i,k}) + μ (y_{i,k} - x_r))`

(an inexact solve of the local subproblem by local (S)GD, as FedProx is run in practice), and
the server aggregates as FedAvg's uniform-client mode:

  `x_{r+1} = x_r + (ηg / S) ∑_{i ∈ 𝒮_r} (y_{i,K} - x_r)`.

The local path is `SCAFFOLD.localPath` (no correction) run on the oracle of `hᵢ`
(`proxOracle`): the proximal term is part of the local objective, not of the step rule. With
`ηg = 1` and `|𝒮_r| = S` the aggregation is the paper's `x_{r+1} = S⁻¹ ∑_{i ∈ 𝒮_r} y_{i,K}`;
with `μ = 0` the procedure is `FedAvgProcedure.fedAvg` in the uniform mode (the paper: FedAvg is
FedProx with `μ = 0` and SGD as the local solver).

Like the other procedures of `Pyfed.Algorithms`, this is a deterministic map from one
realization (the oracles of every round and the sampled sets are data) to the trajectory; it lives
in the namespace `FedProxProcedure`. Notation: the paper's `K` sampled devices are our `S`, its
`w^t` our `x_r`; our `K` counts local steps.

Source: Li, Sahu, Zaheer, Sanjabi, Talwalkar, Smith, "Federated Optimization in Heterogeneous
Networks", MLSys 2020 (arXiv:1812.06127), §3.2, Algorithm 2 (FedProx) and Definition 2
(`hₖ(w; wᵗ) = Fₖ(w) + (μ/2)‖w - wᵗ‖²`, `∇hₖ(w; wᵗ) = ∇Fₖ(w) + μ (w - wᵗ)`); the local
solver and the server step `ηg` as in `pyfed.algorithms.fedprox` and seed 002's FedAvg.
-/

noncomputable section

namespace FedProxProcedure

open SCAFFOLD (Space LocalOracle localPath)

/-- The oracle of client `i`'s proximal objective `hᵢ(·; x) = fᵢ + (μ/2)‖· - x‖²`: call `k` at
`y` returns `oracle k y + μ (y - x)` (the proximal term's gradient is exact). -/
def proxOracle {d : ℕ} (μ : ℝ) (x : Space d) (oracle : LocalOracle d) : LocalOracle d :=
  fun k y => oracle k y + μ • (y - x)

/-- FedProx's local path from the round-start model `x`: `y₀ = x`,
`y_{k+1} = y_k - ηl (g(y_k) + μ (y_k - x))` (`localPath` on the proximal oracle). -/
def proxPath {d : ℕ} (ηl μ : ℝ) (x : Space d) (oracle : LocalOracle d) (k : ℕ) : Space d :=
  localPath ηl x 0 (proxOracle μ x oracle) k

/-- One FedProx round from `x` with the sampled set `sample` (uniform-client aggregation):
`x + (ηg / S) ∑_{i ∈ sample} (y_{i,K} - x)`; `oracle i` is client `i`'s oracle for this round. -/
def fedProxRound {d N : ℕ} (S K : ℕ) (ηl ηg μ : ℝ) (oracle : Fin N → LocalOracle d)
    (sample : Finset (Fin N)) (x : Space d) : Space d :=
  x + (ηg / (S : ℝ)) • ∑ i ∈ sample, (proxPath ηl μ x (oracle i) K - x)

/-- FedProx server trajectory `x_0, x_1, …`: `oracle r i` is client `i`'s oracle in round `r`
and `samples r` the clients sampled in that round. -/
def fedProx {d N : ℕ} (S K : ℕ) (ηl ηg μ : ℝ) (oracle : ℕ → Fin N → LocalOracle d)
    (samples : ℕ → Finset (Fin N)) (x0 : Space d) : ℕ → Space d
  | 0 => x0
  | r + 1 => fedProxRound S K ηl ηg μ (oracle r) (samples r)
      (fedProx S K ηl ηg μ oracle samples x0 r)

end FedProxProcedure

end
