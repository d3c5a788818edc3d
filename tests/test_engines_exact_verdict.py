"""The exact verdicts (pyfed.engines.exact.verdict): huge exact entries, certified ball digits,
d = 0, rational-string inputs and sigma^2 kept exact."""

import json
from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.errors import InputError

from cli_helpers import json_strings



@pytest.mark.slow
def test_decide_at_a_huge_step_does_not_hit_the_int_str_limit():
    """h = 50/beta, K = 20: exact entries exceed Python's 4300-digit int->str limit; the verdict,
    its JSON and its string must still work, and reports print no giant fraction."""
    from pyfed.engines.exact import decide_convex, decide_nonconvex
    from pyfed.exact import REPORT_EXACT_CHARS
    from pyfed.problems import random_quadratic
    P = random_quadratic(2, 2, np.random.default_rng(0), rational=True, mu=Fr(1, 10), L=1, heterogeneity=1)
    h = Fr(50) / P.beta
    for fn in (decide_convex, decide_nonconvex):
        v = fn(P, Fr(1, 2), S=1, K=20, T=20, eta_l=h / 20, eta_g=1, arithmetic="exact")
        assert v.status == "inconclusive"                       # beyond the step-size hypothesis
        assert v.details["inequality"] in ("holds", "violated")  # the inequality itself decided exactly
        assert v.lhs.numerator.bit_length() > 4300 * 3.33          # more than 4300 decimal digits
        text = json.dumps(v.to_json())
        assert "NaN" not in text and "Infinity" not in text
        lhs = v.to_json()["lhs"]
        assert "exact" not in lhs and lhs["exact_chars"] > 4300 and "e+" in lhs["decimal"]
        assert lhs["float"] is None or Fr(lhs["float"]) == Fr(float(v.lhs))      # correctly rounded
        longest = max(len(s) for s in json_strings(v.to_json()))
        assert longest <= max(REPORT_EXACT_CHARS, 400)
        assert str(v)


def test_ball_verdict_prints_only_certified_digits():
    """The full check's quadratic row is decided in balls: margin and ratio in the report are the
    ball's certified digits, and they agree with the exact values (computed exactly here)."""
    from pyfed.engines.exact import decide_convex
    from pyfed.engines.tightness import default_instance
    P = default_instance(0)
    kw = dict(S=2, K=2, T=6, eta_l=1 / (162 * P.beta), eta_g=1)
    exact = decide_convex(P, Fr(1, 2), arithmetic="exact", **kw)
    ball = decide_convex(P, Fr(1, 2), arithmetic="ball", **kw)
    assert exact.status == ball.status == "holds"
    j = ball.to_json()
    for key, value in (("lhs", exact.lhs), ("rhs", exact.rhs), ("margin", exact.margin), ("ratio", exact.ratio)):
        dec = j[key]["decimal"]
        assert "mpmath" not in j[key] and "ball" in j[key]
        digits = len(dec.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
        ulp = Fr(10) ** (len(dec.split("e")[0].split(".")[1]) if "." in dec else 0)
        assert abs(Fr(dec) - value) * ulp <= 1, (key, dec, float(value))      # right to 1 unit in the last place
        assert digits >= 15


def test_dimension_zero_end_to_end():
    from pyfed import theory
    from pyfed.engines.exact import decide_convex, decide_nonconvex
    from pyfed.problems.quadratic import QuadraticProblem
    P = QuadraticProblem(np.zeros((2, 0, 0), dtype=object), np.zeros((2, 0), dtype=object))
    assert P.d == 0 and P.exact and P.beta == 1 and P.mu == 0 and "d = 0" in P.derivations["beta"]
    assert QuadraticProblem(np.zeros((2, 0, 0)), np.zeros((2, 0)), beta=Fr(7)).beta == 7
    with pytest.raises(InputError):
        QuadraticProblem(np.zeros((2, 0, 0)), np.zeros((2, 0)), beta=0)
    C0 = theory.initial_control_error(np.zeros((2, 0)), np.zeros((2, 0)))
    assert type(C0) is Fr and C0 == 0
    assert type(theory.squared_distance([], [])) is Fr
    kw = dict(S=1, K=1, T=3, eta_l=Fr(1, 81), eta_g=1)
    v = decide_convex(P, Fr(1, 2), **kw)
    assert v.status == "holds" and v.exact and v.lhs == 0
    # lhs = 0 (f is constant); rhs: V0 = 0, only the noise term 12 h sigma^2/(K S)(1 + S/eta_g^2) = 2/27
    assert v.rhs == Fr(12, 81) * Fr(1, 4) * 2 == Fr(2, 27)
    w = decide_nonconvex(P, Fr(1, 2), **kw)
    assert w.status == "holds" and w.lhs == 0 and w.rhs == 70 * Fr(1, 81) * Fr(1, 4) * 2


def test_exact_engines_accept_rational_strings():
    from pyfed.engines.exact import decide_convex, decide_nonconvex, scaffold_run_moments
    from pyfed.engines.tightness import default_instance
    P = default_instance(0)
    eta_l = 1 / (162 * P.beta)
    a = decide_convex(P, Fr(1, 2), S=2, K=2, T=3, eta_l=eta_l, eta_g=1)
    b = decide_convex(P, "1/2", S=2, K=2, T=3, eta_l=str(eta_l), eta_g="1", mu="0")
    c = decide_convex(P, "1/2", S=2, K=2, T=3, eta_l=str(eta_l), eta_g="1")
    assert b.exact and (c.lhs, c.rhs) == (a.lhs, a.rhs) and isinstance(b.lhs, Fr)
    n = decide_nonconvex(P, "1/2", S=2, K=2, T=3, eta_l=str(eta_l), eta_g="1")
    assert n.exact and n.lhs == decide_nonconvex(P, Fr(1, 2), S=2, K=2, T=3, eta_l=eta_l, eta_g=1).lhs
    m = scaffold_run_moments(P, "1/2", S=2, K=2, T=2, eta_l=str(eta_l), eta_g="1", c0=np.zeros((4, 2), dtype=object))
    assert m.exact


def test_sigma_squared_keeps_the_right_side_exact():
    import sympy
    from flint import arb, fmpq

    from pyfed.engines.exact import decide_convex, fedavg_moments
    from pyfed.engines.tightness import default_instance
    from pyfed.exact import precision
    from pyfed.theory import convex_rhs, noise_term, nonconvex_rhs
    kw = dict(dist_sq=1, C0=1, N=2, S=1, K=1, T=2, eta_l=1, eta_g=1, mu=0)
    r = convex_rhs(sigma_sq=2, **kw)
    assert isinstance(r, Fr) and r == Fr(19, 2) + 12 * 2 * 2          # noise 12 h sigma^2/(KS)(1+S/eta_g^2)
    assert convex_rhs(sigma=sympy.sqrt(2), **kw) == r                  # symbolic sigma: the same value
    assert noise_term(12, S=1, K=1, eta_g=1, h=1, sigma_sq=2) == 48
    assert nonconvex_rhs(f_gap=1, beta=1, S=1, K=1, T=1, eta_l=1, eta_g=1, sigma_sq=2) == 14 + 70 * 2 * 2
    for bad in (dict(sigma=1, sigma_sq=1), {}):
        with pytest.raises(InputError):
            convex_rhs(**kw, **bad)
    P = default_instance(0)
    dk = dict(S=2, K=2, T=3, eta_l=1 / (162 * P.beta), eta_g=1)
    ex = decide_convex(P, sigma_sq=2, **dk)
    assert ex.exact and isinstance(ex.lhs, Fr) and isinstance(ex.rhs, Fr) and "exact rational" in ex.details["arithmetic"]
    irr = decide_convex(P, sympy.sqrt(2), **dk)                        # sigma = sqrt 2: certified balls
    assert "ball" in irr.details["arithmetic"]
    with precision(400):
        for side in ("lhs", "rhs"):
            f = getattr(ex, side)
            assert irr.balls[side].contains(arb(fmpq(f.numerator, f.denominator)))
    assert fedavg_moments(P, sigma_sq="2", S=2, K=1, T=2, eta_l=dk["eta_l"], eta_g=1).exact
    with pytest.raises(InputError):
        fedavg_moments(P, 1, sigma_sq=2, S=2, K=1, T=2, eta_l=dk["eta_l"], eta_g=1)
