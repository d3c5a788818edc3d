import Pyfed.Scaffold.Model
import Pyfed.FedAvg.Model
import Mathlib.Data.Rat.BigOperators
import Mathlib.Tactic.NormNum
import Mathlib.Tactic.Ring

/-!
# Computable ℚ mirrors of the arithmetic definitions

`effectiveStepQ`, `weightQ`, `weightSumQ`, `initialPotentialQ`, `convexRHSQ`, `nonconvexRHSQ`
compute over `ℚ`, so the generated test library (`lean/PyfedTest/Generated`) can check exact
values with `norm_num` and `#guard`. The `*_cast` theorems say that the cast to `ℝ` of each
mirror is the corresponding real definition of `Pyfed.Scaffold.Model`. A real definition that
reads numbers from a `Problem` (`‖P.x0 - xstar‖²`, `initialControlError P c0 xstar`, `P.σ`,
`P.β`, `objective P.f P.x0 - fLower`) has a mirror taking those numbers as rationals, and the
cast theorem takes an equation saying what each stands for: `initialPotentialQ distSq C0 N S h`
mirrors `initialPotential P S h c0 xstar`, `convexRHSQ distSq C0 N S K T ηl ηg μ σ` mirrors
`convexRHS P S K T ηl ηg μ c0 xstar`, `nonconvexRHSQ fGap β S K T ηl ηg σ` mirrors
`nonconvexRHS P S K T ηl ηg fLower`.

Namespace `FedAvg` (Field Guide, Section 6.1.2) has two mirrors: `driftRHSQ τ η σSq ζSq`
mirrors `driftRHS P τ η` and `convergenceRHSQ distSq M τ T η L σSq ζSq` mirrors
`convergenceRHS P τ T η`. They take the squares `σSq = σ²`, `ζSq = ζ²` and `distSq = D²`
(the right sides use only these, and a certified `ζ` is a square root in general, while `ζ²` is
rational), and their cast theorems take equations saying what each stands for. The tuned step
and bound (`optimizedStep`, `optimizedRHS`) take roots and have no ℚ mirror.

The tactic imports (`norm_num`, `ring`) serve these proofs and the generated test files, which
import `Pyfed` only. The cast theorems are not checker statements: `tests/test_lean_drift.py`
covers them (it checks each mirror against both its real definition and `pyfed.theory`).
-/

namespace SCAFFOLD

/-- `h = K ηl ηg` over `ℚ`. -/
def effectiveStepQ (K : ℕ) (ηl ηg : ℚ) : ℚ :=
  (K : ℚ) * ηl * ηg

/-- `w_r = (1 - μ h / 2)⁻¹ ^ (r+1)` over `ℚ`. -/
def weightQ (μ h : ℚ) (r : ℕ) : ℚ :=
  (1 - μ * h / 2)⁻¹ ^ (r + 1)

/-- `W_T = ∑_{r<T} w_r` over `ℚ`. -/
def weightSumQ (μ h : ℚ) (T : ℕ) : ℚ :=
  ∑ r ∈ Finset.range T, weightQ μ h r

/-- `V₀ = distSq + 9 N h² / S · C0` over `ℚ`. -/
def initialPotentialQ (distSq C0 : ℚ) (N S : ℕ) (h : ℚ) : ℚ :=
  distSq + 9 * (N : ℚ) * h ^ 2 / (S : ℚ) * C0

/-- The convex right side over `ℚ`, from `distSq = ‖x0 - x⋆‖²`, `C0` and `σ`. -/
def convexRHSQ (distSq C0 : ℚ) (N S K T : ℕ) (ηl ηg μ σ : ℚ) : ℚ :=
  initialPotentialQ distSq C0 N S (effectiveStepQ K ηl ηg) /
      (effectiveStepQ K ηl ηg * weightSumQ μ (effectiveStepQ K ηl ηg) T) +
    12 * effectiveStepQ K ηl ηg * σ ^ 2 / ((K : ℚ) * (S : ℚ)) * (1 + (S : ℚ) / ηg ^ 2)

/-- The nonconvex right side over `ℚ`, from `fGap = F(x0) - fLower`, `β` and `σ`. -/
def nonconvexRHSQ (fGap β : ℚ) (S K T : ℕ) (ηl ηg σ : ℚ) : ℚ :=
  14 * fGap / (effectiveStepQ K ηl ηg * (T : ℚ)) +
    70 * β * effectiveStepQ K ηl ηg * σ ^ 2 / ((K : ℚ) * (S : ℚ)) * (1 + (S : ℚ) / ηg ^ 2)

/-! The cast proofs below unfold the definitions and move the casts to the leaves with
`push_cast`; `ring` closes what is left (numerals or cast instances reached by different
instance paths). Where a sum is involved, the first alternative keeps the sum behind the
already-proved cast lemma of its mirror, so that no two sums have to be compared as `ring`
atoms; the second alternative unfolds everything. The two cast lemmas without a sum fall back
on rewriting with the named `Rat.cast_*` lemmas (`Mathlib/Data/Rat/Cast/Defs.lean`,
`CharZero.lean`, `Lemmas.lean`), after which the two sides agree up to the instance path of the
casts, which `rfl` (default transparency) accepts. Each alternative ends in `done`, so an
alternative that leaves a goal open falls through to the next one. -/

theorem effectiveStepQ_cast (K : ℕ) (ηl ηg : ℚ) :
    ((effectiveStepQ K ηl ηg : ℚ) : ℝ) = effectiveStep K (ηl : ℝ) (ηg : ℝ) := by
  first
  | simp only [effectiveStepQ, effectiveStep]
    (try push_cast)
    (try ring)
    done
  | simp only [effectiveStepQ, effectiveStep, Rat.cast_mul, Rat.cast_natCast]
    (try rfl)
    done

theorem weightQ_cast (μ h : ℚ) (r : ℕ) :
    ((weightQ μ h r : ℚ) : ℝ) = weight (μ : ℝ) (h : ℝ) r := by
  first
  | simp only [weightQ, weight]
    (try push_cast)
    (try ring)
    done
  | simp only [weightQ, weight, Rat.cast_pow, Rat.cast_inv, Rat.cast_sub, Rat.cast_one,
      Rat.cast_div, Rat.cast_mul, Rat.cast_ofNat]
    (try rfl)
    done

theorem weightSumQ_cast (μ h : ℚ) (T : ℕ) :
    ((weightSumQ μ h T : ℚ) : ℝ) = weightSum (μ : ℝ) (h : ℝ) T := by
  first
  | simp only [weightSumQ, weightSum, Rat.cast_sum, weightQ_cast]
    done
  | simp only [weightSumQ, weightSum]
    (try push_cast [weightQ_cast])
    done
  | simp only [weightSumQ, weightSum, weightQ, weight]
    (try push_cast)
    (try ring)
    done

theorem initialPotentialQ_cast {d N : ℕ} (P : Problem d N) (S : ℕ) (h : ℚ)
    (c0 : Fin N → Space d) (xstar : Space d) (distSq C0 : ℚ)
    (hdist : (distSq : ℝ) = ‖P.x0 - xstar‖ ^ 2)
    (hC0 : (C0 : ℝ) = initialControlError P c0 xstar) :
    ((initialPotentialQ distSq C0 N S h : ℚ) : ℝ) = initialPotential P S (h : ℝ) c0 xstar := by
  first
  | rw [initialPotential, ← hdist, ← hC0, initialPotentialQ]
    (try push_cast)
    (try ring)
    done
  | simp only [initialPotentialQ, initialPotential]
    (try push_cast)
    rw [hdist, hC0]
    (try ring)
    done

theorem convexRHSQ_cast {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg μ : ℚ)
    (c0 : Fin N → Space d) (xstar : Space d) (distSq C0 σ : ℚ)
    (hdist : (distSq : ℝ) = ‖P.x0 - xstar‖ ^ 2)
    (hC0 : (C0 : ℝ) = initialControlError P c0 xstar) (hσ : (σ : ℝ) = P.σ) :
    ((convexRHSQ distSq C0 N S K T ηl ηg μ σ : ℚ) : ℝ) =
      convexRHS P S K T (ηl : ℝ) (ηg : ℝ) (μ : ℝ) c0 xstar := by
  first
  | simp only [convexRHS, ← hσ, ← effectiveStepQ_cast, ← weightSumQ_cast,
      ← initialPotentialQ_cast P S _ c0 xstar distSq C0 hdist hC0, convexRHSQ]
    (try push_cast)
    (try ring)
    done
  | simp only [convexRHSQ, convexRHS, initialPotentialQ, initialPotential, effectiveStepQ,
      effectiveStep, weightSumQ, weightSum, weightQ, weight]
    (try push_cast)
    rw [hdist, hC0, hσ]
    (try ring)
    done

theorem nonconvexRHSQ_cast {d N : ℕ} (P : Problem d N) (S K T : ℕ) (ηl ηg : ℚ)
    (fLower : ℝ) (fGap β σ : ℚ) (hgap : (fGap : ℝ) = objective P.f P.x0 - fLower)
    (hβ : (β : ℝ) = P.β) (hσ : (σ : ℝ) = P.σ) :
    ((nonconvexRHSQ fGap β S K T ηl ηg σ : ℚ) : ℝ) =
      nonconvexRHS P S K T (ηl : ℝ) (ηg : ℝ) fLower := by
  first
  | simp only [nonconvexRHS, ← hgap, ← hβ, ← hσ, ← effectiveStepQ_cast, nonconvexRHSQ]
    (try push_cast)
    (try ring)
    done
  | simp only [nonconvexRHSQ, nonconvexRHS, effectiveStepQ, effectiveStep]
    (try push_cast)
    rw [hgap, hβ, hσ]
    (try ring)
    done

end SCAFFOLD

namespace FedAvg

/-- Lemma 2's right side `18 τ² η² ζ² + 4 τ η² σ²` over `ℚ`, from `σSq = σ²` and `ζSq = ζ²`. -/
def driftRHSQ (τ : ℕ) (η σSq ζSq : ℚ) : ℚ :=
  18 * (τ : ℚ) ^ 2 * η ^ 2 * ζSq + 4 * (τ : ℚ) * η ^ 2 * σSq

/-- Theorem 1's right side (equation (15)) over `ℚ`, from `distSq = D²`, `L`, `σSq = σ²` and
`ζSq = ζ²`. -/
def convergenceRHSQ (distSq : ℚ) (M τ T : ℕ) (η L σSq ζSq : ℚ) : ℚ :=
  distSq / (2 * η * (τ : ℚ) * (T : ℚ)) + η * σSq / (M : ℚ) +
    4 * (τ : ℚ) * η ^ 2 * L * σSq +
    18 * (τ : ℚ) ^ 2 * η ^ 2 * L * ζSq

theorem driftRHSQ_cast {d M : ℕ} (P : Problem d M) (τ : ℕ) (η σSq ζSq : ℚ)
    (hσ : (σSq : ℝ) = P.σ ^ 2) (hζ : (ζSq : ℝ) = P.ζ ^ 2) :
    ((driftRHSQ τ η σSq ζSq : ℚ) : ℝ) = driftRHS P τ (η : ℝ) := by
  first
  | rw [driftRHS, ← hσ, ← hζ, driftRHSQ]
    (try push_cast)
    (try ring)
    done
  | simp only [driftRHSQ, driftRHS]
    (try push_cast)
    rw [hσ, hζ]
    (try ring)
    done

theorem convergenceRHSQ_cast {d M : ℕ} (P : Problem d M) (τ T : ℕ) (η distSq L σSq ζSq : ℚ)
    (hdist : (distSq : ℝ) = distance P ^ 2) (hL : (L : ℝ) = P.L)
    (hσ : (σSq : ℝ) = P.σ ^ 2) (hζ : (ζSq : ℝ) = P.ζ ^ 2) :
    ((convergenceRHSQ distSq M τ T η L σSq ζSq : ℚ) : ℝ) = convergenceRHS P τ T (η : ℝ) := by
  first
  | rw [convergenceRHS, ← hdist, ← hL, ← hσ, ← hζ, convergenceRHSQ]
    (try push_cast)
    (try ring)
    done
  | simp only [convergenceRHSQ, convergenceRHS]
    (try push_cast)
    rw [hdist, hL, hσ, hζ]
    (try ring)
    done

end FedAvg
