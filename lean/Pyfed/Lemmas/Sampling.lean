import Pyfed.Scaffold.Model
import Mathlib.Data.Finset.Powerset

/-!
# Federated objectives and uniform fixed-size client sampling (seed 002)

* `weightedObjective n F w = ∑ᵢ (nᵢ / n) Fᵢ(w)` (sample-count-weighted deployment objective)
  and the equal-client objective `objective f = N⁻¹ ∑ᵢ fᵢ` (in `Pyfed.Scaffold.Model`).
* A uniform fixed-size sample gives every `S`-subset probability `(N choose S)⁻¹`.
  `IsUniformSample ν I S` says so for a random subset `I : Ω → Finset (Fin N)`;
  `uniformSampleMean S g` is the expectation `E[g(𝒮)]` of any function of the sample under
  that law, written as the finite average over `Finset.powersetCard S univ`.
  Independence across rounds is not part of these definitions: the procedures in
  `Pyfed.Algorithms` take the per-round samples as data.

Source: McMahan et al., PMLR 54 (2017), §2; Karimireddy et al., SCAFFOLD, §§2–3 and
Appendix B (sampling-variance lemma).
-/

open MeasureTheory

noncomputable section

namespace SCAFFOLD

/-- Sample-count-weighted objective `f_wt(w) = ∑ᵢ (nᵢ / n) Fᵢ(w)`, `n = ∑ᵢ nᵢ`. -/
def weightedObjective {d N : ℕ} (n : Fin N → ℕ) (F : Fin N → Space d → ℝ) (w : Space d) : ℝ :=
  ∑ i, ((n i : ℝ) / (∑ j, (n j : ℝ))) * F i w

/-- A random subset `I` is a uniform fixed-size sample of `S` of the `N` clients. -/
def IsUniformSample {N : ℕ} {Ω : Type*} [MeasurableSpace Ω] (ν : Measure Ω)
    (I : Ω → Finset (Fin N)) (S : ℕ) : Prop :=
  ∀ B : Finset (Fin N),
    (ν {ω | I ω = B}).toReal = if B.card = S then ((Nat.choose N S : ℕ) : ℝ)⁻¹ else 0

/-- `E[g(𝒮)]` for a uniform `S`-subset `𝒮` of `Fin N`: `(N choose S)⁻¹ ∑_{|B| = S} g B`. -/
def uniformSampleMean {N : ℕ} {E : Type*} [AddCommGroup E] [Module ℝ E] (S : ℕ)
    (g : Finset (Fin N) → E) : E :=
  ((Nat.choose N S : ℕ) : ℝ)⁻¹ • ∑ B ∈ Finset.powersetCard S (Finset.univ : Finset (Fin N)), g B

/-- Sample average `v̄_𝒮 = S⁻¹ ∑_{i ∈ 𝒮} vᵢ`. -/
def sampleAverage {d N : ℕ} (S : ℕ) (v : Fin N → Space d) (B : Finset (Fin N)) : Space d :=
  (S : ℝ)⁻¹ • ∑ i ∈ B, v i

/-- Client average `v̄ = N⁻¹ ∑ᵢ vᵢ`. -/
def clientAverage {d N : ℕ} (v : Fin N → Space d) : Space d :=
  (N : ℝ)⁻¹ • ∑ i, v i

/-- Sampling without replacement, `N > 1`: `E[v̄_𝒮] = v̄` and
`E‖v̄_𝒮 - v̄‖² = (1 - S/N) · 1/(S (N - 1)) · ∑ᵢ ‖vᵢ - v̄‖²`. -/
theorem SamplingVarianceIdentity {d N S : ℕ} (hN : 1 < N) (hS : 1 ≤ S) (hSN : S ≤ N)
    (v : Fin N → Space d) :
    uniformSampleMean S (fun B => sampleAverage S v B) = clientAverage v ∧
      uniformSampleMean S (fun B => ‖sampleAverage S v B - clientAverage v‖ ^ 2) =
        (1 - (S : ℝ) / (N : ℝ)) * ((S : ℝ) * ((N : ℝ) - 1))⁻¹ *
          ∑ i, ‖v i - clientAverage v‖ ^ 2 := by sorry

/-- `E‖v̄_𝒮 - v̄‖² ≤ 2 (1 - S/N) · 1/S · 1/N · ∑ᵢ ‖vᵢ‖²` for `N > 1`, `1 ≤ S ≤ N` (seed 002: "If N > 1 … In particular"). -/
theorem SamplingVarianceBound {d N S : ℕ} (hN : 1 < N) (hS : 1 ≤ S) (hSN : S ≤ N)
    (v : Fin N → Space d) :
    uniformSampleMean S (fun B => ‖sampleAverage S v B - clientAverage v‖ ^ 2) ≤
      2 * (1 - (S : ℝ) / (N : ℝ)) * (S : ℝ)⁻¹ * (N : ℝ)⁻¹ * ∑ i, ‖v i‖ ^ 2 := by sorry

/-- `N = 1`: necessarily `S = 1`, and every admissible sample average is the client average. -/
theorem SamplingSingleClient {d N S : ℕ} (hN : N = 1) (hS : 1 ≤ S) (hSN : S ≤ N)
    (v : Fin N → Space d) :
    S = 1 ∧ ∀ B ∈ Finset.powersetCard S (Finset.univ : Finset (Fin N)),
      sampleAverage S v B = clientAverage v := by sorry

end SCAFFOLD

end
