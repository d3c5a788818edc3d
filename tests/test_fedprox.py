"""FedProx (local SGD on the proximal objective): reduction to FedAvg, a hand-computed round,
prefix consistency of the simulators (what the experiment's early stopping relies on), errors."""

import numpy as np
import pytest

from pyfed.algorithms import fedavg, fedprox, scaffold
from pyfed.errors import InputError
from pyfed.oracles import ExactOracle, GaussianOracle, MinibatchOracle
from pyfed.problems import QuadraticProblem, SoftmaxProblem, random_quadratic


@pytest.fixture(scope="module")
def softmax():
    rng = np.random.default_rng(3)
    Xs = [rng.standard_normal((n, 4)) for n in (5, 7, 6, 5, 9)]
    ys = [rng.integers(0, 3, size=X.shape[0]) for X in Xs]
    return SoftmaxProblem(Xs, ys, 0.01, n_classes=3, solve=False)


@pytest.mark.parametrize("S", [2, 5])
def test_mu_zero_is_fedavg_on_the_same_draws(softmax, S):
    O = MinibatchOracle(softmax, 2)
    kw = dict(S=S, K=3, T=6, eta_l=0.3, eta_g=1.0, R=3, rng=17)
    a = fedprox(softmax, O, mu=0, **kw)
    b = fedavg(softmax, O, mode="uniform", **kw)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.samples, b.samples)
    c = fedprox(softmax, O, mu=1, **kw)
    assert np.array_equal(c.samples, b.samples) and not np.allclose(c.x[:, 1:], b.x[:, 1:])


def test_mu_zero_is_fedavg_with_gaussian_noise():
    P = random_quadratic(4, 3, np.random.default_rng(5), mu=0.1, L=1.0)
    kw = dict(S=2, K=4, T=5, eta_l=0.2, eta_g=1.5, R=4, rng=9)
    assert np.array_equal(fedprox(P, GaussianOracle(P, 0.5), mu=0, **kw).x,
                          fedavg(P, GaussianOracle(P, 0.5), method="steps", **kw).x)


def test_hand_computed_round():
    """f_i(y) = a_i y^2/2 - b_i y, d = 1, S = N = 2, K = 2, exact gradients, mu = 1, eta_l = 1/4:
    y_{k+1} = y_k - (1/4)(a y_k - b + (y_k - x)) from y_0 = x = 1.
    client 0 (a=1, b=1): y1 = 1 - (0 + 0)/4 = 1, y2 = 1;
    client 1 (a=3, b=0): y1 = 1 - 3/4 = 1/4, y2 = 1/4 - (3/4 - 3/4)/4 = 1/4;
    x1 = 1 + (eta_g/2)((1 - 1) + (1/4 - 1)) = 1 - 3/8 with eta_g = 1."""
    P = QuadraticProblem([[[1]], [[3]]], [[1], [0]])
    tr = fedprox(P, ExactOracle(P), S=2, K=2, T=1, eta_l=0.25, eta_g=1.0, mu=1, x0=[1.0], rng=0)
    assert tr.x[0, 1, 0] == pytest.approx(5 / 8, abs=1e-15)
    # mu = 3: client 1: y1 = 1 - (3 + 0)/4 = 1/4, y2 = 1/4 - (3/4 + 3(1/4 - 1))/4 = 1/4 + 3/8 = 5/8
    tr = fedprox(P, ExactOracle(P), S=2, K=2, T=1, eta_l=0.25, eta_g=1.0, mu=3, x0=[1.0], rng=0)
    assert tr.x[0, 1, 0] == pytest.approx(1 + (0 + (5 / 8 - 1)) / 2, abs=1e-15)


@pytest.mark.parametrize("method", ["fedavg", "fedprox", "scaffold"])
def test_shorter_run_is_a_prefix_of_a_longer_one(softmax, method):
    """Same seed, T = 4 vs T = 7: the first 4 rounds are identical (the experiment engine's early
    stopping re-runs a candidate to a longer horizon and relies on this)."""
    O = MinibatchOracle(softmax, 2)
    fn = {"fedavg": fedavg, "fedprox": fedprox, "scaffold": scaffold}[method]
    kw = dict(S=3, K=3, eta_l=0.2, eta_g=1.0, R=5, rng=None)
    short = fn(softmax, O, T=4, **{**kw, "rng": np.random.default_rng([0, 1])})
    long = fn(softmax, O, T=7, **{**kw, "rng": np.random.default_rng([0, 1])})
    assert np.array_equal(short.x, long.x[:, :5])


@pytest.mark.parametrize("mu", [-1, float("nan"), float("inf"), "x"])
def test_invalid_mu(softmax, mu):
    with pytest.raises(InputError) as ei:
        fedprox(softmax, ExactOracle(softmax), S=2, K=1, T=1, eta_l=0.1, mu=mu, rng=0)
    assert ei.value.argument == "mu"
