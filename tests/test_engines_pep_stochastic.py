"""The expectation-Gram relaxation of stochastic gradients (pyfed.engines.pep.stochastic): which
noise-leaf inner products are fixed to zero, the hand-computable SGD case (one client, K = 1,
T = 2) with its tight exact certificate, and σ > 0 adding nothing when the noise is not weighed."""

from fractions import Fraction

import pytest

from pyfed.engines.pep.certificate import find_certificate, verify_certificate
from pyfed.engines.pep.participation import pep_scaffold_wide_exact
from pyfed.engines.pep.wide import pep_value

F = Fraction


def _orthogonal(pep, xi):
    """Names of the leaves the noise leaf ``xi`` is made orthogonal to."""
    tag = f"E<{xi}, "
    return {name[len(tag):].split("> = 0")[0] for name, _ in pep.constraints
            if name.startswith(tag) and name.endswith("(<=)")}


def test_noise_is_orthogonal_to_its_past_and_to_the_other_clients_step():
    """N = 2, K = 2, S = N: the step-0 noise of client 0 is orthogonal to the data, the round-start
    gradients, client 1's step-0 noise and the gradient client 1 reaches with it -- not to its own
    client's next gradient, nor to anything of step 2 or of the next round."""
    pep = pep_scaffold_wide_exact(2, 2, 2, F(1, 162), 1, 1, 0, {0: F(1, 2), 1: F(1, 2)}, {}, F(1, 729), 1)
    xi00, xi01 = "xi0(y0,0,0)", "xi0(y0,0,1)"
    assert _orthogonal(pep, xi00) == {"x*", "g0(x*)", "x0", "c0", "c1", "g0(x0)", "g1(x0)",
                                      "xi1(y1,0,0)", "g1(y1,0,1)"}
    # the step-1 noise: everything of steps 0 and 1 except itself, and no gradient of round 1
    assert _orthogonal(pep, xi01) == {"x*", "g0(x*)", "x0", "c0", "c1", "g0(x0)", "g1(x0)", xi00,
                                      "xi1(y1,0,0)", "g0(y0,0,1)", "g1(y1,0,1)", "xi1(y1,0,1)"}
    variance = [name for name, _ in pep.constraints if name.startswith("E|")]
    assert len(variance) == 4 and "sigma" in pep.leaves


def test_noise_of_one_branch_is_orthogonal_to_the_other_branches():
    """S = 1 < N = 2, T = 3: a round-1 noise (node of subset {0}) is orthogonal to every leaf of the
    sibling branch (subset {1}) and of its parent's round, and not to its own descendants."""
    pep = pep_scaffold_wide_exact(2, 1, 1, F(1, 100), 1, 1, 0, {0: 1, 1: 1, 2: 1}, {}, 1, 1)
    xi = "xi0(y0,0.0,0)"               # round 1, branch 0 (client 0 sampled in round 0)
    orth = _orthogonal(pep, xi)
    assert "g0(x0.1)" in orth and "xi1(y1,0.1,0)" in orth    # sibling branch
    assert "xi0(y0,0,0)" in orth                            # the parent round
    assert not any(name.startswith("g0(x0.0.") for name in orth)   # its own future iterates


def _sgd():
    """N = S = K = 1, T = 2, η = 1/2, β = 1, μ = 0; metric (1/2)(f(x0) - f⋆) + (1/2) E(f(x1) - f⋆),
    init ‖x0 - x⋆‖² + σ²/1000. The noise part is η²β/4 σ² = σ²/16 (descent lemma in expectation,
    attained by f = ‖x‖²/2 from x0 = x⋆), the noiseless part at most β/2 ‖x0 - x⋆‖²; so the value
    is (1/16)/(1/1000) = 125/2."""
    return pep_scaffold_wide_exact(1, 1, 1, F(1, 2), 1, 1, 0, {0: F(1, 2), 1: F(1, 2)}, {}, 0, F(1, 1000))


def test_sgd_one_client_two_rounds_hand_value():
    pep = _sgd()
    value, status, *_ = pep_value(pep)
    assert status == "optimal" and value == pytest.approx(62.5, rel=1e-5)
    cert, why = find_certificate(pep, 63)
    assert cert is not None and verify_certificate(pep, cert).ok, why


@pytest.mark.slow
def test_sgd_tight_certificate_has_the_hand_variance_multiplier():
    """At τ = 125/2 exactly the certificate verifies with the variance multiplier 1/16 (the descent
    lemma's η²β/2 times the metric's weight 1/2); τ = 62 gets none."""
    pep = _sgd()
    cert, why = find_certificate(pep, F(125, 2))
    assert cert is not None and verify_certificate(pep, cert).ok, why
    names = [name for name, _ in pep.constraints]
    assert cert.multipliers[names.index("E|xi0(y0,0,0)|^2 <= sigma^2")] == F(1, 16)
    assert find_certificate(pep, 62)[0] is None


def test_sigma_positive_reduces_to_sigma_zero_when_noise_weighs_enough():
    """With the seed's noise weight the σ > 0 value equals the deterministic one (the noise budget
    is not the binding one) -- the σ > 0 PEP only adds leaves and constraints."""
    gap = {0: F(1, 2), 1: F(1, 2)}
    det = pep_scaffold_wide_exact(2, 2, 2, F(1, 162), 1, 1, 0, gap, {}, F(1, 729))
    noisy = pep_scaffold_wide_exact(2, 2, 2, F(1, 162), 1, 1, 0, gap, {}, F(1, 729), F(4, 27) * F(81, 2) ** -1)
    assert pep_value(noisy)[0] == pytest.approx(pep_value(det)[0], rel=1e-5)
    assert len(noisy.leaves) == len(det.leaves) + 1 + 4
