"""pyfed.exact: rationals stay rationals, floats and irrationals go to mpmath, never mixed."""

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy

from pyfed.errors import InputError, check_finite_array, check_global_step, check_int, check_participation
from pyfed.exact import all_exact, coerce, compare, to_fraction, to_mpf


def test_to_fraction_accepts_rational_types():
    import flint
    assert to_fraction(3) == 3
    assert to_fraction(np.int64(-2)) == -2
    assert to_fraction("1/81") == F(1, 81)
    assert to_fraction(sympy.Rational(2, 7)) == F(2, 7)
    assert to_fraction(flint.fmpq(5, 9)) == F(5, 9)
    assert to_fraction(0.5) is None  # floats are inexact by policy
    assert to_fraction(sympy.sqrt(2)) is None


def test_coerce_modes():
    vals, ex = coerce([1, "2/3", F(1, 5)])
    assert ex and all(isinstance(v, F) for v in vals)
    vals, ex = coerce([1, 0.1])
    assert not ex and all(isinstance(v, mpmath.mpf) for v in vals)
    assert vals[1] == mpmath.mpf(0.1)  # the float converted exactly, not re-rounded
    with pytest.raises(ValueError):
        coerce([0.1], exact=True)
    assert all_exact([1, [F(1, 2), 3]]) and not all_exact([1, [0.5]])


def test_irrational_sympy_to_mpf():
    with mpmath.workdps(60):
        assert abs(to_mpf(sympy.sqrt(2), 60) - mpmath.sqrt(2)) < mpmath.mpf(10) ** -55


def test_compare_is_exact():
    assert compare(0.1, F(1, 10)) == -1  # the double 0.1 is slightly above 1/10
    assert compare(F(1, 3), F(1, 3)) == 0
    assert compare(1, 2) == 1


def test_validators_name_the_argument():
    with pytest.raises(InputError, match="^S:"):
        check_participation(3, 4)
    with pytest.raises(InputError, match="^S:"):
        check_participation(3, 0)
    with pytest.raises(InputError, match="^K:"):
        check_int("K", 0, minimum=1)
    with pytest.raises(InputError, match="^K:"):
        check_int("K", 1.5)
    with pytest.raises(InputError, match="^eta_g:"):
        check_global_step(F(1, 2))
    with pytest.raises(InputError, match="NaN"):
        check_finite_array("X", [1.0, float("nan")])


def test_verdict_with_a_float_side_never_reports_an_exact_margin():
    from pyfed.verdicts import Holds
    v = Holds("X", lhs=0.5, rhs=F(1, 3))
    assert isinstance(v.margin, float) and isinstance(v.ratio, float)
    assert "exact" not in v.to_json()["margin"]
    w = Holds("X", lhs=F(1, 5), rhs=F(1, 3), exact=True)
    assert w.margin == F(2, 15) and w.to_json()["ratio"]["exact"] == "3/5"


def test_quadratic_problem_input_errors_name_the_argument():
    from pyfed.problems import QuadraticProblem, random_quadratic
    with pytest.raises(InputError, match="^A:"):
        QuadraticProblem([[["1/0"]]], [[0]])
    with pytest.raises(InputError, match="^mu:"):
        random_quadratic(2, 2, 0, mu=2, L=1)


def test_mpf_to_fraction_keeps_the_sign_of_negative_numbers():
    # mpmath's man_exp drops the sign (mpf(-0.75).man_exp == (3, -2)); the conversion must not
    import mpmath
    from fractions import Fraction
    from pyfed.exact import compare, fraction_of, mpf_to_fraction
    assert mpf_to_fraction(mpmath.mpf(-0.75)) == Fraction(-3, 4)
    assert mpf_to_fraction(mpmath.mpf(0.75)) == Fraction(3, 4)
    assert mpf_to_fraction(mpmath.mpf(-5)) == -5
    assert mpf_to_fraction(mpmath.mpf(0)) == 0
    assert fraction_of(mpmath.mpf("-0.5")) == Fraction(-1, 2)
    # an exact comparison of a negative mpf against zero: -1/2 < 0
    assert compare(mpmath.mpf("-0.5"), 0) == 1
