import Pyfed

/-!
# FedProx with μ = 0 is FedAvg (a FedProx procedure lemma)

Li et al. (*Federated Optimization in Heterogeneous Networks*, MLSys 2020, §3.2) note that FedAvg
is FedProx with μ = 0 and SGD as the local solver. With the procedures of `Pyfed.Algorithms` the
claim is an equality of trajectories on every realization: the same oracles (any call-dependent
noise included) and the same sampled sets give the same server models in every round. `pyfed check`
draws quadratic clients with exact (and, in some draws, noisy) affine oracles, sampled sets of
size S and starts, and compares both trajectories exactly.
-/

open SCAFFOLD (Space LocalOracle)
open FedProxProcedure

namespace FedProxExamples

theorem FedProxZeroIsFedAvg {d N : ℕ} (S K : ℕ) (ηl ηg : ℝ) (oracle : ℕ → Fin N → LocalOracle d)
    (samples : ℕ → Finset (Fin N)) (x0 : Space d) (r : ℕ) :
    fedProx S K ηl ηg 0 oracle samples x0 r =
      FedAvgProcedure.fedAvg FedAvgProcedure.FedAvgMode.uniform S K ηl ηg oracle samples x0 r := by
  sorry

end FedProxExamples
