"""Exact decisions of pyfed.statements.evaluate on values outside the certified-ball subset."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from pyfed.statements.evaluate import Undecided, decide_sign


def test_sign_of_a_value_no_ball_encloses_is_undecided_not_an_input_error():
    with pytest.raises(Undecided, match="not decidable"):
        decide_sign(sympy.I * sympy.pi)        # sympy's log of a negative number


def test_signs_that_are_decided():
    assert decide_sign(Fraction(-1, 3)) == -1
    assert decide_sign(sympy.log(2) - Fraction(69, 100)) == 1       # log 2 = 0.6931...
    assert decide_sign(sympy.sqrt(2) - sympy.sqrt(2)) == 0
