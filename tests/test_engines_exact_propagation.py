"""The block-structured and the integer-matrix exact-moment engines against the dense reference
engine (identical exact rationals), and the precision model of the certified-ball verdicts."""

from fractions import Fraction

import numpy as np
import pytest

from pyfed.engines.exact import decide_convex, decide_nonconvex, scaffold_run_moments
from pyfed.engines.exact.arith import BallField
from pyfed.engines.exact.propagation import _sampled_round_moments
from pyfed.engines.exact.verdict import _predict_bits
from pyfed.problems import QuadraticProblem, random_quadratic


def _prob(N, d, seed):
    return random_quadratic(N, d, np.random.default_rng(seed), rational=True, mu=Fraction(1, 4), L=1)


C0_3x2 = [[1, 2], [0, 1], [Fraction(1, 2), -1]]

# (name, N, d, seed, variant, warm start, c0, S, K, T, sigma, eta_l, eta_g, x0)
CASES = [
    ("run-warm", 3, 2, 1, "run", True, None, 2, 2, 3, Fraction(1, 2), Fraction(1, 5), Fraction(3, 2), [1, -1]),
    ("run-c0", 3, 2, 1, "run", False, C0_3x2, 2, 3, 3, Fraction(1, 3), Fraction(1, 7), 1, [Fraction(1, 2), 2]),
    ("II", 3, 2, 2, "II", False, C0_3x2, 2, 2, 3, Fraction(1, 2), Fraction(1, 5), Fraction(1, 2), [1, 0]),
    ("I", 3, 2, 3, "I", False, C0_3x2, 1, 2, 3, Fraction(1, 2), Fraction(1, 4), 1, [0, 1]),
    ("fedavg", 4, 2, 4, "fedavg", False, None, 2, 3, 3, Fraction(2, 3), Fraction(1, 6), Fraction(5, 4), [2, -1]),
    ("run-full", 3, 2, 5, "run", True, None, 3, 2, 3, Fraction(1, 2), Fraction(1, 5), 1, [1, 1]),
    ("run-N1", 1, 2, 6, "run", True, None, 1, 2, 4, Fraction(1, 2), Fraction(1, 5), 1, [1, 1]),
    ("II-d3", 2, 3, 7, "II", False, None, 1, 2, 2, 1, Fraction(1, 5), 1, [1, 0, -1]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_block_engine_equals_dense_engine_exactly(case):
    """Every E[f(x^r)] - f*, E||grad f(x^r)||^2 and E[x^r] of the block-structured engine and of
    the integer-matrix engine (common denominators) is the same exact rational as the dense engine's (options I/II, Run model with warm start and with
    given c0, FedAvg, S = N, N = 1)."""
    name, N, d, seed, variant, warm, c0, S, K, T, sigma, eta_l, eta_g, x0 = case
    P = _prob(N, d, seed)
    kw = dict(S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=c0, noise_cov=None, variant=variant,
              warm_start=warm)
    dense = _sampled_round_moments(P, sigma, engine="dense", **kw)
    assert dense.exact and len(set(dense.gaps)) > 1  # the moments do move
    for engine in ("blocks", "integer", "auto"):
        other = _sampled_round_moments(P, sigma, engine=engine, **kw)
        assert other.exact
        assert other.gaps == dense.gaps
        assert other.grad_sq == dense.grad_sq
        assert other.mean_x == dense.mean_x
        assert all(isinstance(g, Fraction) for g in other.gaps)


def test_integer_engine_over_a_long_horizon_equals_the_block_engine():
    """Thirty rounds (denominators of hundreds of digits, the common content divided out every
    round): the integer-matrix engine gives the block engine's exact rationals."""
    P = _prob(2, 1, 3)
    kw = dict(S=1, K=3, T=30, eta_l=Fraction(1, 7), eta_g=1, x0=[Fraction(3, 2)], c0=None, noise_cov=None,
              variant="run", warm_start=True)
    a = _sampled_round_moments(P, Fraction(1, 3), engine="integer", **kw)
    b = _sampled_round_moments(P, Fraction(1, 3), engine="blocks", **kw)
    assert a.gaps == b.gaps and a.grad_sq == b.grad_sq and a.mean_x == b.mean_x
    assert len(str(a.gaps[-1].denominator)) > 100


def test_block_engine_balls_enclose_the_exact_values():
    """Certified balls of the block engine contain the exact rationals of the dense engine."""
    P = _prob(3, 2, 1)
    kw = dict(S=2, K=2, T=5, eta_l=Fraction(1, 5), eta_g=1, x0=[1, -1], c0=None, noise_cov=None,
              variant="run", warm_start=True)
    exact = _sampled_round_moments(P, Fraction(1, 2), engine="dense", **kw)
    balls = _sampled_round_moments(P, Fraction(1, 2), field=BallField(128), **kw)
    from flint import arb, fmpq

    from pyfed.exact import precision
    with precision(256):
        for q, b in zip(exact.gaps + exact.grad_sq, balls.gaps + balls.grad_sq):
            assert b.contains(arb(fmpq(q.numerator, q.denominator)))
            assert b.rad() < arb(2) ** -100


def test_hand_computed_one_client_round():
    """N = S = 1, d = 1, K = 1, f = x^2/2 (A = 1, b = 0), sigma^2 = 1, eta_l = 1/2, eta_g = 1,
    x0 = 2, c0 = 0: the control correction is c - c_1 = 0, so x^1 = x^0 - (x^0 + xi)/2 and
    E[x^1] = 1, E[(x^1)^2] = 1 + 1/4, gap = E[x^2]/2 = 5/8."""
    P = QuadraticProblem([[[1]]], [[0]])
    r = scaffold_run_moments(P, 1, S=1, K=1, T=1, eta_l=Fraction(1, 2), eta_g=1, x0=[2], c0=[[0]])
    assert r.gaps == [Fraction(2), Fraction(5, 8)]
    assert r.mean_x[1] == [Fraction(1)]


class _Ball:
    """A stand-in for an arb ball with given midpoint and radius (for _predict_bits)."""

    def __init__(self, mid, rad):
        self._m, self._r = mid, rad

    def is_finite(self):
        return True

    def mid(self):
        return self._m

    def rad(self):
        return self._r


def test_precision_model_extrapolates_the_loss_rate():
    """Relative radius 2^(-128 + t) (one bit lost per round) measured on rounds 0..40: at
    T = 400 the loss is 40 + 1.1 * 360 = 436 bits, +32 margin -> 468 -> 512 bits."""
    series = [[_Ball(1.0, 2.0 ** (-128 + t)) for t in range(41)]]
    bits, info = _predict_bits(series, 128, 400)
    assert info["loss_rate_bits_per_round"] == pytest.approx(1.0)
    assert info["predicted_loss_bits"] == pytest.approx(436.0)
    assert bits == 512
    # a short horizon needs nothing beyond the base precision
    assert _predict_bits(series, 128, 41)[0] == 128


def test_ball_verdict_starts_at_the_needed_precision_and_agrees_with_exact():
    """A 60-round convex decision in balls: the probe measures the loss rate and the verdict
    (decided) agrees with the exact rational verdict, lhs inside the ball."""
    P = _prob(2, 1, 8)
    kw = dict(S=1, K=2, T=60, eta_l=Fraction(1, 162) / P.beta, eta_g=1)
    ball = decide_convex(P, Fraction(1, 2), arithmetic="ball", **kw)
    exact = decide_convex(P, Fraction(1, 2), arithmetic="exact", **kw)
    assert ball.status == exact.status != "inconclusive"
    prec = ball.details["precision"]
    assert prec["probe_rounds"] == 40 and prec["attempts"][0] == 128
    assert prec["loss_rate_bits_per_round"] > 0
    import mpmath
    lhs = Fraction(exact.lhs)
    assert abs(mpmath.mpf(ball.lhs) - mpmath.mpf(lhs.numerator) / lhs.denominator) < 1e-20
    nc = decide_nonconvex(P, Fraction(1, 2), arithmetic="ball", S=1, K=2, T=60,
                          eta_l=Fraction(1, 96) / P.beta, eta_g=1)
    assert nc.status != "inconclusive" and nc.details["precision"]["probe_rounds"] == 40


def test_given_precision_is_used_as_is():
    P = _prob(2, 1, 8)
    v = decide_convex(P, Fraction(1, 2), arithmetic="ball", prec=192, S=1, K=2, T=5,
                      eta_l=Fraction(1, 162) / P.beta, eta_g=1)
    assert v.details["precision"]["attempts"] == [192] and "192 bits" in v.details["arithmetic"]
