import Pyfed

/-!
# The seed statement without its noise term

The right side keeps only `V₀ / (h W_T)` (written with the model's `initialPotential`,
`effectiveStep` and `weightSum`; binders before the colon). It is false: with noise (σ > 0),
a start at the minimiser (x0 = x⋆) and controls at the optimum's gradients (c0 i = ∇fᵢ(x⋆))
the right side is 0 while the noise moves the iterates, so the left side is positive.
`pyfed check` finds exactly that instance.
-/

open MeasureTheory

namespace SCAFFOLD.Examples

universe u

theorem ConvexWithoutNoiseTerm {d N : ℕ} (P : Problem d N) {Ω : Type u} [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d)
    (hconv : Convexity P μ) (hmin : IsMinimizer P xstar) (hηl : 0 < ηl) (hηg : 1 ≤ ηg)
    (hstep : effectiveStep K ηl ηg ≤ 1 / (81 * P.β))
    (hμ : μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)))
    (A : Run P ν S K T ηl ηg (some c0)) :
    weightedGap A xstar μ ≤
      initialPotential P S (effectiveStep K ηl ηg) c0 xstar /
        (effectiveStep K ηl ηg * weightSum μ (effectiveStep K ηl ηg) T) := by sorry

end SCAFFOLD.Examples
