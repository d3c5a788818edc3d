import Mathlib.Analysis.Calculus.Gradient.Basic
import Mathlib.Analysis.InnerProductSpace.PiL2
import Mathlib.Analysis.Normed.Lp.MeasurableSpace
import Mathlib.Analysis.SpecialFunctions.Pow.Real
import Mathlib.MeasureTheory.Function.L2Space
import Mathlib.Probability.Independence.Conditional
import Mathlib.Probability.Process.Adapted

/-!
# The SCAFFOLD model

The objects of the SCAFFOLD finite-round statements (namespace `SCAFFOLD`): the problem, the
run of option II on a probability space, the weights and the right-hand sides.

Interoperability: every declaration here has the name, the explicit arguments (in the same
order), the structure fields (same names, same order) and the mathematics of the published
model that seed 000 is stated against (`prove2me/formalpedia`, `envs/c5ea003`,
`Definitions/Def_SCAFFOLD_Model.lean`), so that each published SCAFFOLD statement elaborates
against this file with only its import line changed. `tests/test_lean_published.py` checks the
names, arities and field lists.

Source: Karimireddy et al., *SCAFFOLD: Stochastic Controlled Averaging for Federated
Learning*, ICML 2020, arXiv:1910.06378v4: Algorithm 1 (PDF p. 4), Appendix B.1 (PDF p. 14,
assumptions A3–A5), Appendix E (PDF pp. 25–26, equations (18)–(22)), Appendix E.1 (PDF p. 30,
Lemma 15; p. 31, averaging display), Appendix E.2 (PDF p. 34, Lemma 19, the source of the
nonconvex constants 14 and 70; PDF pp. 31 and 35, equations (26)–(27), warm start).

The arithmetic definitions (`effectiveStep`, `roundTime`, `weight`, `weightSum`,
`initialPotential`, `convexRHS`, `nonconvexRHS`) are mirrored by `pyfed.theory.bounds`
(`effective_step`, `round_time`, `weight`, `weight_sum`, `initial_potential`, `convex_rhs`,
`nonconvex_rhs`); `tests/test_lean_drift.py` parses this file and checks the two sides agree.
Keep each of those bodies in the arithmetic subset the drift parser reads (`+ - * / ^ ⁻¹`,
casts, numerals, `∑ r ∈ Finset.range T, …`, `let x := …` on its own line, applications of these
definitions).
-/

open MeasureTheory

noncomputable section

namespace SCAFFOLD

/-- The model space `ℝ^d` with its Euclidean inner product and norm (`d = 0` allowed). -/
abbrev Space (d : ℕ) : Type := EuclideanSpace ℝ (Fin d)

/-- The equal-client objective `F(x) = N⁻¹ ∑ᵢ fᵢ(x)`. -/
def objective {d N : ℕ} (f : Fin N → Space d → ℝ) (x : Space d) : ℝ :=
  (N : ℝ)⁻¹ * ∑ i, f i x

/-- Problem data: `N > 0` clients with losses `fᵢ : ℝ^d → ℝ` that have a gradient everywhere,
`β`-Lipschitz gradients (`β > 0`), a noise level `σ ≥ 0` and a deterministic start `x0`. -/
structure Problem (d N : ℕ) where
  clients_pos : 0 < N
  f : Fin N → Space d → ℝ
  β : ℝ
  σ : ℝ
  x0 : Space d
  smoothness_pos : 0 < β
  noise_nonneg : 0 ≤ σ
  hasGradient : ∀ (i : Fin N) (x : Space d), HasGradientAt (f i) (gradient (f i) x) x
  smooth : ∀ (i : Fin N) (x y : Space d),
    ‖gradient (f i) x - gradient (f i) y‖ ≤ β * ‖x - y‖

/-- `μ ≥ 0` and every client loss is `μ`-strongly convex in first-order form:
`fᵢ(x) + ⟪∇fᵢ(x), y - x⟫ + μ/2 ‖y - x‖² ≤ fᵢ(y)` (`μ = 0`: plain convexity). -/
def Convexity {d N : ℕ} (P : Problem d N) (μ : ℝ) : Prop :=
  0 ≤ μ ∧ ∀ (i : Fin N) (x y : Space d),
    P.f i x + inner ℝ (gradient (P.f i) x) (y - x) + μ / 2 * ‖y - x‖ ^ 2 ≤ P.f i y

/-- `xstar` minimizes the equal-client objective (not necessarily uniquely). -/
def IsMinimizer {d N : ℕ} (P : Problem d N) (xstar : Space d) : Prop :=
  ∀ x : Space d, objective P.f xstar ≤ objective P.f x

/-- Initial client controls: `some c0` supplies deterministic controls; `none` is the warm
start, each `cᵢ⁰` being the average of `K` fresh oracle samples at `x0`. -/
abbrev Initialization (d N : ℕ) : Type := Option (Fin N → Space d)

/-- Filtration index `τ_r = K + r (K + 1)` at which round `r` starts: the first `K` steps are
the warm-start oracle queries, then each round uses `K` oracle steps and one sampling step
(Python: `pyfed.theory.round_time`). -/
def roundTime (K r : ℕ) : ℕ :=
  K + r * (K + 1)

/-- Effective step `h = K ηl ηg` (Python: `pyfed.theory.effective_step`). -/
def effectiveStep (K : ℕ) (ηl ηg : ℝ) : ℝ :=
  (K : ℝ) * ηl * ηg

/-- A run of SCAFFOLD (option II, in the average-gradient form of Appendix E) on a standard
Borel probability space `(Ω, ν)` with a filtration `history`. Random objects: warm-start
samples `warm k i`, server iterates `x r`, client controls `c r i`, virtual local paths
`y r k i` of all `N` clients, oracle samples `g r k i` and the sampled client set `sample r`.
With `τ_r = roundTime K r`:

* `warm k i` (`k < K`) is `history (k+1)`-measurable, in `L²`, conditionally unbiased for
  `∇fᵢ(x0)` given `history k` with conditional squared error `≤ σ²`, and the `N` clients'
  samples are conditionally independent given `history k`;
* `x r`, `c r i` (`r ≤ T`) are `history τ_r`-measurable and in `L²`; `y r k i` (`r < T`,
  `k ≤ K`) is `history (τ_r + k)`-measurable and in `L²`; `g r k i` (`k < K`) is
  `history (τ_r + k + 1)`-measurable, in `L²`, conditionally unbiased for `∇fᵢ(y r k i)` given
  `history (τ_r + k)` with conditional squared error `≤ σ²`, conditionally independent across
  clients;
* `|sample r| = S` almost surely; the indicator of `{sample r = A}` is
  `history τ_{r+1}`-measurable and its conditional expectation given the completed virtual
  paths `history (τ_r + K)` is `(N choose S)⁻¹` when `|A| = S` and `0` otherwise;
* the initialization (`x 0 = x0`; `c 0 i = c0 i`, or the average of the warm samples) and
  the update identities (local step, control update of the sampled clients, server step with
  global step `ηg`) hold almost surely.

`MeasureTheory.condExp m ν f` is Mathlib's conditional expectation `ν[f|m]`. -/
structure Run {d N : ℕ} {Ω : Type*} [mΩ : MeasurableSpace Ω] [StandardBorelSpace Ω]
    (P : Problem d N) (ν : Measure Ω) [IsProbabilityMeasure ν] (S K T : ℕ) (ηl ηg : ℝ)
    (init : Initialization d N) where
  sample_pos : 0 < S
  sample_le : S ≤ N
  steps_pos : 0 < K
  rounds_pos : 0 < T
  history : Filtration ℕ mΩ
  warm : ℕ → Fin N → Ω → Space d
  x : ℕ → Ω → Space d
  c : ℕ → Fin N → Ω → Space d
  y : ℕ → ℕ → Fin N → Ω → Space d
  g : ℕ → ℕ → Fin N → Ω → Space d
  sample : ℕ → Ω → Finset (Fin N)
  warm_adapted : ∀ k < K, ∀ i : Fin N, StronglyMeasurable[history (k + 1)] (warm k i)
  warm_memLp : ∀ k < K, ∀ i : Fin N, MemLp (warm k i) 2 ν
  warm_unbiased : ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (history k) ν (warm k i) =ᵐ[ν] fun _ => gradient (P.f i) P.x0
  warm_variance : ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (history k) ν (fun ω => ‖warm k i ω - gradient (P.f i) P.x0‖ ^ 2)
      ≤ᵐ[ν] fun _ => P.σ ^ 2
  warm_independent : ∀ k < K,
    ProbabilityTheory.iCondIndepFun (history k) (history.le k) (warm k) ν
  x_adapted : ∀ r ≤ T, StronglyMeasurable[history (roundTime K r)] (x r)
  x_memLp : ∀ r ≤ T, MemLp (x r) 2 ν
  c_adapted : ∀ r ≤ T, ∀ i : Fin N, StronglyMeasurable[history (roundTime K r)] (c r i)
  c_memLp : ∀ r ≤ T, ∀ i : Fin N, MemLp (c r i) 2 ν
  y_adapted : ∀ r < T, ∀ k ≤ K, ∀ i : Fin N,
    StronglyMeasurable[history (roundTime K r + k)] (y r k i)
  y_memLp : ∀ r < T, ∀ k ≤ K, ∀ i : Fin N, MemLp (y r k i) 2 ν
  g_adapted : ∀ r < T, ∀ k < K, ∀ i : Fin N,
    StronglyMeasurable[history (roundTime K r + k + 1)] (g r k i)
  g_memLp : ∀ r < T, ∀ k < K, ∀ i : Fin N, MemLp (g r k i) 2 ν
  unbiased : ∀ r < T, ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (history (roundTime K r + k)) ν (g r k i)
      =ᵐ[ν] fun ω => gradient (P.f i) (y r k i ω)
  variance : ∀ r < T, ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (history (roundTime K r + k)) ν
        (fun ω => ‖g r k i ω - gradient (P.f i) (y r k i ω)‖ ^ 2)
      ≤ᵐ[ν] fun _ => P.σ ^ 2
  independent : ∀ r < T, ∀ k < K,
    ProbabilityTheory.iCondIndepFun (history (roundTime K r + k))
      (history.le (roundTime K r + k)) (g r k) ν
  sample_card : ∀ r < T, ∀ᵐ ω ∂ν, (sample r ω).card = S
  sample_adapted : ∀ r < T, ∀ A : Finset (Fin N),
    StronglyMeasurable[history (roundTime K (r + 1))]
      (fun ω => if sample r ω = A then (1 : ℝ) else 0)
  sample_uniform : ∀ r < T, ∀ A : Finset (Fin N),
    MeasureTheory.condExp (history (roundTime K r + K)) ν
        (fun ω => if sample r ω = A then (1 : ℝ) else 0)
      =ᵐ[ν] fun _ => if A.card = S then ((Nat.choose N S : ℕ) : ℝ)⁻¹ else 0
  initial_x : x 0 =ᵐ[ν] fun _ => P.x0
  initial_c : ∀ i : Fin N, c 0 i =ᵐ[ν] fun ω =>
    match init with
    | some c0 => c0 i
    | none => (K : ℝ)⁻¹ • ∑ k ∈ Finset.range K, warm k i ω
  start : ∀ r < T, ∀ i : Fin N, y r 0 i =ᵐ[ν] x r
  local_update : ∀ r < T, ∀ k < K, ∀ i : Fin N,
    y r (k + 1) i =ᵐ[ν] fun ω =>
      y r k i ω - ηl • (g r k i ω - c r i ω + (N : ℝ)⁻¹ • ∑ j, c r j ω)
  control_update : ∀ r < T, ∀ i : Fin N,
    c (r + 1) i =ᵐ[ν] fun ω =>
      if i ∈ sample r ω then (K : ℝ)⁻¹ • ∑ k ∈ Finset.range K, g r k i ω else c r i ω
  server_update : ∀ r < T,
    x (r + 1) =ᵐ[ν] fun ω => x r ω + (ηg / (S : ℝ)) • ∑ i ∈ sample r ω, (y r K i ω - x r ω)

/-- `C₀ = N⁻¹ ∑ᵢ ‖cᵢ⁰ - ∇fᵢ(x⋆)‖²` (Python: `pyfed.theory.initial_control_error`). -/
def initialControlError {d N : ℕ} (P : Problem d N) (c0 : Fin N → Space d) (xstar : Space d) :
    ℝ :=
  (N : ℝ)⁻¹ * ∑ i, ‖c0 i - gradient (P.f i) xstar‖ ^ 2

/-- `V₀ = ‖x0 - x⋆‖² + 9 N h² / S · C₀` (Python: `pyfed.theory.initial_potential(dist_sq, C0,
N, S, h)` with `dist_sq = ‖P.x0 - xstar‖²` and `C0 = initialControlError P c0 xstar`). -/
def initialPotential {d N : ℕ} (P : Problem d N) (S : ℕ) (h : ℝ) (c0 : Fin N → Space d)
    (xstar : Space d) : ℝ :=
  ‖P.x0 - xstar‖ ^ 2 + 9 * (N : ℝ) * h ^ 2 / (S : ℝ) * initialControlError P c0 xstar

/-- Weight `w_r = (1 - μ h / 2)⁻¹ ^ (r+1)` of round `r` (Python: `pyfed.theory.weight`). -/
def weight (μ h : ℝ) (r : ℕ) : ℝ :=
  (1 - μ * h / 2)⁻¹ ^ (r + 1)

/-- `W_T = ∑_{r<T} w_r` (Python: `pyfed.theory.weight_sum`). -/
def weightSum (μ h : ℝ) (T : ℕ) : ℝ :=
  ∑ r ∈ Finset.range T, weight μ h r

section Statistics

variable {d N : ℕ} {Ω : Type*} [MeasurableSpace Ω] [StandardBorelSpace Ω] {P : Problem d N}
  {ν : Measure Ω} [IsProbabilityMeasure ν] {S K T : ℕ} {ηl ηg : ℝ} {init : Initialization d N}

/-- `E[F(x_r) - F(x⋆)] = ∫ (F(x_r ω) - F(x⋆)) dν`. -/
def expectedGap (A : Run P ν S K T ηl ηg init) (xstar : Space d) (r : ℕ) : ℝ :=
  ∫ ω, (objective P.f (A.x r ω) - objective P.f xstar) ∂ν

/-- `W_T⁻¹ ∑_{r<T} w_r E[F(x_r) - F(x⋆)]` with `h = effectiveStep K ηl ηg`: rounds
`0, …, T-1`, including `x0` and excluding `x_T`. -/
def weightedGap (A : Run P ν S K T ηl ηg init) (xstar : Space d) (μ : ℝ) : ℝ :=
  (weightSum μ (effectiveStep K ηl ηg) T)⁻¹ *
    ∑ r ∈ Finset.range T, weight μ (effectiveStep K ηl ηg) r * expectedGap A xstar r

/-- `T⁻¹ ∑_{r<T} E‖∇F(x_r)‖²`, the nonconvex statistic. -/
def averageGradientSq (A : Run P ν S K T ηl ηg init) : ℝ :=
  (T : ℝ)⁻¹ * ∑ r ∈ Finset.range T, ∫ ω, ‖gradient (objective P.f) (A.x r ω)‖ ^ 2 ∂ν

end Statistics

/-- Right side of the convex theorem:
`V₀ / (h W_T) + 12 h σ² / (K S) · (1 + S / ηg²)` with `h = K ηl ηg`
(Python: `pyfed.theory.convex_rhs`). -/
def convexRHS {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d)
    (xstar : Space d) : ℝ :=
  let h := effectiveStep K ηl ηg
  initialPotential P S h c0 xstar / (h * weightSum μ h T) +
    12 * h * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2)

/-- Right side of the nonconvex theorem:
`14 (F(x0) - fLower) / (h T) + 70 β h σ² / (K S) · (1 + S / ηg²)` with `h = K ηl ηg`; the
constants 14 and 70 are those of SCAFFOLD Appendix E.2, Lemma 19 (PDF p. 34), summed over the
rounds as in equations (26)–(27) (PDF p. 31) (Python: `pyfed.theory.nonconvex_rhs` with
`f_gap = F(x0) - fLower`). -/
def nonconvexRHS {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg fLower : ℝ) : ℝ :=
  let h := effectiveStep K ηl ηg
  14 * (objective P.f P.x0 - fLower) / (h * (T : ℝ)) +
    70 * P.β * h * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2)

end SCAFFOLD

end
