import Pyfed.Scaffold.Model

/-!
# Averaging lemmas for one-step recursions (seed 002)

* `StichWeightedAveraging`, `StichWeightSumLowerBound`: Stich, *Local SGD Converges Fast and
  Communicates Little*, the weighted averaging lemma with `η_t = 4/(μ(a+t))`,
  `w_t = (a+t)²`, `S_T = ∑_{t<T} w_t`, and `S_T ≥ T³/3`.
* `UniformAveraging`, `GeometricAveraging`: the two parts of seed 002's averaging lemma
  (SCAFFOLD Appendix B, Lemmas 12–13 style). Seed indices `r = 1..R` with `q_{r-1}` are written
  here with `r = 0..R-1` and `q r` (so `d_r + aηq_{r-1} ≤ …` becomes
  `d (r+1) + a η q r ≤ …` for `r < R`, and `w_r = (1-ρη)^(-r)`, `r = 1..R`, becomes
  `((1 - ρη)⁻¹)^(r+1)`, `r < R`).
-/

namespace SCAFFOLD

/-- Stich's step size `η_t = 4 / (μ (a + t))`. -/
noncomputable def stichStep (μ a : ℝ) (t : ℕ) : ℝ := 4 / (μ * (a + (t : ℝ)))

/-- Stich's weight `w_t = (a + t)²`. -/
noncomputable def stichWeight (a : ℝ) (t : ℕ) : ℝ := (a + (t : ℝ)) ^ 2

/-- `S_T = ∑_{t<T} (a + t)²`. -/
noncomputable def stichWeightSum (a : ℝ) (T : ℕ) : ℝ :=
  ∑ t ∈ Finset.range T, stichWeight a t

/-- Stich's weighted averaging lemma. -/
theorem StichWeightedAveraging (μ a A B C : ℝ) (T : ℕ) (u e : ℕ → ℝ)
    (hμ : 0 < μ) (ha : 4 ≤ a) (hT : 1 ≤ T) (hA : 0 < A) (hB : 0 ≤ B) (hC : 0 ≤ C)
    (hu : ∀ t, 0 ≤ u t) (he : ∀ t, 0 ≤ e t)
    (hrec : ∀ t < T, u (t + 1) ≤ (1 - μ * stichStep μ a t) * u t - A * stichStep μ a t * e t +
      B * stichStep μ a t ^ 2 + C * stichStep μ a t ^ 3) :
    A / stichWeightSum a T * ∑ t ∈ Finset.range T, stichWeight a t * e t ≤
      μ * a ^ 3 / (4 * stichWeightSum a T) * u 0 +
        2 * (T : ℝ) * ((T : ℝ) + 2 * a) / (μ * stichWeightSum a T) * B +
        16 * (T : ℝ) / (μ ^ 2 * stichWeightSum a T) * C := by sorry

/-- `S_T ≥ T³ / 3` (stated under the hypotheses `a ≥ 4`, `T ≥ 1` of the averaging lemma). -/
theorem StichWeightSumLowerBound (a : ℝ) (ha : 4 ≤ a) (T : ℕ) (hT : 1 ≤ T) :
    (T : ℝ) ^ 3 / 3 ≤ stichWeightSum a T := by sorry

/-- Part 1: `d (r+1) + a η q r ≤ d r + b η² + c η³` for `r < R` gives
`R⁻¹ ∑_{r<R} q r ≤ d 0 / (a η R) + (b η + c η²) / a`. -/
theorem UniformAveraging (R : ℕ) (hR : 1 ≤ R) (dist q : ℕ → ℝ) (a η b c : ℝ)
    (hd : ∀ r ≤ R, 0 ≤ dist r) (hq : ∀ r < R, 0 ≤ q r)
    (ha : 0 < a) (hη : 0 < η) (hb : 0 ≤ b) (hc : 0 ≤ c)
    (hrec : ∀ r < R, dist (r + 1) + a * η * q r ≤ dist r + b * η ^ 2 + c * η ^ 3) :
    (R : ℝ)⁻¹ * ∑ r ∈ Finset.range R, q r ≤
      dist 0 / (a * η * (R : ℝ)) + (b * η + c * η ^ 2) / a := by sorry

/-- Part 2: with `0 < η` (a step size, as in part 1; without it the statement is false:
`ρ = -1/2, η = -1, a = 1, b = c = 0, d = 0, q 0 = 1`) and `0 < ρη < 1`, `d (r+1) ≤ (1 - ρη) d r - a η q r + b η² + c η³` for `r < R`,
weights `w = ((1 - ρη)⁻¹)^(r+1)` and `W = ∑_{r<R} w`:
`W⁻¹ ∑_{r<R} w q r ≤ d 0 / (a η W) + (b η + c η²) / a`. -/
theorem GeometricAveraging (R : ℕ) (hR : 1 ≤ R) (dist q : ℕ → ℝ) (ρ η a b c : ℝ)
    (hd : ∀ r ≤ R, 0 ≤ dist r) (hq : ∀ r < R, 0 ≤ q r)
    (hη : 0 < η) (hρη : 0 < ρ * η) (hρη1 : ρ * η < 1) (ha : 0 < a) (hb : 0 ≤ b) (hc : 0 ≤ c)
    (hrec : ∀ r < R,
      dist (r + 1) ≤ (1 - ρ * η) * dist r - a * η * q r + b * η ^ 2 + c * η ^ 3) :
    (∑ r ∈ Finset.range R, ((1 - ρ * η)⁻¹) ^ (r + 1))⁻¹ *
        ∑ r ∈ Finset.range R, ((1 - ρ * η)⁻¹) ^ (r + 1) * q r ≤
      dist 0 / (a * η * ∑ r ∈ Finset.range R, ((1 - ρ * η)⁻¹) ^ (r + 1)) +
        (b * η + c * η ^ 2) / a := by sorry

end SCAFFOLD
