"""Multiclass softmax regression: values, gradients, certified beta / mu / sigma, test accuracy, data."""

import math

import numpy as np
import pytest

from pyfed.data import holdout
from pyfed.errors import InputError
from pyfed.oracles import MinibatchOracle
from pyfed.problems import SoftmaxProblem


@pytest.fixture
def rng():
    return np.random.default_rng(20200713)


def _tiny(rng, sizes=(4, 1, 6), p=3, C=4, lam=0.1):
    Xs = [rng.standard_normal((n, p)) for n in sizes]
    ys = [rng.integers(0, C, size=n) for n in sizes]
    return SoftmaxProblem(Xs, ys, lam, n_classes=C, solve=False), Xs, ys


def _hessian_fd(prob, x, h=1e-5):
    return np.array([(prob.grad(x + h * e) - prob.grad(x - h * e)) / (2 * h) for e in np.eye(prob.d)])


def test_hand_value_and_gradient():
    # one client, p = 2, C = 3; W = [[1, 0, 0], [0, 2, 0]] (row-major x), samples a = (1, 0) label 0
    # and a = (0, 1) label 2: logits (1, 0, 0) and (0, 2, 0)
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    P = SoftmaxProblem([X], [np.array([0, 2])], 0.5, n_classes=3, solve=False)
    W = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    x = W.reshape(1, 1, 6)
    l1 = math.log(math.e + 2) - 1.0
    l2 = math.log(2 + math.e**2) - 0.0
    expect = (l1 + l2) / 2 + 0.25 * 5.0  # (lam/2) ||W||_F^2 = 0.25 * 5
    assert abs(P.client_values(x)[0, 0] - expect) < 1e-14
    pi1 = np.array([math.e, 1, 1]) / (math.e + 2) - np.array([1, 0, 0])
    pi2 = np.array([1, math.e**2, 1]) / (2 + math.e**2) - np.array([0, 0, 1])
    G = (np.outer(X[0], pi1) + np.outer(X[1], pi2)) / 2 + 0.5 * W
    assert np.allclose(P.client_grads(x)[0, 0], G.reshape(-1), rtol=0, atol=1e-15)
    assert abs(P.value(x[0, 0]) - expect) < 1e-14


def test_gradients_hessian_and_batch_conventions(rng):
    P, Xs, ys = _tiny(rng)
    x = rng.standard_normal((P.N, P.d))
    g = P.client_grads(x)
    h = 1e-6
    for i in range(P.N):
        fd = [(P.client_values(x + h * np.outer(np.ones(P.N), e))[i] - P.client_values(x - h * np.outer(np.ones(P.N), e))[i])
              / (2 * h) for e in np.eye(P.d)]
        assert np.allclose(fd, g[i], atol=1e-7)
    # slots with explicit clients, and (R, M) batches
    c = np.array([[2, 0], [1, 1]])
    y = rng.standard_normal((2, 2, P.d))
    gy = P.client_grads(y, c)
    for r in range(2):
        for m in range(2):
            one = P.client_grads(np.repeat(y[r, m][None], P.N, axis=0))[c[r, m]]
            assert np.allclose(gy[r, m], one, atol=1e-14)
    # whole objective = mean of the clients; its Hessian matches finite differences
    z = rng.standard_normal(P.d)
    assert abs(P.value(z) - P.client_values(np.repeat(z[None], P.N, 0)).mean()) < 1e-13
    assert np.allclose(P.grad(z), P.client_grads(np.repeat(z[None], P.N, 0)).mean(0), atol=1e-14)
    assert np.allclose(P.hessian(z), _hessian_fd(P, z), atol=1e-7)


def test_sample_gradients_average_to_the_client_gradient(rng):
    P, _, _ = _tiny(rng)
    y = rng.standard_normal((P.N, P.d))
    full = P.client_grads(y)
    for i in range(P.N):
        idx = np.arange(P.counts[i])[None]
        each = P.sample_grads(y[i][None], np.array([i]), idx, reduce=None)[0]
        assert each.shape == (P.counts[i], P.d)
        assert np.allclose(each.mean(axis=0), full[i], atol=1e-14)
        assert np.allclose(P.sample_grads(y[i][None], np.array([i]), idx)[0], full[i], atol=1e-14)
    with pytest.raises(InputError, match="idx"):
        P.sample_grads(y, None, np.full((P.N, 1), 6))
    with pytest.raises(InputError, match="reduce"):
        P.sample_grads(y, None, np.zeros((P.N, 1), dtype=int), reduce="sum")


def _client_hessian(P, Xs, ys, i, x):
    Q = SoftmaxProblem([Xs[i]], [ys[i]], P.lam, n_classes=P.C, solve=False)
    return Q.hessian(x)


def test_certified_beta_and_mu_bound_the_exact_hessian(rng):
    """lambda_max(Hess f_i) <= beta_i <= beta and lambda_min >= mu = lam, at random and adversarial W."""
    P, Xs, ys = _tiny(rng, sizes=(3, 1, 5), p=3, C=4, lam=0.05)
    points = [rng.standard_normal(P.d) * s for s in (0.1, 1.0, 10.0)]
    for i in range(P.N):
        # adversarial: two classes share the softmax mass on client i's first sample
        a = Xs[i][0]
        W = np.zeros((P.p, P.C))
        W[:, 2:] = -40.0 * np.outer(a, np.ones(P.C - 2)) / (a @ a)  # logits (0, 0, -40, -40)
        points.append(W.reshape(-1))
    for x in points:
        for i in range(P.N):
            ev = np.linalg.eigvalsh(_client_hessian(P, Xs, ys, i, x))
            assert ev[-1] <= P.client_betas[i] <= P.beta
            assert ev[0] >= P.mu - 1e-12


def test_beta_constant_one_half_is_sharp(rng):
    """One sample: Hess = a a^T (x) H(pi) + lam I and lambda_max(H) -> 1/2 as pi -> (1/2, 1/2, 0, ...):
    the certified beta - lam = ||a||^2/2 is attained to 1e-9 (a constant 1/4 would be violated)."""
    a = np.array([1.0, -2.0, 0.5])
    P = SoftmaxProblem([a[None]], [np.array([0])], 1e-3, n_classes=4, solve=False)
    W = np.zeros((3, 4))
    W[:, 2:] = -40.0 * np.outer(a, np.ones(2)) / (a @ a)
    top = np.linalg.eigvalsh(P.hessian(W.reshape(-1)))[-1]
    assert abs((P.beta - P.lam) - (a @ a) / 2) < 1e-9
    assert top <= P.beta
    assert (top - P.lam) / (P.beta - P.lam) > 1 - 1e-9


def test_minibatch_oracle_sigma_is_certified(rng):
    """Exact variance of a one-sample gradient (enumerating the client's samples) <= sigma^2 b."""
    P, Xs, ys = _tiny(rng, sizes=(5, 2), p=3, C=3)
    O = MinibatchOracle(P, 1)
    assert P.loss_derivative_bound**2 >= 2.0
    for scale in (0.0, 1.0, 30.0):
        y = rng.standard_normal((P.N, P.d)) * scale
        full = P.client_grads(y)
        for i in range(P.N):
            each = P.sample_grads(y[i][None], np.array([i]), np.arange(P.counts[i])[None], reduce=None)[0]
            var = np.mean(np.sum((each - full[i]) ** 2, axis=1))
            assert var <= O.client_sigma_sq[i] <= O.sigma_sq


def test_test_accuracy_counts_and_non_finite_models():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    Xt = np.array([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]])
    P = SoftmaxProblem([X], [np.array([0, 1])], 0.1, X_test=Xt, y_test=np.array([0, 1, 1]), solve=False)
    W = np.eye(2).reshape(-1)  # predicts argmax of the features; ties -> class 0
    assert P.test_correct(W) == 2 and abs(P.test_accuracy(W) - 2 / 3) < 1e-15
    both = np.stack([W, np.full(4, np.nan)])
    assert P.test_correct(both).tolist() == [2, 0]
    assert P.train_accuracy(W) == 1.0
    Q = SoftmaxProblem([X], [np.array([0, 1])], 0.1, solve=False)
    with pytest.raises(InputError, match="X_test"):
        Q.test_accuracy(W)


@pytest.mark.parametrize("kwargs,arg", [
    (dict(lam=0.0), "lam"), (dict(lam=-1.0), "lam"), (dict(n_classes=2), "n_classes"),
    (dict(X_test=np.zeros((2, 2))), "y_test"), (dict(X_test=np.zeros((2, 3)), y_test=np.zeros(2)), "X_test"),
])
def test_invalid_inputs_name_the_argument(kwargs, arg):
    X = [np.eye(2), np.ones((1, 2))]
    y = [np.array([0, 2]), np.array([1])]
    base = dict(lam=0.1)
    base.update(kwargs)
    lam = base.pop("lam")
    with pytest.raises(InputError) as ei:
        SoftmaxProblem(X, y, lam, solve=False, **base)
    assert ei.value.argument == arg


def test_newton_solution_is_certified_and_warm_start_reuses_it(rng):
    P, _, _ = _tiny(rng, lam=0.05)
    P.solve()
    assert np.linalg.norm(P.grad(P.x_star)) <= 1e-10
    assert P.f_low <= P.f_star
    for _ in range(20):  # f_star is the minimum (strong convexity)
        assert P.value(P.x_star + 0.1 * rng.standard_normal(P.d)) >= P.f_low
    Q, _, _ = _tiny(np.random.default_rng(rng.integers(1 << 30)), lam=0.05)
    Q.solve(P.x_star)  # a different problem: warm start is only a start
    assert np.linalg.norm(Q.grad(Q.x_star)) <= 1e-10
    R = SoftmaxProblem([P.X[P.offsets[i]:P.offsets[i + 1]] for i in range(P.N)],
                       [P.labels[P.offsets[i]:P.offsets[i + 1]] for i in range(P.N)], 0.05, solve=False)
    R.solve(P.x_star)
    assert R.newton_iterations == 0 and np.array_equal(R.x_star, P.x_star)


@pytest.mark.slow
def test_digits_federated_splits():
    """Digits, N = 100: 1,500 training rows (15 per client, so 0.2 of the local data = 3 samples),
    297 test rows; at 0% similarity every client holds at most 2 labels; the training rows are the
    same at every similarity level; pixels in [0, 1]."""
    probs = {s: SoftmaxProblem.from_dataset("digits", 100, "similarity", 0, similarity=s, solve=False)
             for s in (0, 10, 100)}
    P0 = probs[0]
    assert P0.counts.min() == P0.counts.max() == 15 and round(0.2 * 15) == 3
    assert P0.y_test.size == 297 and P0.C == 10 and P0.d == 650
    assert P0.X[:, :64].min() == 0.0 and P0.X[:, :64].max() == 1.0 and np.all(P0.X[:, 64] == 1.0)
    labels = [np.unique(P0.labels[P0.offsets[i]:P0.offsets[i + 1]]).size for i in range(100)]
    assert max(labels) <= 2
    labels100 = [np.unique(probs[100].labels[probs[100].offsets[i]:probs[100].offsets[i + 1]]).size
                 for i in range(100)]
    assert np.mean(labels100) > 5
    rows = {s: sorted(map(tuple, np.round(np.column_stack([P.X, P.labels]), 12))) for s, P in probs.items()}
    assert rows[0] == rows[10] == rows[100]
    assert np.array_equal(probs[0].X_test, probs[100].X_test)
    # class proportions of the stratified test set follow the data (178..183 per class of 1,797)
    counts = np.bincount(P0.y_test, minlength=10)
    assert counts.min() >= 28 and counts.max() <= 31


def test_holdout_scales_with_training_statistics_only(rng):
    X = rng.integers(0, 17, size=(60, 5)).astype(float)
    X[:, 3] = 7.0
    y = np.repeat(np.arange(3), 20)
    Xtr, ytr, Xte, yte = holdout(X, y, 12, 0)
    assert Xtr.shape == (48, 5) and Xte.shape == (12, 5)
    assert np.bincount(yte).tolist() == [4, 4, 4]
    assert np.allclose(Xtr[:, [0, 1, 2, 4]].mean(0), 0) and np.allclose(Xtr[:, [0, 1, 2, 4]].std(0), 1)
    assert np.all(Xtr[:, 3] == 0) and np.all(Xte[:, 3] == 0)
    Mtr, _, Mte, _ = holdout(X, y, 12, 0, scale="max")
    assert np.abs(Mtr).max() == 1.0 and np.array_equal(Mtr * 16, np.round(Mtr * 16))
    with pytest.raises(InputError, match="n_test"):
        holdout(X, y, 60, 0)
    with pytest.raises(InputError, match="scale"):
        holdout(X, y, 12, 0, scale="minmax")
