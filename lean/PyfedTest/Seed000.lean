import Pyfed

/-!
Seed 000's formal statement, verbatim between the markers below, elaborated against pyfed's
definitions: only its import line is changed (`import Definitions.Def_SCAFFOLD_Model` becomes
`import Pyfed`), and it is wrapped in the namespace `SCAFFOLD.PyfedTestSeed000` so that it does
not clash with `SCAFFOLD.ConvexFiniteRoundConvergence` of `lean/Pyfed/Scaffold/Theorems.lean`; the
seed's `namespace SCAFFOLD` block then opens `SCAFFOLD.PyfedTestSeed000.SCAFFOLD`, so its
unqualified names resolve through the enclosing namespace `SCAFFOLD` to pyfed's, exactly as in the
seed's own file. `lake test` building this file is the check that the seed statement elaborates;
`tests/test_lean_seed.py` checks that the text between the markers equals the statement in
`Theorems.lean`.
-/

namespace SCAFFOLD.PyfedTestSeed000

-- seed 000 preamble (minus the import)
open MeasureTheory
universe u

-- BEGIN seed 000 formal statement
namespace SCAFFOLD
theorem ConvexFiniteRoundConvergence :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar := by sorry
end SCAFFOLD
-- END seed 000 formal statement

end SCAFFOLD.PyfedTestSeed000
