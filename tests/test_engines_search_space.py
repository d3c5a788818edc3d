"""Search spaces (pyfed.engines.search.space): axes on their scales, short rationals, the reach."""

import math
from fractions import Fraction as F

from pyfed.engines.search.space import Axis, Config, SearchSpace, coarse_numbers, reach_text, short_rational


def test_axis_maps_the_unit_interval_on_its_scale():
    a = Axis("eta_g", 1.0, 1000.0)
    assert a.value(0) == 1.0 and math.isclose(a.value(1), 1000.0) and math.isclose(a.value(0.5), 10 ** 1.5)
    assert math.isclose(a.unit(a.value(0.3)), 0.3)
    k = Axis("K", 1, 32, integer=True)
    assert k.value(0) == 1 and k.value(1) == 32 and isinstance(k.value(0.7), int)
    lin = Axis("x", -1.0, 1.0, log=False)
    assert lin.value(0.25) == -0.5 and lin.value(2) == 1.0            # clipped to the cube
    assert "log scale" in a.describe() and "log scale" not in lin.describe()


def test_short_rationals_exact_and_coarse():
    assert short_rational(0.0) == 0 and short_rational(float("nan")) == 0
    x = short_rational(math.pi, bits=12)
    assert x.denominator & (x.denominator - 1) == 0 and abs(float(x) - math.pi) < 2 ** -10
    assert short_rational(190.3, coarse=0.01) == 189
    assert short_rational(1 / 3 + 1e-7, coarse=0.001) == F(1, 3)
    assert short_rational(-7500.0, coarse=0.1) == -6750
    with coarse_numbers(0.1):
        assert short_rational(3.14159) == 3
    assert short_rational(3.14159) != 3


def test_reach_says_what_was_searched():
    cfgs = [Config("N = 1", {}, (Axis("T", 1, 200, integer=True), Axis("eta_g", 1.0, 1000.0))),
            Config("N = 2", {}, (Axis("T", 1, 20, integer=True),))]
    sp = SearchSpace(cfgs, ["quadratic", "huber"], {"N": "1…2"}, ["cannot draw `x : Foo`"])
    r = sp.reach(17)
    assert r["points"] == 17 and r["configurations"] == 2 and r["families"] == ["quadratic", "huber"]
    assert any(s.startswith("T in [1, 200]") for s in r["ranges"])
    text = reach_text(r)
    assert "17 points" in text and "N 1…2" in text and "huber" in text and "cannot draw" in text
    assert reach_text({"not_searched": "no search space"}).endswith("no search space")


def test_point_margin_is_oriented_by_the_relation_and_kept_on_the_side_of_the_exact_status():
    from fractions import Fraction as F

    from pyfed.engines.search.space import point_margin
    assert point_margin("holds", F(1), F(3), float) == -0.5            # (1 - 3) / (1 + 3)
    assert point_margin("violated", F(3), F(1), float) == 0.5
    assert point_margin("holds", F(3), F(1), float, "≥") == -0.5        # 3 ≥ 1 holds: (1 - 3) / 4
    assert point_margin("violated", F(1), F(3), float, "≥") == 0.5
    assert point_margin("violated", F(2), F(1), float, "=") == 1 / 3    # |2 - 1| / 3
    assert point_margin("holds", F(1), F(1), float, "=") == -1.0
    # a float that disagrees with the exact status (a tie rounded) never crosses 0
    assert point_margin("violated", F(1), F(1), float) == 1e-12
    assert point_margin("holds", F(10**20 + 1), F(10**20), float) == 0.0
    assert point_margin("undecided", F(1), F(2), float) is None
    assert point_margin("holds", float("inf"), F(1), float) == -1.0
    assert point_margin("holds", float("inf"), F(1), float, fallback=False) is None
