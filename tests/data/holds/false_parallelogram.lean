import Pyfed

/-!
False: the parallelogram identity with ‖v‖² once.
-/

namespace SCAFFOLD.Variants

theorem ParallelogramWrong {d : ℕ} (u v : Space d) :
    ‖u + v‖ ^ 2 + ‖u - v‖ ^ 2 = 2 * ‖u‖ ^ 2 + ‖v‖ ^ 2 := by sorry

end SCAFFOLD.Variants
