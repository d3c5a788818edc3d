"""The PEP's value domain (pyfed.engines.pep.forms): terms evaluated by the one evaluator into
exact linear forms in the Gram entries, hand-derived coefficients, and the refusals of what is
not such a form."""

from __future__ import annotations

from fractions import Fraction as Fr

import pytest

from pyfed.engines.pep.exact_pep import ExactPEP
from pyfed.engines.pep.forms import LinearForms, Norm
from pyfed.evaluation import Evaluator
from pyfed.lean.terms import parse_term


class Refused(Exception):
    pass


def forms(text, env):
    return Evaluator(LinearForms(Refused)).eval(parse_term(text), env)


def _points():
    pep = ExactPEP()
    return {"x": pep.new_leaf("x"), "y": pep.new_leaf("y"), "c": Fr(3)}


def test_squared_norms_and_inner_products_are_gram_forms():
    env = _points()
    # ‖x − y‖² = G00 − 2 G01 + G11
    f = forms("‖x - y‖ ^ 2", env)
    assert f.gram == {(0, 0): 1, (0, 1): -2, (1, 1): 1} and f.fval == {} and f.const == 0
    # c/2 ‖2x‖² + 1 = 6 G00 + 1 at c = 3
    g = forms("c / 2 * ‖2 • x‖ ^ 2 + 1", env)
    assert g.gram == {(0, 0): 6} and g.const == 1
    # a norm without a square is kept as c · ‖v‖ (compared through squares by the PEP row)
    n = forms("c * ‖x‖", env)
    assert isinstance(n, Norm) and n.c == 3 and n.v.coef == {0: 1}
    assert forms("(c * ‖x‖) ^ 2", env).gram == {(0, 0): 9}


@pytest.mark.parametrize("text, why", [
    ("‖x‖ ^ 2 * ‖y‖ ^ 2", "product of two non-constant terms"),
    ("1 / ‖x‖ ^ 2", "division by a non-constant term"),
    ("‖x‖ + ‖y‖", "without a square"),
    ("x + c", "a vector added to a scalar"),
    ("‖x‖ ^ 4", "a power other than"),
    ("‖x‖ ^ c", "exponent not a natural number"),
    ("‖x‖ ^ 2 ≤ c", "operator ≤ inside a side"),
    ("∃ z, z = x", "is not a linear form"),
])
def test_what_is_not_a_linear_form_is_refused_with_the_reason(text, why):
    with pytest.raises(Refused, match=why):
        forms(text, _points())
