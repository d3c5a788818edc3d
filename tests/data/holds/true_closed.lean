import Pyfed

/-!
True: a closed statement, decided exactly.
-/

namespace SCAFFOLD.Variants

theorem ClosedPower : (2 : ℝ) ^ 3 ^ 2 = 512 := by sorry

end SCAFFOLD.Variants
