"""Tests for pyfed.engines.exact.arith: the exact field's Fractions."""

from fractions import Fraction

from flint import fmpq

from pyfed.engines.exact.arith import ExactField, _coprime_fraction


def test_public_fractions_equal_the_normalised_ones():
    """fmpq -> Fraction without Fraction's gcd: the same (normalised) Fraction, negative values and
    integers included, and equal/hashing like one built the usual way."""
    F = ExactField()
    big = 3 ** 4000
    for p, q in [(0, 1), (5, 1), (-7, 3), (2 * big + 1, 5 ** 1700), (-(2 ** 3000 + 1), big)]:
        want = Fraction(p, q)
        got = F.public(fmpq(p, q))
        assert got == want and hash(got) == hash(want)
        assert (got.numerator, got.denominator) == (want.numerator, want.denominator)
        assert got + Fraction(1, 3) == want + Fraction(1, 3)
    assert _coprime_fraction(-4, 9) == Fraction(-4, 9)
