"""Tests of pyfed.algorithms: exact identities of the seed-000/002 procedures, reductions
to gradient descent / minibatch SGD, reproducibility and input validation."""

from fractions import Fraction

import numpy as np
import pytest

from pyfed.algorithms import Trajectory, fedavg, local_sgd, scaffold, scaffold_run
from pyfed.algorithms.rounds import Slots
from pyfed.errors import InputError
from pyfed.oracles import ExactOracle, GaussianOracle, Oracle
from pyfed.problems import QuadraticProblem, random_quadratic


class RecordingOracle(Oracle):
    """Wraps an oracle and keeps a copy of every sample it returns (with its clients)."""

    def __init__(self, inner):
        super().__init__(inner.problem)
        self.inner = inner
        self.sigma = inner.sigma
        self.calls = []

    def __call__(self, y, rng, clients=None):
        g = self.inner(y, rng, clients)
        self.calls.append((np.array(g, copy=True), None if clients is None else np.array(clients)))
        return g


@pytest.fixture(scope="module")
def prob():
    return random_quadratic(6, 3, np.random.default_rng(11), mu=0.2, L=1.5)


def _gd(problem, x0, eta, T):
    xs = [np.asarray(x0, dtype=float)]
    for _ in range(T):
        xs.append(xs[-1] - eta * problem.grad(xs[-1]))
    return np.array(xs)


# -- SCAFFOLD identities ------------------------------------------------------------------

def test_option_two_control_is_average_of_local_samples(prob):
    """Seed 002 option II: c_i+ = c_i - c + (x - y_K)/(K eta_l) equals the seed-000 form
    (1/K) sum_k g_{i,k} (Lean OptionTwoControlIsAverage), to 1e-12 with Gaussian noise
    (step-by-step path; the oracle sees the selected slots client-major)."""
    R, S, K, T = 3, 2, 4, 5
    rec = RecordingOracle(GaussianOracle(prob, 0.7))
    c0 = np.random.default_rng(1).standard_normal((prob.N, prob.d))
    tr = scaffold(prob, rec, S=S, K=K, T=T, eta_l=0.05, eta_g=1.3, option="II", c0=c0, R=R, rng=5,
                  record_controls=True)
    assert tr.meta["path"] == "step by step"
    assert len(rec.calls) == K * T
    rows = np.arange(R)[:, None]
    for r in range(T):
        sel = tr.samples[:, r]
        slots = Slots(sel, prob.N, R)
        gs = np.stack([rec.calls[r * K + k][0] for k in range(K)])  # (K, R*S, d), sorted by client
        for k in range(K):
            clients = rec.calls[r * K + k][1]
            assert np.array_equal(clients, np.sort(sel.ravel()))
        avg = slots.to_slots(gs.mean(axis=0))  # (R, S, d) in the order of sel
        assert np.max(np.abs(tr.c_history[:, r + 1][rows, sel] - avg)) < 1e-12
        # unselected clients keep their controls
        mask = np.ones((R, prob.N), bool)
        mask[rows, sel] = False
        assert np.array_equal(tr.c_history[:, r + 1][mask], tr.c_history[:, r][mask])


def test_scaffold_run_controls_are_average_of_path_samples(prob):
    R, S, K, T = 2, 3, 3, 4
    rec = RecordingOracle(GaussianOracle(prob, 0.5))
    tr = scaffold_run(prob, rec, S=S, K=K, T=T, eta_l=0.05, eta_g=1, R=R, rng=9, record_controls=True)
    assert len(rec.calls) == K * (T + 1)  # K warm-start calls, then K per round
    warm = np.mean([rec.calls[k][0] for k in range(K)], axis=0)  # (N, R, d) client-major
    assert np.max(np.abs(tr.c_history[:, 0] - np.swapaxes(warm, 0, 1))) < 1e-14
    rows = np.arange(R)[:, None]
    for r in range(T):
        avg = np.swapaxes(np.mean([rec.calls[K * (r + 1) + k][0] for k in range(K)], axis=0), 0, 1)  # (R, N, d)
        sel = tr.samples[:, r]
        assert np.max(np.abs(tr.c_history[:, r + 1][rows, sel] - avg[rows, sel])) < 1e-14
        mask = np.ones((R, prob.N), bool)
        mask[rows, sel] = False
        assert np.array_equal(tr.c_history[:, r + 1][mask], tr.c_history[:, r][mask])


def test_scaffold_full_participation_matches_run_model(prob):
    """S = N: the seed-002 option II procedure and the seed-000 Run model coincide (same
    oracle stream), which ties the two forms of the update together."""
    c0 = np.random.default_rng(2).standard_normal((prob.N, prob.d))
    kw = dict(S=prob.N, K=3, T=6, eta_l=0.07, eta_g=1.5, c0=c0, R=2, rng=4, record_controls=True)
    a = scaffold(prob, GaussianOracle(prob, 0.3), option="II", **kw)
    b = scaffold_run(prob, GaussianOracle(prob, 0.3), **kw)
    assert np.max(np.abs(a.x - b.x)) < 1e-12
    assert np.max(np.abs(a.c_history - b.c_history)) < 1e-12


@pytest.mark.parametrize("option", ["I", "II"])
def test_server_control_is_mean_of_client_controls(prob, option):
    """Lean ServerControlIsMean: c^r = mean_i c_i^r after every round, with c updated as a
    separate state by c <- c + (S/N) Delta c."""
    c0 = np.random.default_rng(3).standard_normal((prob.N, prob.d))
    tr = scaffold(prob, GaussianOracle(prob, 1.0), S=2, K=3, T=8, eta_l=0.05, eta_g=1.0,
                  option=option, c0=c0, R=4, rng=6, record_controls=True)
    mean = tr.c_history.mean(axis=2)
    assert np.max(np.abs(tr.c_server_history - mean)) < 1e-12
    assert np.max(np.abs(tr.c_server - tr.c.mean(axis=1))) < 1e-12
    # the controls do move (the check is not vacuous)
    assert np.max(np.abs(np.diff(tr.c_server_history, axis=1))) > 1e-3


def test_option_one_control_is_gradient_at_round_start(prob):
    tr = scaffold(prob, ExactOracle(prob), S=3, K=2, T=4, eta_l=0.1, eta_g=1.0, option="I",
                  R=2, rng=0, record_controls=True)
    rows = np.arange(2)[:, None]
    for r in range(4):
        sel = tr.samples[:, r]
        grads = prob.client_grads(np.repeat(tr.x[:, r][:, None, :], prob.N, axis=1))  # (R, N, d)
        assert np.max(np.abs(tr.c_history[:, r + 1][rows, sel] - grads[rows, sel])) < 1e-13


def test_hand_computed_scaffold_round():
    """One round of option II on f_i(x) = a_i x^2/2 - b_i x, d = 1, K = 2, S = N = 2."""
    P = QuadraticProblem([[[1]], [[3]]], [[1], [0]])
    c0 = np.array([[0.5], [-0.5]])  # c = 0
    tr = scaffold(P, ExactOracle(P), S=2, K=2, T=1, eta_l=0.25, eta_g=2.0, x0=[1.0], c0=c0,
                  rng=0, record_controls=True)
    # client 0: g = x - 1, corr = c - c_0 = -1/2: y1 = 1 - (0 - 1/2)/4 = 9/8; y2 = 9/8 - (1/8 - 1/2)/4 = 39/32
    # client 1: g = 3x, corr = +1/2: y1 = 1 - (3 + 1/2)/4 = 1/8; y2 = 1/8 - (3/8 + 1/2)/4 = -3/32
    # x1 = 1 + 2 * mean(7/32, -35/32) = 1 - 28/32 = 1/8
    assert tr.x[0, 1, 0] == pytest.approx(1 / 8, abs=1e-15)
    # c_0+ = 1/2 - 0 + (1 - 39/32)/(1/2) = 1/16 = mean(g at 1, g at 9/8) = mean(0, 1/8)
    assert tr.c[0, 0, 0] == pytest.approx(1 / 16, abs=1e-15)
    # c_1+ = -1/2 + (1 + 3/32)/(1/2) = 27/16 = mean(g at 1, g at 1/8) = mean(3, 3/8)
    assert tr.c[0, 1, 0] == pytest.approx(27 / 16, abs=1e-15)
    # c^1 = c^0 + (S/N) mean(c_i+ - c_i) = mean(-7/16, 35/16) = 7/8 = mean(1/16, 27/16)
    assert tr.c_server[0, 0] == pytest.approx(7 / 8, abs=1e-15)


# -- reductions to gradient descent -----------------------------------------------------

def test_all_methods_reduce_to_gradient_descent(prob):
    """K = 1, S = N, eta_g = 1, exact oracle: every method is GD with step eta_l."""
    T, eta = 7, 0.3
    x0 = np.array([1.0, -2.0, 0.5])
    gd = _gd(prob, x0, eta, T)
    ex = ExactOracle(prob)
    c0 = np.random.default_rng(8).standard_normal((prob.N, prob.d))
    common = dict(S=prob.N, K=1, T=T, eta_l=eta, eta_g=1, x0=x0, R=2, rng=1)
    runs = [
        scaffold(prob, ex, option="I", c0=c0, **common),
        scaffold(prob, ex, option="II", c0=c0, **common),
        scaffold(prob, ex, option="II", **common),
        scaffold_run(prob, ex, c0=c0, **common),
        scaffold_run(prob, ex, **common),
        fedavg(prob, ex, mode="uniform", **common),
        fedavg(prob, ex, mode="weighted", counts=[3] * prob.N, **common),
    ]
    for tr in runs:
        assert tr.x.shape == (2, T + 1, prob.d)
        assert np.max(np.abs(tr.x - gd[None])) < 1e-12, tr.meta["algorithm"]
    assert np.max(np.abs(gd[-1] - gd[0])) > 0.1


def test_scaffold_exact_rational_step_sizes(prob):
    a = scaffold(prob, ExactOracle(prob), S=prob.N, K=1, T=3, eta_l="3/10", eta_g=Fraction(1), rng=0)
    b = scaffold(prob, ExactOracle(prob), S=prob.N, K=1, T=3, eta_l=0.3, eta_g=1.0, rng=0)
    assert np.array_equal(a.x, b.x)
    assert a.meta["eta_l"] == "3/10"


# -- FedAvg modes ------------------------------------------------------------------------

def test_fedavg_modes_coincide_with_equal_counts(prob):
    kw = dict(S=prob.N, K=3, T=5, eta_l=0.1, eta_g=1.7, R=3, rng=12)
    u = fedavg(prob, GaussianOracle(prob, 0.4), mode="uniform", **kw)
    w = fedavg(prob, GaussianOracle(prob, 0.4), mode="weighted", counts=[5] * prob.N, **kw)
    assert np.max(np.abs(u.x - w.x)) < 1e-13


def test_fedavg_modes_hand_computed_unequal_counts():
    # f_i = a_i x^2/2 - b_i x, a = (1,2,3), b = (0,1,0), x0 = 1, K = 1, eta_l = 1/2:
    # y_i - x0 = -(1/2) g_i(1) = (-1/2, -1/2, -3/2)
    P = QuadraticProblem([[[1]], [[2]], [[3]]], [[0], [1], [0]])
    kw = dict(S=3, K=1, T=1, eta_l=0.5, eta_g=1, x0=[1.0], rng=0)
    w = fedavg(P, ExactOracle(P), mode="weighted", counts=[1, 1, 2], **kw)
    u = fedavg(P, ExactOracle(P), mode="uniform", **kw)
    assert w.x[0, 1, 0] == pytest.approx(0.0, abs=1e-15)  # 1 - 1/8 - 1/8 - 3/4
    assert u.x[0, 1, 0] == pytest.approx(1 / 6, abs=1e-15)  # 1 - (5/2)/3


def test_fedavg_weighted_partial_participation_formula(prob):
    counts = np.array([1, 2, 3, 4, 5, 6])
    x0 = np.array([0.5, 1.0, -1.0])
    tr = fedavg(prob, ExactOracle(prob), S=2, K=1, T=1, eta_l=0.2, eta_g=1.5, mode="weighted",
                counts=counts, x0=x0, R=5, rng=3)
    g = prob.client_grads(np.repeat(x0[None], prob.N, axis=0))  # (N, d)
    for rep in range(5):
        sel = tr.samples[rep, 0]
        expect = x0 + 1.5 * sum(counts[i] / counts.sum() * (-0.2 * g[i]) for i in sel)
        assert np.max(np.abs(tr.x[rep, 1] - expect)) < 1e-14


def test_common_random_numbers_across_algorithms(prob):
    a = scaffold(prob, GaussianOracle(prob, 1), S=2, K=2, T=4, eta_l=0.1, eta_g=1, R=3, rng=21)
    b = fedavg(prob, ExactOracle(prob), S=2, K=5, T=4, eta_l=0.1, eta_g=1, R=3, rng=21)
    assert np.array_equal(a.samples, b.samples)
    assert np.all(np.diff(a.samples, axis=-1) > 0)


# -- Local SGD ---------------------------------------------------------------------------

def test_local_sgd_every_step_sync_is_minibatch_sgd(prob):
    workers, b, T, R = 3, 2, 6, 2
    eta = np.linspace(0.3, 0.1, T)
    x0 = np.array([1.0, 0.0, -1.0])
    tr = local_sgd(prob, workers=workers, b=b, eta=eta, sync_times=range(1, T + 1), x0=x0, R=R,
                   rng=17, record_indices=True)
    assert tr.x.shape == (R, T + 1, workers, prob.d)
    for rep in range(R):
        xbar = x0.copy()
        for t in range(T):
            idx = tr.indices[rep, t].ravel()  # the workers*b indices of step t
            g = prob.client_grads(np.repeat(xbar[None], idx.size, axis=0), clients=idx).mean(axis=0)
            xbar = xbar - eta[t] * g
            assert np.max(np.abs(tr.x[rep, t + 1] - xbar[None])) < 1e-13
    # the documented draw order reproduces the indices
    rng = np.random.default_rng(17)
    for t in range(T):
        assert np.array_equal(rng.integers(0, prob.N, size=(R, workers, b)), tr.indices[:, t])


def test_local_sgd_workers_independent_between_syncs(prob):
    tr = local_sgd(prob, workers=2, b=1, eta=0.2, sync_times=[3], R=1, rng=2, record_indices=True)
    x = tr.x[0]
    for t in range(2):  # no averaging before t = 3
        for k in range(2):
            i = tr.indices[0, t, k, 0]
            step = x[t, k] - 0.2 * prob.client_grads(x[t, k][None], clients=np.array([i]))[0]
            assert np.max(np.abs(x[t + 1, k] - step)) < 1e-14
    assert np.max(np.abs(x[2, 0] - x[2, 1])) > 0  # workers drifted apart
    assert np.max(np.abs(x[3, 0] - x[3, 1])) == 0  # and were averaged at t = 3
    assert tr.meta["H"] == 3


# -- reproducibility ---------------------------------------------------------------------

def test_same_seed_same_trajectory(prob):
    o = GaussianOracle(prob, 0.8)
    runs = [
        lambda s: scaffold(prob, o, S=2, K=3, T=4, eta_l=0.1, eta_g=1, R=2, rng=s, record_controls=True).x,
        lambda s: scaffold(prob, o, S=2, K=3, T=4, eta_l=0.1, eta_g=1, option="I", R=2, rng=s).c,
        lambda s: scaffold_run(prob, o, S=2, K=3, T=4, eta_l=0.1, eta_g=1, R=2, rng=s).x,
        lambda s: fedavg(prob, o, S=2, K=3, T=4, eta_l=0.1, eta_g=1, R=2, rng=s).x,
        lambda s: local_sgd(prob, workers=2, b=2, eta=0.1, sync_times=[2, 4], R=2, rng=s).x,
    ]
    for f in runs:
        a, b, c = f(5), f(np.random.default_rng(5)), f(6)
        assert np.array_equal(a, b)
        assert not np.array_equal(a, c)


def test_replicates_differ_and_trajectory_fields(prob):
    tr = scaffold(prob, GaussianOracle(prob, 1), S=2, K=2, T=3, eta_l=0.1, eta_g=1, R=4, rng=0)
    assert isinstance(tr, Trajectory)
    assert tr.samples.shape == (4, 3, 2) and tr.c.shape == (4, prob.N, prob.d)
    assert tr.c_history is None and tr.R == 4 and tr.T == 3
    assert not np.array_equal(tr.x[0], tr.x[1])
    assert tr.meta["algorithm"] == "scaffold" and tr.meta["seed"] == 0


# -- input validation --------------------------------------------------------------------

def _scaf(prob, **over):
    kw = dict(S=2, K=2, T=2, eta_l=0.1, eta_g=1.0, rng=0)
    kw.update(over)
    return scaffold(prob, ExactOracle(prob), **kw)


def _run(prob, **over):
    kw = dict(S=2, K=2, T=2, eta_l=0.1, eta_g=1.0, rng=0)
    kw.update(over)
    return scaffold_run(prob, ExactOracle(prob), **kw)


def _fed(prob, **over):
    kw = dict(S=2, K=2, T=2, eta_l=0.1, eta_g=1.0, rng=0)
    kw.update(over)
    return fedavg(prob, ExactOracle(prob), **kw)


def _lsgd(prob, **over):
    kw = dict(workers=2, b=1, eta=0.1, sync_times=[1, 2], rng=0)
    kw.update(over)
    return local_sgd(prob, **kw)


@pytest.mark.parametrize("fn", [_scaf, _run, _fed])
@pytest.mark.parametrize("over,name", [
    (dict(S=7), "S"), (dict(S=0), "S"), (dict(K=0), "K"), (dict(T=0), "T"), (dict(R=0), "R"),
    (dict(eta_l=0), "eta_l"), (dict(eta_l=-0.1), "eta_l"), (dict(eta_l=float("nan")), "eta_l"),
    (dict(x0=[np.nan, 0, 0]), "x0"), (dict(x0=[0, 0]), "x0"), (dict(rng="x"), "rng"),
    (dict(K=1.5), "K"),
])
def test_invalid_common(prob, fn, over, name):
    with pytest.raises(InputError) as e:
        fn(prob, **over)
    assert e.value.argument == name


@pytest.mark.parametrize("fn,over,name", [
    (_scaf, dict(eta_g=0), "eta_g"), (_scaf, dict(option="III"), "option"),
    (_scaf, dict(c0=np.zeros((5, 3))), "c0"), (_scaf, dict(c0=np.full((6, 3), np.inf)), "c0"),
    (_run, dict(eta_g=0.5), "eta_g"), (_run, dict(eta_g="1/2"), "eta_g"),
    (_run, dict(c0=np.zeros((6, 2))), "c0"),
    (_fed, dict(mode="weighted"), "counts"), (_fed, dict(mode="weighted", counts=[1] * 5), "counts"),
    (_fed, dict(mode="weighted", counts=[1, 2, 0, 1, 1, 1]), "counts"),
    (_fed, dict(mode="weighted", counts=[1, 2, 1.5, 1, 1, 1]), "counts"),
    (_fed, dict(counts=[1] * 6), "counts"), (_fed, dict(mode="median"), "mode"),
    (_lsgd, dict(sync_times=[2, 1]), "sync_times"), (_lsgd, dict(sync_times=[1, 1, 2]), "sync_times"),
    (_lsgd, dict(sync_times=[0, 2]), "sync_times"), (_lsgd, dict(sync_times=[]), "sync_times"),
    (_lsgd, dict(sync_times=[1.5, 2]), "sync_times"), (_lsgd, dict(eta=[0.1, 0.1, 0.1]), "eta"),
    (_lsgd, dict(eta=[0.1, -0.1]), "eta"), (_lsgd, dict(workers=0), "workers"), (_lsgd, dict(b=0), "b"),
    (_lsgd, dict(x0=[1, np.nan, 0]), "x0"),
])
def test_invalid_specific(prob, fn, over, name):
    with pytest.raises(InputError) as e:
        fn(prob, **over)
    assert e.value.argument == name


def test_eta_g_below_one_allowed_for_seed_002_procedure(prob):
    tr = _scaf(prob, eta_g=0.5)
    assert tr.x.shape == (1, 3, prob.d)


def test_oracle_must_match_problem(prob):
    other = random_quadratic(6, 3, 0)
    with pytest.raises(InputError) as e:
        scaffold(prob, ExactOracle(other), S=2, K=1, T=1, eta_l=0.1, eta_g=1, rng=0)
    assert e.value.argument == "oracle"
    with pytest.raises(InputError) as e:
        fedavg("not a problem", ExactOracle(other), S=2, K=1, T=1, eta_l=0.1, eta_g=1, rng=0)
    assert e.value.argument == "problem"


class _NoiseRecorder(Oracle):
    """Exact gradient + sigma * standard normal noise, keeping a copy of every noise draw (the raw
    output of the generator: no BLAS involved, so it can be compared bit for bit)."""

    def __init__(self, problem, sigma):
        super().__init__(problem)
        self.sigma = sigma
        self.draws = []

    def __call__(self, y, rng, clients=None):
        xi = rng.standard_normal(np.shape(y))
        self.draws.append(xi.ravel().copy())
        return self.problem.client_grads(y, clients) + self.sigma * xi


def test_results_do_not_depend_on_client_blocking(prob, monkeypatch):
    """The guarantee of CLIENT_BLOCK_ENTRIES (pyfed.algorithms.rounds): the step-by-step path calls
    the oracle on blocks of consecutive rows of the client-major layout, visited in order, so
    whatever the block size the oracle consumes exactly the same random numbers in the same
    order (compared bit for bit: generator output involves no floating-point kernel), and the
    trajectories agree to a relative 1e-12 (not bit for bit: batched products round differently
    on different batch shapes and BLAS kernels, so no test may demand it)."""
    import pyfed.algorithms.rounds as rounds

    def runs():
        out, draws = [], []
        for fn, extra in ((scaffold, {}), (scaffold_run, {}), (fedavg, {}), (scaffold, {"S": prob.N}),
                          (scaffold, {"option": "I"})):
            o = _NoiseRecorder(prob, 0.9)  # not a GaussianOracle: the step-by-step path
            kw = dict(S=2, K=3, T=3, eta_l=0.1, eta_g=1.0, R=7, rng=3)
            tr = fn(prob, o, **{**kw, **extra})
            assert tr.meta["path"] == "step by step"
            out.append((tr.x, tr.samples))
            draws.append(np.concatenate(o.draws))
        return out, draws

    ref, ref_draws = runs()
    monkeypatch.setattr(rounds, "CLIENT_BLOCK_ENTRIES", 7)  # one client / slot per block
    assert len(rounds.client_blocks(6, 7 * 3)) == 6 and len(rounds.client_blocks(14, 3)) == 7
    new, new_draws = runs()
    for (xa, sa), (xb, sb), da, db in zip(ref, new, ref_draws, new_draws):
        assert np.array_equal(da, db)              # the same draws, in the same order
        assert np.array_equal(sa, sb)              # the same client samples
        scale = max(1.0, float(np.max(np.abs(xa))))
        np.testing.assert_allclose(xb, xa, rtol=1e-12, atol=1e-12 * scale)


def test_closed_form_is_used_automatically_and_can_be_refused(prob):
    """auto: closed form for quadratic clients with a Gaussian/exact oracle, steps otherwise;
    method="closed_form" refuses other oracles with an InputError naming the argument."""
    kw = dict(S=2, K=3, T=2, eta_l=0.1, eta_g=1.0, R=2, rng=0)
    assert scaffold(prob, GaussianOracle(prob, 1), **kw).meta["path"] == "closed form"
    assert scaffold_run(prob, ExactOracle(prob), **kw).meta["path"] == "closed form"
    assert fedavg(prob, GaussianOracle(prob, 1), **kw).meta["path"] == "closed form"
    assert scaffold(prob, GaussianOracle(prob, 1), method="steps", **kw).meta["path"] == "step by step"
    rec = RecordingOracle(GaussianOracle(prob, 1))
    assert scaffold(prob, rec, **kw).meta["path"] == "step by step"
    with pytest.raises(InputError) as e:
        scaffold(prob, rec, method="closed_form", **kw)
    assert e.value.argument == "method"
    with pytest.raises(InputError) as e:
        fedavg(prob, rec, method="fast", **kw)
    assert e.value.argument == "method"


def test_oracle_returning_wrong_shape_is_reported(prob):
    class Bad(Oracle):
        def __call__(self, y, rng, clients=None):
            return np.zeros(np.shape(y)[:-1])
    with pytest.raises(InputError) as e:
        scaffold(prob, Bad(prob), S=2, K=1, T=1, eta_l=0.1, eta_g=1, rng=0)
    assert e.value.argument == "oracle"
