import Pyfed

/-!
# The seed statement restricted to partial participation with noise

Seed 000's convex finite-round statement (`SCAFFOLD.ConvexFiniteRoundConvergence`, Karimireddy et
al., SCAFFOLD, arXiv:1910.06378v4, Appendix E.1, Lemma 15 and the averaging display on PDF p. 31)
with two more hypotheses, `S < N` and `0 < P.σ`: the deterministic full-participation regime is
excluded, so `pyfed check` solves its PEP row at σ > 0 with S = 1 of N = 2 clients (the
expectation relaxation over the subset sequences) and certifies it exactly.
-/

open MeasureTheory

namespace SCAFFOLD.Examples

universe u

theorem PartialNoisyConvex :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → S < N → 0 < P.σ → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar := by sorry

end SCAFFOLD.Examples
