import Pyfed.Algorithms.LocalPath

/-!
# Federated averaging (seed 002), both aggregation modes

Round `r + 1` (seed: round `r`, `r = 1..R`) samples `samples r`, runs `K` local steps from
`x_r` on every selected client and aggregates:

* uniform-client analysis mode: `x_{r+1} = x_r + (ηg / S) ∑_{i ∈ 𝒮} (y_{i,K} - x_r)`;
* count-weighted deployment mode: `x_{r+1} = x_r + ηg ∑_{i ∈ 𝒮} (nᵢ / n) (y_{i,K} - x_r)`.

These are deterministic procedures: the oracles and the sampled sets are data (one
realization), so each definition is the map from that realization to the trajectory. They live
in the namespace `FedAvgProcedure`, apart from the stochastic model of the namespace `FedAvg`
(`Pyfed.FedAvg.Model`, whose `Run` is the full-participation model of the Field Guide
theorems); the model space and the local paths are those of `Pyfed.Algorithms.LocalPath`.

Source: McMahan et al., PMLR 54 (2017), §2 and Algorithm 1; Karimireddy et al., SCAFFOLD,
Algorithm 2.
-/

noncomputable section

namespace FedAvgProcedure

open SCAFFOLD (Space LocalOracle localPath)

/-- Aggregation mode of FedAvg. -/
inductive FedAvgMode (N : ℕ) where
  /-- Uniform-client analysis mode (objective `N⁻¹ ∑ fᵢ`). -/
  | uniform : FedAvgMode N
  /-- Count-weighted deployment mode with positive record counts `nᵢ`. -/
  | weighted (counts : Fin N → ℕ) : FedAvgMode N

/-- One FedAvg round from `x` with the sampled set `sample`; `oracle i` is client `i`'s oracle
for this round. -/
def fedAvgRound {d N : ℕ} (mode : FedAvgMode N) (S K : ℕ) (ηl ηg : ℝ)
    (oracle : Fin N → LocalOracle d) (sample : Finset (Fin N)) (x : Space d) : Space d :=
  match mode with
  | FedAvgMode.uniform =>
      x + (ηg / (S : ℝ)) • ∑ i ∈ sample, (localPath ηl x 0 (oracle i) K - x)
  | FedAvgMode.weighted n =>
      x + ηg • ∑ i ∈ sample,
        ((n i : ℝ) / (∑ j, (n j : ℝ))) • (localPath ηl x 0 (oracle i) K - x)

/-- FedAvg server trajectory `x_0, x_1, …`: `oracle r i` is client `i`'s oracle in round `r`
and `samples r` the clients sampled in that round. -/
def fedAvg {d N : ℕ} (mode : FedAvgMode N) (S K : ℕ) (ηl ηg : ℝ)
    (oracle : ℕ → Fin N → LocalOracle d) (samples : ℕ → Finset (Fin N)) (x0 : Space d) :
    ℕ → Space d
  | 0 => x0
  | r + 1 => fedAvgRound mode S K ηl ηg (oracle r) (samples r)
      (fedAvg mode S K ηl ηg oracle samples x0 r)

end FedAvgProcedure

end
