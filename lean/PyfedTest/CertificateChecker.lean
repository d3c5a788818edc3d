import Pyfed

/-!
# Checking PEP certificates over ℚ

A PEP certificate (pyfed's `pyfed.engines.pep.certificate`) proves `metric ≤ τ · init` for all
vectors `v 0, …, v (n-1)` (the Gram basis: free points, x⋆, oracle gradients, controls) and
function values `F 0, …` satisfying the listed inequalities `I_k ≤ 0` (the interpolation
inequalities of the class of `L`-smooth `μ`-strongly convex functions, evaluated along the
method). Every quantity is a linear form in the inner products `⟪v a, v b⟫` and the values.

The certificate is the data `(τ, λ, Q, slack)` with forms over the `n` vectors and `nF` values
only and, coefficient by coefficient,
`τ · init - metric + ∑ₖ λₖ Iₖ = ⟨Q, Gram⟩ + slack`, `λ ≥ 0`, `slack ≥ 0` and `Q ⪰ 0`. `check`
decides this over ℚ (`Q ⪰ 0` by an LDLᵀ elimination without pivoting: nonnegative pivots, a zero
pivot only with a zero row); generated files evaluate it with `#guard`.

`check_sound` states what a user proves once: a certificate that checks implies the inequality.
It is stated, not proved (`sorry`), like pyfed's other statements. The link from "every function
of the class" to "vectors satisfying the inequalities" is the PEP model itself (necessity of the
interpolation inequalities), outside this file.
-/

namespace PyfedTest.Certificates

/-- A linear form: Gram coefficients `(a, b, c)` (`a ≤ b`, the coefficient of `⟪v a, v b⟫`),
function-value coefficients `(j, c)` and a constant. -/
structure LinForm where
  gram : List (ℕ × ℕ × ℚ)
  fval : List (ℕ × ℚ)
  const : ℚ

/-- A certificate of `metric ≤ tau * init` over `n` Gram vectors and `nF` function values. -/
structure Certificate where
  n : ℕ
  nF : ℕ
  tau : ℚ
  slack : ℚ
  metric : LinForm
  init : LinForm
  constraints : List (LinForm × ℚ)
  Q : List (List ℚ)

/-- Coefficient of `⟪v a, v b⟫` in a form. -/
def gramCoeff (f : LinForm) (a b : ℕ) : ℚ :=
  f.gram.foldl (fun s e => if e.1 == a && e.2.1 == b then s + e.2.2 else s) 0

/-- Coefficient of the value `F j` in a form. -/
def fvalCoeff (f : LinForm) (j : ℕ) : ℚ :=
  f.fval.foldl (fun s e => if e.1 == j then s + e.2 else s) 0

/-- A coefficient of `τ · init - metric + ∑ₖ λₖ Iₖ`, given the coefficient map of a form. -/
def residual (c : Certificate) (coeff : LinForm → ℚ) : ℚ :=
  c.constraints.foldl (fun s p => s + p.2 * coeff p.1) (c.tau * coeff c.init - coeff c.metric)

/-- Entry `(a, b)` of `Q` (0 outside). -/
def qEntry (c : Certificate) (a b : ℕ) : ℚ :=
  (c.Q.getD a []).getD b 0

/-- A form's entries name Gram vectors `a ≤ b < n` and values `j < nF`: an entry elsewhere would
escape the coefficient-by-coefficient identity below. -/
def formWellFormed (c : Certificate) (f : LinForm) : Bool :=
  f.gram.all (fun e => decide (e.1 ≤ e.2.1) && decide (e.2.1 < c.n)) &&
    f.fval.all (fun e => decide (e.1 < c.nF))

/-- The metric, the initial form and every constraint are well formed. -/
def formsWellFormed (c : Certificate) : Bool :=
  formWellFormed c c.metric && formWellFormed c c.init &&
    c.constraints.all (fun p => formWellFormed c p.1)

/-- Every multiplier is nonnegative. -/
def multipliersNonneg (c : Certificate) : Bool :=
  c.constraints.all (fun p => decide (0 ≤ p.2))

/-- `Q` is `n × n` and symmetric. -/
def qSymmetric (c : Certificate) : Bool :=
  c.Q.length == c.n && c.Q.all (fun r => r.length == c.n) &&
    (List.range c.n).all (fun a => (List.range c.n).all (fun b => qEntry c a b == qEntry c b a))

/-- The identity, coefficient by coefficient: Gram entries against `Q` (an off-diagonal entry
counts twice), function values zero, constant equal to the slack, slack nonnegative. -/
def identityHolds (c : Certificate) : Bool :=
  (List.range c.n).all (fun a => (List.range c.n).all (fun b =>
    if a ≤ b then
      residual c (fun f => gramCoeff f a b) == (if a == b then qEntry c a a else 2 * qEntry c a b)
    else true)) &&
  (List.range c.nF).all (fun j => residual c (fun f => fvalCoeff f j) == 0) &&
  residual c (fun f => f.const) == c.slack && decide (0 ≤ c.slack)

/-- One step of the LDLᵀ elimination on a symmetric matrix given by its rows: `none` when the
pivot is negative, or zero with a nonzero row; otherwise the Schur complement. -/
def schurStep : List (List ℚ) → Option (List (List ℚ))
  | [] => some []
  | row :: rest =>
    let d := row.headD 0
    if d < 0 then none
    else if d == 0 then
      (if row.all (fun x => x == 0) then some (rest.map List.tail) else none)
    else some (rest.map (fun r => List.zipWith (fun x y => x - r.headD 0 / d * y) r.tail row.tail))

/-- Positive semidefiniteness by LDLᵀ elimination (at most `fuel` steps; `fuel = n` suffices). -/
def psdByLDL : ℕ → List (List ℚ) → Bool
  | 0, _ => true
  | _, [] => true
  | fuel + 1, M =>
    match schurStep M with
    | none => false
    | some M' => psdByLDL fuel M'

/-- The whole check. -/
def check (c : Certificate) : Bool :=
  formsWellFormed c && multipliersNonneg c && qSymmetric c && identityHolds c && psdByLDL c.n c.Q

/-- A form evaluated at vectors `v` and values `F`. -/
noncomputable def LinForm.eval {d : ℕ} (f : LinForm) (v : ℕ → SCAFFOLD.Space d) (F : ℕ → ℝ) : ℝ :=
  (f.gram.map (fun e => (e.2.2 : ℝ) * inner ℝ (v e.1) (v e.2.1))).sum +
    (f.fval.map (fun e => (e.2 : ℝ) * F e.1)).sum + (f.const : ℝ)

/-- Soundness (stated for a user to prove once): a certificate that checks proves
`metric ≤ τ · init` at every family of vectors and values satisfying its inequalities. -/
theorem check_sound (c : Certificate) (hc : check c = true) {d : ℕ} (v : ℕ → SCAFFOLD.Space d)
    (F : ℕ → ℝ) (hI : ∀ p ∈ c.constraints, p.1.eval v F ≤ 0) :
    c.metric.eval v F ≤ (c.tau : ℝ) * c.init.eval v F := by sorry

end PyfedTest.Certificates
