"""Exact certificates of polynomial inequalities (pyfed.engines.proof.positivstellensatz): known
identities found and verified exactly, refutations of empty regions, strict claims, and every
corruption of a certificate refused by its exact check."""

from __future__ import annotations

from fractions import Fraction

import sympy

from pyfed.engines.proof.positivstellensatz import Fact, Summand, prove, refute, sign_symbols
from pyfed.engines.proof.polynomial import Ring

a, b, x, y, beta, h, N, S, mu = sympy.symbols("a b x y beta h N S mu")


def test_a_stricter_step_implies_the_published_one_with_the_hand_derived_multipliers():
    # 1 - 81 β h ≥ 0 from 1 - 100 β h ≥ 0: exactly 81/100 of the hypothesis plus 19/100
    cert = prove(1 - 81 * beta * h, [Fact(beta, True, "β > 0"), Fact(1 - 100 * beta * h, False, "step")])
    assert cert is not None and cert.verify() == (True, "")
    coefs = sorted(s.coef for s in cert.summands)
    assert coefs == [Fraction(19, 100), Fraction(81, 100)]


def test_squares_are_found_for_a_sum_of_squares():
    cert = prove(a ** 2 * x ** 2 + y ** 2 - 2 * a * x * y, [Fact(a, True, "a > 0")])
    assert cert is not None and cert.verify()[0]
    assert any(s.square is not None for s in cert.summands)
    assert cert.lean_hints() and cert.lean_hints()[0].startswith("sq_nonneg (")


def test_a_false_inequality_gets_no_certificate():
    assert prove(a ** 2 * x ** 2 + y ** 2 - 3 * a * x * y, [Fact(a, True, "a > 0")]) is None
    assert prove(1 - 81 * beta * h, [Fact(beta, True), Fact(1 - 60 * beta * h, False)]) is None    # βh = 1/70


def test_the_target_is_multiplied_by_a_positive_variable_when_needed():
    # 2 - μ h > 0 needs the client count N: 15 N μ h ≤ S ≤ N
    facts = [Fact(S - 15 * N * mu * h, False, "μh ≤ S/(15N)"), Fact(N - S, False, "S ≤ N"), Fact(N - 1, False, "N ≥ 1"),
             Fact(mu, False, "μ ≥ 0"), Fact(h, False, "h ≥ 0")]
    cert = prove(2 - mu * h, facts, strict=True)
    assert cert is not None and cert.scale is not None and cert.verify()[0]
    assert cert.text().startswith("N·(")


def test_a_nonlinear_contradiction_is_refuted_exactly():
    cert = refute([Fact(x * y - 1, True, "xy > 1"), Fact(1 - x ** 2 - y ** 2, False, "disk")])
    assert cert is not None and cert.verify()[0]
    assert refute([Fact(x * y - 1, True), Fact(4 - x ** 2 - y ** 2, False)]) is None     # (1.2, 1.2) is inside


def test_strict_claims_need_a_strictly_positive_summand():
    facts = [Fact(beta, True, "β > 0"), Fact(h, False, "h ≥ 0")]
    assert prove(beta, facts, strict=True) is not None
    assert prove(h, facts, strict=True) is None          # h may be 0
    assert prove(h, facts) is not None


def test_every_corruption_of_a_certificate_is_refused():
    cert = prove(1 - 81 * beta * h, [Fact(beta, True, "β > 0"), Fact(1 - 100 * beta * h, False, "step")])
    s0 = cert.summands[0]
    cert.summands[0] = Summand(s0.coef + Fraction(1, 1000), s0.facts, s0.mono, s0.square)
    ok, why = cert.verify()
    assert not ok and "identity fails" in why
    cert.summands[0] = Summand(-s0.coef, s0.facts, s0.mono, s0.square)
    assert cert.verify() == (False, f"negative coefficient {-s0.coef}")
    cert.summands[0] = s0
    assert cert.verify()[0]
    # a multiplier by a variable no fact makes nonnegative
    ring = cert.ring
    bad = tuple(1 if sym == h else 0 for sym in ring.symbols)
    cert.summands.append(Summand(Fraction(0), (), bad, None))
    assert not cert.verify()[0]


def test_sign_symbols_reads_single_variable_bounds():
    ring = Ring([a, b])
    got = sign_symbols(ring, [Fact(a - 1, False), Fact(b, False), Fact(2 * a + 3, False)])
    assert got == {a: True, b: False}
