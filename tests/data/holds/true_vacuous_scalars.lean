import Pyfed

/-!
True, vacuously: a b > 1 and a² + b² ≤ 1 have no common solution (holds vacuously, exact certificate).
-/

namespace SCAFFOLD.Variants

theorem VacuousScalars (a b : ℝ) (h1 : a * b > 1) (h2 : a ^ 2 + b ^ 2 ≤ 1) : a ≤ -5 := by sorry

end SCAFFOLD.Variants
