import Pyfed

-- Test fixture: seed 000's convex statement with every binder before the colon and named
-- hypotheses (the other shape Lean users write).

open MeasureTheory

namespace SCAFFOLD.Fixtures

universe u

theorem ConvexBindersBefore {d N : ℕ} (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d)
    (hconv : Convexity P μ) (hmin : IsMinimizer P xstar) (hηl : 0 < ηl) (hηg : 1 ≤ ηg)
    (hstep : effectiveStep K ηl ηg ≤ 1 / (81 * P.β))
    (hμ : μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)))
    (A : Run P ν S K T ηl ηg (some c0)) :
    weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar := by
  sorry

end SCAFFOLD.Fixtures
