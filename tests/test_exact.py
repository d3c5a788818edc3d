"""pyfed.exact: correctly rounded decimals at any magnitude, certified report numbers, the digits
of Monte Carlo estimates and of their ratios."""

import hashlib
import sys
from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.exact import estimate_digits, format_estimate, format_estimate_ratio



def test_exact_decimal_is_correctly_rounded_at_any_magnitude():
    from pyfed.exact import exact_decimal, format_number, int_str, rational_str
    assert exact_decimal(Fr(2, 3), 6) == "0.666667" and exact_decimal(Fr(1, 8), 2) == "0.12"   # half to even
    assert exact_decimal(Fr(-123456, 7), 6) == "-17636.6" == f"{-123456 / 7:.6g}"
    assert exact_decimal(Fr(999999, 1000000), 3) == "1"
    big = Fr(2, 3) * Fr(10) ** 400
    assert exact_decimal(big, 5) == "6.6667e+399" and format_number(big) == "6.66667e+399"
    assert exact_decimal(Fr(1, 3) ** 300, 4) == "7.305e-144"
    rng = np.random.default_rng(0)
    for _ in range(200):    # agrees with the float's %g wherever the float is exact enough
        f = Fr(int(rng.integers(1, 10**12)), int(rng.integers(1, 10**12)))
        assert exact_decimal(f, 6) == f"{float(f):.6g}"
    n = 7 ** 6000   # > 4300 digits: no int->str limit
    assert int_str(n).startswith("2") and len(int_str(n)) == len(str(n)) if sys.get_int_max_str_digits() == 0 \
        else len(int_str(n)) > 4300
    assert rational_str(Fr(n, 3)).endswith("/3")


def test_report_numbers_are_certified():
    from flint import arb

    from pyfed.exact import number_json
    j = number_json(Fr(1, 3))
    assert j == {"float": 1 / 3, "exact": "1/3"}
    long = Fr(10 ** 200 + 1, 3)
    j = number_json(long)
    text = f"{long.numerator}/{long.denominator}"
    assert "exact" not in j and j["exact_chars"] == len(text)
    assert j["exact_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert j["decimal"] == "3.3333333333333333e+199" and j["float"] == float(long)
    assert number_json(long, max_chars=None)["exact"] == text            # search exports: in full
    ball = arb(1) / 3 + arb(0, 1e-6)                                      # 0.333333... +/- 1e-6
    j = number_json(ball)
    assert Fr(j["decimal"]) - Fr(1, 3) < Fr(2, 10 ** 6) and len(j["decimal"]) <= 10   # only certified digits
    assert number_json(float("nan")) == {"float": None, "nonfinite": "nan"}


@pytest.mark.parametrize("mean, hw, ratio, shown", [
    (0.3, 41.0, 0.2596, "-"),                   # prints 0 ± 41: no significant digit
    (-2.0, 950.0, 0.000377, "-"),
    (0.511315, 0.000152, 0.98765432, "0.9877"),  # 4 digits printed: 4 digits of ratio
    (12.3, 1.5, 0.5123, "0.51"),                 # 12 ± 1.5: two
    (0.5, 0.24, 0.004954, "0.005"),              # 0.5 ± 0.24: one
    (0.2, 0.0, 0.123456, "0.1235"),              # no interval: the usual 4 digits
    (1.0, 1.0, None, "-"),
])
def test_ratio_of_an_estimate_keeps_its_digits(mean, hw, ratio, shown):
    assert format_estimate_ratio(ratio, mean, hw) == shown


def test_estimate_digits_match_the_printed_mean():
    assert (format_estimate(0.3, 41.0), estimate_digits(0.3, 41.0)) == ("0 ± 41", 0)
    assert (format_estimate(120.4, 13.0), estimate_digits(120.4, 13.0)) == ("120 ± 13", 2)
    assert (format_estimate(2.41e-5, 1.5e-6), estimate_digits(2.41e-5, 1.5e-6)) == ("(2.4 ± 0.15)e-05", 2)
    assert estimate_digits(1.0, 0.0) is None


def test_a_ratio_of_one_prints_the_same_in_every_arithmetic():
    """Exact rationals, floats, mpmath numbers and exact balls print "1" for one (not "1.0" or
    "1.00000"); an mpmath number prints its exact binary value like a rational (sign kept); a
    ball with a radius still shows only its certified digits."""
    import mpmath
    from flint import arb

    from pyfed.exact import format_number
    for one in (Fr(1), 1.0, mpmath.mpf(1), arb(1)):
        assert format_number(one) == "1" and format_number(one, 4) == "1"
    assert format_number(mpmath.mpf(-3) / 4) == "-0.75" == format_number(arb(-3) / 4)
    assert format_number(mpmath.mpf(2) / 3) == "0.666667" == format_number(Fr(2, 3))
    assert format_number(arb(1) / 3, 4) == "0.3333"
