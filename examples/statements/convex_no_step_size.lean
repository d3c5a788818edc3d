import Pyfed

/-!
# The seed statement without its step-size hypothesis

`effectiveStep K ηl ηg ≤ 1 / (81 * P.β)` is dropped (the `μ h ≤ S/(15 N)` hypothesis stays, and
with μ = 0 it does not bound the step). It is false: gradient descent on one client `x²/2` with
h = 3/β doubles the distance to the minimiser every round. `pyfed check` searches steps beyond
1/(81 β), up to divergence, and finds it.
-/

open MeasureTheory

namespace SCAFFOLD.Examples

universe u

theorem ConvexWithoutStepSize :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar := by sorry

end SCAFFOLD.Examples
