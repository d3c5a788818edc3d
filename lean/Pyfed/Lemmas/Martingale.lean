import Pyfed.Scaffold.Model

/-!
# Martingale-difference bound (SCAFFOLD Appendix B, Lemma 4; seed 002)

Simplifications relative to seed 002, each a faithful special case or an equivalent form:
* the finite filtration `ℱ₀ ⊆ … ⊆ ℱ_m` is a Mathlib `Filtration ℕ` (extend it constantly
  after `m`); the seed's index `j = 1..m` is written `j + 1` with `j < m`;
* `M_j = E[Z_j | ℱ_{j-1}]` is Mathlib's vector-valued conditional expectation, which for
  `ℝ^d` agrees a.e. with the coordinatewise scalar conditional expectations of the seed;
* integrability of `v_j` is written `MemLp (v j) 1 ν`.
-/

open MeasureTheory

namespace SCAFFOLD

/-- If `Z_{j+1}` is `ℱ_{j+1}`-measurable and in `L²`, `ξ = Z_{j+1} - E[Z_{j+1}|ℱ_j] ∈ L²`, and
`E[‖ξ‖² | ℱ_j] ≤ v_{j+1}` a.s. with `v_{j+1} ≥ 0` integrable and `ℱ_j`-measurable, then
`E‖∑ Z‖² ≤ 2 E‖∑ E[Z|ℱ]‖² + 2 ∑ E[v]`. -/
theorem MartingaleDifferenceBound {d m : ℕ} {Ω : Type*} [mΩ : MeasurableSpace Ω]
    {ν : Measure Ω} [IsProbabilityMeasure ν] (F : Filtration ℕ mΩ) (hm : 1 ≤ m)
    (Z : ℕ → Ω → Space d) (v : ℕ → Ω → ℝ)
    (hZ_adapted : ∀ j < m, StronglyMeasurable[F (j + 1)] (Z (j + 1)))
    (hZ_memLp : ∀ j < m, MemLp (Z (j + 1)) 2 ν)
    (hξ_memLp : ∀ j < m, MemLp (fun ω => Z (j + 1) ω - MeasureTheory.condExp (F j) ν (Z (j + 1)) ω) 2 ν)
    (hv_nonneg : ∀ j < m, ∀ ω, 0 ≤ v (j + 1) ω)
    (hv_memLp : ∀ j < m, MemLp (v (j + 1)) 1 ν)
    (hv_adapted : ∀ j < m, StronglyMeasurable[F j] (v (j + 1)))
    (hvar : ∀ j < m,
      MeasureTheory.condExp (F j) ν (fun ω => ‖Z (j + 1) ω - MeasureTheory.condExp (F j) ν (Z (j + 1)) ω‖ ^ 2)
        ≤ᵐ[ν] v (j + 1)) :
    ∫ ω, ‖∑ j ∈ Finset.range m, Z (j + 1) ω‖ ^ 2 ∂ν ≤
      2 * ∫ ω, ‖∑ j ∈ Finset.range m, MeasureTheory.condExp (F j) ν (Z (j + 1)) ω‖ ^ 2 ∂ν +
        2 * ∑ j ∈ Finset.range m, ∫ ω, v (j + 1) ω ∂ν := by sorry

end SCAFFOLD
