"""pyfed.algorithms.common: divergence detection in every simulator (the first round beyond the
threshold, non-finite states)."""

import json

import numpy as np
import pytest

from pyfed.errors import Diverged



@pytest.fixture(scope="module")
def quad():
    from pyfed.problems import random_quadratic
    return random_quadratic(3, 2, np.random.default_rng(0), mu=0.1, L=1)


@pytest.mark.parametrize("which", ["scaffold-I", "scaffold-II", "scaffold_run", "fedavg", "local_sgd"])
def test_every_simulator_stops_on_divergence(which, quad):
    from pyfed.algorithms import fedavg, local_sgd, scaffold, scaffold_run
    from pyfed.algorithms.common import DIVERGENCE_THRESHOLD
    from pyfed.oracles import ExactOracle
    o = ExactOracle(quad)
    kw = dict(S=2, K=2, T=200, eta_l=10, eta_g=1, R=3, rng=0)   # h = 20: |1 - h lambda| >> 1
    with pytest.raises(Diverged) as e, np.errstate(over="ignore", invalid="ignore"):
        if which == "scaffold-I":
            scaffold(quad, o, option="I", **kw)
        elif which == "scaffold-II":
            scaffold(quad, o, option="II", **kw)
        elif which == "scaffold_run":
            scaffold_run(quad, o, **kw)
        elif which == "fedavg":
            fedavg(quad, o, **kw)
        else:
            local_sgd(quad, workers=2, b=1, eta=10, sync_times=[100, 200], R=3, rng=0)
    exc = e.value
    assert 0 < exc.round < 200 and exc.magnitude > DIVERGENCE_THRESHOLD
    assert f"diverged at round {exc.round}" in str(exc) and exc.replicate in (0, 1, 2)
    assert json.dumps(exc.to_json())


def test_divergence_round_is_the_first_round_beyond_the_threshold(quad):
    """Gradient descent on one quadratic client with a step of 3/lambda: |x| grows by a known factor
    per round; the detector names the first round whose iterate exceeds the threshold."""
    from pyfed.algorithms import fedavg
    from pyfed.algorithms.common import DIVERGENCE_THRESHOLD
    from pyfed.oracles import ExactOracle
    from pyfed.problems.quadratic import QuadraticProblem
    P = QuadraticProblem([[[1]]], [[0]])                 # f(x) = x^2/2, gradient x
    with pytest.raises(Diverged) as e:
        fedavg(P, ExactOracle(P), S=1, K=1, T=500, eta_l=3, eta_g=1, x0=[1.0], rng=0)   # x_r = (-2)^r
    r = e.value.round                                   # x^{r+1} = (-2)^(r+1) is the first > 1e50
    assert 2.0 ** (r + 1) > DIVERGENCE_THRESHOLD >= 2.0 ** r
    assert e.value.magnitude == 2.0 ** (r + 1)


def test_non_finite_state_is_divergence_at_round_0(quad):
    from pyfed.algorithms import scaffold_run
    from pyfed.oracles import Oracle

    class NaNOracle(Oracle):
        sigma = 0

        def __call__(self, y, rng, clients=None):
            return np.full(np.shape(y), np.nan)
    with pytest.raises(Diverged) as e:
        scaffold_run(quad, NaNOracle(quad), S=2, K=1, T=3, eta_l=0.1, eta_g=1, c0=np.zeros((3, 2)), rng=0)
    assert e.value.round == 0 and np.isnan(e.value.magnitude) and "non-finite" in str(e.value)
    assert e.value.to_json()["magnitude"] == "nan"


def test_check_divergence_helper():
    from pyfed.algorithms.common import check_divergence
    check_divergence(0, np.zeros((2, 3)))
    check_divergence(0, np.zeros((0, 3)))
    a = np.zeros((4, 2))
    a[2, 1] = 1e60
    with pytest.raises(Diverged) as e:
        check_divergence(5, a, quantity="controls")
    assert (e.value.round, e.value.replicate, e.value.quantity, e.value.magnitude) == (5, 2, "controls", 1e60)
    check_divergence(5, a, threshold=1e61)
