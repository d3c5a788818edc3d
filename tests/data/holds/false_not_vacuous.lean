import Pyfed

/-!
False: a b > 1 and a² + b² ≤ 4 do hold together (a = b = 1.2), and a ≤ 0 fails there.
-/

namespace SCAFFOLD.Variants

theorem NotVacuous (a b : ℝ) (h1 : a * b > 1) (h2 : a ^ 2 + b ^ 2 ≤ 4) : a ≤ 0 := by sorry

end SCAFFOLD.Variants
