import Pyfed

/-!
False: a gradient step does not halve distances.
-/

namespace SCAFFOLD.Variants

theorem NonexpansiveContraction {d : ℕ} (h : Space d → ℝ) (β : ℝ) (hβ : 0 < β)
    (hgrad : ∀ x : Space d, HasGradientAt h (gradient h x) x)
    (hconv : ∀ x y : Space d, h x + inner ℝ (gradient h x) (y - x) ≤ h y)
    (hsmooth : ∀ x y : Space d, ‖gradient h x - gradient h y‖ ≤ β * ‖x - y‖)
    (η : ℝ) (hη0 : 0 ≤ η) (hη : η ≤ 2 / β) (x y : Space d) :
    ‖x - y - η • (gradient h x - gradient h y)‖ ≤ 1 / 2 * ‖x - y‖ := by sorry


end SCAFFOLD.Variants
