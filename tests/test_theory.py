"""pyfed.theory: exact right-hand sides against hand-derived rationals, and hypotheses."""

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfed.errors import InputError, UndefinedValue
from pyfed.theory import (contraction, convex_hypotheses, convex_rhs, effective_step, failing,
                          initial_control_error, initial_potential, nonconvex_hypotheses, nonconvex_rhs,
                          round_time, squared_distance, weight, weight_sum, weights)


def test_convex_rhs_hand_derived():
    # h = 2 * 1/324 = 1/162; q = 1 - (1/2)(1/162)/2 = 647/648; w_r = (648/647)^(r+1)
    # W_3 = (648*647^2 + 648^2*647 + 648^3)/647^3 = 815034312/270840023
    # V0 = 1 + 9*3*(1/162)^2/2 * 2 = 973/972; V0/(h W) = (973/6) / W
    # noise = 12 (1/162) 1/(2*2) (1 + 2/1) = 1/18
    W = F(815034312, 270840023)
    expected = F(973, 6) / W + F(1, 18)
    got = convex_rhs(dist_sq=1, C0=2, N=3, S=2, K=2, T=3, eta_l=F(1, 324), eta_g=1, mu=F(1, 2), sigma=1)
    assert isinstance(got, F)
    assert got == expected
    assert weight_sum(3, F(1, 2), F(1, 162)) == W
    assert initial_potential(1, 2, 3, 2, F(1, 162)) == F(973, 972)


def test_nonconvex_rhs_hand_derived():
    # h = 2 * 1/100 * 2 = 1/25; 14*3/(h*4) = 525/2;
    # 70*2*(1/25)*(1/2)^2/(2*2) * (1 + 2/4) = 21/40
    got = nonconvex_rhs(f_gap=3, beta=2, S=2, K=2, T=4, eta_l=F(1, 100), eta_g=2, sigma=F(1, 2))
    assert got == F(525, 2) + F(21, 40) == F(10521, 40)


def test_effective_step_and_round_time():
    assert effective_step(5, F(1, 10), F(3, 2)) == F(3, 4)
    assert [round_time(3, r) for r in range(3)] == [3, 7, 11]


def test_mu_zero_gives_uniform_weights():
    assert weight_sum(7, 0, F(1, 3)) == 7
    assert weights(4, 0, F(1, 3)) == [1, 1, 1, 1]
    assert weight(5, 0, F(1, 3)) == 1


def test_weight_indices_start_at_r_zero_with_power_one():
    # w_0 = q^-1, not q^0
    q = contraction(F(1, 5), F(1, 2))
    assert q == F(19, 20)
    assert weight(0, F(1, 5), F(1, 2)) == F(20, 19)
    assert weights(2, F(1, 5), F(1, 2)) == [F(20, 19), F(400, 361)]


@settings(max_examples=60, deadline=None)
@given(mu=st.fractions(min_value=0, max_value=3, max_denominator=50),
       h=st.fractions(min_value=F(1, 1000), max_value=F(1, 10), max_denominator=1000),
       T=st.integers(min_value=1, max_value=25))
def test_weight_sum_closed_form_equals_direct_sum(mu, h, T):
    assert weight_sum(T, mu, h) == sum(weights(T, mu, h))


@settings(max_examples=80, deadline=None)
@given(mu=st.fractions(min_value=0, max_value=10, max_denominator=100),
       h=st.fractions(min_value=0, max_value=1, max_denominator=1000))
def test_q_at_least_29_over_30_when_mu_h_small(mu, h):
    if mu * h <= F(1, 15):
        assert contraction(mu, h) >= F(29, 30)


def test_huge_T_does_not_overflow():
    # exact: T = 20000 is a big rational but fine; mpmath: T = 10^12
    W = weight_sum(20000, F(1, 100), F(1, 100))
    assert isinstance(W, F) and W > 20000
    Wm = weight_sum(10**12, 1e-3, 1e-2)
    assert isinstance(Wm, mpmath.mpf) and mpmath.isfinite(Wm) and Wm > 0
    r = convex_rhs(dist_sq=1, C0=0, N=10, S=5, K=5, T=10**12, eta_l=1e-3, eta_g=1, mu=1e-2, sigma=1)
    assert mpmath.isfinite(r) and r > 0


def test_float_inputs_go_to_mpmath_and_rationals_stay_exact():
    assert isinstance(effective_step(2, 0.1, 1), mpmath.mpf)
    assert isinstance(effective_step(2, "1/10", 1), F)
    with pytest.raises(ValueError, match="not an exact rational"):
        effective_step(2, 0.1, 1, exact=True)


def test_irrational_step_via_sympy():
    import sympy
    eta = 1 / (81 * sympy.sqrt(2))
    h = effective_step(1, eta, 1)
    assert isinstance(h, mpmath.mpf)
    assert abs(h - 1 / (81 * mpmath.sqrt(2))) < mpmath.mpf(10) ** -45


def test_initial_control_error_and_distance():
    c0 = [[F(1), F(2)], [F(0), F(0)]]
    gs = [[F(0), F(0)], [F(1, 2), F(-1, 2)]]
    assert initial_control_error(c0, gs) == (F(5) + F(1, 2)) / 2
    assert squared_distance([F(1), F(1)], [F(0), F(3)]) == 5


GOOD = dict(N=10, S=5, K=2, T=3, eta_l=F(1, 1000), eta_g=1, beta=1, mu=F(1, 10), sigma=1)


def test_all_convex_hypotheses_hold_on_good_instance():
    hs = convex_hypotheses(**GOOD)
    assert failing(hs) == []
    step = next(h for h in hs if h.key == "step_size")
    assert step.margin == F(1, 81) - F(2, 1000)


@pytest.mark.parametrize("change, key", [
    (dict(S=11), "participation"), (dict(S=0), "participation"), (dict(K=0), "local_steps"),
    (dict(T=0), "rounds"), (dict(beta=0), "beta"), (dict(sigma=-1), "sigma"),
    (dict(eta_l=0), "eta_l"), (dict(eta_g=F(1, 2)), "eta_g"), (dict(mu=-1), "mu"),
    (dict(eta_l=F(1, 100)), "step_size"), (dict(mu=F(20)), "mu_h"),
])
def test_each_convex_hypothesis_broken_alone_is_reported_by_name(change, key):
    hs = convex_hypotheses(**{**GOOD, **change})
    bad = failing(hs)
    assert key in [h.key for h in bad]
    # and nothing unrelated (the step-size hypotheses may co-fail only when h changes)
    others = {h.key for h in bad} - {key, "step_size", "mu_h"}
    assert not others


def test_nonconvex_step_hypothesis_decided_exactly():
    # (S/N)^(2/3)/(24 beta) with S/N = 1/8 is exactly 1/96
    base = dict(N=8, S=1, K=1, T=1, eta_g=1, beta=1, sigma=0, f_low=0, f_x0=1, f_low_certificate="f >= 0")
    at = nonconvex_hypotheses(eta_l=F(1, 96), **base)
    above = nonconvex_hypotheses(eta_l=F(1, 96) + F(1, 10**30), **base)
    assert failing(at) == []
    assert [h.key for h in failing(above)] == ["step_size"]


def test_nonconvex_f_low_needs_certificate():
    base = dict(N=8, S=1, K=1, T=1, eta_l=F(1, 1000), eta_g=1, beta=1, sigma=0, f_low=0, f_x0=1)
    assert [h.key for h in failing(nonconvex_hypotheses(**base))] == ["f_low"]
    assert [h.key for h in failing(nonconvex_hypotheses(**{**base, "f_x0": -1}, f_low_certificate="x"))] == ["f_low"]


@pytest.mark.parametrize("change, name", [(dict(T=0), "T"), (dict(eta_l=0), "eta_l"), (dict(S=0), "S"),
                                          (dict(sigma=float("nan")), "sigma"), (dict(mu=float("inf")), "mu")])
def test_right_side_rejects_undefined_inputs_by_name(change, name):
    from pyfed.errors import InputError
    args = dict(dist_sq=1, C0=0, N=2, S=1, K=1, T=3, eta_l=F(1, 100), eta_g=1, mu=0, sigma=1)
    with pytest.raises(InputError) as err:
        convex_rhs(**{**args, **change})
    assert err.value.argument == name


def test_right_side_is_still_evaluated_beyond_the_hypotheses():
    # S > N and a huge step violate hypotheses but the formula is defined: --relax needs it
    assert convex_rhs(dist_sq=1, C0=0, N=2, S=3, K=1, T=1, eta_l=10, eta_g=1, mu=0, sigma=0) == F(1, 10)


def test_convexity_hypothesis_is_reported_when_the_problem_decides_it():
    hs = convex_hypotheses(**GOOD, convexity=(False, None))
    assert [h.key for h in failing(hs)] == ["convexity"]
    assert "convexity" not in [h.key for h in convex_hypotheses(**GOOD)]


def test_convex_rhs_at_mu_h_equal_two_is_a_named_error():
    from pyfed.theory import convex_rhs, weight, weight_sum, weights
    kw = dict(dist_sq=1, C0=1, N=2, S=1, K=1, T=3, eta_l=1, eta_g=1, sigma=0)
    with pytest.raises(UndefinedValue) as e:
        convex_rhs(mu=2, **kw)                          # h = 1, mu h = 2: q = 0
    assert e.value.argument == "mu" and "q = 1 - mu h/2 = 0" in e.value.reason
    assert isinstance(e.value, InputError) and isinstance(e.value, ZeroDivisionError)
    for fn in (lambda: weight(0, 2, 1), lambda: weights(3, 2, 1), lambda: weight_sum(3, 2, 1)):
        with pytest.raises(UndefinedValue):
            fn()
    # just beside it the formula is defined (q = 1/2: w_r = 2^(r+1))
    assert weights(3, 1, 1) == [2, 4, 8] and weight_sum(3, 1, 1) == 14


@pytest.mark.parametrize("name, value", [("T", 2.5), ("T", "5/2"), ("K", F(5, 2)), ("S", 1.5), ("N", -1),
                                         ("T", float("nan"))])
def test_non_natural_numbers_are_rejected_not_truncated(name, value):
    from pyfed.theory import convex_hypotheses, convex_rhs, nonconvex_hypotheses, nonconvex_rhs
    base = dict(N=4, S=2, K=2, T=3, eta_l=F(1, 1000), eta_g=1, sigma=F(1, 2))
    calls = [
        lambda kw: convex_rhs(dist_sq=1, C0=1, mu=0, **kw),
        lambda kw: convex_hypotheses(beta=1, mu=0, **kw),
        lambda kw: nonconvex_hypotheses(beta=1, **kw),
    ]
    if name != "N":
        calls.append(lambda kw: nonconvex_rhs(f_gap=1, beta=1, **{k: v for k, v in kw.items() if k != "N"}))
    for call in calls:
        with pytest.raises(InputError) as e:
            call(dict(base, **{name: value}))
        assert e.value.argument == name
    # the same values as exact integers are fine (4.0, "4", Fraction(4) are the natural number 4)
    a = convex_rhs(dist_sq=1, C0=1, mu=0, **base)
    assert convex_rhs(dist_sq=1, C0=1, mu=0, **dict(base, T=3.0)) == a
    assert convex_rhs(dist_sq=1, C0=1, mu=0, **dict(base, T="3", K=F(2))) == a


def test_convex_rhs_T_two_and_a_half_is_not_T_two():
    from pyfed.theory import convex_rhs
    kw = dict(dist_sq=1, C0=1, N=2, S=1, K=1, eta_l=1, eta_g=1, mu=0, sigma=0)
    assert convex_rhs(T=2, **kw) == F(19, 2)                 # V0/(h W) = (1 + 18)/2 by hand
    with pytest.raises(InputError):
        convex_rhs(T=2.5, **kw)


def test_convex_hypotheses_K_two_and_a_half_raises_as_documented():
    from pyfed.theory import convex_hypotheses
    with pytest.raises(InputError) as e:
        convex_hypotheses(N=4, S=2, K=2.5, T=3, eta_l=F(1, 1000), eta_g=1, beta=1, mu=0, sigma=0)
    assert e.value.argument == "K" and "2.5" in e.value.reason
