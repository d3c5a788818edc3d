"""Tests for the stochastic gradient oracles (exact, Gaussian, minibatch)."""

import numpy as np
import pytest

from pyfed.errors import InputError
from pyfed.oracles import ExactOracle, GaussianOracle, MinibatchOracle
from pyfed.problems import LogisticProblem, NonconvexLogisticProblem, random_quadratic


@pytest.fixture(scope="module")
def logistic():
    return LogisticProblem.from_dataset("wine", 3, "dirichlet", 0, lam=0.05, alpha=1.0)


@pytest.fixture(scope="module")
def nonconvex():
    return NonconvexLogisticProblem.from_dataset("breast_cancer", 2, "iid", 0, lam=0.2)


def _exact_minibatch_variance(p, y, b):
    """(1/b) (1/n_i) sum_j ||u_j - mean u||^2 per client, from all per-sample gradients at y (N, d)."""
    out = []
    for i in range(p.N):
        u = p.sample_grads(y[i][None], np.array([i]), np.arange(p.counts[i])[None], reduce=None)[0]
        out.append(np.mean(np.sum((u - u.mean(axis=0)) ** 2, axis=-1)) / b)
    return np.array(out)


def test_minibatch_sigma_hand_value():
    # client 0: a = (3, 4), (0, 0): (1/n) sum ||a||^2 = 25/2; client 1: a = (1, 0): 1. b = 5 -> sigma^2 = 5/2
    p = LogisticProblem([np.array([[3.0, 4.0], [0.0, 0.0]]), np.array([[1.0, 0.0]])],
                        [np.array([1, 0]), np.array([1])], 0.1)
    o = MinibatchOracle(p, 5)
    assert 2.5 <= o.sigma_sq <= 2.5 * (1 + 1e-11)
    assert np.allclose(o.client_sigma_sq, [2.5, 0.2], rtol=1e-11)
    assert o.sigma**2 >= o.sigma_sq and o.sigma == pytest.approx(np.sqrt(2.5), rel=3e-12)
    assert "1/b" in o.derivation and o.describe()["b"] == 5


@pytest.mark.parametrize("which,b", [("logistic", 1), ("logistic", 4), ("nonconvex", 3)])
def test_minibatch_unbiased_and_variance_bounded(which, b, logistic, nonconvex):
    p = logistic if which == "logistic" else nonconvex
    o = MinibatchOracle(p, b)
    rng = np.random.default_rng(10)
    y = 0.3 * rng.standard_normal((p.N, p.d))
    R = 20000
    g = o(np.broadcast_to(y, (R, p.N, p.d)), rng)  # (R, N, d)
    assert g.shape == (R, p.N, p.d)
    truth = p.client_grads(y)
    mean = g.mean(axis=0)
    se = g.std(axis=0, ddof=1) / np.sqrt(R)
    assert np.all(np.abs(mean - truth) <= 4 * se + 1e-12)
    # E||g - grad f_i||^2: empirical matches the exact minibatch variance, which is <= sigma^2
    err2 = np.sum((g - truth) ** 2, axis=-1)  # (R, N)
    emp = err2.mean(axis=0)
    emp_se = err2.std(axis=0, ddof=1) / np.sqrt(R)
    exact = _exact_minibatch_variance(p, y, b)
    assert np.all(np.abs(emp - exact) <= 4 * emp_se)
    assert np.all(exact <= o.client_sigma_sq) and np.all(emp <= o.sigma_sq)
    assert exact.max() > 0.05 * o.sigma_sq  # the bound is not vacuous-by-looseness on this data


def test_minibatch_variance_bound_uniform_in_y(logistic):
    # the certificate is sup over y: check the exact variance at many (also far-out) points
    o = MinibatchOracle(logistic, 2)
    rng = np.random.default_rng(11)
    for scale in (0.0, 0.5, 5.0, 50.0):
        y = scale * rng.standard_normal((logistic.N, logistic.d))
        assert np.all(_exact_minibatch_variance(logistic, y, 2) <= o.client_sigma_sq)


def test_minibatch_explicit_clients_and_reproducibility(logistic):
    o = MinibatchOracle(logistic, 2)
    clients = np.array([[0, 2], [1, 1], [2, 0]])
    y = np.random.default_rng(1).standard_normal((3, 2, logistic.d))
    a = o(y, np.random.default_rng(5), clients)
    b = o(y, np.random.default_rng(5), clients)
    c = o(y, np.random.default_rng(6), clients)
    assert a.shape == (3, 2, logistic.d)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    # with b = 1 every sample is one of client i's per-sample gradients
    o1 = MinibatchOracle(logistic, 1)
    g = o1(y, np.random.default_rng(0), clients)
    for r in range(3):
        for s in range(2):
            i = clients[r, s]
            allg = logistic.sample_grads(y[r, s][None], np.array([i]), np.arange(logistic.counts[i])[None],
                                         reduce=None)[0]
            assert np.min(np.linalg.norm(allg - g[r, s], axis=-1)) < 1e-12
    with pytest.raises(InputError) as e:
        o(y, np.random.default_rng(0), clients + 3)
    assert e.value.argument == "clients"


def test_minibatch_bad_inputs(logistic):
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InputError) as e:
            MinibatchOracle(logistic, bad)
        assert e.value.argument == "b"
    with pytest.raises(InputError) as e:
        MinibatchOracle(random_quadratic(2, 2, 0), 4)
    assert e.value.argument == "problem"
    with pytest.raises(InputError) as e:
        MinibatchOracle("not a problem", 4)
    assert e.value.argument == "problem"


def test_gaussian_oracle_noise_level():
    q = random_quadratic(3, 5, 0)
    o = GaussianOracle(q, 0.7)
    rng = np.random.default_rng(2)
    y = rng.standard_normal((q.N, q.d))
    R = 20000
    g = o(np.broadcast_to(y, (R, q.N, q.d)), rng)
    xi2 = np.sum((g - q.client_grads(y)) ** 2, axis=-1).ravel()
    assert abs(xi2.mean() - 0.49) <= 4 * xi2.std(ddof=1) / np.sqrt(xi2.size)
    xi = (g - q.client_grads(y)).reshape(-1, q.d)
    assert np.all(np.abs(xi.mean(axis=0)) <= 4 * xi.std(axis=0, ddof=1) / np.sqrt(xi.shape[0]))
    assert o.covariance_scale() == pytest.approx(0.49 / 5)


def test_exact_oracle_and_gaussian_errors(logistic):
    y = np.zeros((logistic.N, logistic.d))
    assert np.array_equal(ExactOracle(logistic)(y, np.random.default_rng(0)), logistic.client_grads(y))
    assert np.array_equal(GaussianOracle(logistic, 0)(y, np.random.default_rng(0)), logistic.client_grads(y))
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(InputError) as e:
            GaussianOracle(logistic, bad)
        assert e.value.argument == "sigma"
