"""pyfed.algorithms.fedavg_shadow: the shadow-statistics simulator reproduces FedAvg and agrees with
the exact engine. The FedAvg Monte Carlo verdicts of statements are tested in
tests/test_engines_statement_fedavg_engines.py."""

from fractions import Fraction as Fr

import numpy as np

from pyfed.algorithms import fedavg
from pyfed.algorithms.fedavg_shadow import fedavg_shadow
from pyfed.engines.exact.fedavg import fedavg_shadow_moments
from pyfed.engines.montecarlo import Estimate
from pyfed.oracles import GaussianOracle
from pyfed.problems.heterogeneity import shared_hessian_quadratic


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
