"""pyfed.problems.heterogeneity: certified heterogeneity constants (zeta exact for a shared Hessian and
for float data, none for different Hessians, a logistic bound above the observed heterogeneity)."""

from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.errors import InputError
from pyfed.problems.heterogeneity import finite_sum_heterogeneity, heterogeneity, quadratic_heterogeneity
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


