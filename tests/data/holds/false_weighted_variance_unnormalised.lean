import Pyfed

/-!
False: the weighted-variance identity without the weights summing to 1.
-/

namespace SCAFFOLD.Variants

theorem WeightedVarianceUnnormalised {d : ℕ} (w : Fin 3 → ℝ) (v : Fin 3 → Space d) :
    ∑ i, w i * ‖v i - ∑ j, w j • v j‖ ^ 2 = ∑ i, w i * ‖v i‖ ^ 2 - ‖∑ j, w j • v j‖ ^ 2 := by sorry

end SCAFFOLD.Variants
