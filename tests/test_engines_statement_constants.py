"""pyfed.engines.statement.constants: compact no-closed-form notes, never cut mid-number."""

from fractions import Fraction

import pytest
import sympy

from pyfed.engines.statement.constants import _compact_expr, _solve_side
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
