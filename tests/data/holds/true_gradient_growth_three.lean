import Pyfed

/-!
True: inequality (9) with 3 β in place of 2 β (holds by reduction).
-/

namespace SCAFFOLD.Variants

theorem GradientGrowthThree :
  ∀ (d N : ℕ) (P : Problem d N) (xstar : Space d),
    Convexity P 0 → IsMinimizer P xstar → ∀ x,
      (N : ℝ)⁻¹ * ∑ i, ‖gradient (P.f i) x - gradient (P.f i) xstar‖ ^ 2 ≤
        3 * P.β * (objective P.f x - objective P.f xstar) := by sorry

end SCAFFOLD.Variants
