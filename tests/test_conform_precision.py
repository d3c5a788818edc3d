"""pyfed.conform.precision: gamma_n and the magnitudes |Q| by hand, the operation counts, the
precision detected from the returned dtype, and a float32 implementation judged in float32
(conforms) and in float64 (deviates, within float32's bound)."""

from __future__ import annotations

from fractions import Fraction as Q
from pathlib import Path

import numpy as np
import pytest

from pyfed.conform import conform, ladder, load_adapter
from pyfed.conform.precision import Tolerance, detect_precision, magnitudes, rounding_counts
from pyfed.errors import InputError

ZOO = Path(__file__).resolve().parents[1] / "examples" / "conformance"


def test_gamma_by_hand():
    t = Tolerance("float32")
    assert t.u == Q(1, 2 ** 24)
    assert t.gamma(3) == Q(3, 2 ** 24) / (1 - Q(3, 2 ** 24))
    with pytest.raises(InputError) as exc:
        Tolerance("bfloat16").gamma(256)
    assert exc.value.argument == "--precision"
    with pytest.raises(InputError):
        Tolerance("float8")


def test_counts_and_magnitudes_of_one_fedavg_step_by_hand():
    """Rung 'one client': f(y) = y^2/2 - y, x = 2, eta_l = 1/8, K = S = 1: |y_1| <= 2 + (1/8)(2 + 1)
    = 19/8; |x_1| <= 2 + (19/8 + 2) = 51/8; n = 3 + 8 = 11 for y_1, 11 + 1 + 8 = 20 for x_1."""
    rung = ladder("fedavg", mode="uniform")[0]
    p = rung.problem
    mags = magnitudes(p.A_exact, p.b_exact, rung.spec, [Q(2)], None, None, [0])
    assert list(mags["end"][0]) == [Q(19, 8)] and list(mags["model"]) == [Q(51, 8)]
    n = rounding_counts(rung.spec)
    assert n["point 0"] == 3 and n["end"] == 11 and n["model"] == 20


def test_compare_reports_the_ratio():
    t = Tolerance("float64")
    exact = [Q(1, 3)]
    ok, ratio, err, bound = t.compare([1 / 3], exact, [Q(1)], 1)
    assert ok and 0 < ratio <= 1 and err == abs(float(Q(1 / 3) - Q(1, 3)))
    ok, ratio, _, _ = t.compare([0.34], exact, [Q(1)], 1)
    assert not ok and ratio > 1e12
    assert t.compare([0.0], [Q(0)], [Q(0)], 5)[0] and not t.compare([1e-300], [Q(0)], [Q(0)], 5)[0]


def test_detect_precision():
    assert detect_precision([np.zeros(2, np.float32), np.zeros(2)]) == "float32"
    assert detect_precision([np.zeros(2), [1.0]]) is None
    assert detect_precision([np.zeros(2, np.float16), np.zeros(2, np.float32)]) == "float16"


@pytest.mark.slow
def test_float32_implementation_needs_the_float32_bound():
    ad = load_adapter(f"{ZOO / 'correct_fedavg_float32.py'}:FedAvg")
    rep = conform(ad, "fedavg", mode="uniform", rungs=["two clients, K = 3", "noise"])
    assert rep.conforms and rep.precision == "float32" and rep.precision_source == "detected from the returned arrays"
    strict = conform(ad, "fedavg", mode="uniform", rungs=["two clients, K = 3"], precision="float64")
    d = strict.first_deviation
    assert strict.precision_source == "declared" and d is not None
    assert d.error < float(Tolerance("float32").gamma(40)) * 8      # float32-sized, far above float64's bound
