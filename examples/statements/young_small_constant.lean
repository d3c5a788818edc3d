import Pyfed

/-!
# Young's inequality with a/2 in place of a (a vector lemma)

`2 |⟪u, v⟫| ≤ a ‖u‖² + a⁻¹ ‖v‖²` holds for every `a > 0` and is tight at `v = ± a u`. With
`a / 2 ‖u‖²` it is false there: `u = 1, v = a` gives `2 a > a / 2 + a`. `pyfed check` finds a
violating pair of rational vectors and writes it as exact JSON.
-/

namespace SCAFFOLD.Examples

theorem YoungHalfConstant {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    2 * |inner ℝ u v| ≤ a / 2 * ‖u‖ ^ 2 + a⁻¹ * ‖v‖ ^ 2 := by sorry

end SCAFFOLD.Examples
