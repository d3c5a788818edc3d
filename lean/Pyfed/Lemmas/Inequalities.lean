import Pyfed.Scaffold.Model

/-!
# Elementary vector inequalities (seed 002)

`RelaxedTriangle`, `YoungInner`, `SumSquares`: seed 002, "For vectors u, v ∈ ℝ^d and a > 0 …"
(SCAFFOLD Appendix B, Lemmas 1–3 style facts). Proofs are left to `sorry`; pyfed's checkers
test them exactly on rational vectors.
-/

namespace SCAFFOLD

/-- Relaxed triangle inequality: `‖u + v‖² ≤ (1 + a)‖u‖² + (1 + a⁻¹)‖v‖²` for `a > 0`. -/
theorem RelaxedTriangle {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    ‖u + v‖ ^ 2 ≤ (1 + a) * ‖u‖ ^ 2 + (1 + a⁻¹) * ‖v‖ ^ 2 := by sorry

/-- Young's inequality for the inner product: `2 |⟪u, v⟫| ≤ a ‖u‖² + a⁻¹ ‖v‖²` for `a > 0`. -/
theorem YoungInner {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    2 * |inner ℝ u v| ≤ a * ‖u‖ ^ 2 + a⁻¹ * ‖v‖ ^ 2 := by sorry

/-- Sum of squares: `‖∑_{j<m} u_j‖² ≤ m ∑_{j<m} ‖u_j‖²` for `m ≥ 1` vectors. -/
theorem SumSquares {d m : ℕ} (hm : 1 ≤ m) (u : Fin m → Space d) :
    ‖∑ j, u j‖ ^ 2 ≤ (m : ℝ) * ∑ j, ‖u j‖ ^ 2 := by sorry

/-- Nonexpansiveness of a gradient step (seed 002; cf. SCAFFOLD Appendix C, Lemma 6): for a
convex differentiable `h` with `β`-Lipschitz gradient, `β > 0`, and `0 ≤ η ≤ 2/β`,
`‖x - y - η (∇h(x) - ∇h(y))‖ ≤ ‖x - y‖`. Convexity is stated in first-order form
`h x + ⟪∇h(x), y - x⟫ ≤ h y` (equivalent for differentiable `h`). -/
theorem GradientStepNonexpansive {d : ℕ} (h : Space d → ℝ) (β : ℝ) (hβ : 0 < β)
    (hgrad : ∀ x : Space d, HasGradientAt h (gradient h x) x)
    (hconv : ∀ x y : Space d, h x + inner ℝ (gradient h x) (y - x) ≤ h y)
    (hsmooth : ∀ x y : Space d, ‖gradient h x - gradient h y‖ ≤ β * ‖x - y‖)
    (η : ℝ) (hη0 : 0 ≤ η) (hη : η ≤ 2 / β) (x y : Space d) :
    ‖x - y - η • (gradient h x - gradient h y)‖ ≤ ‖x - y‖ := by sorry

end SCAFFOLD
