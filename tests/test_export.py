"""Counterexample records (pyfed.export): sides decided in certified balls are written as exact
rational bounds, never as a rounded value called exact."""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from pyfed.exact import precision
from pyfed.export import ball_side_json


def test_a_ball_side_is_its_certified_rational_bounds():
    with precision(128):
        third = arb(1) / 3
    side = ball_side_json(third)
    assert side["exact"] is None and set(side) == {"exact", "lower", "upper"}
    lo, hi = Fraction(side["lower"]), Fraction(side["upper"])
    assert lo < Fraction(1, 3) < hi and hi - lo < Fraction(1, 2 ** 120)
    assert "." not in side["lower"] + side["upper"]


def test_a_ball_of_radius_zero_is_its_exact_value():
    assert ball_side_json(arb(0)) == {"exact": "0"}
    assert ball_side_json(arb(3) / 8) == {"exact": "3/8"}
    assert ball_side_json(arb(-5) * 2 ** 70) == {"exact": str(-5 * 2 ** 70)}
