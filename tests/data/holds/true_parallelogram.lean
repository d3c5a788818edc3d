import Pyfed

/-!
True: the parallelogram identity (decided symbolically for every d).
-/

namespace SCAFFOLD.Variants

theorem Parallelogram {d : ℕ} (u v : Space d) :
    ‖u + v‖ ^ 2 + ‖u - v‖ ^ 2 = 2 * ‖u‖ ^ 2 + 2 * ‖v‖ ^ 2 := by sorry

end SCAFFOLD.Variants
