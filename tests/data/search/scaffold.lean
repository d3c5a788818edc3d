import Pyfed

/-!
# Statements about a SCAFFOLD run (seed-000 model), false and true

Test data of the search by optimisation (`tests/test_models_scaffold_space.py`). Each false
statement's docstring gives the counterexample the test checks by hand.
-/

open MeasureTheory

namespace SCAFFOLD.SearchTests

universe u

/-- False only at a global step above 100: the step hypothesis bounds ηl alone, and with one
client, one local step and no noise the run is gradient descent with step h = ηl ηg. Witness:
f(x) = x²/2 (β = 1), ηl = 1/100, ηg = 190 (h = 19/10), T = 2, x0 = 1, c0 = 0: the weighted gap is
(1/2 + 81/200)/2 = 181/400 and the right side 1/(h T) = 5/19. For ηg ≤ 100, h ≤ 1/β and the
statement holds (`GlobalStepBounded`). -/
theorem GlobalStepUnbounded :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    N = 1 → K = 1 → P.σ = 0 → Convexity P 0 → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    ηl * P.β ≤ 1 / 100 →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar 0 ≤ convexRHS P S K T ηl ηg 0 c0 xstar := by sorry

/-- True: the same with ηg ≤ 100, so h = ηl ηg ≤ 1/β (gradient descent: f(x0) − f⋆ ≤ β D²/2 ≤ D²/(2h)
and the losses after each step sum to at most D²/(2h)). -/
theorem GlobalStepBounded :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    N = 1 → K = 1 → P.σ = 0 → Convexity P 0 → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg → ηg ≤ 100 →
    ηl * P.β ≤ 1 / 100 →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar 0 ≤ convexRHS P S K T ηl ηg 0 c0 xstar := by sorry

/-- False only on non-quadratic clients: one gradient step with h = 1/β. On a quadratic the gap
after one step is at most (2/27) β ‖x0 − x⋆‖² < β ‖x0 − x⋆‖²/8. Witness: N = 1, d = 1, the Huber
function f = H_{1/3} (β = 1), x0 = 1, ηl = ηg = 1, K = T = 1: x1 = 2/3 and f(x1) = 1/6 > 1/8. -/
theorem OneStepEighth :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    N = 1 → K = 1 → 1 ≤ T → P.σ = 0 → Convexity P 0 → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg = 1 / P.β →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      expectedGap A xstar 1 ≤ P.β * ‖P.x0 - xstar‖ ^ 2 / 8 := by sorry

/-- True: the same with 1/6, the exact worst case of one gradient step with h = 1/β over smooth
convex functions (Taylor, Hendrickx & Glineur 2017, Thm 2: β R²/(4N + 2) at N = 1), attained by a
Huber function. -/
theorem OneStepSixth :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    N = 1 → K = 1 → 1 ≤ T → P.σ = 0 → Convexity P 0 → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg = 1 / P.β →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      expectedGap A xstar 1 ≤ P.β * ‖P.x0 - xstar‖ ^ 2 / 6 := by sorry

/-- False only with many local steps: the step hypothesis bounds ηl, not K ηl. With one client, no
noise and ηg = 1 the run makes K gradient steps per round while the right side's h = K ηl grows.
Witness: f(x) = x²/2, ηl = 1/8, K = 24 (h = 3), T = 1, x0 = 1, c0 = 0: the weighted gap is f(x0) = 1/2
and the right side 1/(h T) = 1/3. -/
theorem ManyLocalSteps :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    N = 1 → P.σ = 0 → Convexity P 0 → IsMinimizer P xstar → 0 < ηl → ηg = 1 →
    ηl * P.β ≤ 1 / 8 →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar 0 ≤ convexRHS P S K T ηl ηg 0 c0 xstar := by sorry

/-- True: the same with K ≤ 8, so h = K ηl ≤ 1/β (K gradient steps of size ηl per round: the
losses at the round starts are at most the average of the losses along the local path). -/
theorem FewLocalSteps :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    N = 1 → K ≤ 8 → P.σ = 0 → Convexity P 0 → IsMinimizer P xstar → 0 < ηl → ηg = 1 →
    ηl * P.β ≤ 1 / 8 →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar 0 ≤ convexRHS P S K T ηl ηg 0 c0 xstar := by sorry

/-- False: the seed's convex bound divided by 4 (the theorem's constants are not that loose).
Witness: N = 1, d = 1, f(x) = x²/2 (β = 1, μ = 1/2 taken as 0), x0 = 1, c0 = 0, σ = 0, K = T = 1,
ηl = ηg = 1 (h = 1): the weighted gap is f(x0) = 1/2 and the right side ‖x0‖²/(h·1)/4 = 1/4. -/
theorem SeedQuarterBound :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / P.β →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar / 4 := by sorry

end SCAFFOLD.SearchTests
