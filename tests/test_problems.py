"""Tests for the federated problems: logistic (real data), nonconvex logistic, quadratic."""

from fractions import Fraction

import numpy as np
import pytest

from pyfed.errors import InputError
from pyfed.problems import (FiniteSumProblem, LogisticProblem, NonconvexLogisticProblem, QuadraticProblem,
                            is_psd_exact, random_quadratic)


@pytest.fixture(scope="module")
def logistic():
    return LogisticProblem.from_dataset("wine", 4, "dirichlet", 0, lam=0.05, alpha=0.5, intercept=True)


@pytest.fixture(scope="module")
def nonconvex():
    return NonconvexLogisticProblem.from_dataset("breast_cancer", 3, "similarity", 1, lam=0.5, similarity=20)


def _synthetic(rng, N=3, d=4, cls=LogisticProblem, lam=0.1):
    Xs = [rng.standard_normal((n, d)) for n in (5, 9, 3)[:N]]
    ys = [rng.integers(0, 2, size=X.shape[0]) for X in Xs]
    return cls(Xs, ys, lam)


def _hess_fd(prob, x, i, h=1e-5):
    """Central finite-difference Hessian of f_i at x (d,)."""
    d = prob.d
    H = np.empty((d, d))
    for k in range(d):
        e = np.zeros(d)
        e[k] = h
        gp = prob.client_grads((x + e)[None, None, :], np.array([[i]]))[0, 0]
        gm = prob.client_grads((x - e)[None, None, :], np.array([[i]]))[0, 0]
        H[:, k] = (gp - gm) / (2 * h)
    return 0.5 * (H + H.T)


# -- construction and definitions -----------------------------------------------------
def test_logistic_hand_value_and_gradient():
    # one client, samples a = (1, 0), y = 1 and a = (0, 2), y = 0; at x = (1, 1):
    # margins 1 and 2; loss = [log(1+e^-1) + log(1+e^2)]/2 + lam/2 * 2
    p = LogisticProblem([np.array([[1.0, 0.0], [0.0, 2.0]])], [np.array([1, 0])], 0.5)
    x = np.array([[1.0, 1.0]])
    expect_v = (np.log1p(np.exp(-1)) + np.log1p(np.exp(2))) / 2 + 0.5
    assert abs(p.client_values(x)[0] - expect_v) < 1e-14
    sig = lambda t: 1 / (1 + np.exp(-t))  # noqa: E731
    expect_g = (np.array([sig(1) - 1, 0.0]) + np.array([0.0, 2 * sig(2)])) / 2 + 0.5 * np.array([1.0, 1.0])
    assert np.allclose(p.client_grads(x)[0], expect_g, rtol=0, atol=1e-15)
    # beta = lam + lambda_max(X^T X)/(4 n) = 0.5 + 4/8, mu = lam
    assert abs(p.beta - 1.0) < 1e-9 and p.beta >= 1.0
    assert p.mu == 0.5


def test_numerically_stable_for_huge_margins():
    p = LogisticProblem([np.array([[1.0], [-1.0]])], [np.array([1, 1])], 0.1)
    y = np.array([[[1e4]], [[-1e4]]])
    v = p.client_values(y)
    g = p.client_grads(y)
    assert np.all(np.isfinite(v)) and np.all(np.isfinite(g))
    # at x = 1e4: sample 1 loss ~ 0, sample 2 loss ~ 1e4; mean 5e3 + lam/2 x^2
    assert abs(v[0, 0] - (5e3 + 0.05 * 1e8)) < 1e-6


def test_objective_is_equal_client_mean_not_sample_weighted(logistic):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(logistic.d) * 0.3
    fi = logistic.client_values(np.broadcast_to(x, (logistic.N, logistic.d)))
    assert np.isclose(logistic.value(x), fi.mean(), rtol=1e-14)
    weighted = (fi * logistic.counts).sum() / logistic.counts.sum()
    assert not np.isclose(logistic.value(x), weighted, rtol=1e-6)  # the clients have unequal sizes
    assert len(set(logistic.counts.tolist())) > 1


@pytest.mark.parametrize("which", ["logistic", "nonconvex"])
def test_gradients_match_finite_differences(which, logistic, nonconvex):
    prob = logistic if which == "logistic" else nonconvex
    rng = np.random.default_rng(1)
    y = 0.5 * rng.standard_normal((prob.N, prob.d))
    g = prob.client_grads(y)
    h = 1e-6
    for i in range(prob.N):
        for k in rng.choice(prob.d, size=min(6, prob.d), replace=False):
            e = np.zeros_like(y)
            e[:, k] = h
            fd = (prob.client_values(y + e) - prob.client_values(y - e))[i] / (2 * h)
            assert abs(fd - g[i, k]) < 1e-7 * max(1.0, abs(g[i, k])), (i, k, fd, g[i, k])
    # objective gradient
    x = y[0]
    e = np.eye(prob.d)[0] * h
    assert abs((prob.value(x + e) - prob.value(x - e)) / (2 * h) - prob.grad(x)[0]) < 1e-7


@pytest.mark.parametrize("which", ["logistic", "nonconvex"])
def test_batch_conventions(which, logistic, nonconvex):
    prob = logistic if which == "logistic" else nonconvex
    rng = np.random.default_rng(2)
    y = rng.standard_normal((3, prob.N, prob.d))  # (R, N, d)
    clients = np.broadcast_to(np.arange(prob.N), (3, prob.N))
    # two code paths (all clients vs gathered slots): equal up to rounding, which depends on the batch
    # shape and the BLAS kernel (no test may depend on those)
    np.testing.assert_allclose(prob.client_grads(y, clients), prob.client_grads(y), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(prob.client_values(y, clients), prob.client_values(y), rtol=1e-12, atol=1e-14)
    # arbitrary slots (R, S) with repeated clients, against one-at-a-time evaluation
    cl = rng.integers(0, prob.N, size=(4, 5))
    ys = rng.standard_normal((4, 5, prob.d))
    g = prob.client_grads(ys, cl)
    v = prob.client_values(ys, cl)
    assert g.shape == (4, 5, prob.d) and v.shape == (4, 5)
    for r in range(4):
        for s in range(5):
            one = np.broadcast_to(ys[r, s], (prob.N, prob.d))
            assert np.allclose(g[r, s], prob.client_grads(one)[cl[r, s]], rtol=1e-13, atol=1e-15)
            assert np.isclose(v[r, s], prob.client_values(one)[cl[r, s]], rtol=1e-13)
    with pytest.raises(InputError) as e:
        prob.client_grads(ys, cl + prob.N)
    assert e.value.argument == "clients"
    with pytest.raises(InputError) as e:
        prob.client_grads(ys)  # slot axis 5 != N
    assert e.value.argument == "y"


def test_x_star_is_minimiser(logistic):
    p = logistic
    assert np.linalg.norm(p.grad(p.x_star)) <= 1e-10
    assert p.grad_norm_at_x_star <= 1e-12 and 1 <= p.newton_iterations <= 50
    assert p.f_star == pytest.approx(float(p.value(p.x_star)), rel=1e-15)
    # f_low = f* - ||g||^2/(2 mu) - 1e-12 (1 + |f*|): the pad covers the float evaluation of f*
    assert p.f_low <= p.f_star and p.f_star - p.f_low <= 1e-12 * (1 + abs(p.f_star)) + 1e-15
    rng = np.random.default_rng(3)
    for _ in range(20):
        x = p.x_star + 1e-2 * rng.standard_normal(p.d)
        # strong convexity: f(x) - f* >= mu/2 ||x - x*||^2 (up to rounding of f)
        assert p.value(x) - p.f_star >= 0.5 * p.mu * np.sum((x - p.x_star) ** 2) - 1e-14


def test_x_star_several_datasets_and_splits():
    for name, scheme, kw in [("breast_cancer", "iid", {}), ("digits", "similarity", {"similarity": 10})]:
        p = LogisticProblem.from_dataset(name, 5, scheme, 0, lam=1e-3, **kw)
        assert np.linalg.norm(p.grad(p.x_star)) <= 1e-10
        assert p.source["dataset"] == name and len(p.split_indices) == 5


@pytest.mark.parametrize("which", ["logistic", "nonconvex"])
def test_beta_is_valid_lipschitz_bound(which, logistic, nonconvex):
    prob = logistic if which == "logistic" else nonconvex
    rng = np.random.default_rng(4)
    R = 200
    for scale in (0.1, 1.0, 3.0):
        x = scale * rng.standard_normal((R, prob.N, prob.d))
        y = x + scale * rng.standard_normal((R, prob.N, prob.d)) * rng.uniform(0.001, 1, size=(R, 1, 1))
        lhs = np.linalg.norm(prob.client_grads(x) - prob.client_grads(y), axis=-1)
        rhs = np.array(prob.client_betas)[None, :] * np.linalg.norm(x - y, axis=-1)
        assert np.all(lhs <= rhs * (1 + 1e-12))
        assert np.all(prob.client_betas <= prob.beta)


def test_logistic_beta_is_attained_at_zero(logistic):
    # at x = 0 every p_j = 1/2, so Hess f_i(0) = X_i^T X_i/(4 n_i) + lam I: the bound is tight there
    p = logistic
    hess_max = max(np.linalg.eigvalsh(_hess_fd(p, np.zeros(p.d), i))[-1] for i in range(p.N))
    assert hess_max <= p.beta
    assert abs(hess_max - p.beta) <= 1e-6 * p.beta


def test_logistic_strong_convexity_and_smoothness_inequalities(logistic):
    p = logistic
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, p.N, p.d))
    y = x + rng.standard_normal((300, p.N, p.d)) * rng.uniform(0.01, 2, size=(300, 1, 1))
    fx, fy, gx = p.client_values(x), p.client_values(y), p.client_grads(x)
    lin = fx + np.einsum("...i,...i->...", gx, y - x)
    dist2 = np.sum((y - x) ** 2, axis=-1)
    tol = 1e-12 * (1 + np.abs(fy))
    assert np.all(fy >= lin + 0.5 * p.mu * dist2 - tol)
    assert np.all(fy <= lin + 0.5 * p.beta * dist2 + tol)
    # mu is the best constant of the form lam: far from data the curvature tends to lam
    assert p.mu == p.lam


def test_nonconvex_lower_bound_and_nonconvexity(nonconvex):
    p = nonconvex
    assert p.f_low == 0 and p.mu is None and p.x_star is None and p.convex is False
    assert "log(1+e^t) > 0" in p.f_low_certificate
    rng = np.random.default_rng(6)
    for scale in (0.1, 1.0, 10.0, 1e3):
        v = p.client_values(scale * rng.standard_normal((100, p.N, p.d)))
        assert np.all(v >= p.f_low)
    # the regulariser lam * phi has curvature lam * phi''(t), phi'' = (2 - 6t^2)/(1+t^2)^3:
    t = np.linspace(-20, 20, 400001)
    phi2 = (2 - 6 * t**2) / (1 + t**2) ** 3
    assert phi2.min() >= -0.5 - 1e-15 and phi2.max() <= 2 + 1e-15
    assert abs(phi2.min() + 0.5) < 1e-9 and abs(phi2.max() - 2) < 1e-12
    # negative curvature of the problem itself: a strong regulariser on tiny data, at x_k = 1
    q = NonconvexLogisticProblem([np.array([[0.1, 0.0], [0.0, 0.1]])], [np.array([1, 0])], 2.0)
    H = _hess_fd(q, np.array([1.0, 1.0]), 0)
    assert np.linalg.eigvalsh(H)[0] < -0.9  # about -lam/2 = -1, plus a tiny data curvature
    # so midpoint convexity fails somewhere
    a, b = np.array([[0.6, 0.6]]), np.array([[1.6, 1.6]])
    assert q.client_values((a + b) / 2)[0] > (q.client_values(a)[0] + q.client_values(b)[0]) / 2
    # and beta covers its Hessian at the worst point (t = 0: phi'' = 2)
    H0 = _hess_fd(q, np.zeros(2), 0)
    assert np.abs(np.linalg.eigvalsh(H0)).max() <= q.beta
    assert abs(q.beta - (0.01 / 8 + 4.0)) < 1e-9


def test_sample_grads_average_to_client_grads(logistic, nonconvex):
    for p in (logistic, nonconvex):
        rng = np.random.default_rng(7)
        y = rng.standard_normal((p.N, p.d))
        for i in range(p.N):
            n = int(p.counts[i])
            idx = np.arange(n)[None, :]
            full = p.sample_grads(y[i][None], np.array([i]), idx)[0]
            assert np.allclose(full, p.client_grads(y)[i], rtol=1e-12, atol=1e-14)
            each = p.sample_grads(y[i][None], np.array([i]), idx, reduce=None)[0]
            assert each.shape == (n, p.d)
            assert np.allclose(each.mean(axis=0), full, rtol=1e-12, atol=1e-14)
        # batched shapes (R, M, b) with clients=None
        idx = np.stack([rng.integers(0, p.counts, size=p.N) for _ in range(3)], axis=-1)[None].repeat(2, 0)
        out = p.sample_grads(np.broadcast_to(y, (2, p.N, p.d)), None, idx)
        assert out.shape == (2, p.N, p.d)
        with pytest.raises(InputError) as e:
            p.sample_grads(y, None, np.full((p.N, 2), int(p.counts.max())))
        assert e.value.argument == "idx"
        with pytest.raises(InputError) as e:
            p.sample_grads(y, None, np.zeros((p.N, 2)))  # float indices
        assert e.value.argument == "idx"


def test_finite_sum_bad_inputs():
    X = [np.ones((2, 3))]
    y = [np.array([0, 1])]
    with pytest.raises(InputError) as e:
        LogisticProblem(X, y, -0.1)
    assert e.value.argument == "lam"
    with pytest.raises(InputError) as e:
        NonconvexLogisticProblem(X, y, float("nan"))
    assert e.value.argument == "lam"
    with pytest.raises(InputError) as e:
        LogisticProblem([np.array([[1.0, np.nan, 0.0], [0.0, 1.0, 0.0]])], y, 0.1)
    assert e.value.argument == "X_parts[0]"
    with pytest.raises(InputError) as e:
        LogisticProblem(X, [np.array([0, 2])], 0.1)
    assert e.value.argument == "y_parts[0]" and "outside {0, 1}" in str(e.value)
    with pytest.raises(InputError) as e:
        LogisticProblem(X + [np.ones((0, 3))], y + [np.array([])], 0.1)
    assert e.value.argument == "X_parts"
    with pytest.raises(InputError) as e:
        LogisticProblem(X + [np.ones((2, 4))], y + [np.array([0, 1])], 0.1)
    assert e.value.argument == "X_parts"
    with pytest.raises(InputError) as e:
        LogisticProblem([], [], 0.1)
    assert e.value.argument == "X_parts"
    with pytest.raises(InputError) as e:
        LogisticProblem(X, [np.array([0, 1, 1])], 0.1)
    assert e.value.argument == "y_parts[0]" and "3 labels for 2 samples" in str(e.value)
    # separable data without regularisation have no minimiser: lam = 0 is refused
    with pytest.raises(InputError) as e:
        LogisticProblem([np.array([[1.0], [-1.0]])], [np.array([1, 0])], 0.0)
    assert e.value.argument == "lam"
    # Newton failing to reach its tolerance is reported, naming lam
    with pytest.raises(InputError) as e:
        LogisticProblem([np.array([[1.0], [-1.0]])], [np.array([1, 0])], 1e-3, gtol=1e-30)
    assert e.value.argument == "lam" and "Newton" in e.value.reason
    # the nonconvex problem needs no minimiser: lam = 0 is fine there (f_low = 0 still holds)
    assert NonconvexLogisticProblem([np.array([[1.0], [-1.0]])], [np.array([1, 0])], 0.0).beta > 0
    with pytest.raises(InputError) as e:
        LogisticProblem.from_dataset("digits", 3, "iid", 0, binary=None)
    assert e.value.argument == "binary"


def test_is_finite_sum_subclass():
    assert issubclass(LogisticProblem, FiniteSumProblem) and issubclass(NonconvexLogisticProblem, FiniteSumProblem)
    p = _synthetic(np.random.default_rng(8), cls=NonconvexLogisticProblem)
    assert p.counts.tolist() == [5, 9, 3] and p.offsets.tolist() == [0, 5, 14, 17]
    assert p.owner.tolist() == [0] * 5 + [1] * 9 + [2] * 3


# -- quadratic problem ------------------------------------------------------------------
def _hand_quadratic():
    A = [[[2, 1], [1, 2]], [[1, 0], [0, 4]]]  # eigenvalues {1, 3} and {1, 4}
    b = [[1, 0], ["1/2", -1]]
    return QuadraticProblem(A, b)


def test_quadratic_exact_constants_hand_example():
    q = _hand_quadratic()
    assert q.exact and isinstance(q.beta, Fraction) and isinstance(q.mu, Fraction)
    # true values: beta = max lambda_max = 4, mu = min lambda_min = 1; the certified rationals
    # must be on the safe side and within the 1e-6 rounding grid
    assert 4 <= q.beta <= 4 + Fraction(1, 10**6)
    assert 1 - Fraction(1, 10**6) <= q.mu <= 1
    I = np.eye(2, dtype=object)
    for Ai in q.A_exact:
        assert is_psd_exact(q.beta * I - Ai) and is_psd_exact(Ai - q.mu * I)
    # the exact PSD test is sharp: beta = 4 certifies, anything below does not
    assert is_psd_exact(4 * I - q.A_exact[1]) and not is_psd_exact((4 - Fraction(1, 10**9)) * I - q.A_exact[1])
    # mean A = [[3/2, 1/2], [1/2, 3]], mean b = [3/4, -1/2]; det = 17/4
    # x* = (1/det) [[3, -1/2], [-1/2, 3/2]] [3/4, -1/2] = (4/17) [5/2, -9/8] = [10/17, -9/34]
    assert list(q.x_star_exact) == [Fraction(10, 17), Fraction(-9, 34)]
    assert q.f_star == -Fraction(1, 2) * (Fraction(3, 4) * Fraction(10, 17) + Fraction(1, 2) * Fraction(9, 34))
    assert q.f_low == q.f_star


def test_quadratic_integer_eigenvalues_certified_exactly():
    q = _hand_quadratic()
    assert q.beta == 4 and q.mu == 1


def test_quadratic_random_rational_certified():
    q = random_quadratic(3, 3, 0, mu=Fraction(1, 10), L=1, rational=True)
    I = np.eye(q.d, dtype=object)
    assert all(isinstance(v, Fraction) for v in (q.beta, q.mu))
    for Ai in q.A_exact:
        assert is_psd_exact(q.beta * I - Ai)
        assert is_psd_exact(Ai - q.mu * I)
    # beta is not far above the true lambda_max (rounded up to <= 1e-6 granularity)
    lmax = max(np.linalg.eigvalsh(q.A)[:, -1])
    assert lmax <= float(q.beta) <= lmax + 1e-5
    # x* solves mean(A) x = mean(b) exactly
    Abar = q.A_exact.sum(axis=0) / q.N
    bbar = q.b_exact.sum(axis=0) / q.N
    assert list(Abar @ q.x_star_exact) == list(bbar)
    assert all(v == 0 for v in q.grads_exact(q.x_star_exact).sum(axis=0))


def test_quadratic_batch_conventions():
    q = random_quadratic(4, 3, 1)
    rng = np.random.default_rng(0)
    y = rng.standard_normal((5, 4, 3))
    clients = np.broadcast_to(np.arange(4), (5, 4))
    assert np.allclose(q.client_grads(y), q.client_grads(y, clients), rtol=1e-14, atol=1e-14)
    assert np.allclose(q.client_values(y), q.client_values(y, clients), rtol=1e-14, atol=1e-14)
    expect = np.einsum("nij,rnj->rni", q.A, y) - q.b
    assert np.allclose(q.client_grads(y), expect, rtol=1e-13, atol=1e-13)
    assert np.linalg.norm(q.grad(q.x_star)) < 1e-10


def test_quadratic_bad_inputs():
    with pytest.raises(InputError) as e:
        QuadraticProblem([[[1, 2], [0, 1]]], [[0, 0]])  # exact, non-symmetric
    assert e.value.argument == "A"
    with pytest.raises(InputError) as e:
        QuadraticProblem([[[1.0, 0.5], [0.0, 1.0]]], [[0.0, 0.0]])  # float, non-symmetric
    assert e.value.argument == "A"
    with pytest.raises(InputError) as e:
        QuadraticProblem([[[1.0, np.nan], [np.nan, 1.0]]], [[0.0, 0.0]])
    assert e.value.argument == "A"
    with pytest.raises(InputError) as e:
        QuadraticProblem([[[1.0, 0.0], [0.0, 1.0]]], [[0.0, np.inf]])
    assert e.value.argument == "b"
    with pytest.raises(InputError) as e:
        QuadraticProblem([[[1, 0], [0, -1]]], [[0, 0]])  # not PSD
    assert e.value.argument == "A"


def test_many_equal_clients_vectorised_path_matches_definition():
    # N = 40 clients of 2 samples each takes the gather path (no loop over clients)
    rng = np.random.default_rng(9)
    Xs = [rng.standard_normal((2, 3)) for _ in range(40)]
    ys = [rng.integers(0, 2, size=2) for _ in range(40)]
    for cls in (LogisticProblem, NonconvexLogisticProblem):
        p = cls(Xs, ys, 0.3)
        cl = rng.integers(0, 40, size=(6, 7))
        y = rng.standard_normal((6, 7, 3))
        g, v = p.client_grads(y, cl), p.client_values(y, cl)
        for r in range(6):
            for s in range(7):
                Xi, yi, x = Xs[cl[r, s]], ys[cl[r, s]], y[r, s]
                m = Xi @ x
                gd = ((1 / (1 + np.exp(-m)) - yi) @ Xi) / 2
                vd = np.mean(np.log1p(np.exp(-(2 * yi - 1) * m)))
                if cls is LogisticProblem:
                    gd, vd = gd + 0.3 * x, vd + 0.15 * x @ x
                else:
                    gd, vd = gd + 0.6 * x / (1 + x**2) ** 2, vd + 0.3 * np.sum(x**2 / (1 + x**2))
                assert np.allclose(g[r, s], gd, rtol=1e-12, atol=1e-14)
                assert np.isclose(v[r, s], vd, rtol=1e-12)
        assert np.allclose(p.client_grads(np.broadcast_to(y[0, 0], (40, 3))),
                           p.client_grads(np.broadcast_to(y[0, 0], (1, 40, 3)), np.arange(40)[None])[0])


def test_float_quadratic_constants_are_certified_at_the_floats_exact_values():
    from pyfed.problems.quadratic import is_pd_ball, is_psd_exact
    # a tiny negative eigenvalue is not "PSD up to rounding": the matrix is indefinite
    with pytest.raises(InputError, match="^A:"):
        QuadraticProblem([[[1.0, 0.0], [0.0, -1e-11]]], [[0.0, 1.0]])
    q = random_quadratic(4, 6, 3, mu=0.1, L=1.0)
    I = np.eye(q.d)
    for Ai in q.A:
        assert is_psd_exact(q.beta * I - Ai) and is_psd_exact(Ai - q.mu * I)
    assert q.mu > 0.1 * (1 - 1e-6) and q.beta < 1.0 * (1 + 1e-6)
    # a singular PSD client is certified convex (mu = 0) by the exact fallback
    s = QuadraticProblem([[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]], [[1.0, 0.0], [0.0, 1.0]])
    assert s.mu == 0.0 and not is_pd_ball(s.A[0]) and is_psd_exact(s.A[0])
    with pytest.raises(InputError, match="^beta:"):
        QuadraticProblem(q.A, q.b, beta=0.5)
    with pytest.raises(InputError, match="^mu:"):
        QuadraticProblem(q.A, q.b, mu=0.5)


def test_float_quadratic_f_low_is_below_f_everywhere_sampled():
    q = random_quadratic(3, 4, 5, mu=0.2, L=1.0)
    pts = q.x_star + np.random.default_rng(0).standard_normal((200, 4)) * np.logspace(-8, 1, 200)[:, None]
    assert np.all(q.value(pts) >= q.f_low) and q.f_low <= q.f_star


@pytest.mark.parametrize("which", ["logistic", "nonconvex"])
def test_value_and_grad_of_a_batch_are_evaluated_in_blocks_of_points(which, logistic, nonconvex, monkeypatch):
    """Problem.value/grad evaluate a batch of points in blocks of rows (bounded temporaries): with
    blocks of 3 points the results equal those of one block (to rounding: batched products round
    differently on different batch shapes), and the blocks are what is evaluated."""
    from pyfed.problems.base import Problem

    p = {"logistic": logistic, "nonconvex": nonconvex}[which]
    x = np.random.default_rng(5).standard_normal((4, 5, p.d))
    ref_v, ref_g = p.value(x), p.grad(x)
    sizes = []
    inner = type(p).client_values

    def spy(self, y, clients=None):
        sizes.append(y.shape[0])
        return inner(self, y, clients)

    monkeypatch.setattr(type(p), "client_values", spy)
    monkeypatch.setattr(Problem, "EVAL_BLOCK_ENTRIES", 3 * p.eval_width())
    v, g = p.value(x), p.grad(x)
    assert sizes == [3] * 6 + [2]
    np.testing.assert_allclose(v, ref_v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, ref_g, rtol=1e-12, atol=1e-12)
    assert v.shape == (4, 5) and g.shape == (4, 5, p.d)
    assert p.value(x[0, 0]).shape == ()          # a single point: unchanged
    assert p.eval_width() == p.N * p.d + p.X.shape[0]


def test_quadratic_hessian_eigh_computed_once_and_decomposes_A():
    from pyfed.algorithms import scaffold
    from pyfed.oracles import GaussianOracle

    A = [[[2, 1], [1, 2]], [[3, 0], [0, 1]]]
    p = QuadraticProblem(A, [[1, 0], [0, 1]])
    lam, Q = p.hessian_eigh()
    assert np.allclose(lam, [[1, 3], [1, 3]], atol=1e-14)    # hand eigenvalues, ascending
    assert np.allclose(Q @ (lam[:, :, None] * np.swapaxes(Q, 1, 2)), np.array(A, dtype=float), atol=1e-14)
    assert not lam.flags.writeable and not Q.flags.writeable
    scaffold(p, GaussianOracle(p, 1), S=1, K=2, T=2, eta_l=0.1, eta_g=1, R=2, rng=0)   # the closed form uses it
    assert p.hessian_eigh()[1] is Q      # the same arrays: not recomputed


def test_repeated_rational_data_get_the_same_certified_constants():
    """The certified beta, mu of rational data are memoised per process: a second problem with the
    same A_i (other b_i, other name) has the same constants and derivations, in its own dict."""
    A = np.array([[[Fraction(3), Fraction(0)], [Fraction(0), Fraction(1, 2)]],
                  [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(2)]]], dtype=object)
    p = QuadraticProblem(A, np.array([[1, 0], [0, 1]], dtype=object), name="p")
    q = QuadraticProblem(A, np.array([[0, 5], [-1, 2]], dtype=object), name="q")
    # diagonal A_i: beta = the largest diagonal entry 3, mu = the smallest 1/2, exactly
    assert (p.beta, p.mu) == (q.beta, q.mu) == (Fraction(3), Fraction(1, 2))
    assert p.derivations == q.derivations and p.derivations is not q.derivations
    given = QuadraticProblem(A, np.array([[1, 0], [0, 1]], dtype=object), beta=4, mu=Fraction(1, 4))
    assert (given.beta, given.mu) == (4, Fraction(1, 4))
