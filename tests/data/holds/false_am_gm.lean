import Pyfed

/-!
False: a b ≤ (a² + b²)/4 fails at a = b = 1.
-/

namespace SCAFFOLD.Variants

theorem AmGmWrong (a b : ℝ) : a * b ≤ (a ^ 2 + b ^ 2) / 4 := by sorry

end SCAFFOLD.Variants
