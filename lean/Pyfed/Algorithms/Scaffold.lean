import Pyfed.Algorithms.LocalPath

/-!
# SCAFFOLD as a procedure (seed 002, Algorithm 1 of Karimireddy et al.), options I and II

State `(x, c, (cᵢ))`. In a round with sampled set `𝒮`, every selected client runs
`y_{i,k+1} = y_{i,k} - ηl (gᵢ(y_{i,k}) - cᵢ + c)` from `y_{i,0} = x`, then
* option I: `cᵢ⁺ = gᵢ(x)` (one more oracle call, index `K`, at the round-start model);
* option II: `cᵢ⁺ = cᵢ - c + (K ηl)⁻¹ (x - y_{i,K})`;
and the server sets `x⁺ = x + ηg Δx`, `c⁺ = c + (S/N) Δc` with
`Δx = S⁻¹ ∑_{i∈𝒮} (y_{i,K} - x)`, `Δc = S⁻¹ ∑_{i∈𝒮} (cᵢ⁺ - cᵢ)`; unselected clients keep `cᵢ`.

Source: Karimireddy et al., SCAFFOLD, §§3–4 and Algorithm 1 (PDF p. 4).
-/

noncomputable section

namespace SCAFFOLD

/-- Server model, server control and client controls. -/
structure ScaffoldState (d N : ℕ) where
  x : Space d
  c : Space d
  ci : Fin N → Space d

/-- Control-update option of SCAFFOLD. -/
inductive ControlOption where
  | optionI : ControlOption
  | optionII : ControlOption

/-- Option II control `cᵢ⁺ = cᵢ - c + (K ηl)⁻¹ (x - y_K)`. -/
def optionTwoControl {d : ℕ} (K : ℕ) (ηl : ℝ) (x c ci yK : Space d) : Space d :=
  ci - c + ((K : ℝ) * ηl)⁻¹ • (x - yK)

/-- Client `i`'s new control after its local path, for either option. -/
def newControl {d N : ℕ} (opt : ControlOption) (K : ℕ) (ηl : ℝ)
    (oracle : Fin N → LocalOracle d) (s : ScaffoldState d N) (i : Fin N) : Space d :=
  match opt with
  | ControlOption.optionI => oracle i K s.x
  | ControlOption.optionII =>
      optionTwoControl K ηl s.x s.c (s.ci i) (localPath ηl s.x (s.c - s.ci i) (oracle i) K)

/-- One SCAFFOLD round with sampled set `sample`. -/
def scaffoldRound {d N : ℕ} (opt : ControlOption) (S K : ℕ) (ηl ηg : ℝ)
    (oracle : Fin N → LocalOracle d) (sample : Finset (Fin N)) (s : ScaffoldState d N) :
    ScaffoldState d N where
  x := s.x + ηg • ((S : ℝ)⁻¹ •
    ∑ i ∈ sample, (localPath ηl s.x (s.c - s.ci i) (oracle i) K - s.x))
  c := s.c + ((S : ℝ) / (N : ℝ)) • ((S : ℝ)⁻¹ •
    ∑ i ∈ sample, (newControl opt K ηl oracle s i - s.ci i))
  ci := fun i => if i ∈ sample then newControl opt K ηl oracle s i else s.ci i

/-- SCAFFOLD trajectory from `x0` and client controls `c0` (server control `c⁰ = N⁻¹ ∑ cᵢ⁰`). -/
def scaffold {d N : ℕ} (opt : ControlOption) (S K : ℕ) (ηl ηg : ℝ)
    (oracle : ℕ → Fin N → LocalOracle d) (samples : ℕ → Finset (Fin N)) (x0 : Space d)
    (c0 : Fin N → Space d) : ℕ → ScaffoldState d N
  | 0 => { x := x0, c := (N : ℝ)⁻¹ • ∑ i, c0 i, ci := c0 }
  | r + 1 => scaffoldRound opt S K ηl ηg (oracle r) (samples r)
      (scaffold opt S K ηl ηg oracle samples x0 c0 r)

/-- Option II's control is the average of the `K` local oracle samples:
`cᵢ - c + (K ηl)⁻¹ (x - y_{i,K}) = K⁻¹ ∑_{k<K} gᵢ(y_{i,k})` (telescoping the local path). -/
theorem OptionTwoControlIsAverage {d : ℕ} (K : ℕ) (hK : 1 ≤ K) (ηl : ℝ) (hηl : ηl ≠ 0)
    (x c ci : Space d) (oracle : LocalOracle d) :
    optionTwoControl K ηl x c ci (localPath ηl x (c - ci) oracle K) =
      (K : ℝ)⁻¹ • ∑ k ∈ Finset.range K, oracle k (localPath ηl x (c - ci) oracle k) := by
  sorry

/-- After every SCAFFOLD round the server control is the mean of the client controls
(`|𝒮_r| = S > 0` in every round; either option). -/
theorem ServerControlIsMean {d N : ℕ} (opt : ControlOption) (S K : ℕ) (ηl ηg : ℝ)
    (oracle : ℕ → Fin N → LocalOracle d) (samples : ℕ → Finset (Fin N)) (x0 : Space d)
    (c0 : Fin N → Space d) (hS : 0 < S) (hcard : ∀ r, (samples r).card = S) (r : ℕ) :
    (scaffold opt S K ηl ηg oracle samples x0 c0 r).c =
      (N : ℝ)⁻¹ • ∑ i, (scaffold opt S K ηl ηg oracle samples x0 c0 r).ci i := by
  sorry

end SCAFFOLD

end
