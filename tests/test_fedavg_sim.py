"""Certified heterogeneity constants and the shadow-statistics simulator (against the exact
engine). The FedAvg Monte Carlo verdicts of statements are tested in tests/test_engines_statement_fedavg_engines.py."""

from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.algorithms import fedavg
from pyfed.algorithms.fedavg_shadow import fedavg_shadow
from pyfed.engines.exact.fedavg import fedavg_shadow_moments
from pyfed.engines.montecarlo import Estimate
from pyfed.errors import InputError
from pyfed.oracles import GaussianOracle
from pyfed.problems.heterogeneity import (finite_sum_heterogeneity, heterogeneity, quadratic_heterogeneity,
                                          shared_hessian_quadratic)
from pyfed.problems.logistic import LogisticProblem
from pyfed.problems.quadratic import QuadraticProblem


def _shared(b, A=((1, 0), (0, 2))):
    A = np.array([[Fr(v) for v in r] for r in A], dtype=object)
    return QuadraticProblem(np.array([A] * len(b), dtype=object), np.array([[Fr(v) for v in r] for r in b], dtype=object))


def test_zeta_is_exact_for_a_shared_hessian():
    # b = (1, 0), (0, 2), (2, 1): mean (1, 1); ||b_i - mean||^2 = 1, 2, 1 -> zeta^2 = 2
    P = _shared([(1, 0), (0, 2), (2, 1)])
    h = quadratic_heterogeneity(P)
    assert h.exact and h.zeta_sq == 2 and h.per_client_sq == (1, 2, 1)
    assert h.zeta >= 2 ** 0.5 and Fr(h.zeta) ** 2 >= 2
    # and it is attained: grad F_i - grad F = mean b - b_i at every x
    x = np.array([Fr(3), Fr(-7)], dtype=object)
    g = P.grads_exact(x)
    gbar = g.sum(axis=0) / 3
    assert max(sum((gi - gbar) ** 2) for gi in g) == h.zeta_sq


def test_float_data_zeta_is_the_exact_binary_value():
    A = np.array([[[1.0]], [[1.0]]])
    P = QuadraticProblem(A, np.array([[0.1], [0.3]]))
    h = heterogeneity(P)
    assert h.zeta_sq == ((Fr(0.3) - Fr(0.1)) / 2) ** 2


def test_different_hessians_have_no_finite_zeta():
    P = QuadraticProblem(np.array([[[Fr(1)]], [[Fr(2)]]], dtype=object), np.array([[Fr(0)], [Fr(0)]], dtype=object))
    with pytest.raises(InputError) as e:
        heterogeneity(P)
    assert e.value.argument == "A"
    assert "no finite" in e.value.reason and "different Hessians" in e.value.reason


def test_logistic_zeta_bounds_the_observed_heterogeneity():
    lg = LogisticProblem.from_dataset("breast_cancer", N=6, scheme="dirichlet", rng=np.random.default_rng(5),
                                      lam=0.05, alpha=0.5)
    h = finite_sum_heterogeneity(lg)
    assert not h.exact and "regulariser" in h.derivation
    rng = np.random.default_rng(0)
    worst = 0.0
    for scale in (0.01, 0.3, 3.0, 100.0):
        x = rng.standard_normal((100, lg.d)) * scale
        g = lg.client_grads(np.broadcast_to(x[:, None, :], (100, lg.N, lg.d)))
        diff = g - g.mean(axis=1, keepdims=True)
        worst = max(worst, float(np.sqrt((diff**2).sum(-1)).max()))
    assert worst <= h.zeta
    # one client: no heterogeneity (the bound is the distance term only, which is 0)
    one = LogisticProblem([lg.X[:20]], [lg.labels[:20]], 0.05)
    assert finite_sum_heterogeneity(one).zeta_sq == 0


def test_shadow_simulator_reproduces_fedavg_and_records_every_local_step():
    P = shared_hessian_quadratic(4, 3, np.random.default_rng(3))
    o = GaussianOracle(P, 0.5)
    tr = fedavg_shadow(P, o, tau=3, T=4, eta=0.2, x0=np.ones(3), R=16, rng=11)
    fa = fedavg(P, o, S=4, K=3, T=4, eta_l=0.2, eta_g=1, x0=np.ones(3), R=16, rng=11, method="steps")
    assert tr.shadow.shape == (16, 4, 4, 3) and tr.drift.shape == (16, 4, 4, 4)
    np.testing.assert_allclose(tr.shadow[:, :, -1], fa.x[:, 1:], rtol=0, atol=1e-12)
    np.testing.assert_allclose(tr.round_starts, fa.x[:, :-1], rtol=0, atol=1e-12)
    assert np.all(tr.drift[:, :, 0] == 0)   # every round starts synchronised
    np.testing.assert_allclose(tr.value, P.value(tr.shadow), rtol=1e-12, atol=1e-12)
    assert tr.avg_loss(P.f_star).shape == (16,)
    # same seed, same numbers
    tr2 = fedavg_shadow(P, o, tau=3, T=4, eta=0.2, x0=np.ones(3), R=16, rng=11)
    assert np.array_equal(tr.shadow, tr2.shadow)


def test_monte_carlo_agrees_with_exact_moments():
    P = shared_hessian_quadratic(3, 2, np.random.default_rng(4), heterogeneity=Fr(1, 2))
    sigma, tau, T, eta = Fr(1, 2), 3, 3, Fr(1, 8)
    x0 = [Fr(1), Fr(-1)]
    m = fedavg_shadow_moments(P, sigma, tau=tau, T=T, eta=eta, x0=x0)
    tr = fedavg_shadow(P, GaussianOracle(P, float(sigma)), tau=tau, T=T, eta=float(eta), x0=[1.0, -1.0], R=4000,
                       rng=5)
    est = Estimate.from_samples(tr.avg_loss(float(P.f_star)), 0.9999)
    assert est.lower <= float(m.avg_loss) <= est.upper
    drift_mc = tr.drift.mean(axis=0)
    exact = np.array([[[float(v) for v in row] for row in t] for t in m.drift])
    se = tr.drift.std(axis=0) / np.sqrt(4000) + 1e-15
    assert np.all(np.abs(drift_mc - exact) <= 5 * se)
