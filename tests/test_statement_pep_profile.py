"""Two-sided constant profile from the PEP row (pyfed.engines.statement.pep_profile)."""

from fractions import Fraction

import pytest

from pyfed.check import CONVEX, statement_of
from pyfed.engines.statement.pep_profile import certificate_profile, two_sided_profile
from pyfed.errors import InputError


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
