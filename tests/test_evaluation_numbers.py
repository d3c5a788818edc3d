"""Lean's arithmetic on every kind of number (pyfed.evaluation.numbers): hand-derived values of
Lean's conventions, the unification of arithmetics, and exact sign decisions."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from flint import arb

from pyfed.evaluation.numbers import (
    EvaluationError,
    Undecided,
    arith,
    compare,
    decide_sign,
    lean_div,
    lean_log,
    lean_minmax,
    lean_rpow,
    lean_sqrt,
    nat_arith,
)


def test_lean_conventions_by_hand():
    # ℕ: truncated subtraction, floor division, x / 0 = 0, x % 0 = x
    assert nat_arith("-", 2, 3) == 0 and nat_arith("/", 7, 2) == 3 and nat_arith("/", 7, 0) == 0
    assert nat_arith("%", 7, 0) == 7 and nat_arith("%", 7, 3) == 1
    # ℝ: x / 0 = 0 in every arithmetic
    assert lean_div(Fraction(3), Fraction(0)) == 0
    assert lean_div(arb(3), Fraction(0)) == 0
    assert lean_div(Fraction(3, 4), Fraction(1, 2)) == Fraction(3, 2)
    with pytest.raises(Undecided):
        lean_div(Fraction(1), arb(0, 1e-3))          # a ball containing 0 is not known to be 0
    # Real.log is log |x| with log 0 = 0 (Mathlib: Real.log_zero, Real.log_abs)
    assert lean_log(Fraction(0)) == 0
    assert lean_log(Fraction(-2)) == sympy.log(2)
    # Real.rpow: integral exponents exactly, 0 ^ y = 0 for y ≠ 0, a negative base refused
    assert lean_rpow(Fraction(2, 3), Fraction(2)) == Fraction(4, 9)
    assert lean_rpow(Fraction(4), Fraction(-1)) == Fraction(1, 4)
    assert lean_rpow(Fraction(8), Fraction(1, 3)) == 2                 # a perfect cube: back to a rational
    assert lean_rpow(Fraction(0), Fraction(1, 2)) == 0 and lean_rpow(Fraction(0), Fraction(0)) == 1
    assert lean_rpow(Fraction(2), Fraction(1, 2)) == sympy.sqrt(2)
    with pytest.raises(EvaluationError):
        lean_rpow(Fraction(-8), Fraction(1, 3))


def test_min_max_of_every_mix_of_number_types():
    third, half_mpf = Fraction(1, 3), mpmath.mpf("0.5")
    # exact and mpmath: decided exactly, the chosen input itself (the Fraction stays exact)
    assert lean_minmax("min", third, half_mpf, None) == third
    assert type(lean_minmax("min", third, half_mpf, None)) is Fraction
    assert lean_minmax("max", third, half_mpf, None) is half_mpf
    # exact irrational and rational
    assert lean_minmax("min", sympy.sqrt(2), Fraction(3, 2), None) == sympy.sqrt(2)
    assert lean_minmax("max", sympy.sqrt(2), Fraction(3, 2), None) == Fraction(3, 2)
    # irrational and mpmath: sqrt(2) = 1.41421356... against the mpf 1.4142135 (exact binary value)
    assert lean_minmax("max", sympy.sqrt(2), mpmath.mpf("1.4142135"), None) == sympy.sqrt(2)
    # a ball and a Fraction: a certified ball of the min, also when they overlap
    m = lean_minmax("min", arb(1, 0.5), Fraction(6, 5), None)       # [1/2, 3/2] and 6/5 overlap
    assert isinstance(m, arb) and m.contains(arb(1) / 2) and m.contains(arb(6) / 5) and m.rad() < 0.36
    assert lean_minmax("max", arb(2), Fraction(1, 3), None).contains(2)
    # symbolic (the PEP's and the profile's unknowns): sympy's Max
    x = sympy.Symbol("x")
    assert lean_minmax("max", x, Fraction(1, 2), None) == sympy.Max(x, sympy.Rational(1, 2))
    # ints stay ints (ℕ)
    assert lean_minmax("min", 3, 2, None) == 2


def test_arithmetic_unifies_fractions_with_mpf_and_balls():
    d = arith("-", Fraction(1, 3), mpmath.mpf(1))          # Fraction - mpf raises TypeError in plain Python
    assert isinstance(d, mpmath.mpf) and abs(d + mpmath.mpf(2) / 3) < mpmath.mpf(10) ** -40
    s = arith("+", Fraction(1, 3), arb(1))
    assert isinstance(s, arb) and s.contains(arb(4) / 3)
    p = arith("*", sympy.Rational(1, 4), arb(2))           # sympy would turn the ball into an uncertified Float
    assert isinstance(p, arb) and p.contains(arb(1) / 2)
    assert arith("+", Fraction(1, 2), sympy.sqrt(2)) == sympy.Rational(1, 2) + sympy.sqrt(2)
    assert compare(Fraction(1, 3), mpmath.mpf(1) / 3) != 0  # the mpf is a binary number, not 1/3
    from flint import fmpq
    assert arith("+", fmpq(1, 3), Fraction(1, 6)) == Fraction(1, 2)
    assert type(arith("+", fmpq(1, 3), Fraction(1, 6))) is Fraction


def test_sqrt_is_exact_on_squares_and_certified_on_balls():
    assert lean_sqrt(Fraction(4, 9), "exact") == Fraction(2, 3)
    assert lean_sqrt(Fraction(4, 9), "float") == Fraction(2, 3)   # exact even among floats
    assert lean_sqrt(Fraction(2), "exact") == sympy.sqrt(2)
    f = lean_sqrt(Fraction(2), "float")
    assert isinstance(f, mpmath.mpf) and abs(f - mpmath.sqrt(2)) < mpmath.mpf(10) ** -40
    assert lean_sqrt(Fraction(-3), "exact") == 0                   # Lean: Real.sqrt of x < 0 is 0
    assert lean_sqrt(mpmath.mpf(-1), "float") == 0
    b = lean_sqrt(arb(0, 1e-10), "ball")           # a ball containing 0: no Undecided
    assert b.contains(0) and b.upper() <= arb(1) / 10**4
    assert lean_sqrt(arb(-2), "ball") == 0
    assert lean_sqrt(sympy.Rational(9, 4), "ball").contains(arb(3) / 2)




def test_sign_of_a_value_no_ball_encloses_is_undecided_not_an_input_error():
    with pytest.raises(Undecided, match="not decidable"):
        decide_sign(sympy.I * sympy.pi)        # sympy's log of a negative number


def test_signs_that_are_decided():
    assert decide_sign(Fraction(-1, 3)) == -1
    assert decide_sign(sympy.log(2) - Fraction(69, 100)) == 1       # log 2 = 0.6931...
    assert decide_sign(sympy.sqrt(2) - sympy.sqrt(2)) == 0
