"""pyfed.models.scaffold.constants: compact no-closed-form notes, never cut mid-number."""

from fractions import Fraction

import pytest
import sympy

from pyfed.models.scaffold.constants import _compact_expr, _solve_side
from pyfed.statements.evaluate import Undecided



def test_no_closed_form_note_is_compact():
    c = sympy.Symbol("c")
    expr = (sympy.Integer(710440501680448312373867446272) * sympy.Max(0, sympy.Min(sympy.Rational(2, 27), sympy.sqrt(c)))
            - 1721376484959835301)
    assert _compact_expr(expr, c) == "~7.10441e+29*Max(0,Min(0.0740741,c**0.5))-1.72138e+18"
    with pytest.raises(Undecided) as exc:
        _solve_side(expr, c, Fraction(2), "rhs")
    assert str(exc.value) == ("no closed-form threshold for the constant in "
                              "~7.10441e+29*Max(0,Min(0.0740741,c**0.5))-1.72138e+18")
    # too long even rounded: the functions it applies, never a number cut off
    long = sympy.Max(0, sympy.Min(sympy.Rational(1, 3), sympy.sqrt(c))) + sum(c ** k / (k + 7) for k in range(2, 12))
    assert _compact_expr(long, c) == "an expression in c with Max, Min, sqrt"


def test_a_left_out_1_is_said_to_be_what_it_is():
    from pyfed.models.scaffold.constants import skipped_numerals
    from pyfed import read_text

    text = ("import Pyfed\n\nnamespace SCAFFOLD.Mine\n\n"
            "theorem T {d : ℕ} (u v : Space d) (a b : ℝ) (ha : 0 < a) (hb : b ≤ 1 / (81 * a)) :\n"
            "    ‖u + v‖ ^ 2 ≤ (1 + a) * ‖u‖ ^ 2 + (1 + a⁻¹) * ‖v‖ ^ 2 := by sorry\n\nend SCAFFOLD.Mine\n")
    (st,) = read_text(text, "t.lean")
    whys = {s["location"]: s["why"] for s in skipped_numerals(st)}
    line = text.splitlines()[5]
    first = f"t.lean:6:{line.index('(1 + a)') + 2}"
    assert whys[first].startswith("1, a summand of `(1 + a)`")
    assert "numerator" not in " ".join(whys.values())      # no reciprocal on the right side
    assert all("e.g. the 1 of 1 + S" not in w for w in whys.values())
