import Pyfed

/-!
# The uniform averaging lemma without its c η² term (a sequence lemma)

From `d (r+1) + a η q r ≤ d r + b η² + c η³` the average of `q` is at most
`d 0 / (a η R) + (b η + c η²) / a`. Dropping `c η²` makes it false: with `d` constant and
`c > 0` the recursion allows `q r = c η² / a` for every r while the right side is 0 (b = 0,
d 0 = 0). `pyfed check` finds the worst sequences for drawn scalars by a linear program and
re-decides them exactly.
-/

namespace SCAFFOLD.Examples

theorem UniformAveragingNoCTerm (R : ℕ) (hR : 1 ≤ R) (dist q : ℕ → ℝ) (a η b c : ℝ)
    (hd : ∀ r ≤ R, 0 ≤ dist r) (hq : ∀ r < R, 0 ≤ q r)
    (ha : 0 < a) (hη : 0 < η) (hb : 0 ≤ b) (hc : 0 ≤ c)
    (hrec : ∀ r < R, dist (r + 1) + a * η * q r ≤ dist r + b * η ^ 2 + c * η ^ 3) :
    (R : ℝ)⁻¹ * ∑ r ∈ Finset.range R, q r ≤ dist 0 / (a * η * (R : ℝ)) + b * η / a := by sorry

end SCAFFOLD.Examples
