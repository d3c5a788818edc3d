import Pyfed.Scaffold.Model

/-!
# SCAFFOLD finite-round theorems (statements)

`ConvexFiniteRoundConvergence` is seed 000's formal statement verbatim. The proofs are not
part of this project (`sorry`, as in the seed's own statement file); pyfed's checkers
(`checkers.registry`, same bare names) test them numerically and exactly on instances.

Source: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Appendix E.1 (PDF p. 30,
Lemma 15; p. 31) for the convex statement; Appendix E.2 (PDF pp. 31 and 35, equations
(26)–(27), warm-start controls) for the nonconvex statement; Appendix B, inequality (9) for
`GradientGrowth`.
-/

open MeasureTheory

namespace SCAFFOLD

universe u

/-- Seed 000 (verbatim): convex and strongly convex finite-round convergence with
deterministic initial controls `c0`. -/
theorem ConvexFiniteRoundConvergence :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar := by sorry

/-- Nonconvex finite-round convergence with the `K`-sample warm start (`none`):
if `f_low ≤ F` everywhere, `ηl > 0`, `ηg ≥ 1` and `h ≤ (S/N)^(2/3) / (24 β)` then
`T⁻¹ ∑_{r<T} E‖∇F(X_r)‖² ≤ 14 (F(x0) - f_low)/(h T) + 70 β h σ²/(K S) (1 + S/ηg²)`.
The cube root is `Real.rpow`. -/
theorem NonconvexFiniteRoundConvergence :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg f_low : ℝ),
    (∀ x : Space d, f_low ≤ objective P.f x) → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3) / (24 * P.β) →
    ∀ A : Run P ν S K T ηl ηg none,
      averageGradientSq A ≤ nonconvexRHS P S K T ηl ηg f_low := by sorry

/-- Inequality (9) of SCAFFOLD Appendix B: for convex `β`-smooth clients and a minimizer
`x⋆` of `F`, `N⁻¹ ∑ᵢ ‖∇fᵢ(x) - ∇fᵢ(x⋆)‖² ≤ 2 β (F(x) - F(x⋆))`. Convexity is
`Convexity P 0` (first-order form, equivalent for differentiable functions); continuity of the
gradients follows from `P.smooth`. -/
theorem GradientGrowth {d N : ℕ} (P : Problem d N) (xstar : Space d)
    (hconv : Convexity P 0) (hmin : IsMinimizer P xstar) (x : Space d) :
    (N : ℝ)⁻¹ * ∑ i, ‖gradient (P.f i) x - gradient (P.f i) xstar‖ ^ 2 ≤
      2 * P.β * (objective P.f x - objective P.f xstar) := by sorry

end SCAFFOLD
