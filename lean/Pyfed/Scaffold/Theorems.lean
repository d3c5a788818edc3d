import Pyfed.Scaffold.Model

/-!
# SCAFFOLD statements

The five SCAFFOLD statements of the published formalization (`prove2me/formalpedia`,
`envs/c5ea003/Theorems/Thm_SCAFFOLD_*.lean`), each with the same name and the same statement,
so that a term proving or applying the published one proves or applies ours.
`ConvexFiniteRoundConvergence` is also seed 000's formal statement, verbatim. The proofs are not
part of this project (`sorry`, as in the statement files); pyfed's checkers (`checkers.registry`,
same bare names) test every statement exactly on instances.

Sources (Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4):
* `ConvexFiniteRoundConvergence`: Appendix E.1, PDF p. 30, Lemma 15, and the averaging display
  on PDF p. 31;
* `NonconvexFiniteRoundConvergence`: Appendix E.2, PDF p. 34, Lemma 19 (the constants 14 and 70),
  summed over rounds with equations (26)–(27) (PDF p. 31) and the warm start (PDF p. 35);
* `FiniteRoundConvergence`: the two together (Section 5, PDF p. 5, Theorem III);
* `GradientGrowth`: Appendix B.1, PDF p. 14, inequality (9);
* `PerturbedStrongConvexity`: Appendix C, PDF p. 17, Lemma 5.
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

/-- Nonconvex finite-round convergence with the `K`-sample warm start (`none`): if
`fLower ≤ F` everywhere, `ηl > 0`, `ηg ≥ 1` and `h = K ηl ηg ≤ (S/N)^(2/3) / (24 β)` then
`T⁻¹ ∑_{r<T} E‖∇F(x_r)‖² ≤ 14 (F(x0) - fLower)/(h T) + 70 β h σ²/(K S) (1 + S/ηg²)`.
The constants 14 and 70 come from SCAFFOLD Appendix E.2, Lemma 19 (PDF p. 34), the finite-round
form from equations (26)–(27) (PDF p. 31) with the warm start of PDF p. 35. The power
`(S/N)^(2/3)` is `Real.rpow`. -/
theorem NonconvexFiniteRoundConvergence :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg fLower : ℝ),
    (∀ x, fLower ≤ objective P.f x) → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤
      Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β) →
    ∀ A : Run P ν S K T ηl ηg none,
      averageGradientSq A ≤ nonconvexRHS P S K T ηl ηg fLower := by sorry

/-- Both finite-round guarantees at once, each with its own initialization: the convex one
with deterministic controls `some c0` and the nonconvex one with the warm start `none` (the
left conjunct is `ConvexFiniteRoundConvergence`, the right one
`NonconvexFiniteRoundConvergence`). -/
theorem FiniteRoundConvergence :
(
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar
) ∧ (
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg fLower : ℝ),
    (∀ x, fLower ≤ objective P.f x) → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤
      Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β) →
    ∀ A : Run P ν S K T ηl ηg none,
      averageGradientSq A ≤ nonconvexRHS P S K T ηl ηg fLower
) := by sorry

/-- Inequality (9) of SCAFFOLD Appendix B.1 (PDF p. 14): for convex `β`-smooth clients and a
minimizer `x⋆` of `F`, `N⁻¹ ∑ᵢ ‖∇fᵢ(x) - ∇fᵢ(x⋆)‖² ≤ 2 β (F(x) - F(x⋆))` at every `x`.
Convexity is `Convexity P 0` (first-order form, equivalent for differentiable functions). -/
theorem GradientGrowth :
  ∀ (d N : ℕ) (P : Problem d N) (xstar : Space d),
    Convexity P 0 → IsMinimizer P xstar → ∀ x,
      (N : ℝ)⁻¹ * ∑ i, ‖gradient (P.f i) x - gradient (P.f i) xstar‖ ^ 2 ≤
        2 * P.β * (objective P.f x - objective P.f xstar) := by sorry

/-- Lemma 5 of SCAFFOLD Appendix C (PDF p. 17), perturbed strong convexity: if every client is
`μ`-strongly convex (`μ ≥ 0`) and `β`-smooth, then for every client `i` and all `x, y, z`,
`fᵢ(z) - fᵢ(y) + μ/4 ‖y - z‖² - β ‖z - x‖² ≤ ⟪∇fᵢ(x), z - y⟫`. -/
theorem PerturbedStrongConvexity :
  ∀ (d N : ℕ) (P : Problem d N) (μ : ℝ), Convexity P μ →
    ∀ (i : Fin N) (x y z : Space d),
      P.f i z - P.f i y + μ / 4 * ‖y - z‖ ^ 2 - P.β * ‖z - x‖ ^ 2 ≤
        inner ℝ (gradient (P.f i) x) (z - y) := by sorry

end SCAFFOLD
