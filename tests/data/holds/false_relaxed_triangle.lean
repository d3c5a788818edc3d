import Pyfed

/-!
False: the relaxed triangle inequality without the a⁻¹ on ‖v‖².
-/

namespace SCAFFOLD.Variants

theorem RelaxedTriangleWrong {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    ‖u + v‖ ^ 2 ≤ (1 + a) * ‖u‖ ^ 2 + ‖v‖ ^ 2 := by sorry

end SCAFFOLD.Variants
