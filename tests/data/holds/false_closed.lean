import Pyfed

/-!
False: 2 ^ 3 ^ 2 is 512, not 64.
-/

namespace SCAFFOLD.Variants

theorem ClosedPowerWrong : (2 : ℝ) ^ 3 ^ 2 = 64 := by sorry

end SCAFFOLD.Variants
