"""Two-sided constant profile from the PEP row (pyfed.models.scaffold.pep_profile)."""

from fractions import Fraction

import pytest

from pyfed.models.scaffold.model import statement_of

from pyfed.suites.scaffold import CONVEX
from pyfed.models.scaffold.pep_profile import certificate_profile, two_sided_profile
from pyfed.errors import InputError


@pytest.mark.slow
def test_potential_constant_is_certified_well_below_9_at_the_small_instance():
    """At σ = 0, N = K = T = 2 the 9 of the potential is loose: 9, 9/2, 9/4 and the bisection point
    between are all certified (exact certificates), no witness; each point has one outcome."""
    st = statement_of(CONVEX)
    r = certificate_profile(st, "convexRHS.potential=9", halvings=2, refine=1)
    assert r["monotone"] is True
    assert [(p["value"], p["result"]) for p in r["points"]] == [("9", "certified"), ("9/2", "certified"),
                                                                 ("9/4", "certified")]
    assert r["certified_from"] == "9/4" and r["largest_witness"] is None
    assert "certified at 9/4 and above" in r["statement"]
    assert all(p["result"] in ("certified", "witness", "undecided") for p in r["points"])


def test_a_witness_and_a_certificate_never_meet():
    """The profile's interval: every witness value lies strictly below every certified value."""
    st = statement_of(CONVEX)
    r = certificate_profile(st, "convexRHS.potential=9", halvings=1, refine=0)
    cert = [Fraction(p["value"]) for p in r["points"] if p["result"] == "certified"]
    wit = [Fraction(p["value"]) for p in r["points"] if p["result"] == "witness"]
    assert cert and all(w < c for w in wit for c in cert)


def test_profile_rejects_hypothesis_constants_and_unknown_keys():
    st = statement_of(CONVEX)
    with pytest.raises(InputError, match="model constant"):
        certificate_profile(st, "step_size:81@36:34")
    with pytest.raises(InputError, match="no such constant"):
        certificate_profile(st, "nine")


@pytest.mark.slow
def test_two_sided_profile_is_reproducible():
    st = statement_of(CONVEX)
    a = two_sided_profile(st, "convexRHS.potential=9", seed=3, budget=2, halvings=1, refine=0)
    b = two_sided_profile(st, "convexRHS.potential=9", seed=3, budget=2, halvings=1, refine=0)
    assert a == b and a["witness_side"]["direction"] == "at least"


def test_rhs_dependence_is_decided_symbolically():
    """At σ = 0 the right side is 81/2 ‖x0 - x⋆‖² + (c/162) C₀ in the potential's constant c
    (N = K = T = 2, h = 1/81): nondecreasing, so certificates speak for a half-line; the noise
    constant 12 does not occur at all."""
    from pyfed.models.scaffold.pep_profile import rhs_dependence
    st = statement_of(CONVEX)
    d9 = rhs_dependence(st, "convexRHS.potential=9")
    assert d9 == {"alpha": "81/2", "gamma": "c/162", "kappa": "0", "enters": True, "monotone": True}
    d12 = rhs_dependence(st, "convexRHS.noise=12")
    assert d12["enters"] is False and d12["gamma"] == "1/18"


def test_noise_and_mu_constants_are_out_of_the_pep_s_reach():
    """σ = 0 removes the 12; μ = 0 makes μ h ≤ S/(15N) hold for every step, so the 15 leaves the
    PEP row unchanged: both are reported as constants the PEP cannot speak to, with no points."""
    from pyfed.models.scaffold.pep_profile import constant_pep_profile
    st = statement_of(CONVEX)
    for key in ("convexRHS.noise=12", "mu_h:15@37:44"):
        r = constant_pep_profile(st, key)
        assert r["applies"] is False and r["points"] == [] and "cannot speak" in r["statement"]


def test_statement_with_edits_the_numeral_and_reads_back():
    """The 81 set to 81/2 through the Lean text: the hypothesis reads h ≤ 1/((81/2) β) and the
    PEP row's largest admitted step doubles (ηl = 1/162 -> 1/81 at K = 2)."""
    from pyfed.models.scaffold.constants import literals
    from pyfed.models.scaffold.pep import pep_plan
    from pyfed.models.scaffold.pep_profile import statement_with
    st = statement_of(CONVEX)
    lit = next(x for x in literals(st) if x.key.startswith("step_size:81"))
    st2 = statement_with(st, lit, Fraction(81, 2))
    assert "(81 / 2 : ℝ)" in st2.hypothesis("step_size").text
    assert pep_plan(st)["eta_l"] == Fraction(1, 162) and pep_plan(st2)["eta_l"] == Fraction(1, 81)


@pytest.mark.slow
def test_a_too_small_step_constant_gets_a_witness_and_no_certificate():
    """81/256 admits h = 256/81 > 2/β: the PEP row gives an exact witness and no certificate;
    81/128 (h = 128/81) is certified at that step."""
    from pyfed.models.scaffold.constants import literals
    from pyfed.models.scaffold.pep import pep_row
    from pyfed.models.scaffold.pep_profile import statement_with
    st = statement_of(CONVEX)
    lit = next(x for x in literals(st) if x.key.startswith("step_size:81"))
    small = pep_row(statement_with(st, lit, Fraction(81, 256)))
    assert small.status == "violated" and small.certified
    ok = pep_row(statement_with(st, lit, Fraction(81, 128)))
    assert ok.status == "holds" and ok.certified
