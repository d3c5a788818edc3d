"""pyfed.theory.fedavg: the Field Guide right sides against hand-derived values, the tuned step's
minimiser decided exactly, radicals exact, hypotheses with margins."""

from fractions import Fraction as Fr

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from pyfed.errors import InputError
from pyfed.exact import to_arb
from pyfed.theory import fedavg as th


def test_drift_rhs_hand_derived():
    # 18 * 4 * (1/64) * (1/2) + 4 * 2 * (1/64) * 1 = 36/64 + 8/64 = 11/16
    assert th.drift_rhs(2, Fr(1, 8), sigma=1, zeta_sq=Fr(1, 2)) == Fr(11, 16)
    # sigma and sigma_sq agree; zeta = 3/2 -> zeta^2 = 9/4
    assert th.drift_rhs(3, Fr(1, 4), sigma_sq=4, zeta=Fr(3, 2)) == 18 * 9 * Fr(1, 16) * Fr(9, 4) + 4 * 3 * Fr(1, 16) * 4
    assert isinstance(th.drift_rhs(1, Fr(1, 3), sigma=0, zeta=0), Fr)


def test_convergence_rhs_hand_derived():
    # D^2/(2 eta tau T) = 4/(2*(1/8)*2*3) = 8/3; eta sigma^2/M = 1/16; 4 tau eta^2 L sigma^2 = 4*2*(1/64)*2 = 1/4;
    # 18 tau^2 eta^2 L zeta^2 = 18*4*(1/64)*2*(1/2) = 9/8;  total = 8/3 + 1/16 + 1/4 + 9/8 = 197/48
    got = th.convergence_rhs(dist_sq=4, M=2, tau=2, T=3, eta=Fr(1, 8), L=2, sigma=1, zeta_sq=Fr(1, 2))
    assert got == Fr(8, 3) + Fr(1, 16) + Fr(1, 4) + Fr(9, 8) == Fr(197, 48)


def test_progress_rhs_is_progress_plus_deviation():
    kw = dict(M=3, tau=2, eta=Fr(1, 4), L=2, sigma=Fr(1, 2))
    # (5 - 3)/(2 * 1/4 * 2) = 2; eta sigma^2/M = 1/48; L/(M tau) * 6 = 2
    assert th.progress_term(5, 3, 2, Fr(1, 4)) == 2
    assert th.deviation_term(6, 3, 2, Fr(1, 4), 2, sigma=Fr(1, 2)) == Fr(1, 48) + 2
    assert th.progress_rhs(start_dist_sq=5, end_dist_sq=3, drift_sum=6, **kw) == 4 + Fr(1, 48)


def test_zero_denominators_and_double_inputs_are_named():
    with pytest.raises(InputError) as e:
        th.convergence_rhs(dist_sq=1, M=1, tau=1, T=0, eta=Fr(1, 4), L=1, sigma=0, zeta=0)
    assert e.value.argument == "T"
    with pytest.raises(InputError) as e:
        th.drift_rhs(1, 1, sigma=1, sigma_sq=1, zeta=0)
    assert e.value.argument == "sigma"
    with pytest.raises(InputError) as e:
        th.drift_rhs(1, 1, zeta=0)
    assert e.value.argument == "sigma"


def test_radical_exact_when_a_perfect_power():
    assert th.radical(Fr(8, 27), 3) == Fr(2, 3)
    assert th.radical(Fr(9, 4), 2) == Fr(3, 2)
    r = th.radical(Fr(2, 3), 3)
    assert isinstance(r, sympy.Basic) and not r.is_Rational
    assert r ** 3 == sympy.Rational(2, 3)


def test_optimized_step_first_term_rational():
    # L = 2: 1/(4L) = 1/8; other candidates larger (large D, small sigma and zeta)
    kw = dict(dist_sq=100, M=4, tau=2, T=2, L=2, sigma=Fr(1, 100), zeta_sq=Fr(1, 10000))
    assert th.optimized_step_choice(**kw) == 0
    assert th.optimized_step(**kw) == Fr(1, 8)


def test_optimized_step_sqrt_term_exact():
    # M D^2/(tau T sigma^2) = 1 * 4/(1 * 1 * 64) = 1/16 -> sqrt = 1/4; 1/(4L) = 1 (L = 1/4);
    # cube-root terms: D^2/(tau^2 T L sigma^2) = 4/(1/4 * 64) = 1/4 -> 0.63; D^2/(tau^3 T L zeta^2) = 16/zeta^2 big
    kw = dict(dist_sq=4, M=1, tau=1, T=1, L=Fr(1, 4), sigma=8, zeta_sq=Fr(1, 100))
    assert th.optimized_step_choice(**kw) == 1
    assert th.optimized_step(**kw) == Fr(1, 4)


def test_optimized_step_irrational_is_exact_algebraic_and_minimal():
    kw = dict(dist_sq=4, M=8, tau=4, T=40, L=Fr(760607, 1000000), sigma=Fr(1, 2), zeta_sq=Fr(8829, 1024))
    j = th.optimized_step_choice(**kw)
    eta = th.optimized_step(**kw)
    cands = th.optimized_step_candidates(**kw)
    ball = to_arb(eta)
    for i, c in enumerate(cands):   # every candidate's ball is >= the chosen one (certified, or equal)
        cb = to_arb(th.radical(c.radicand, c.root))
        assert not cb < ball
    assert to_arb(th.radical(cands[j].radicand, cands[j].root)).overlaps(ball)
    # eta^n = radicand exactly
    r, n = cands[j].radicand, cands[j].root
    assert sympy.simplify(sympy.sympify(eta) ** n - sympy.Rational(r.numerator, r.denominator)) == 0


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(D2=st.fractions(min_value=Fr(1, 10), max_value=10, max_denominator=100),
       s2=st.fractions(min_value=Fr(1, 100), max_value=10, max_denominator=100),
       z2=st.fractions(min_value=Fr(1, 100), max_value=10, max_denominator=100),
       L=st.fractions(min_value=Fr(1, 10), max_value=10, max_denominator=100),
       M=st.integers(1, 8), tau=st.integers(1, 6), T=st.integers(1, 30))
def test_choice_agrees_with_high_precision_min(D2, s2, z2, L, M, tau, T):
    kw = dict(dist_sq=D2, M=M, tau=tau, T=T, L=L, sigma_sq=s2, zeta_sq=z2)
    vals = [to_arb(th.radical(c.radicand, c.root)) for c in th.optimized_step_candidates(**kw)]
    j = th.optimized_step_choice(**kw)
    for v in vals:
        assert not v < vals[j]
    # the mpmath mode gives the same value
    m = th.optimized_step(**{k: (float(v) if k in ("L",) else v) for k, v in kw.items()})
    assert isinstance(m, mpmath.mpf)
    assert abs(float(m) - float(vals[j].mid())) <= 1e-9 * float(vals[j].mid())


def test_optimized_rhs_exact_form_and_ball():
    # all four terms rational: L D^2 = 2*4, sigma^2 D^2/(M tau T) = 1*4/(1*1*1) -> sqrt 2 ... choose perfect powers
    # D^2 = 1, L = 1, sigma^2 = 1, zeta^2 = 1, M tau T = 1: 2 + 2 + 5 + 19 = 28
    assert th.optimized_rhs(dist_sq=1, M=1, tau=1, T=1, L=1, sigma_sq=1, zeta_sq=1) == 28
    r = th.optimized_rhs(dist_sq=4, M=2, tau=2, T=3, L=2, sigma=1, zeta_sq=Fr(1, 2))
    assert isinstance(r, sympy.Basic) and not r.is_Rational
    # 2*2*4/(2*3) + 2*sqrt(1*4/(2*2*3)) + 5*(2*1*16/(2*9))^(1/3) + 19*(2*(1/2)*16/9)^(1/3)
    #   = 8/3 + 2/sqrt(3) + 24 (16/9)^(1/3) = 8/3 + 2 sqrt(3)/3 + 16 * 6^(1/3)
    assert sympy.simplify(r - (sympy.Rational(8, 3) + 2 * sympy.sqrt(3) / 3 + 16 * sympy.cbrt(6))) == 0
    with mpmath.workdps(40):
        expected = mpmath.mpf(8) / 3 + 2 / mpmath.sqrt(3) + 24 * mpmath.cbrt(mpmath.mpf(16) / 9)
        assert abs(mpmath.mpf(th.optimized_rhs(dist_sq=4.0, M=2, tau=2, T=3, L=2, sigma=1, zeta_sq=0.5)) - expected) < 1e-35


def test_symbolic_mode_matches_the_published_shapes():
    D, M, tau, T, L, s, z = sympy.symbols("D M tau T L sigma zeta", positive=True)
    step = th.optimized_step(dist_sq=D**2, M=M, tau=tau, T=T, L=L, sigma=s, zeta=z)
    lean = sympy.Min(1 / (4 * L), sympy.sqrt(M) * D / (sympy.sqrt(tau) * sympy.sqrt(T) * s),
                     D ** sympy.Rational(2, 3) / (tau ** sympy.Rational(2, 3) * T ** sympy.Rational(1, 3)
                                                  * L ** sympy.Rational(1, 3) * s ** sympy.Rational(2, 3)),
                     D ** sympy.Rational(2, 3) / (tau * T ** sympy.Rational(1, 3) * L ** sympy.Rational(1, 3)
                                                  * z ** sympy.Rational(2, 3)))
    assert sympy.simplify(step - lean) == 0
    rhs = th.optimized_rhs(dist_sq=D**2, M=M, tau=tau, T=T, L=L, sigma=s, zeta=z)
    lean_rhs = (2 * L * D**2 / (tau * T) + 2 * s * D / sympy.sqrt(M * tau * T)
                + 5 * L ** sympy.Rational(1, 3) * s ** sympy.Rational(2, 3) * D ** sympy.Rational(4, 3)
                / (tau ** sympy.Rational(1, 3) * T ** sympy.Rational(2, 3))
                + 19 * L ** sympy.Rational(1, 3) * z ** sympy.Rational(2, 3) * D ** sympy.Rational(4, 3)
                / T ** sympy.Rational(2, 3))
    assert sympy.simplify(rhs - lean_rhs) == 0


def test_tuned_regime_enforced():
    with pytest.raises(InputError) as e:
        th.optimized_step(dist_sq=1, M=1, tau=1, T=1, L=1, sigma=0, zeta=1)
    assert e.value.argument == "sigma"
    with pytest.raises(InputError) as e:
        th.optimized_step(dist_sq=0, M=1, tau=1, T=1, L=1, sigma=1, zeta=1)
    assert e.value.argument == "dist_sq"


def test_hypotheses_report_each_failure_with_margin():
    hs = {h.key: h for h in th.fedavg_hypotheses(M=2, tau=3, T=1, eta=Fr(1, 4), L=2, sigma=1, zeta_sq=0)}
    assert hs["step_size"].holds is False and hs["step_size"].margin == Fr(1, 8) - Fr(1, 4)
    assert all(hs[k].holds for k in ("clients", "local_steps", "rounds", "smoothness", "eta", "sigma", "zeta"))
    hs = {h.key: h for h in th.fedavg_hypotheses(M=0, tau=0, T=0, eta=0, L=0)}
    assert [k for k, h in hs.items() if not h.holds] == ["clients", "local_steps", "rounds", "smoothness", "eta",
                                                          "step_size"]
    assert hs["step_size"].margin is None
    ts = {h.key: h for h in th.tuned_hypotheses(M=1, tau=1, T=1, L=1, dist_sq=4, sigma=0, zeta_sq=Fr(1, 4))}
    assert not ts["sigma"].holds and ts["zeta"].holds and ts["distance"].margin == 4
