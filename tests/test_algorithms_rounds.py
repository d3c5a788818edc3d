"""pyfed.algorithms.rounds: the blocks of the client-major layout (layout_blocks) and the guarantee
that cutting a client's row of replicates into pieces changes neither the random draws nor (beyond
rounding) the trajectories, for the minibatch oracle of the real-data instances.

The closed-form round law of the simulators against the exact-moment engine (first and second
moments) and against the step-by-step path (two-sample tests). Same law, not the same draws: the
closed form draws one Gaussian per client and round, so the comparisons are statistical, at fixed
seeds (deterministic tests). Thresholds: |z| <= 5 for a mean against its exact value (standard
error from the sample), p >= 1e-3 for two-sample tests.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import pyfed.algorithms.rounds as rounds
from pyfed.algorithms import fedavg, scaffold, scaffold_run
from pyfed.algorithms.fedavg_shadow import fedavg_shadow
from pyfed.algorithms.fedprox import fedprox
from pyfed.algorithms.rounds import LocalPathLaw
from pyfed.engines.exact import fedavg_moments, scaffold_moments, scaffold_run_moments
from pyfed.oracles import GaussianOracle, MinibatchOracle
from pyfed.problems import LogisticProblem, random_quadratic


def test_layout_blocks_cover_the_layout_in_c_order(monkeypatch):
    monkeypatch.setattr(rounds, "CLIENT_BLOCK_ENTRIES", 12)
    # rows that fit: whole rows grouped (12 // (2 * 3) = 2 rows per block)
    assert rounds.layout_blocks((5, 2), 3) == [(slice(0, 2),), (slice(2, 4),), (slice(4, 5),)]
    # a row of 10 replicates x d = 3 is longer than a block: pieces of 4 replicates, row by row
    blocks = rounds.layout_blocks((2, 10), 3)
    assert blocks[:3] == [(slice(0, 1), slice(0, 4)), (slice(0, 1), slice(4, 8)), (slice(0, 1), slice(8, 10))]
    a = np.arange(2 * 10 * 3).reshape(2, 10, 3)
    assert np.array_equal(np.concatenate([a[b].ravel() for b in blocks]), a.ravel())   # C order, each once
    # the sorted layout (R*S slots) is 1-d: slices of slots
    assert rounds.layout_blocks((9,), 3) == [(slice(0, 4),), (slice(4, 8),), (slice(8, 9),)]
    # d larger than the budget: one slot per block
    assert len(rounds.layout_blocks((2, 3), 100)) == 6


@pytest.fixture(scope="module")
def lg():
    return LogisticProblem.from_dataset("breast_cancer", 4, "dirichlet", np.random.default_rng(0), lam=0.05,
                                        alpha=0.5)


def _runs(lg):
    o = MinibatchOracle(lg, 3)
    kw = dict(K=2, T=3, eta_l=0.05, R=9, rng=7)
    out = [scaffold_run(lg, o, S=2, eta_g=1.0, **kw).x, scaffold(lg, o, S=lg.N, eta_g=1.0, **kw).x,
           fedavg(lg, o, S=lg.N, eta_g=1.0, **kw).x, fedprox(lg, o, S=2, mu=1, **kw).x]
    sh = fedavg_shadow(lg, o, tau=2, T=3, eta=0.05, R=9, rng=7)
    return out + [sh.shadow, sh.drift]


def test_replicate_pieces_give_the_same_draws_and_trajectories(lg, monkeypatch):
    """With blocks of one or two slots (rows of 9 replicates cut into pieces) every simulator
    consumes the same minibatch indices in the same order, so the trajectories agree with the
    unblocked run to a relative 1e-12 (not bit for bit: batched products round by batch shape)."""
    ref = _runs(lg)
    monkeypatch.setattr(rounds, "CLIENT_BLOCK_ENTRIES", 2 * lg.d)
    new = _runs(lg)
    for a, b in zip(ref, new):
        scale = max(1.0, float(np.max(np.abs(a))))
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * scale)


def test_oracle_batches_are_bounded_by_the_block(lg, monkeypatch):
    """Every oracle call of the step-by-step path sees at most CLIENT_BLOCK_ENTRIES entries, whatever R."""
    seen = []
    o = MinibatchOracle(lg, 2)
    inner = MinibatchOracle.__call__

    def spy(self, y, rng, clients=None):
        seen.append(np.asarray(y).size)
        return inner(self, y, rng, clients)

    monkeypatch.setattr(MinibatchOracle, "__call__", spy)
    monkeypatch.setattr(rounds, "CLIENT_BLOCK_ENTRIES", 4 * lg.d)
    scaffold_run(lg, o, S=2, K=1, T=1, eta_l=0.05, eta_g=1.0, R=50, rng=0)
    assert seen and max(seen) <= 4 * lg.d
    # every (client, replicate) slot once in the warm start (K = 1 sample at x0) and once in the local step
    assert sum(seen) == 2 * lg.N * 50 * lg.d


SIGMA = Fraction(3, 2)
ETA_L, ETA_G = Fraction(1, 5), Fraction(3, 2)
N, D, S, K, T = 3, 2, 2, 3, 4


@pytest.fixture(scope="module")
def prob():
    return random_quadratic(N, D, np.random.default_rng(5), rational=True, mu=Fraction(1, 4), L=1)


@pytest.fixture(scope="module")
def starts(prob):
    x0 = [Fraction(1), Fraction(-2)]
    c0 = [[Fraction(1, 2), Fraction(-1)], [Fraction(0), Fraction(1, 4)], [Fraction(-1), Fraction(1)]]
    return x0, c0


def _variants(prob, starts):
    """(name, simulator call (R, rng, method) -> Trajectory, exact MomentResult)."""
    x0, c0 = starts
    x0f, c0f = np.array(x0, float), np.array(c0, float)
    o = GaussianOracle(prob, float(SIGMA))
    kw = dict(S=S, K=K, T=T, eta_l=ETA_L, eta_g=ETA_G)
    ex = dict(S=S, K=K, T=T, eta_l=ETA_L, eta_g=ETA_G, x0=x0)
    return [
        ("scaffold-II", lambda R, rng, m: scaffold(prob, o, option="II", x0=x0f, c0=c0f, R=R, rng=rng, method=m, **kw),
         lambda: scaffold_moments(prob, SIGMA, option="II", c0=c0, **ex)),
        ("scaffold-I", lambda R, rng, m: scaffold(prob, o, option="I", x0=x0f, c0=c0f, R=R, rng=rng, method=m, **kw),
         lambda: scaffold_moments(prob, SIGMA, option="I", c0=c0, **ex)),
        ("run-c0", lambda R, rng, m: scaffold_run(prob, o, x0=x0f, c0=c0f, R=R, rng=rng, method=m, **kw),
         lambda: scaffold_run_moments(prob, SIGMA, c0=c0, **ex)),
        ("run-warm", lambda R, rng, m: scaffold_run(prob, o, x0=x0f, R=R, rng=rng, method=m, **kw),
         lambda: scaffold_run_moments(prob, SIGMA, **ex)),
        ("fedavg", lambda R, rng, m: fedavg(prob, o, x0=x0f, R=R, rng=rng, method=m, **kw),
         lambda: fedavg_moments(prob, SIGMA, **ex)),
    ]


def _z(samples, exact):
    """(sample mean - exact) / standard error."""
    se = samples.std(ddof=1) / np.sqrt(samples.size)
    return (samples.mean() - float(exact)) / se


def _moment_z_scores(prob, tr, res):
    """z-scores of E[x^r] (each coordinate), E f(x^r) - f* and E||grad f(x^r)||^2 for r = 1..T."""
    zs = []
    fstar = float(prob.f_star)
    for r in range(1, T + 1):
        xr = tr.x[:, r]
        for j in range(D):
            zs.append(_z(xr[:, j], res.mean_x[r][j]))
        zs.append(_z(prob.value(xr) - fstar, res.gaps[r]))
        g = prob.grad(xr)
        zs.append(_z((g * g).sum(axis=1), res.grad_sq[r]))
    return np.array(zs)


@pytest.mark.parametrize("name", ["scaffold-II", "scaffold-I", "run-c0", "run-warm", "fedavg"])
def test_closed_form_matches_exact_moments(prob, starts, name):
    """E[x^r], E f(x^r) - f* (second moment) and E||grad f(x^r)||^2 of the closed-form simulator
    agree with the exact-moment engine's exact rationals within 5 standard errors."""
    sim, exact = next((s, e) for n, s, e in _variants(prob, starts) if n == name)
    tr = sim(20000, 11, "closed_form")
    assert tr.meta["path"] == "closed form"
    res = exact()
    assert res.exact
    z = _moment_z_scores(prob, tr, res)
    assert np.max(np.abs(z)) < 5, (name, z)


def test_moment_test_detects_a_wrong_noise_law(prob, starts):
    """The moment comparison is sharp enough to fail: the same simulator with sigma 30% too
    large is rejected against the exact moments of the true sigma."""
    x0, c0 = starts
    o = GaussianOracle(prob, 1.3 * float(SIGMA))
    tr = scaffold_run(prob, o, S=S, K=K, T=T, eta_l=ETA_L, eta_g=ETA_G, x0=np.array(x0, float),
                      c0=np.array(c0, float), R=20000, rng=11)
    res = scaffold_run_moments(prob, SIGMA, S=S, K=K, T=T, eta_l=ETA_L, eta_g=ETA_G, x0=x0, c0=c0)
    assert np.max(np.abs(_moment_z_scores(prob, tr, res))) > 5


@pytest.mark.parametrize("name", ["scaffold-II", "scaffold-I", "run-c0", "run-warm", "fedavg"])
def test_closed_form_and_steps_two_sample(prob, starts, name):
    """Kolmogorov-Smirnov two-sample tests (fixed seeds) of x^T's coordinates, f(x^T) and, for
    SCAFFOLD, client 0's final control: closed form vs the step-by-step simulator."""
    sim = next(s for n, s, _ in _variants(prob, starts) if n == name)
    a = sim(4000, 21, "closed_form")
    b = sim(4000, 22, "steps")
    assert a.meta["path"] == "closed form" and b.meta["path"] == "step by step"
    pairs = [(a.x[:, T, j], b.x[:, T, j]) for j in range(D)]
    pairs.append((prob.value(a.x[:, T]), prob.value(b.x[:, T])))
    if a.c is not None:
        pairs += [(a.c[:, 0, j], b.c[:, 0, j]) for j in range(D)]
    pvals = [stats.ks_2samp(u, v).pvalue for u, v in pairs]
    assert min(pvals) > 1e-3, (name, pvals)
    # and the samples are not trivially equal (different draws, same law)
    assert not np.array_equal(a.x[:, T], b.x[:, T])


def test_two_sample_test_detects_a_wrong_law(prob, starts):
    """The KS comparison can fail: steps with sigma 30% larger differ from the closed form."""
    x0, c0 = starts
    kw = dict(S=S, K=K, T=T, eta_l=ETA_L, eta_g=ETA_G, x0=np.array(x0, float), c0=np.array(c0, float), R=4000)
    a = scaffold_run(prob, GaussianOracle(prob, float(SIGMA)), rng=21, method="closed_form", **kw)
    b = scaffold_run(prob, GaussianOracle(prob, 1.3 * float(SIGMA)), rng=22, method="steps", **kw)
    assert stats.ks_2samp(prob.value(a.x[:, T]), prob.value(b.x[:, T])).pvalue < 1e-3


def test_local_path_law_hand_computed():
    """d = 1, A = a: D = 1 - eta a, y_K = D^K y0 + eta sum_j D^j (b - u), noise variance
    s^2 eta^2 sum_j D^(2j) (the accumulated local noise), checked against the formulas."""
    from pyfed.problems import QuadraticProblem
    P = QuadraticProblem([[[2]], [[1]]], [[1], [-1]])
    law = LocalPathLaw(P, scale=0.5, eta=0.25, K=3)
    for i, (a, b) in enumerate([(2.0, 1.0), (1.0, -1.0)]):
        Dm = 1 - 0.25 * a
        assert law.PmIT[i, 0, 0] == pytest.approx(Dm ** 3 - 1, abs=1e-15)
        G = 0.25 * (1 + Dm + Dm ** 2)
        assert law.GT[i, 0, 0] == pytest.approx(G, abs=1e-15)
        assert law.Gb[i, 0] == pytest.approx(G * b, abs=1e-15)
        var = 0.25 * 0.0625 * (1 + Dm ** 2 + Dm ** 4)
        assert law.LT[i, 0, 0] ** 2 == pytest.approx(var, rel=1e-14)


def test_closed_form_deterministic_equals_steps(prob, starts):
    """sigma = 0: the closed form and the steps compute the same iterates (to rounding)."""
    from pyfed.oracles import ExactOracle
    x0, c0 = starts
    kw = dict(S=S, K=K, T=T, eta_l=ETA_L, eta_g=ETA_G, x0=np.array(x0, float), R=3, rng=4)
    o = ExactOracle(prob)
    for f in (lambda m: scaffold(prob, o, c0=np.array(c0, float), method=m, **kw),
              lambda m: scaffold(prob, o, option="I", method=m, **kw),
              lambda m: scaffold_run(prob, o, method=m, **kw),
              lambda m: fedavg(prob, o, method=m, **kw)):
        a, b = f("closed_form"), f("steps")
        assert np.max(np.abs(a.x - b.x)) < 1e-12
        if a.c is not None:
            assert np.max(np.abs(a.c - b.c)) < 1e-12


def _fair_loop():
    """benchmarks/bench_scaffold.py's baseline (the per-client loop vectorised over replicates)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scaffold.py"
    spec = importlib.util.spec_from_file_location("bench_scaffold", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scaffold_fair_loop


def test_benchmark_fair_loop_is_the_same_procedure(prob):
    """sigma = 0 and the client subsets of the same seed: the benchmark's fair loop, the closed
    form and the steps compute the same iterates (to rounding), at S < N."""
    from pyfed.algorithms.common import split_streams
    from pyfed.oracles import ExactOracle

    kw = dict(S=S, K=K, T=T, eta_l=float(ETA_L), eta_g=float(ETA_G), R=5)
    loop = _fair_loop()(prob.A, prob.b, 0.0, rng=split_streams(9), **kw)
    for method in ("closed_form", "steps"):
        tr = scaffold(prob, ExactOracle(prob), rng=9, method=method, **kw)
        assert np.max(np.abs(tr.x - loop)) < 1e-12
    assert np.ptp(loop[:, T], axis=0).max() > 1e-3   # the replicates' subsets differ: a real check of sampling


def test_benchmark_fair_loop_closed_form_and_steps_have_the_same_law(prob):
    """With noise: the moments of x^r (r = 1..T) of the benchmark's fair loop, of the closed form
    and of the steps all agree with the exact-moment engine within 5 standard errors (x0 = 0,
    c0 = 0), and KS two-sample tests do not separate the fair loop from either simulator path:
    the benchmark compares the same work."""
    kw = dict(S=S, K=K, T=T, eta_l=float(ETA_L), eta_g=float(ETA_G))
    res = scaffold_moments(prob, SIGMA, option="II", S=S, K=K, T=T, eta_l=ETA_L, eta_g=ETA_G, x0=[0, 0])
    assert res.exact
    o = GaussianOracle(prob, float(SIGMA))
    loop = _fair_loop()(prob.A, prob.b, float(SIGMA), R=20000, rng=np.random.default_rng(31), **kw)
    runs = {"fair loop": loop}
    for method, seed in (("closed_form", 32), ("steps", 33)):
        runs[method] = scaffold(prob, o, R=20000, rng=seed, method=method, **kw).x

    class _Tr:
        def __init__(self, x):
            self.x = x

    for name, x in runs.items():
        z = _moment_z_scores(prob, _Tr(x), res)
        assert np.max(np.abs(z)) < 5, (name, z)
    for method in ("closed_form", "steps"):
        pvals = [stats.ks_2samp(loop[:, T, j], runs[method][:, T, j]).pvalue for j in range(D)]
        pvals.append(stats.ks_2samp(prob.value(loop[:, T]), prob.value(runs[method][:, T])).pvalue)
        assert min(pvals) > 1e-3, (method, pvals)
