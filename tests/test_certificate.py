"""Exact PEP certificates (pyfed.engines.pep.certificate): they verify on the function-class lemmas
and on SCAFFOLD / FedAvg at small sizes, a corrupted multiplier or matrix entry is refused, and a
constant below the class's worst case gets none."""

import itertools
import random
from fractions import Fraction

import pytest
import sympy

from pyfed.engines.pep.certificate import (Certificate, find_certificate, ldl_pivots, residual_form,
                                           verify_certificate)
from pyfed.engines.pep.exact_pep import (pep_gradient_growth_exact, pep_nonexpansive_exact,
                                         pep_perturbed_strong_convexity_exact, pep_scaffold_exact)

F = Fraction


def _scaffold(controls=True):
    """The statement row's PEP of the seed convex theorem at N = K = T = 2 (ηl = 1/162, ηg = β = 1,
    μ = 0): weightedGap weights 1/2, 1/2; init ‖x0 - x⋆‖² + (1/729) C₀ (γ/α = 9 h², h = 1/81)."""
    return pep_scaffold_exact(2, 2, F(1, 162), 1, 1, 0, {0: F(1, 2), 1: F(1, 2)}, {}, F(1, 729), controls=controls)


@pytest.mark.parametrize("pep, tau", [
    (pep_gradient_growth_exact(2, 1, 2), 0),
    (pep_gradient_growth_exact(3, F(1, 2), 2), 0),
    (pep_perturbed_strong_convexity_exact(1, 0), 0),
    (pep_perturbed_strong_convexity_exact(2, F(1, 2)), 0),
    (pep_nonexpansive_exact(1, 1, 0), 1),
    (pep_nonexpansive_exact(1, 2, 0), 1),                 # η = 2/β: the boundary, tight
    (pep_nonexpansive_exact(1, F(1, 2), F(1, 5)), 1),
    (_scaffold(), F(81, 2)),                               # the statement's α
    (_scaffold(controls=False), F(81, 2)),                 # FedAvg, same reference bound
])
def test_certificates_verify_on_the_lemmas_and_small_runs(pep, tau):
    cert, why = find_certificate(pep, tau)
    assert cert is not None, why
    assert verify_certificate(pep, cert).ok
    assert all(isinstance(v, Fraction) and v >= 0 for v in cert.multipliers)
    assert ldl_pivots(cert.Q) is not None and cert.tau == tau


def test_nonexpansive_multipliers_are_the_hand_derived_ones():
    """‖d - η Δg‖² = ‖d‖² - 2η⟨d, Δg⟩ + η²‖Δg‖²; the two interpolation inequalities sum to
    -⟨Δg, d⟩ + ‖Δg‖²/β ≤ 0, so λ = 2η on each is forced (the ⟨d, Δg⟩ term has no diagonal to
    hide in) and Q = η(2/β - η) ‖Δg‖²: for β = η = 1, λ = (2, 2) and Q = ‖g(x) - g(y)‖²."""
    pep = pep_nonexpansive_exact(1, 1, 0)
    cert, _ = find_certificate(pep, 1)
    assert cert.multipliers == [2, 2]
    gx, gy = pep.leaves.index("g0(x)"), pep.leaves.index("g0(y)")
    want = [[F(0)] * 4 for _ in range(4)]
    want[gx][gx] = want[gy][gy] = F(1)
    want[gx][gy] = want[gy][gx] = F(-1)
    assert cert.Q == want and cert.slack == 0


def test_a_corrupted_multiplier_or_matrix_entry_fails_verification():
    pep = _scaffold()
    cert, _ = find_certificate(pep, F(81, 2))
    k = next(i for i, v in enumerate(cert.multipliers) if v > 0)
    lam = list(cert.multipliers)
    lam[k] += F(1, 10**6)
    bad = Certificate(cert.tau, lam, cert.Q, cert.slack)
    check = verify_certificate(pep, bad)
    assert not check.ok and "coefficient" in check.reason
    lam[k] = -cert.multipliers[k]
    assert "negative" in verify_certificate(pep, Certificate(cert.tau, lam, cert.Q, cert.slack)).reason
    Q = [row[:] for row in cert.Q]
    Q[0][1] += F(1, 10**6)
    Q[1][0] += F(1, 10**6)                                      # still symmetric
    check = verify_certificate(pep, Certificate(cert.tau, cert.multipliers, Q, cert.slack))
    assert not check.ok and "Gram coefficient" in check.reason
    Q[1][0] -= F(1, 10**6)
    assert "symmetric" in verify_certificate(pep, Certificate(cert.tau, cert.multipliers, Q, cert.slack)).reason
    # lowering tau breaks the identity; recomputing Q from the identity leaves Q indefinite
    low = Certificate(cert.tau - 1, cert.multipliers, cert.Q, cert.slack)
    assert not verify_certificate(pep, low).ok


@pytest.mark.slow
def test_a_constant_below_the_worst_case_gets_no_certificate():
    """SCAFFOLD at N = K = T = 2: the worst case is 81/164 ≈ 0.49390 (PEPit: 0.4939024); a certificate
    exists just above it and none below (every oracle attempt is refused, ~25 s)."""
    pep = _scaffold()
    cert, why = find_certificate(pep, F(81, 164) * F(1001, 1000))
    assert cert is not None, why
    cert, why = find_certificate(pep, F(81, 164) * F(999, 1000))
    assert cert is None and why


def test_a_lemma_constant_below_the_class_supremum_gets_no_certificate():
    """GradientGrowth with the factor 1 < 2: its supremum (1 - 1/2) β² > 0 is attained by β/2 ‖x‖²;
    the nonexpansive step with η = 5/2 > 2/β: (1 - ηβ)² = 9/4 > 1."""
    assert find_certificate(pep_gradient_growth_exact(1, 1, 1), 0)[0] is None
    assert find_certificate(pep_nonexpansive_exact(1, F(5, 2), 0), 1)[0] is None      # η > 2/β


def test_verification_refuses_a_certificate_of_a_false_claim():
    """A residual recomputed exactly from any multipliers cannot certify τ below the worst case:
    for GradientGrowth with factor 1, τ = 0, every λ leaves a Q that is not PSD or nonzero
    function-value coefficients (here: the multipliers of the factor-2 certificate)."""
    good, _ = find_certificate(pep_gradient_growth_exact(1, 1, 2), 0)
    pep = pep_gradient_growth_exact(1, 1, 1)
    R = residual_form(pep, 0, good.multipliers)
    n = len(pep.leaves)
    from pyfed.engines.pep.certificate import gram_matrix
    cand = Certificate(F(0), good.multipliers, gram_matrix(R, n), R.const)
    check = verify_certificate(pep, cand)
    assert not check.ok


def _psd_by_minors(Q):
    n = len(Q)
    return all(sympy.Matrix([[Q[i][j] for j in S] for i in S]).det() >= 0
               for r in range(1, n + 1) for S in itertools.combinations(range(n), r))


@pytest.mark.slow
def test_ldl_pivots_decide_psd_as_all_principal_minors_do():
    rng = random.Random(1)
    seen = {True: 0, False: 0}
    for _ in range(200):
        n, r = rng.randint(1, 5), rng.randint(0, 5)
        B = [[F(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(r)] for _ in range(n)]
        Q = [[sum((B[i][t] * B[j][t] for t in range(r)), F(0)) for j in range(n)] for i in range(n)]
        if rng.random() < 0.5:
            i = rng.randrange(n)
            Q[i][i] -= F(1, rng.randint(1, 50))
        piv = ldl_pivots(Q)
        psd = _psd_by_minors(Q)
        seen[psd] += 1
        assert (piv is not None) == psd
        if piv is not None and all(p != 0 for p in piv):
            assert sympy.prod(piv) == sympy.Matrix(Q).det()
    assert seen[True] > 20 and seen[False] > 20
    assert ldl_pivots([[F(1), F(2)], [F(2), F(4)]]) == [1, 0]
    assert ldl_pivots([[F(0), F(1)], [F(1), F(0)]]) is None


def test_certificate_json_is_exact_text():
    pep = pep_nonexpansive_exact(1, 1, 0)
    cert, _ = find_certificate(pep, 1)
    j = cert.to_json(pep)
    assert [c["multiplier"] for c in j["constraints"]] == ["2", "2"]
    assert j["tau"] == "1" and j["ldl_pivots"] == ["0", "0", "1", "0"]
    assert all(isinstance(v, str) for row in j["Q"] for v in row)
