import Pyfed.Scaffold.Model

/-!
# Local client paths shared by FedAvg and SCAFFOLD (seed 002)

The procedures of `Pyfed.Algorithms` are plain functions: all randomness (the oracle's
samples and the per-round client samples) is passed in as data, so each procedure is the
deterministic map from one realization to the trajectory. A client oracle `oracle k y` is the
gradient sample returned by the `k`-th call, made at the point `y`.
-/

noncomputable section

namespace SCAFFOLD

/-- Oracle of one client within one round: call index `k`, query point `y`. -/
abbrev LocalOracle (d : ℕ) : Type := ℕ → Space d → Space d

/-- Local path `y₀ = x`, `y_{k+1} = y_k - ηl (g(y_k) + corr)`, where `corr = c - cᵢ` for
SCAFFOLD and `corr = 0` for FedAvg (seed 002, both algorithms). -/
def localPath {d : ℕ} (ηl : ℝ) (x corr : Space d) (oracle : LocalOracle d) : ℕ → Space d
  | 0 => x
  | k + 1 => localPath ηl x corr oracle k - ηl • (oracle k (localPath ηl x corr oracle k) + corr)

end SCAFFOLD

end
