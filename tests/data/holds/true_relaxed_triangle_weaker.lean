import Pyfed

/-!
True: the relaxed triangle inequality with (2 + a) in place of (1 + a) (decided symbolically for every d).
-/

namespace SCAFFOLD.Variants

theorem RelaxedTriangleWeaker {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    ‖u + v‖ ^ 2 ≤ (2 + a) * ‖u‖ ^ 2 + (1 + a⁻¹) * ‖v‖ ^ 2 := by sorry

end SCAFFOLD.Variants
