import Pyfed

/-!
# Stich's one-step lemma without the noise term (a Local SGD step)

Lemma 3.1 of Stich (*Local SGD Converges Fast and Communicates Little*) bounds the averaged
iterate's next distance to the minimiser. Without `η² E‖g − ḡ‖²` it is false: with every worker
at the minimiser the other terms vanish while noisy gradients still move the average. `pyfed
check` draws a finite probability space, workers at the minimiser and gradients of conditional
mean ∇f (from the statement's own hypothesis), and decides the expectations exactly.
-/

open MeasureTheory

namespace SCAFFOLD.Examples

theorem LocalSGDOneStepNoNoise {d n workers : ℕ} {Ω : Type*} [mΩ : MeasurableSpace Ω]
    {ν : Measure Ω} [IsProbabilityMeasure ν] (F : Filtration ℕ mΩ)
    (fs : Fin n → Space d → ℝ) (L μ : ℝ) (xstar : Space d)
    (hgrad : ∀ x : Space d, HasGradientAt (objective fs) (gradient (objective fs) x) x)
    (hsmooth : ∀ x y : Space d,
      ‖gradient (objective fs) x - gradient (objective fs) y‖ ≤ L * ‖x - y‖)
    (hstrong : ∀ x y : Space d, objective fs x + inner ℝ (gradient (objective fs) x) (y - x) +
      μ / 2 * ‖y - x‖ ^ 2 ≤ objective fs y)
    (hμ : 0 < μ) (hμL : μ ≤ L) (hmin : ∀ x : Space d, objective fs xstar ≤ objective fs x)
    (hworkers : 0 < workers) (t : ℕ) (η : ℝ) (hη0 : 0 < η) (hη : η ≤ 1 / (4 * L))
    (x g : Fin workers → Ω → Space d) (xnext : Ω → Space d)
    (hx_adapted : ∀ k, StronglyMeasurable[F t] (x k)) (hx_memLp : ∀ k, MemLp (x k) 2 ν)
    (hg_memLp : ∀ k, MemLp (g k) 2 ν)
    (hg_unbiased : ∀ k, MeasureTheory.condExp (F t) ν (g k) =ᵐ[ν] fun ω => gradient (objective fs) (x k ω))
    (hstep : xnext =ᵐ[ν] fun ω => workerMean (fun k => x k ω) - η • workerMean (fun k => g k ω)) :
    ∫ ω, ‖xnext ω - xstar‖ ^ 2 ∂ν ≤
      (1 - μ * η) * ∫ ω, ‖workerMean (fun k => x k ω) - xstar‖ ^ 2 ∂ν -
        η / 2 * ∫ ω, (objective fs (workerMean (fun k => x k ω)) - objective fs xstar) ∂ν +
        2 * η * L / (workers : ℝ) *
          ∑ k, ∫ ω, ‖workerMean (fun l => x l ω) - x k ω‖ ^ 2 ∂ν := by sorry

end SCAFFOLD.Examples
