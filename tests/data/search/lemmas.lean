import Pyfed

/-!
# Run-free lemmas (vectors, sampling, function classes), false and true

Test data of the search by optimisation (`tests/test_models_runfree_space.py`). Each false
statement's docstring gives the counterexample the test checks by hand; each true one says why it
holds.
-/

namespace SearchTests

open SCAFFOLD

/-- False only along one narrow direction and only for m ≥ 4: with every `u j` equal (m = 4, d = 1,
`u j = 1`) the left side is 16 and the right side (7/2)·4 = 14. For m ≤ 3, (m + 3)/2 ≥ m. -/
theorem SumSquaresNarrow {d m : ℕ} (hm : 1 ≤ m) (u : Fin m → Space d) :
    ‖∑ j, u j‖ ^ 2 ≤ ((m : ℝ) + 3) / 2 * ∑ j, ‖u j‖ ^ 2 := by sorry

/-- True: the same for m ≤ 3 (then (m + 3)/2 ≥ m and ‖∑ u‖² ≤ m ∑ ‖u‖²). -/
theorem SumSquaresNarrowSmall {d m : ℕ} (hm : 1 ≤ m) (hm3 : m ≤ 3) (u : Fin m → Space d) :
    ‖∑ j, u j‖ ^ 2 ≤ ((m : ℝ) + 3) / 2 * ∑ j, ‖u j‖ ^ 2 := by sorry

/-- False only at N = 2: for N = 2, S = 1, d = 1, `v = (1, -1)` the left side is 1 and the right
side (3/2)(1/2)(1/2)·2 = 3/4. For N ≥ 3 the constant 3(N - 1)/(2N) times the exact one is ≥ 1. -/
theorem SamplingVarianceThreeHalves {d N S : ℕ} (hN : 1 < N) (hS : 1 ≤ S) (hSN : S ≤ N)
    (v : Fin N → Space d) :
    uniformSampleMean S (fun B => ‖sampleAverage S v B - clientAverage v‖ ^ 2) ≤
      3 / 2 * (1 - (S : ℝ) / (N : ℝ)) * ((S : ℝ) * (N : ℝ))⁻¹ *
        ∑ i, ‖v i - clientAverage v‖ ^ 2 := by sorry

/-- True: the same for N ≥ 3 (the sampling identity gives the factor 1/(S (N - 1)), and
3/(2N) ≥ 1/(N - 1) when N ≥ 3). -/
theorem SamplingVarianceThreeHalvesLarge {d N S : ℕ} (hN : 2 < N) (hS : 1 ≤ S) (hSN : S ≤ N)
    (v : Fin N → Space d) :
    uniformSampleMean S (fun B => ‖sampleAverage S v B - clientAverage v‖ ^ 2) ≤
      3 / 2 * (1 - (S : ℝ) / (N : ℝ)) * ((S : ℝ) * (N : ℝ))⁻¹ *
        ∑ i, ‖v i - clientAverage v‖ ^ 2 := by sorry

/-- False only on non-quadratic functions (an identity on quadratics): the symmetrised Bregman
divergence is at most twice the one-sided one. The Huber function `h(z) = z²/2` (|z| ≤ 1),
`|z| - 1/2` beyond, with `L = 1`, `x = 0`, `y = 3`: left side 3, right side 2·(0 - 5/2 + 3) = 1. -/
theorem BregmanSymmetrised {d : ℕ} (h : Space d → ℝ) (L : ℝ) (hL : 0 < L)
    (hgrad : ∀ x : Space d, HasGradientAt h (gradient h x) x)
    (hconv : ∀ x y : Space d, h x + inner ℝ (gradient h x) (y - x) ≤ h y)
    (hsmooth : ∀ x y : Space d, ‖gradient h x - gradient h y‖ ≤ L * ‖x - y‖) (x y : Space d) :
    inner ℝ (gradient h x - gradient h y) (x - y) ≤
      2 * (h x - h y - inner ℝ (gradient h y) (x - y)) := by sorry

/-- True: co-coercivity of the gradient of a convex L-smooth function (Baillon–Haddad). -/
theorem GradientCocoercive {d : ℕ} (h : Space d → ℝ) (L : ℝ) (hL : 0 < L)
    (hgrad : ∀ x : Space d, HasGradientAt h (gradient h x) x)
    (hconv : ∀ x y : Space d, h x + inner ℝ (gradient h x) (y - x) ≤ h y)
    (hsmooth : ∀ x y : Space d, ‖gradient h x - gradient h y‖ ≤ L * ‖x - y‖) (x y : Space d) :
    ‖gradient h x - gradient h y‖ ^ 2 ≤ L * inner ℝ (gradient h x - gradient h y) (x - y) := by sorry

/-- True: the descent lemma of an L-smooth function. -/
theorem DescentLemma {d : ℕ} (h : Space d → ℝ) (L : ℝ) (hL : 0 < L)
    (hgrad : ∀ x : Space d, HasGradientAt h (gradient h x) x)
    (hconv : ∀ x y : Space d, h x + inner ℝ (gradient h x) (y - x) ≤ h y)
    (hsmooth : ∀ x y : Space d, ‖gradient h x - gradient h y‖ ≤ L * ‖x - y‖) (x y : Space d) :
    h y ≤ h x + inner ℝ (gradient h x) (y - x) + L / 2 * ‖y - x‖ ^ 2 := by sorry

/-- False: a gradient step is not nonexpansive beyond η = 2/β. Witness: d = 1, h(x) = x²/2 (β = 1),
η = 3, x = 1, y = 0: ‖1 - 3·1‖ = 2 > 1. -/
theorem GradientStepThree {d : ℕ} (h : Space d → ℝ) (β : ℝ) (hβ : 0 < β)
    (hgrad : ∀ x : Space d, HasGradientAt h (gradient h x) x)
    (hconv : ∀ x y : Space d, h x + inner ℝ (gradient h x) (y - x) ≤ h y)
    (hsmooth : ∀ x y : Space d, ‖gradient h x - gradient h y‖ ≤ β * ‖x - y‖)
    (η : ℝ) (hη0 : 0 ≤ η) (hη : η ≤ 3 / β) (x y : Space d) :
    ‖x - y - η • (gradient h x - gradient h y)‖ ≤ ‖x - y‖ := by sorry

end SearchTests
