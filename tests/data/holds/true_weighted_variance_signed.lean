import Pyfed

/-!
True: the weighted-variance identity with signed weights summing to 1 (three points; decided symbolically for every d).
-/

namespace SCAFFOLD.Variants

theorem WeightedVarianceSigned {d : ℕ} (w : Fin 3 → ℝ) (v : Fin 3 → Space d) (hw : ∑ i, w i = 1) :
    ∑ i, w i * ‖v i - ∑ j, w j • v j‖ ^ 2 = ∑ i, w i * ‖v i‖ ^ 2 - ‖∑ j, w j • v j‖ ^ 2 := by sorry

end SCAFFOLD.Variants
