import Pyfed

/-!
True: a b ≤ (a² + b²)/2 (decided symbolically).
-/

namespace SCAFFOLD.Variants

theorem AmGm (a b : ℝ) : a * b ≤ (a ^ 2 + b ^ 2) / 2 := by sorry

end SCAFFOLD.Variants
