import Pyfed

/-!
# Statements about Local SGD (Stich, *Local SGD Converges Fast and Communicates Little*), false and
true

Test data of the search by optimisation (`tests/test_models_runfree_space.py`): the procedure
`localSGD` with its binders (`sync : Finset ℕ`, the gradients `grads`, the index draws) and Stich's
one-step lemma.
-/

open MeasureTheory

namespace SearchTests

open SCAFFOLD

/-- False: without averaging (`sync = ∅`) two workers that draw different clients drift apart.
Two clients with gradients x ↦ x - 1 and x ↦ x + 1, step 1/2, workers 0 and 1 drawing clients 0 and
1, x0 = 0: after one step the workers are at 1/2 and -1/2, squared distance 1 > 0. -/
theorem LocalSGDNoSyncTogether {d n workers b : ℕ} (grads : Fin n → Space d → Space d)
    (η : ℕ → ℝ) (draws : ℕ → Fin workers → Fin b → Fin n) (x0 : Space d) (t : ℕ)
    (k l : Fin workers) :
    ‖localSGD grads η ∅ draws x0 t k - localSGD grads η ∅ draws x0 t l‖ ^ 2 ≤ 0 := by sorry

/-- True: at a synchronisation step every worker holds the same average. -/
theorem LocalSGDSyncedTogether {d n workers b : ℕ} (grads : Fin n → Space d → Space d)
    (η : ℕ → ℝ) (sync : Finset ℕ) (draws : ℕ → Fin workers → Fin b → Fin n) (x0 : Space d) (t : ℕ)
    (ht : t ∈ sync) (k l : Fin workers) :
    ‖localSGD grads η sync draws x0 t k - localSGD grads η sync draws x0 t l‖ ^ 2 ≤ 0 := by sorry

/-- False: a synchronisation at step t says nothing about step t + 1. Witness: the clients and
draws of `LocalSGDNoSyncTogether`, sync = {1}, t = 1: the workers meet at 0 after the first step and
part to 1/2 and -1/2 after the second. -/
theorem LocalSGDSyncedNextStep {d n workers b : ℕ} (grads : Fin n → Space d → Space d)
    (η : ℕ → ℝ) (sync : Finset ℕ) (draws : ℕ → Fin workers → Fin b → Fin n) (x0 : Space d) (t : ℕ)
    (ht : t ∈ sync) (k l : Fin workers) :
    ‖localSGD grads η sync draws x0 (t + 1) k - localSGD grads η sync draws x0 (t + 1) l‖ ^ 2 ≤ 0 := by sorry

/-- False only on non-quadratic functions: Stich's one-step lemma (Lemma 3.1) without the drift term
`2ηL/K ∑ₖ E‖x̄ - xᵏ‖²` (on quadratics the mean gradient is the gradient at the mean). Witness:
one client f(x) = x²/2 + max(0, x)²/2 (L = 2, μ = 1, x⋆ = 0), η = 1/8, two workers at 2 and -2 with
exact gradients (one outcome): x̄ = 0 and ḡ = (4 - 2)/2 = 1, so the left side is ‖-1/8‖² = 1/64
and the right side (1 - 1/8)·0 + 0 - (1/16)·0 = 0. -/
theorem LocalSGDOneStepNoDrift {d n workers : ℕ} {Ω : Type*} [mΩ : MeasurableSpace Ω]
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
      (1 - μ * η) * ∫ ω, ‖workerMean (fun k => x k ω) - xstar‖ ^ 2 ∂ν +
        η ^ 2 * ∫ ω, ‖workerMean (fun k => g k ω) -
          workerMean (fun k => gradient (objective fs) (x k ω))‖ ^ 2 ∂ν -
        η / 2 * ∫ ω, (objective fs (workerMean (fun k => x k ω)) - objective fs xstar) ∂ν := by sorry

/-- True: Stich's one-step lemma with the drift term's constant 2 raised to 3 (a weaker claim). -/
theorem LocalSGDOneStepWeaker {d n workers : ℕ} {Ω : Type*} [mΩ : MeasurableSpace Ω]
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
      (1 - μ * η) * ∫ ω, ‖workerMean (fun k => x k ω) - xstar‖ ^ 2 ∂ν +
        η ^ 2 * ∫ ω, ‖workerMean (fun k => g k ω) -
          workerMean (fun k => gradient (objective fs) (x k ω))‖ ^ 2 ∂ν -
        η / 2 * ∫ ω, (objective fs (workerMean (fun k => x k ω)) - objective fs xstar) ∂ν +
        3 * η * L / (workers : ℝ) *
          ∑ k, ∫ ω, ‖workerMean (fun l => x l ω) - x k ω‖ ^ 2 ∂ν := by sorry

end SearchTests
