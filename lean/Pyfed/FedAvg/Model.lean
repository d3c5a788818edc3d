import Mathlib.Analysis.Calculus.Gradient.Basic
import Mathlib.Analysis.Convex.Function
import Mathlib.Analysis.InnerProductSpace.PiL2
import Mathlib.Analysis.Normed.Lp.MeasurableSpace
import Mathlib.Analysis.SpecialFunctions.Pow.Real
import Mathlib.MeasureTheory.Function.L2Space
import Mathlib.Probability.Independence.Conditional
import Mathlib.Probability.Process.Adapted

/-!
# The FedAvg model of the Field Guide convergence theorem

Full-participation FedAvg (local SGD with periodic averaging) for `M` convex smooth clients, as
analysed in Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1,
Section 6.1 (PDF pp. 40–41: equations (11)–(14), Lemma 1, Lemma 2, Theorem 1 with equations
(15)–(17)) and Appendix D.1 (PDF pp. 86–87, the conditional independence used after
equation (27)).

Names, explicit arguments (in order) and structure fields (names and order) are those of the
published model (`prove2me/formalpedia`, `envs/c5ea003/Definitions/Def_FedAvg_Model.lean`), so
each published FedAvg statement elaborates against this file with only its import line changed
(`tests/test_lean_published.py` checks names, arities and fields).

Notation. Client `i`'s local iterate at round `t` after `k` local steps is `x t k i`
(`k ≤ τ`), its stochastic gradient `g t k i`; the step is `x t (k+1) i = x t k i - η g t k i`,
and every round after the first starts all clients at the previous round's terminal average.
The filtration index of local step `k` of round `t` is `t * τ + k`. The shadow iterate is
`x̄^{t,k} = M⁻¹ ∑ᵢ x t k i`; the round loss `A_t = τ⁻¹ ∑_{k=1}^{τ} (F(x̄^{t,k}) - F(x⋆))`; the
average loss `A = T⁻¹ ∑_{t<T} A_t`; `D = ‖x0 - x⋆‖`.

Arithmetic right sides (`driftRHS`, `convergenceRHS`, `optimizedStep`, `optimizedRHS`) are kept
in the arithmetic subset read by the drift parser (`pyfed/lean/drift.py`: `+ - * / ^ ⁻¹`,
casts, numerals, `min`, `Real.sqrt`, `Real.rpow`, `distance P`).
-/

open MeasureTheory

noncomputable section

namespace FedAvg

/-- The model space `ℝ^d` (Euclidean; `d = 0` allowed). -/
abbrev ModelSpace (d : ℕ) : Type := EuclideanSpace ℝ (Fin d)

/-- The uniform-weight global objective `F(x) = M⁻¹ ∑ᵢ Fᵢ(x)`. -/
def objective {d M : ℕ} (f : Fin M → ModelSpace d → ℝ) (x : ModelSpace d) : ℝ :=
  (M : ℝ)⁻¹ * ∑ i, f i x

/-- Problem data of the Field Guide theorem: `M > 0` convex clients `Fᵢ` with a gradient
everywhere and `L`-Lipschitz gradients (`L > 0`), the oracle noise level `σ ≥ 0`, the
heterogeneity bound `ζ ≥ 0` (`‖∇Fᵢ(x) - ∇F(x)‖ ≤ ζ` for all `i`, `x`), a deterministic start
`x0` and a minimizer `xstar` of `F`. -/
structure Problem (d M : ℕ) where
  clients_pos : 0 < M
  f : Fin M → ModelSpace d → ℝ
  L : ℝ
  σ : ℝ
  ζ : ℝ
  x0 : ModelSpace d
  xstar : ModelSpace d
  smoothness_pos : 0 < L
  noise_nonneg : 0 ≤ σ
  heterogeneity_nonneg : 0 ≤ ζ
  hasGradient : ∀ (i : Fin M) (x : ModelSpace d), HasGradientAt (f i) (gradient (f i) x) x
  convex : ∀ i : Fin M, ConvexOn ℝ Set.univ (f i)
  smooth : ∀ (i : Fin M) (x y : ModelSpace d),
    ‖gradient (f i) x - gradient (f i) y‖ ≤ L * ‖x - y‖
  heterogeneous : ∀ (i : Fin M) (x : ModelSpace d),
    ‖gradient (f i) x - gradient (objective f) x‖ ≤ ζ
  optimal : ∀ x : ModelSpace d, objective f xstar ≤ objective f x

/-- A run of full-participation FedAvg with `τ` local steps per round, `T` rounds and local
step `η`, on a standard Borel probability space `(Ω, μ)` with a filtration `history`:

* `x t k i` (`t < T`, `k ≤ τ`) is `history (t * τ + k)`-measurable and in `L²`;
* `g t k i` (`k < τ`) is `history (t * τ + k + 1)`-measurable, in `L²`, conditionally unbiased
  for `∇Fᵢ(x t k i)` given `history (t * τ + k)`, with conditional squared error `≤ σ²`, and the
  `M` clients' gradients are conditionally independent given `history (t * τ + k)`;
* every client starts at `x0` (surely); the local step and the synchronization (round `t + 1`
  starts every client at `M⁻¹ ∑ⱼ x t τ j`) hold almost surely.

`MeasureTheory.condExp m μ f` is Mathlib's conditional expectation `μ[f|m]`. -/
structure Run {d M : ℕ} {Ω : Type*} [mΩ : MeasurableSpace Ω] [StandardBorelSpace Ω]
    (P : Problem d M) (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ) (η : ℝ) where
  history : Filtration ℕ mΩ
  x : ℕ → ℕ → Fin M → Ω → ModelSpace d
  g : ℕ → ℕ → Fin M → Ω → ModelSpace d
  x_adapted : ∀ t < T, ∀ k ≤ τ, ∀ i : Fin M,
    StronglyMeasurable[history (t * τ + k)] (x t k i)
  x_squareIntegrable : ∀ t < T, ∀ k ≤ τ, ∀ i : Fin M, MemLp (x t k i) 2 μ
  g_adapted : ∀ t < T, ∀ k < τ, ∀ i : Fin M,
    StronglyMeasurable[history (t * τ + k + 1)] (g t k i)
  g_squareIntegrable : ∀ t < T, ∀ k < τ, ∀ i : Fin M, MemLp (g t k i) 2 μ
  unbiased : ∀ t < T, ∀ k < τ, ∀ i : Fin M,
    MeasureTheory.condExp (history (t * τ + k)) μ (g t k i)
      =ᵐ[μ] fun ω => gradient (P.f i) (x t k i ω)
  variance : ∀ t < T, ∀ k < τ, ∀ i : Fin M,
    MeasureTheory.condExp (history (t * τ + k)) μ
        (fun ω => ‖g t k i ω - gradient (P.f i) (x t k i ω)‖ ^ 2)
      ≤ᵐ[μ] fun _ => P.σ ^ 2
  independent : ∀ t < T, ∀ k < τ,
    ProbabilityTheory.iCondIndepFun (history (t * τ + k)) (history.le (t * τ + k)) (g t k) μ
  initial : ∀ (i : Fin M) (ω : Ω), x 0 0 i ω = P.x0
  local_update : ∀ t < T, ∀ k < τ, ∀ i : Fin M,
    x t (k + 1) i =ᵐ[μ] fun ω => x t k i ω - η • g t k i ω
  synchronize : ∀ t, t + 1 < T → ∀ i : Fin M,
    x (t + 1) 0 i =ᵐ[μ] fun ω => (M : ℝ)⁻¹ • ∑ j, x t τ j ω

section Statistics

variable {d M : ℕ} {Ω : Type*} [MeasurableSpace Ω] [StandardBorelSpace Ω] {P : Problem d M}
  {μ : Measure Ω} [IsProbabilityMeasure μ] {τ T : ℕ} {η : ℝ}

/-- Shadow iterate `x̄^{t,k}(ω) = M⁻¹ ∑ᵢ x t k i ω`. -/
def shadow (R : Run P μ τ T η) (t k : ℕ) (ω : Ω) : ModelSpace d :=
  (M : ℝ)⁻¹ • ∑ i, R.x t k i ω

/-- Round loss `A_t(ω) = τ⁻¹ ∑_{k=1}^{τ} (F(x̄^{t,k}(ω)) - F(x⋆))`: the shadow iterates after
each of the round's `τ` local steps. -/
def roundLoss (R : Run P μ τ T η) (t : ℕ) (ω : Ω) : ℝ :=
  (τ : ℝ)⁻¹ * ∑ k ∈ Finset.range τ,
    (objective P.f (shadow R t (k + 1) ω) - objective P.f P.xstar)

/-- Average loss `A(ω) = T⁻¹ ∑_{t<T} A_t(ω)`. -/
def avgLoss (R : Run P μ τ T η) (ω : Ω) : ℝ :=
  (T : ℝ)⁻¹ * ∑ t ∈ Finset.range T, roundLoss R t ω

end Statistics

/-- Initial distance `D = ‖x0 - x⋆‖`. -/
def distance {d M : ℕ} (P : Problem d M) : ℝ :=
  ‖P.x0 - P.xstar‖

section Statistics

variable {d M : ℕ} {Ω : Type*} [MeasurableSpace Ω] [StandardBorelSpace Ω] {P : Problem d M}
  {μ : Measure Ω} [IsProbabilityMeasure μ] {τ T : ℕ} {η : ℝ}

/-- `‖x̄^{t,k}(ω) - x⋆‖²`. -/
def shadowDistanceSq (R : Run P μ τ T η) (t k : ℕ) (ω : Ω) : ℝ :=
  ‖shadow R t k ω - P.xstar‖ ^ 2

/-- Client drift `‖x t k i ω - x̄^{t,k}(ω)‖²`. -/
def clientDriftSq (R : Run P μ τ T η) (t k : ℕ) (i : Fin M) (ω : Ω) : ℝ :=
  ‖R.x t k i ω - shadow R t k ω‖ ^ 2

/-- Progress part of Lemma 1's right side:
`(‖x̄^{t,0} - x⋆‖² - E[‖x̄^{t,τ} - x⋆‖² | ℱ_{tτ}]) / (2 η τ)`. -/
def progressTerm (R : Run P μ τ T η) (t : ℕ) (ω : Ω) : ℝ :=
  (shadowDistanceSq R t 0 ω -
      MeasureTheory.condExp (R.history (t * τ)) μ (shadowDistanceSq R t τ) ω) /
    (2 * η * (τ : ℝ))

/-- Noise and drift part of Lemma 1's right side:
`η σ² / M + L / (M τ) ∑ᵢ ∑_{k<τ} E[‖x t k i - x̄^{t,k}‖² | ℱ_{tτ}]`. -/
def deviationTerm (R : Run P μ τ T η) (t : ℕ) (ω : Ω) : ℝ :=
  η * P.σ ^ 2 / (M : ℝ) + P.L / ((M : ℝ) * (τ : ℝ)) *
    ∑ i, ∑ k ∈ Finset.range τ,
      MeasureTheory.condExp (R.history (t * τ)) μ (clientDriftSq R t k i) ω

/-- Lemma 1's right side, `progressTerm + deviationTerm`. -/
def progressRHS (R : Run P μ τ T η) (t : ℕ) (ω : Ω) : ℝ :=
  progressTerm R t ω + deviationTerm R t ω

end Statistics

/-- Lemma 2's right side `18 τ² η² ζ² + 4 τ η² σ²`. -/
def driftRHS {d M : ℕ} (P : Problem d M) (τ : ℕ) (η : ℝ) : ℝ :=
  18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2

/-- Theorem 1's right side, equation (15):
`D² / (2 η τ T) + η σ² / M + 4 τ η² L σ² + 18 τ² η² L ζ²`. -/
def convergenceRHS {d M : ℕ} (P : Problem d M) (τ T : ℕ) (η : ℝ) : ℝ :=
  distance P ^ 2 / (2 * η * (τ : ℝ) * (T : ℝ)) + η * P.σ ^ 2 / (M : ℝ) +
    4 * (τ : ℝ) * η ^ 2 * P.L * P.σ ^ 2 +
    18 * (τ : ℝ) ^ 2 * η ^ 2 * P.L * P.ζ ^ 2

/-- The tuned step of equation (16):
`min {1/(4L), √M D/(√τ √T σ), D^{2/3}/(τ^{2/3} T^{1/3} L^{1/3} σ^{2/3}),
D^{2/3}/(τ T^{1/3} L^{1/3} ζ^{2/3})}` (meaningful when `D, σ, ζ > 0`, as the tuned theorem
assumes). -/
def optimizedStep {d M : ℕ} (P : Problem d M) (τ T : ℕ) : ℝ :=
  min (1 / (4 * P.L))
    (min (Real.sqrt (M : ℝ) * distance P /
        (Real.sqrt (τ : ℝ) * Real.sqrt (T : ℝ) * P.σ))
      (min (Real.rpow (distance P) (2 / 3 : ℝ) /
          (Real.rpow (τ : ℝ) (2 / 3 : ℝ) * Real.rpow (T : ℝ) (1 / 3 : ℝ) *
            Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.σ (2 / 3 : ℝ)))
        (Real.rpow (distance P) (2 / 3 : ℝ) /
          ((τ : ℝ) * Real.rpow (T : ℝ) (1 / 3 : ℝ) *
            Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.ζ (2 / 3 : ℝ)))))

/-- The tuned bound of equation (17):
`2 L D² / (τ T) + 2 σ D / √(M τ T) + 5 L^{1/3} σ^{2/3} D^{4/3} / (τ^{1/3} T^{2/3})
+ 19 L^{1/3} ζ^{2/3} D^{4/3} / T^{2/3}`. -/
def optimizedRHS {d M : ℕ} (P : Problem d M) (τ T : ℕ) : ℝ :=
  2 * P.L * distance P ^ 2 / ((τ : ℝ) * (T : ℝ)) +
    2 * P.σ * distance P / Real.sqrt ((M : ℝ) * (τ : ℝ) * (T : ℝ)) +
    5 * Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.σ (2 / 3 : ℝ) *
        Real.rpow (distance P) (4 / 3 : ℝ) /
      (Real.rpow (τ : ℝ) (1 / 3 : ℝ) * Real.rpow (T : ℝ) (2 / 3 : ℝ)) +
    19 * Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.ζ (2 / 3 : ℝ) *
        Real.rpow (distance P) (4 / 3 : ℝ) / Real.rpow (T : ℝ) (2 / 3 : ℝ)

end FedAvg

end
