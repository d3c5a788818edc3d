"""The Taylor–Hendrickx–Glineur interpolant (pyfed.problems.interpolation): the data reproduced
exactly, the class checked exactly, values repaired, and points that cannot be interpolated refused."""

from fractions import Fraction as F

import pytest

from pyfed.errors import InputError
from pyfed.problems.interpolation import (
    InterpolatedFunction,
    NotInterpolable,
    check_interpolable,
    interpolated_from_json,
    repair_values,
)

# one gradient step with h = 1/L from x0 = 1 on the Huber function H_{1/3} (the worst case of the
# step, Taylor, Hendrickx & Glineur 2017): x0 = 1, x1 = 2/3, x* = 0
PTS = [[F(1)], [F(2, 3)], [F(0)]]
GRADS = [[F(1, 3)], [F(1, 3)], [F(0)]]
VALS = [F(5, 18), F(1, 6), F(0)]


def test_interpolant_reproduces_the_huber_worst_case():
    f = InterpolatedFunction(PTS, GRADS, VALS, 0, 1)
    for x, g, v in zip(PTS, GRADS, VALS):
        assert f.value(x) == v and f.grad(x) == g
    # between the data points the interpolant is the Huber function itself here
    assert f.value([F(1, 2)]) == F(1, 9) and f.grad([F(1, 2)]) == [F(1, 3)]
    assert f.value([F(1, 6)]) == F(1, 72) and f.grad([F(1, 6)]) == [F(1, 6)]
    assert (f.smoothness(), f.strong_convexity()) == (1, 0)


def test_interpolant_is_in_its_class_at_other_points():
    f = InterpolatedFunction(PTS, GRADS, VALS, 0, 1)
    xs = [[F(k, 7)] for k in range(-14, 15)]
    for a in xs:
        for b in xs:
            ga, gb = f.grad(a)[0], f.grad(b)[0]
            assert abs(ga - gb) <= abs(a[0] - b[0])                       # 1-smooth
            assert f.value(a) + ga * (b[0] - a[0]) <= f.value(b)          # convex


def test_strongly_convex_class_and_two_dimensions():
    pts = [[F(1), F(0)], [F(0), F(1)], [F(0), F(0)]]
    grads = [[F(1), F(0)], [F(0), F(1)], [F(0), F(0)]]
    vals = [F(1, 2), F(1, 2), F(0)]                                     # ‖x‖²/2 through three points
    f = InterpolatedFunction(pts, grads, vals, F(1, 2), 2)
    assert [f.grad(x) for x in pts] == grads and [f.value(x) for x in pts] == vals
    probe = pts + [[F(1, 2), F(1, 2)], [F(-1), F(2)], [F(3, 4), F(-1, 4)]]
    for a in probe:                  # every pair satisfies the class's interpolation inequalities
        for b in probe:
            if a != b:
                assert check_interpolable([a, b], [f.grad(a), f.grad(b)], [f.value(a), f.value(b)],
                                          F(1, 2), 2) is None


def test_not_interpolable_data_are_refused_with_the_pair():
    assert "points" in check_interpolable(PTS, GRADS, [F(5, 18), F(1, 2), F(0)], 0, 1)
    with pytest.raises(NotInterpolable):
        InterpolatedFunction(PTS, GRADS, [F(5, 18), F(1, 2), F(0)], 0, 1)
    with pytest.raises(NotInterpolable):       # gradients 2 apart at points 1 apart: not 1-smooth
        repair_values([[F(0)], [F(1)]], [[F(0)], [F(2)]], [F(0), F(0)], 0, 1)


def test_repaired_values_are_the_largest_below_the_targets():
    out = repair_values(PTS, GRADS, [F(1, 3), F(1, 5), F(1, 100)], 0, 1)
    assert check_interpolable(PTS, GRADS, out, 0, 1) is None
    assert all(o <= t for o, t in zip(out, [F(1, 3), F(1, 5), F(1, 100)]))
    assert out[2] == F(1, 100)                   # the minimiser's value binds the others


def test_json_round_trip():
    f = InterpolatedFunction(PTS, GRADS, VALS, 0, 1)
    g = interpolated_from_json(f.to_json())
    assert g.value([F(1, 2)]) == F(1, 9)
    bad = dict(f.to_json(), values=["5/18", "1/2", "0"])
    with pytest.raises(InputError):
        interpolated_from_json(bad)
