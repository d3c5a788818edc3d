import Pyfed

/-!
False: Lemma 5 with μ/2 in place of μ/4.
-/

namespace SCAFFOLD.Variants

theorem PerturbedHalf :
  ∀ (d N : ℕ) (P : Problem d N) (μ : ℝ), Convexity P μ →
    ∀ (i : Fin N) (x y z : Space d),
      P.f i z - P.f i y + μ / 2 * ‖y - z‖ ^ 2 - P.β * ‖z - x‖ ^ 2 ≤
        inner ℝ (gradient (P.f i) x) (z - y) := by sorry

end SCAFFOLD.Variants
