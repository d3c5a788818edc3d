import Pyfed

/-!
# Inequality (9) with 3/2 β in place of 2 β (a function-class lemma)

SCAFFOLD's Appendix B.1 inequality (9) bounds the clients' gradient spread by `2 β (F(x) - F(x⋆))`.
With `3/2 β` it is false: one client `f(x) = β x² / 2` has spread `β² x²` and gap `β x² / 2`,
so the left side `β² x²` exceeds `(3/2) β (β x² / 2) = (3/4) β² x²`. `pyfed check` finds such a
quadratic (its smoothness constant is its largest eigenvalue, exactly) and the points where the
inequality is worst, exactly.
-/

namespace SCAFFOLD.Examples

theorem GradientGrowthSmallConstant (d N : ℕ) (P : Problem d N) (xstar : Space d)
    (hconv : Convexity P 0) (hmin : IsMinimizer P xstar) (x : Space d) :
    (N : ℝ)⁻¹ * ∑ i, ‖gradient (P.f i) x - gradient (P.f i) xstar‖ ^ 2 ≤
      3 / 2 * P.β * (objective P.f x - objective P.f xstar) := by sorry

end SCAFFOLD.Examples
