"""The region of a statement's hypotheses (pyfed.engines.proof.scalar): divisors cleared only
after their sign is proven, integer tightening, atoms of non-polynomial terms with their facts."""

from __future__ import annotations

import sympy

from pyfed.engines.proof.scalar import AtomFact, Region, Relation, ScalarForm

K, el, eg, beta, mu, T, r = sympy.symbols("K eta_l eta_g beta mu T r")


def _form(hyps, facts=(), ints=()):
    return ScalarForm("m", "S", "shape", 0, 0, "≤", hypotheses=list(hyps), facts=list(facts), integers=set(ints))


def test_a_divisor_is_cleared_only_once_its_sign_is_proven():
    step = Relation(K * el * eg, "≤", 1 / (81 * beta), "h ≤ 1/(81 β)")
    region = Region(_form([step]))            # no fact says β > 0: the hypothesis is not used
    assert region.base == [] and "81*beta" in region.dropped[0][1]
    region = Region(_form([step], [AtomFact(Relation(beta, ">", 0), None, "β > 0")]))
    assert [f.text() for f in region.base] == ["beta > 0", "-81*K*beta*eta_g*eta_l + 1 ≥ 0"]


def test_strict_comparisons_of_natural_numbers_are_tightened():
    region = Region(_form([Relation(0, "<", T, "0 < T")], ints=[T]))
    (fact,) = region.base
    assert fact.text() == "T - 1 ≥ 0" and not fact.strict


def test_a_geometric_sum_is_positive_once_its_ratio_is():
    W = sympy.Sum((1 / (1 - mu / 2)) ** (r + 1), (r, 0, T - 1))
    region = Region(_form([Relation(0, "≤", mu, "0 ≤ μ"), Relation(mu, "≤", 1, "μ ≤ 1"), Relation(1, "≤", T, "T ≥ 1")],
                          ints=[T]))
    assert region.certify(Relation(W, ">", 0)) is not None
    region = Region(_form([Relation(0, "≤", mu, "0 ≤ μ"), Relation(1, "≤", T, "T ≥ 1")], ints=[T]))
    assert region.certify(Relation(W, ">", 0)) is None           # μ may be 2: the ratio is not positive


def test_two_readings_of_one_sum_share_their_atom():
    r1, r2 = sympy.Dummy("r"), sympy.Dummy("r")
    region = Region(_form([]))
    s1 = sympy.Sum(2 ** r1, (r1, 0, T - 1))
    s2 = sympy.Sum(2 ** r2, (r2, 0, T - 1))
    assert region.identical(s1, s2) and not region.identical(s1, 2 * s2)
