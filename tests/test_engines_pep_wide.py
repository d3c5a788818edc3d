"""Verdicts of the wider PEP classes (pyfed.engines.pep.wide): SCAFFOLD's convex theorem at S < N
and at σ > 0 holds with a verified exact certificate at tiny sizes, a corrupted multiplier is
refused, a too-small constant gets none, S = N and σ = 0 give today's value, and a value above the
claim is never a violation (relaxation / not re-verified)."""

from fractions import Fraction

import pytest

from pyfed.engines.pep.certificate import Certificate, find_certificate, verify_certificate
from pyfed.engines.pep.participation import pep_scaffold_wide_exact
from pyfed.engines.pep.wide import decide_pep, worst_case_scaffold_wide
from pyfed.errors import InputError
from pyfed.verdicts import Evidence

F = Fraction
H = F(1, 81)            # h = 1/(81 β), the theorem's largest step


@pytest.mark.parametrize("S, K, sigma", [(1, 1, 0), (2, 1, 1), (1, 1, F(1, 3))])
def test_partial_participation_and_noise_rows_hold_with_a_certificate(S, K, sigma):
    res = worst_case_scaffold_wide(2, S, K, 2, H / K, 1, 1, 0, sigma)
    v = res.verdict
    assert v.status == "holds" and v.evidence is Evidence.PEP_CERTIFICATE, v.details.get("pep_certificate")
    assert v.details["pep_certificate"]["verified"] and v.details["pep_certificate"]["tau"] == "81/2"
    assert res.bound == F(81, 2) and 0 < res.ratio < 1
    assert ("relaxation" in v.details) == (sigma > 0)
    assert "relaxation" in v.certificate or sigma == 0


def _partial():
    """The S = 1 < N = 2, K = 1, T = 2 SCAFFOLD PEP (value about 0.494 for init V0 <= 1)."""
    return pep_scaffold_wide_exact(2, 1, 1, H, 1, 1, 0, {0: F(1, 2), 1: F(1, 2)}, {}, 18 * H**2)


@pytest.mark.slow
def test_small_constant_gets_no_certificate():
    pep = _partial()
    assert find_certificate(pep, F(2, 5))[0] is None      # below the value: no candidate verifies
    assert find_certificate(pep, F(1, 2))[0] is not None  # just above it: one does


def test_corrupted_multiplier_fails():
    pep = _partial()
    cert, why = find_certificate(pep, F(81, 2))
    assert cert is not None and verify_certificate(pep, cert).ok, why
    lam = list(cert.multipliers)
    k = next(i for i, v in enumerate(lam) if v > 0)
    lam[k] += F(1, 10**6)
    check = verify_certificate(pep, Certificate(cert.tau, lam, cert.Q, cert.slack))
    assert not check.ok and "coefficient" in check.reason


def test_noisy_corrupted_multiplier_fails():
    pep = pep_scaffold_wide_exact(2, 2, 1, H, 1, 1, 0, {0: F(1, 2), 1: F(1, 2)}, {}, 9 * H**2, F(1, 100))
    cert, why = find_certificate(pep, F(81, 2))
    assert cert is not None, why
    names = [name for name, _ in pep.constraints]
    k = names.index("E|xi0(y0,0,0)|^2 <= sigma^2")
    lam = list(cert.multipliers)
    lam[k] += 1
    assert not verify_certificate(pep, Certificate(cert.tau, lam, cert.Q, cert.slack)).ok


def test_full_participation_without_noise_gives_todays_value():
    from pyfed.engines.pep.scaffold import worst_case_scaffold
    old = worst_case_scaffold(2, 1, 2, H, 1, 1, 0, certify=False)
    new = worst_case_scaffold_wide(2, 2, 1, 2, H, 1, 1, 0, 0, certify=False)
    assert new.worst == pytest.approx(old.worst, rel=1e-4)
    assert new.bound == old.bound and new.verdict.status == old.verdict.status == "holds"


def test_value_above_the_claim_is_inconclusive_never_violated():
    pep = pep_scaffold_wide_exact(1, 1, 1, F(1, 2), 1, 1, 0, {0: F(1, 2), 1: F(1, 2)}, {}, 0, F(1, 1000))
    v, value = decide_pep(pep, 1, statement="x", details={}, relaxation=True, certify=False)
    assert v.status == "inconclusive" and "relaxation" in v.reason and value == pytest.approx(62.5, rel=1e-5)
    pep = pep_scaffold_wide_exact(2, 1, 1, H, 1, 1, 0, {0: F(1, 2), 1: F(1, 2)}, {}, 18 * H**2)
    v, _ = decide_pep(pep, F(1, 10), statement="x", details={}, relaxation=False, certify=False)
    assert v.status == "inconclusive" and "not re-verified" in v.reason


def test_fedavg_gets_the_reference_bound_and_bad_input_is_refused():
    res = worst_case_scaffold_wide(2, 1, 1, 2, H, 1, 1, 0, 0, controls=False)
    assert res.verdict is None and res.problem == "fedavg_wide"
    assert res.details["pep_certificate"]["verified"]
    with pytest.raises(InputError, match="^S"):
        worst_case_scaffold_wide(2, 3, 1, 2, H, 1)
    with pytest.raises(InputError, match="^sigma"):
        worst_case_scaffold_wide(2, 1, 1, 2, H, 1, sigma=-1)
    with pytest.raises(InputError, match="^T: .*above the limit"):
        worst_case_scaffold_wide(4, 2, 2, 4, H, 1)
