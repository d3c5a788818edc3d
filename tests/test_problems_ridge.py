"""Ridge functions (pyfed.problems.ridge): exact values and gradients checked by hand, certified
constants checked against the formula, balls and floats agreeing with the exact values."""

from fractions import Fraction as F

import numpy as np
import pytest

from pyfed.errors import InputError
from pyfed.problems.ridge import (
    NotExact,
    RidgeFunction,
    centred,
    certified_lower,
    certified_upper,
    gradient_rational,
    ridge_from_json,
    value_at_zero,
)


def huber(delta=F(1, 3), w=1, q=0, b=0, off=0):
    return RidgeFunction.make([[q]], [b], [[1]], [off], [w], "huber", delta)


def test_huber_values_and_gradients_by_hand():
    f = huber()                              # H_{1/3}(x): x²/2 inside, |x|/3 - 1/18 outside
    assert f.value([1]) == F(1, 3) - F(1, 18)
    assert f.grad([1]) == [F(1, 3)]
    assert f.value([F(1, 6)]) == F(1, 72)
    assert f.grad([F(-1, 6)]) == [F(-1, 6)]
    assert f.grad([-2]) == [F(-1, 3)]
    assert f.smoothness() == 1 and f.strong_convexity() == 0


def test_relu2_mixture_with_quadratic_part():
    f = RidgeFunction.make([[1]], [0], [[1]], [0], [1], "relu2")     # x²/2 + max(0, x)²/2
    assert f.value([2]) == 4 and f.grad([2]) == [4]
    assert f.value([-2]) == 2 and f.grad([-2]) == [-2]
    assert f.smoothness() == 2 and f.strong_convexity() == 1


def test_transcendental_profiles_in_balls_and_floats():
    g = RidgeFunction.make([[F(1, 10), 0], [0, 1]], [0, 0], [[1, 1], [1, -1]], [0, 0], [1, 2], "logcosh")
    with pytest.raises(NotExact):
        g.value([1, 2])
    ball = g.value_ball([1, 2])
    assert ball.contains(g.value_float([1, 2]))
    for a, b in zip(g.grad_ball([1, 2]), g.grad_float([1, 2])):
        assert a.contains(float(b))
    s = RidgeFunction.make([[0]], [0], [[1]], [0], [2], "softplus")
    assert s.value_ball([0]).contains(0) and s.grad_ball([0])[0].contains(1)
    assert s.smoothness() == F(1, 2)          # κ = 1/4 times the weight 2


def test_certified_constants_bound_the_curvature_exactly():
    M = [[F(2), F(1)], [F(1), F(2)]]          # eigenvalues 1 and 3
    assert certified_upper(M) == 3 and certified_lower(M) == 1
    irr = [[F(1), F(1)], [F(1), F(0)]]        # eigenvalues (1 ± √5)/2
    up, lo = certified_upper(irr), certified_lower(irr)
    assert (1 + 5 ** 0.5) / 2 <= float(up) < (1 + 5 ** 0.5) / 2 + 1e-5
    assert (1 - 5 ** 0.5) / 2 - 1e-5 < float(lo) <= (1 - 5 ** 0.5) / 2


def test_centred_clients_have_their_minimiser_at_zero():
    fs = centred([huber(off=F(1, 2)), huber(off=F(-1, 4), w=2)])
    total = [sum(gradient_rational(f, [0])[j] for f in fs) for j in range(1)]
    assert total == [0]
    t = centred([RidgeFunction.make([[1]], [0], [[1]], [0], [1], "softplus")])
    assert gradient_rational(t[0], [0]) == [0] and value_at_zero(t[0]) == 0


def test_json_round_trip_and_errors():
    f = huber(w=F(3, 2), off=F(1, 5))
    assert ridge_from_json(f.to_json()) == f
    with pytest.raises(InputError):
        RidgeFunction.make([[1]], [0], [[1]], [0], [-1], "huber")       # a negative weight: not convex
    with pytest.raises(InputError):
        RidgeFunction.make([[1, 2], [0, 1]], [0, 0])                      # Q not symmetric
    with pytest.raises(InputError):
        ridge_from_json({"family": "quadratic"})


def test_float_path_agrees_with_exact_on_random_points():
    rng = np.random.default_rng(3)
    f = RidgeFunction.make([[F(1, 2), 0], [0, F(1, 8)]], [F(1, 3), -1], [[1, 2], [0, 1]], [F(1, 2), 0],
                           [1, F(1, 4)], "huber", F(1, 2))
    for _ in range(20):
        x = [F(int(v), 16) for v in rng.integers(-64, 64, size=2)]
        assert abs(float(f.value(x)) - f.value_float([float(v) for v in x])) < 1e-12
        assert np.allclose([float(v) for v in f.grad(x)], f.grad_float([float(v) for v in x]))
