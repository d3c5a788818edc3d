import Mathlib

/-!
# The SCAFFOLD model of seed 000

Definitions used by the formal statement `SCAFFOLD.ConvexFiniteRoundConvergence` of seed 000
("Lemma 15 consequence — Convex and strongly convex convergence"), with exactly the names that
statement uses, so that it elaborates against this file with only its import line changed.

Source: Karimireddy et al., *SCAFFOLD: Stochastic Controlled Averaging for Federated
Learning*, ICML 2020, arXiv:1910.06378v4: Algorithm 1 (PDF p. 4), Appendix E (PDF pp. 25–26,
equations (18)–(22)), Appendix E.1 (PDF p. 30, Lemma 15; p. 31, averaging display),
Appendix E.2 (PDF pp. 31 and 35, equations (26)–(27), warm start).

The arithmetic definitions (`effectiveStep`, `weight`, `weightSum`, `initialPotential`,
`convexRHS`, `nonconvexRHS`) are mirrored one for one by `pyfed.theory.bounds`
(`effective_step`, `weight`, `weight_sum`, `initial_potential`, `convex_rhs`,
`nonconvex_rhs`); `tests/test_lean_drift.py` parses this file and checks the two sides agree.
Keep each of those bodies in the plain arithmetic subset (`+ - * / ^ ⁻¹`, casts, numerals,
`∑ r ∈ Finset.range T, …`, applications of these definitions) that the drift parser reads.
-/

open MeasureTheory

noncomputable section

namespace SCAFFOLD

universe u

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

/-- Effective step `h = K ηl ηg` (Python: `pyfed.theory.effective_step`). -/
def effectiveStep (K : ℕ) (ηl ηg : ℝ) : ℝ :=
  (K : ℝ) * ηl * ηg

/-- Filtration index `τ_r = K + r (K + 1)` at which round `r` starts: the first `K` steps are
the warm-start oracle queries, then each round uses `K` oracle steps and one sampling step
(Python: `pyfed.theory.round_time`). -/
def roundTime (K r : ℕ) : ℕ :=
  K + r * (K + 1)

/-- Weight `w_r = (1 / (1 - μ h / 2))^(r+1)` of round `r` (Python: `pyfed.theory.weight`). -/
def weight (μ h : ℝ) (r : ℕ) : ℝ :=
  (1 / (1 - μ * h / 2)) ^ (r + 1)

/-- `W_T = ∑_{r<T} w_r` (Python: `pyfed.theory.weight_sum`). -/
def weightSum (μ h : ℝ) (T : ℕ) : ℝ :=
  ∑ r ∈ Finset.range T, weight μ h r

/-- `C₀ = N⁻¹ ∑ᵢ ‖cᵢ⁰ - ∇fᵢ(x⋆)‖²` (Python: `pyfed.theory.initial_control_error`). -/
def initialControlError {d N : ℕ} (P : Problem d N) (c0 : Fin N → Space d) (xstar : Space d) :
    ℝ :=
  (N : ℝ)⁻¹ * ∑ i, ‖c0 i - gradient (P.f i) xstar‖ ^ 2

/-- `V₀ = ‖x0 - x⋆‖² + 9 N h² / S · C₀`, from the numbers `distSq = ‖x0 - x⋆‖²` and `C0`
(Python: `pyfed.theory.initial_potential(dist_sq, C0, N, S, h)`). -/
def initialPotential (distSq C0 : ℝ) (N S : ℕ) (h : ℝ) : ℝ :=
  distSq + 9 * (N : ℝ) * h ^ 2 / (S : ℝ) * C0

/-- Right side of the convex theorem:
`V₀ / (h W_T) + 12 h σ² / (K S) · (1 + S / ηg²)` (Python: `pyfed.theory.convex_rhs`). -/
def convexRHS {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d)
    (xstar : Space d) : ℝ :=
  initialPotential (‖P.x0 - xstar‖ ^ 2) (initialControlError P c0 xstar) N S
      (effectiveStep K ηl ηg) /
      (effectiveStep K ηl ηg * weightSum μ (effectiveStep K ηl ηg) T) +
    12 * effectiveStep K ηl ηg * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2)

/-- Right side of the nonconvex theorem:
`14 (F(x0) - f_low) / (h T) + 70 β h σ² / (K S) · (1 + S / ηg²)`
(Python: `pyfed.theory.nonconvex_rhs` with `f_gap = F(x0) - f_low`). -/
def nonconvexRHS {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg f_low : ℝ) : ℝ :=
  14 * (objective P.f P.x0 - f_low) / (effectiveStep K ηl ηg * (T : ℝ)) +
    70 * P.β * effectiveStep K ηl ηg * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2)

/-- Initial client controls: `some c0` supplies deterministic controls; `none` is the warm
start, each `cᵢ⁰` being the average of `K` fresh oracle samples at `x0`. -/
abbrev Initialization (d N : ℕ) : Type := Option (Fin N → Space d)

/-- The control `C₀,ᵢ(ω)` prescribed by an initialization: `c0 i`, or `K⁻¹ ∑_{k<K} W_{k,i}(ω)`. -/
def startControl {d N : ℕ} {Ω : Type*} (init : Initialization d N) (K : ℕ)
    (W : ℕ → Fin N → Ω → Space d) (i : Fin N) (ω : Ω) : Space d :=
  match init with
  | some c0 => c0 i
  | none => (K : ℝ)⁻¹ • ∑ k ∈ Finset.range K, W k i ω

/-- A run of SCAFFOLD (option II, average-gradient form of Appendix E) on a probability space,
exactly as in seed 000's read-back. Warm samples `W k i`, server iterates `X r`, client
controls `C r i`, virtual paths `Y r k i` (all `N` clients), oracle samples `G r k i` and the
sampled set `I r`. With `τ_r = roundTime K r`:

* `W k i` is `ℱ (k+1)`-measurable, in `L²`, conditionally unbiased for `∇fᵢ(x0)` given `ℱ k`
  with conditional squared error `≤ σ²`, and conditionally independent across clients;
* `X r`, `C r i` (`r ≤ T`) are `ℱ τ_r`-measurable and in `L²`; `Y r k i` (`k ≤ K`) is
  `ℱ (τ_r + k)`-measurable and in `L²`; `G r k i` (`k < K`) is `ℱ (τ_r + k + 1)`-measurable, in
  `L²`, conditionally unbiased for `∇fᵢ(Y r k i)` given `ℱ (τ_r + k)` with conditional squared
  error `≤ σ²`, conditionally independent across clients;
* `|I r| = S` a.s.; `1{I r = B}` is `ℱ τ_{r+1}`-measurable and its conditional expectation
  given the completed virtual paths `ℱ (τ_r + K)` is `(N choose S)⁻¹` if `|B| = S`, else `0`;
* the initialization and update identities hold almost surely.

`condExp m ν f` is Mathlib's conditional expectation, written `ν[f|m]` in Mathlib's notation. -/
structure Run {d N : ℕ} (P : Problem d N) {Ω : Type u} [mΩ : MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν] (S K T : ℕ) (ηl ηg : ℝ)
    (init : Initialization d N) where
  sample_pos : 0 < S
  sample_le : S ≤ N
  steps_pos : 0 < K
  rounds_pos : 0 < T
  filtration : Filtration ℕ mΩ
  W : ℕ → Fin N → Ω → Space d
  X : ℕ → Ω → Space d
  C : ℕ → Fin N → Ω → Space d
  Y : ℕ → ℕ → Fin N → Ω → Space d
  G : ℕ → ℕ → Fin N → Ω → Space d
  I : ℕ → Ω → Finset (Fin N)
  warm_adapted : ∀ k < K, ∀ i : Fin N, StronglyMeasurable[filtration (k + 1)] (W k i)
  warm_memLp : ∀ k < K, ∀ i : Fin N, MemLp (W k i) 2 ν
  warm_unbiased : ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (filtration k) ν (W k i) =ᵐ[ν] fun _ => gradient (P.f i) P.x0
  warm_variance : ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (filtration k) ν (fun ω => ‖W k i ω - gradient (P.f i) P.x0‖ ^ 2)
      ≤ᵐ[ν] fun _ => P.σ ^ 2
  warm_indep : ∀ k < K,
    ProbabilityTheory.iCondIndepFun (filtration k) (filtration.le k) (fun i : Fin N => W k i) ν
  server_adapted : ∀ r ≤ T, StronglyMeasurable[filtration (roundTime K r)] (X r)
  server_memLp : ∀ r ≤ T, MemLp (X r) 2 ν
  control_adapted : ∀ r ≤ T, ∀ i : Fin N,
    StronglyMeasurable[filtration (roundTime K r)] (C r i)
  control_memLp : ∀ r ≤ T, ∀ i : Fin N, MemLp (C r i) 2 ν
  path_adapted : ∀ r < T, ∀ k ≤ K, ∀ i : Fin N,
    StronglyMeasurable[filtration (roundTime K r + k)] (Y r k i)
  path_memLp : ∀ r < T, ∀ k ≤ K, ∀ i : Fin N, MemLp (Y r k i) 2 ν
  grad_adapted : ∀ r < T, ∀ k < K, ∀ i : Fin N,
    StronglyMeasurable[filtration (roundTime K r + k + 1)] (G r k i)
  grad_memLp : ∀ r < T, ∀ k < K, ∀ i : Fin N, MemLp (G r k i) 2 ν
  grad_unbiased : ∀ r < T, ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (filtration (roundTime K r + k)) ν (G r k i)
      =ᵐ[ν] fun ω => gradient (P.f i) (Y r k i ω)
  grad_variance : ∀ r < T, ∀ k < K, ∀ i : Fin N,
    MeasureTheory.condExp (filtration (roundTime K r + k)) ν
        (fun ω => ‖G r k i ω - gradient (P.f i) (Y r k i ω)‖ ^ 2)
      ≤ᵐ[ν] fun _ => P.σ ^ 2
  grad_indep : ∀ r < T, ∀ k < K,
    ProbabilityTheory.iCondIndepFun (filtration (roundTime K r + k)) (filtration.le (roundTime K r + k))
      (fun i : Fin N => G r k i) ν
  sample_card : ∀ r < T, ∀ᵐ ω ∂ν, (I r ω).card = S
  sample_adapted : ∀ r < T, ∀ B : Finset (Fin N),
    StronglyMeasurable[filtration (roundTime K (r + 1))]
      (Set.indicator {ω | I r ω = B} fun _ => (1 : ℝ))
  sample_uniform : ∀ r < T, ∀ B : Finset (Fin N),
    MeasureTheory.condExp (filtration (roundTime K r + K)) ν (Set.indicator {ω | I r ω = B} fun _ => (1 : ℝ))
      =ᵐ[ν] fun _ => if B.card = S then ((Nat.choose N S : ℕ) : ℝ)⁻¹ else 0
  init_server : X 0 =ᵐ[ν] fun _ => P.x0
  init_controls : ∀ i : Fin N, C 0 i =ᵐ[ν] startControl init K W i
  path_start : ∀ r < T, ∀ i : Fin N, Y r 0 i =ᵐ[ν] X r
  path_step : ∀ r < T, ∀ i : Fin N, ∀ k < K,
    Y r (k + 1) i =ᵐ[ν] fun ω =>
      Y r k i ω - ηl • (G r k i ω - C r i ω + (N : ℝ)⁻¹ • ∑ j, C r j ω)
  control_update : ∀ r < T, ∀ i : Fin N,
    C (r + 1) i =ᵐ[ν] fun ω =>
      if i ∈ I r ω then (K : ℝ)⁻¹ • ∑ k ∈ Finset.range K, G r k i ω else C r i ω
  server_update : ∀ r < T,
    X (r + 1) =ᵐ[ν] fun ω => X r ω + (ηg / (S : ℝ)) • ∑ i ∈ I r ω, (Y r K i ω - X r ω)

section Statistics

variable {d N : ℕ} {P : Problem d N} {Ω : Type u} [MeasurableSpace Ω] [StandardBorelSpace Ω]
  {ν : Measure Ω} [IsProbabilityMeasure ν] {S K T : ℕ} {ηl ηg : ℝ} {init : Initialization d N}

/-- `E[F(X_r) - F(x⋆)] = ∫ (F(X_r ω) - F(x⋆)) dν`. -/
def expectedGap (A : Run P ν S K T ηl ηg init) (xstar : Space d) (r : ℕ) : ℝ :=
  ∫ ω, (objective P.f (A.X r ω) - objective P.f xstar) ∂ν

/-- `W_T⁻¹ ∑_{r<T} w_r E[F(X_r) - F(x⋆)]` with `h = effectiveStep K ηl ηg`: rounds
`0, …, T-1`, including `x0` and excluding `X_T`. -/
def weightedGap (A : Run P ν S K T ηl ηg init) (xstar : Space d) (μ : ℝ) : ℝ :=
  (weightSum μ (effectiveStep K ηl ηg) T)⁻¹ *
    ∑ r ∈ Finset.range T, weight μ (effectiveStep K ηl ηg) r * expectedGap A xstar r

/-- `T⁻¹ ∑_{r<T} E‖∇F(X_r)‖²`, the nonconvex statistic. -/
def averageGradientSq (A : Run P ν S K T ηl ηg init) : ℝ :=
  (T : ℝ)⁻¹ * ∑ r ∈ Finset.range T, ∫ ω, ‖gradient (objective P.f) (A.X r ω)‖ ^ 2 ∂ν

end Statistics

end SCAFFOLD

end
