"""Tests of the exact-moment engine (issue 3): brute-force enumeration, Monte Carlo agreement,
model equivalences, hand-checkable reductions, certified ball arithmetic, verdicts."""

from __future__ import annotations

import itertools
from fractions import Fraction as Fr

import numpy as np
import pytest
import sympy

from pyfed.errors import InputError
from pyfed.engines.exact.arith import BallField, precision, to_arb
from pyfed.engines.exact import (decide_convex, decide_nonconvex, fedavg_moments, local_sgd_moments,
                                             scaffold_moments, scaffold_run_moments)
from pyfed.problems import QuadraticProblem, random_quadratic


# ---------------------------------------------------------------------------------------
# brute force (Fractions, following the seed update equations literally)
# ---------------------------------------------------------------------------------------

def _mv(A, x):
    return [sum((A[i][j] * x[j] for j in range(len(x))), Fr(0)) for i in range(len(A))]


def _sub(u, v):
    return [a - b for a, b in zip(u, v)]


def _add(u, v):
    return [a + b for a, b in zip(u, v)]


def _scale(s, u):
    return [s * a for a in u]


def _f_gap_and_grad_sq(P, x):
    N, d = P.N, P.d
    Abar = [[sum((P.A_exact[i][j][k] for i in range(N)), Fr(0)) / N for k in range(d)] for j in range(d)]
    bbar = [sum((P.b_exact[i][j] for i in range(N)), Fr(0)) / N for j in range(d)]
    Ax = _mv(Abar, x)
    f = sum((x[j] * Ax[j] for j in range(d)), Fr(0)) / 2 - sum((bbar[j] * x[j] for j in range(d)), Fr(0))
    g = _sub(Ax, bbar)
    return f - P.f_star, sum((v * v for v in g), Fr(0))


def brute_force_round_model(P, *, S, K, T, eta_l, eta_g, x0, c0, variant):
    """Average over all C(N,S)^T sample paths of (f(x^r) - f*, ||grad f(x^r)||^2), sigma = 0.

    variant "run": seed 000 (virtual paths of all clients, selected controls = average of the K
    gradients); "II"/"I": seed 002 SCAFFOLD with the server control c kept separately;
    "fedavg": seed 002 FedAvg uniform mode.
    """
    N, d = P.N, P.d
    A = [[list(row) for row in Ai] for Ai in P.A_exact]
    b = [list(bi) for bi in P.b_exact]
    grad = lambda i, y: _sub(_mv(A[i], y), b[i])
    subsets = list(itertools.combinations(range(N), S))
    totals_gap = [Fr(0)] * (T + 1)
    totals_gs = [Fr(0)] * (T + 1)
    paths = list(itertools.product(subsets, repeat=T))
    for path in paths:
        x = list(x0)
        c = [list(ci) for ci in c0]
        cs = [sum((c[i][j] for i in range(N)), Fr(0)) / N for j in range(d)]  # server control
        g0, s0 = _f_gap_and_grad_sq(P, x)
        totals_gap[0] += g0
        totals_gs[0] += s0
        for r, sample in enumerate(path):
            cbar = cs if variant in ("I", "II") else [sum((c[i][j] for i in range(N)), Fr(0)) / N for j in range(d)]
            ends, newc = {}, {}
            for i in range(N):  # virtual paths of all clients
                y = list(x)
                gsum = [Fr(0)] * d
                for _ in range(K):
                    g = grad(i, y)
                    gsum = _add(gsum, g)
                    corr = [Fr(0)] * d if variant == "fedavg" else _sub(c[i], cbar)
                    y = _sub(y, _scale(eta_l, _sub(g, corr)))
                ends[i] = y
                if variant == "run":
                    newc[i] = _scale(Fr(1, K), gsum)
                elif variant == "II":
                    newc[i] = _add(_sub(c[i], cbar), _scale(1 / (K * eta_l), _sub(x, y)))
                elif variant == "I":
                    newc[i] = grad(i, x)
            dx = [Fr(0)] * d
            dc = [Fr(0)] * d
            for i in sample:
                dx = _add(dx, _sub(ends[i], x))
                if variant != "fedavg":
                    dc = _add(dc, _sub(newc[i], c[i]))
            x = _add(x, _scale(Fr(eta_g) / S, dx))
            if variant in ("I", "II"):
                cs = _add(cs, _scale(Fr(1, N), dc))  # c^r = c^{r-1} + (S/N) (1/S) sum dc_i
            for i in sample:
                if variant != "fedavg":
                    c[i] = newc[i]
            gp, sp = _f_gap_and_grad_sq(P, x)
            totals_gap[r + 1] += gp
            totals_gs[r + 1] += sp
    n = len(paths)
    return [t / n for t in totals_gap], [t / n for t in totals_gs]


@pytest.fixture(scope="module")
def tiny():
    """N = 3 rational quadratic clients in d = 2 (hand-written data)."""
    A = [[[2, Fr(1, 2)], [Fr(1, 2), 1]], [[1, 0], [0, 3]], [[Fr(3, 2), Fr(-1, 3)], [Fr(-1, 3), Fr(1, 2)]]]
    b = [[1, -1], [Fr(1, 2), 2], [-2, Fr(1, 3)]]
    return QuadraticProblem(A, b, name="tiny")


TINY = dict(S=2, K=2, T=3, eta_l=Fr(1, 10), eta_g=Fr(3, 2))


@pytest.mark.parametrize("variant", ["run", "II", "I", "fedavg"])
def test_sigma0_equals_bruteforce_enumeration(tiny, variant):
    x0 = [Fr(1), Fr(-2)]
    c0 = [[Fr(1, 3), 0], [0, Fr(-1, 2)], [1, 1]]
    bf_gap, bf_gs = brute_force_round_model(tiny, x0=x0, c0=c0, variant=variant, **TINY)
    if variant == "run":
        res = scaffold_run_moments(tiny, 0, x0=x0, c0=c0, **TINY)
    elif variant == "fedavg":
        res = fedavg_moments(tiny, 0, x0=x0, **TINY)
    else:
        res = scaffold_moments(tiny, 0, x0=x0, c0=c0, option=variant, **TINY)
    assert res.exact
    assert all(isinstance(v, Fr) for v in res.gaps + res.grad_sq)
    assert res.gaps == bf_gap
    assert res.grad_sq == bf_gs
    assert len(res.gaps) == TINY["T"] + 1


def test_sigma0_warm_start_equals_bruteforce(tiny):
    """c0 = None: the K-sample warm start; with sigma = 0 it is c_i^0 = grad f_i(x0)."""
    x0 = [Fr(1, 2), Fr(1)]
    c0 = [list(g) for g in tiny.grads_exact(x0)]
    bf_gap, bf_gs = brute_force_round_model(tiny, x0=x0, c0=c0, variant="run", **TINY)
    res = scaffold_run_moments(tiny, 0, x0=x0, **TINY)
    assert res.gaps == bf_gap and res.grad_sq == bf_gs


def test_local_sgd_equals_enumeration(tiny):
    """Local SGD: 2 workers, b = 1, 3 components, eta = 1/5, sync at t = 1 and 2: all 3^4 index draws."""
    eta = Fr(1, 5)
    x0 = [Fr(1), Fr(-1)]
    A = [[list(r) for r in Ai] for Ai in tiny.A_exact]
    b = [list(bi) for bi in tiny.b_exact]
    W, n, T = 2, 3, 2
    tot_gap = [Fr(0)] * (T + 1)
    tot_gs = [Fr(0)] * (T + 1)
    draws = list(itertools.product(range(n), repeat=W * T))
    for dr in draws:
        xs = [list(x0) for _ in range(W)]
        for t in range(T + 1):
            xbar = [sum((xs[k][j] for k in range(W)), Fr(0)) / W for j in range(2)]
            g, s = _f_gap_and_grad_sq(tiny, xbar)
            tot_gap[t] += g
            tot_gs[t] += s
            if t == T:
                break
            xs = [_sub(xs[k], _scale(eta, _sub(_mv(A[dr[t * W + k]], xs[k]), b[dr[t * W + k]]))) for k in range(W)]
            xbar = [sum((xs[k][j] for k in range(W)), Fr(0)) / W for j in range(2)]
            xs = [list(xbar) for _ in range(W)]  # sync at every step (sync_times = [1, 2])
    res = local_sgd_moments(tiny, workers=W, b=1, eta=eta, sync_times=[1, 2], x0=x0)
    assert res.gaps == [v / len(draws) for v in tot_gap]
    assert res.grad_sq == [v / len(draws) for v in tot_gs]


def test_local_sgd_minibatch_without_sync_matches_enumeration(tiny):
    """b = 2, two workers, sync only at T = 2, two components: enumerate 2^(2*2*2) = 256 draws."""
    tiny = QuadraticProblem(tiny.A_exact[:2], tiny.b_exact[:2])
    eta = Fr(1, 4)
    x0 = [Fr(0), Fr(1)]
    A = [[list(r) for r in Ai] for Ai in tiny.A_exact]
    b = [list(bi) for bi in tiny.b_exact]
    W, bs, T = 2, 2, 2
    tot = Fr(0)
    draws = list(itertools.product(range(2), repeat=W * T * bs))
    for dr in draws:
        xs = [list(x0) for _ in range(W)]
        pos = 0
        for t in range(T):
            for k in range(W):
                g = [Fr(0), Fr(0)]
                for _ in range(bs):
                    j = dr[pos]
                    pos += 1
                    g = _add(g, _sub(_mv(A[j], xs[k]), b[j]))
                xs[k] = _sub(xs[k], _scale(eta / bs, g))
        xbar = [sum((xs[k][j] for k in range(W)), Fr(0)) / W for j in range(2)]
        tot += _f_gap_and_grad_sq(tiny, xbar)[0]
    res = local_sgd_moments(tiny, workers=W, b=bs, eta=eta, sync_times=[2], x0=x0)
    assert res.gaps[2] == tot / len(draws)


# ---------------------------------------------------------------------------------------
# equivalences and reductions
# ---------------------------------------------------------------------------------------

def test_seed000_and_seed002_option_II_identical_with_noise(tiny):
    c0 = [[Fr(1, 3), 0], [0, Fr(-1, 2)], [1, 1]]
    kw = dict(S=2, K=3, T=4, eta_l=Fr(1, 20), eta_g=Fr(2), x0=[Fr(1), Fr(1)], c0=c0)
    a = scaffold_run_moments(tiny, Fr(3, 4), **kw)
    b = scaffold_moments(tiny, Fr(3, 4), option="II", **kw)
    assert a.gaps == b.gaps and a.grad_sq == b.grad_sq and a.mean_x == b.mean_x
    # and the noise does matter (the comparison is not vacuous), option I differs
    c = scaffold_run_moments(tiny, 0, **kw)
    d = scaffold_moments(tiny, Fr(3, 4), option="I", **kw)
    assert c.gaps[2] != a.gaps[2] and d.gaps[2] != a.gaps[2]


@pytest.mark.parametrize("engine", ["run", "II", "I", "fedavg"])
def test_K1_full_participation_sigma0_is_gradient_descent(tiny, engine):
    eta_l, eta_g, T = Fr(1, 7), Fr(2), 4
    x = [Fr(2), Fr(-1)]
    c0 = [[5, 1], [0, -3], [Fr(1, 2), 2]]  # arbitrary controls: their correction cancels when S = N
    kw = dict(S=3, K=1, T=T, eta_l=eta_l, eta_g=eta_g, x0=x)
    if engine == "run":
        res = scaffold_run_moments(tiny, 0, c0=c0, **kw)
    elif engine == "fedavg":
        res = fedavg_moments(tiny, 0, **kw)
    else:
        res = scaffold_moments(tiny, 0, c0=c0, option=engine, **kw)
    N = 3
    Abar = [[sum((tiny.A_exact[i][j][k] for i in range(N)), Fr(0)) / N for k in range(2)] for j in range(2)]
    bbar = [sum((tiny.b_exact[i][j] for i in range(N)), Fr(0)) / N for j in range(2)]
    gd = []
    for _ in range(T + 1):
        gd.append(_f_gap_and_grad_sq(tiny, x)[0])
        x = _sub(x, _scale(eta_l * eta_g, _sub(_mv(Abar, x), bbar)))
    assert res.gaps == gd


def test_hand_derived_one_client_noise():
    """N = d = K = S = 1, A = 1, b = 0, x0 = 0: x1 = -eta xi, so E f(x1) = eta^2 sigma^2 / 2."""
    P = QuadraticProblem([[[1]]], [[0]])
    sigma, eta = Fr(1, 2), Fr(1, 4)
    res = scaffold_run_moments(P, sigma, S=1, K=1, T=2, eta_l=eta, eta_g=1)
    assert res.gaps[0] == 0
    assert res.gaps[1] == Fr(1, 128)
    assert res.grad_sq[1] == Fr(1, 64)
    # x2 = (1 - eta) x1 - eta xi2: E x2^2 = ((1-eta)^2 + 1) eta^2 sigma^2
    assert res.gaps[2] == ((1 - eta) ** 2 + 1) * eta**2 * sigma**2 / 2


def test_warm_start_variance_enters_exactly():
    """N = 2 identical clients f_i = x^2/2, d = 1, K = 1, S = 1, x0 = 0, sigma^2 = s.

    Warm start c_i = xi_i (variance s); round 1: y_i = -eta (xi'_i - c_i + cbar). Sampling one of
    two clients: x1 = y_I, E x1^2 = eta^2 (s + Var(c_I - cbar)) = eta^2 (s + s/2).
    """
    P = QuadraticProblem([[[1]], [[1]]], [[0], [0]])
    s, eta = Fr(1, 3), Fr(1, 5)
    res = scaffold_run_moments(P, 0, noise_cov=[[s]], S=1, K=1, T=1, eta_l=eta, eta_g=1)
    assert res.gaps[1] == eta**2 * (s + s / 2) / 2


# ---------------------------------------------------------------------------------------
# ball arithmetic
# ---------------------------------------------------------------------------------------

def test_ball_encloses_exact_values(tiny):
    kw = dict(S=2, K=2, T=5, eta_l=Fr(1, 9), eta_g=1, sigma=Fr(1, 3))
    ex = scaffold_run_moments(tiny, **kw)
    ball = scaffold_run_moments(tiny, field=BallField(96), **kw)
    assert not ball.exact
    for e, bl in zip(ex.gaps + ex.grad_sq, ball.gaps + ball.grad_sq):
        with precision(256):
            pt = to_arb(e)
        assert bl.contains(pt)
        assert float(bl.rad()) < 1e-20


def test_irrational_step_decided_by_ball(tiny):
    beta = tiny.beta
    K = 2
    eta_l = 1 / (81 * sympy.sqrt(2) * K * sympy.Rational(beta.numerator, beta.denominator))  # h = 1/(81 sqrt2 beta)
    v = decide_convex(tiny, Fr(1, 2), S=2, K=K, T=6, eta_l=eta_l, eta_g=1)
    assert v.status in ("holds", "violated") and v.exact
    assert "ball" in v.details["arithmetic"]
    assert v.status == "holds" and v.details["hypotheses_hold"]
    assert v.lhs < v.rhs
    w = decide_nonconvex(tiny, Fr(1, 2), S=2, K=K, T=6, eta_l=eta_l, eta_g=1)
    assert w.status == "holds" and "ball" in w.details["arithmetic"]


def test_irrational_step_on_default_instance():
    """The issue's example: a step of 1/(81 sqrt 2) on the default sweep instance (beta < sqrt 2)."""
    from pyfed.engines.tightness import default_instance
    P = default_instance(0)
    eta_l = 1 / (81 * sympy.sqrt(2))
    v = decide_convex(P, Fr(1, 2), S=2, K=1, T=8, eta_l=eta_l, eta_g=1)
    assert v.status == "holds" and v.exact and v.details["hypotheses_hold"]
    assert "ball" in v.details["arithmetic"] and "certified ball" in v.certificate
    # the ball of the exact ratio is narrow: the decision is far from the precision limit
    lo, hi = v.details["ratio_ball"].strip("[]").split("+/-")
    assert float(hi) < 1e-25 and 0 < float(lo) < 1


def test_ball_violation_certified(tiny):
    """Far beyond the step hypothesis with a far, noise-free start the bound fails; the ball
    arithmetic certifies the violation and agrees with the exact decision."""
    v = decide_convex(tiny, 0, S=2, K=2, T=3, eta_l=Fr(3, 2), eta_g=1, x0=[40, -40], c0=[[9, 9], [-9, 9], [9, -9]],
                      mu=0, arithmetic="ball")
    # beyond the hypotheses the theorem claims nothing: inconclusive, the inequality itself violated
    assert v.status == "inconclusive" and v.details["inequality"] == "violated" and v.exact
    assert not v.details["hypotheses_hold"] and "hypotheses fail" in v.reason
    e = decide_convex(tiny, 0, S=2, K=2, T=3, eta_l=Fr(3, 2), eta_g=1, x0=[40, -40], c0=[[9, 9], [-9, 9], [9, -9]],
                      mu=0, arithmetic="exact")
    assert e.status == "inconclusive" and e.details["inequality"] == "violated" and e.margin < 0


def test_ball_containing_zero_is_inconclusive_with_width():
    from flint import arb
    from pyfed.engines.exact.verdict import _verdict
    v = _verdict("ConvexFiniteRoundConvergence", arb(1, "0.001"), arb(1), False, {}, {}, None, 64)
    assert v.status == "inconclusive" and not v.exact
    assert abs(v.details["ball_width"] - 2e-3) < 1e-9 and "contains 0" in v.reason
    w = _verdict("ConvexFiniteRoundConvergence", arb(1, "0.001"), arb(2), False, {}, {}, None, 64)
    assert w.status == "holds" and w.exact


def test_noise_cov_general_matches_sigma(tiny):
    kw = dict(S=2, K=2, T=3, eta_l=Fr(1, 9), eta_g=1, x0=[1, 0])
    a = scaffold_run_moments(tiny, Fr(2, 3), **kw)
    b = scaffold_run_moments(tiny, 0, noise_cov=[[Fr(2, 9), 0], [0, Fr(2, 9)]], **kw)
    assert a.gaps == b.gaps
    # per-client covariances: only client 0 noisy changes the moments, differently from all noisy
    cov = [[[Fr(2, 9), 0], [0, Fr(2, 9)]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]]
    c = scaffold_run_moments(tiny, 0, noise_cov=cov, **kw)
    z = scaffold_run_moments(tiny, 0, **kw)
    assert z.gaps[2] < c.gaps[2] < a.gaps[2]


# ---------------------------------------------------------------------------------------
# exact verdicts
# ---------------------------------------------------------------------------------------

def test_exact_convex_verdict_reports_lhs_rhs_ratio(tiny):
    from pyfed import theory
    h = 1 / (81 * tiny.beta)
    K, eta_g = 2, Fr(1)
    eta_l = h / (K * eta_g)
    v = decide_convex(tiny, Fr(1, 2), S=2, K=K, T=4, eta_l=eta_l, eta_g=eta_g)
    assert v.status == "holds" and v.exact
    assert isinstance(v.lhs, Fr) and isinstance(v.rhs, Fr)
    # reports carry the exact ratio with its correctly rounded float; a long "p/q" is replaced by
    # 17 correct digits, its length and its SHA-256 (the full value stays in v.lhs / v.rhs)
    import hashlib
    ratio, j = v.lhs / v.rhs, v.details["ratio_exact"]
    text = f"{ratio.numerator}/{ratio.denominator}"
    assert j["float"] == float(ratio)
    if "exact" in j:
        assert j["exact"] == text
    else:
        assert j["exact_chars"] == len(text) and j["exact_sha256"] == hashlib.sha256(text.encode()).hexdigest()
        assert abs(Fr(j["decimal"]) - ratio) <= ratio * Fr(1, 10**16)
    assert 0 < v.ratio < 1
    # the rhs is theory.convex_rhs with dist_sq = ||x*||^2 and C0 = mean ||grad f_i(0) - grad f_i(x*)||^2
    xs = tiny.x_star_exact
    C0 = theory.initial_control_error(tiny.grads_exact([0, 0]), tiny.grads_exact(xs))
    rhs = theory.convex_rhs(dist_sq=theory.squared_distance([0, 0], xs), C0=C0, N=3, S=2, K=K, T=4,
                            eta_l=eta_l, eta_g=eta_g, mu=tiny.mu, sigma=Fr(1, 2))
    assert v.rhs == rhs
    # lhs = weighted mean of the engine's gaps with theory.weights
    c0 = [list(g) for g in tiny.grads_exact([0, 0])]
    res = scaffold_run_moments(tiny, Fr(1, 2), S=2, K=K, T=4, eta_l=eta_l, eta_g=eta_g, c0=c0)
    ws = theory.weights(4, tiny.mu, h)
    assert v.lhs == sum(w * g for w, g in zip(ws, res.gaps[:4])) / sum(ws)
    assert [hh["key"] for hh in v.details["hypotheses"]][-3:] == ["step_size", "mu_h", "convexity"]


def test_mu_above_the_problems_strong_convexity_fails_the_convexity_hypothesis(tiny):
    # the weights use mu, so a too-large mu can "violate" the bound; the theorem's hypothesis
    # Convexity P mu (A_i - mu I PSD, decided exactly) must fail, and the verdict be inconclusive
    h = 1 / (81 * tiny.beta)
    v = decide_convex(tiny, Fr(1, 2), S=2, K=2, T=4, eta_l=h / 2, eta_g=1, mu=tiny.mu + 1)
    conv = next(hh for hh in v.details["hypotheses"] if hh["key"] == "convexity")
    assert conv["holds"] is False and v.status == "inconclusive"
    ok = decide_convex(tiny, Fr(1, 2), S=2, K=2, T=4, eta_l=h / 2, eta_g=1, mu=tiny.mu)
    assert next(hh for hh in ok.details["hypotheses"] if hh["key"] == "convexity")["holds"] is True


def test_exact_nonconvex_verdict(tiny):
    v = decide_nonconvex(tiny, Fr(1, 4), S=2, K=2, T=3, eta_l=Fr(1, 2000), eta_g=1, x0=[1, 1])
    assert v.status == "holds" and isinstance(v.lhs, Fr)
    res = scaffold_run_moments(tiny, Fr(1, 4), S=2, K=2, T=3, eta_l=Fr(1, 2000), eta_g=1, x0=[1, 1])
    assert v.lhs == sum(res.grad_sq[:3]) / 3


def test_input_errors(tiny):
    with pytest.raises(InputError) as e:
        scaffold_run_moments(tiny, 0, S=4, K=1, T=1, eta_l=Fr(1, 10), eta_g=1)
    assert e.value.argument == "S"
    with pytest.raises(InputError) as e:
        scaffold_run_moments(tiny, 0, S=2, K=1, T=1, eta_l=Fr(1, 10), eta_g=Fr(1, 2))
    assert e.value.argument == "eta_g"
    with pytest.raises(InputError) as e:
        scaffold_run_moments(tiny, 0, S=2, K=1, T=1, eta_l=Fr(1, 10), eta_g=1, c0=[[0, 0]])
    assert e.value.argument == "c0"
    with pytest.raises(InputError) as e:
        decide_convex(tiny, 0, S=2, K=1, T=1, eta_l=sympy.sqrt(2) / 100, eta_g=1, arithmetic="exact")
    assert e.value.argument == "arithmetic"
    with pytest.raises(InputError) as e:
        local_sgd_moments(tiny, workers=2, b=1, eta=Fr(1, 10), sync_times=[2, 1])
    assert e.value.argument == "sync_times"
    with pytest.raises(InputError) as e:
        fedavg_moments(object(), 0, S=1, K=1, T=1, eta_l=Fr(1, 10), eta_g=1)
    assert e.value.argument == "problem"
    with pytest.raises(InputError) as e:
        scaffold_moments(tiny, 0, S=2, K=1, T=1, eta_l=Fr(1, 10), eta_g=1, option="III")
    assert e.value.argument == "option"


# ---------------------------------------------------------------------------------------
# Monte Carlo agreement (against the core simulators of pyfed.algorithms)
# ---------------------------------------------------------------------------------------

def _algorithms():
    try:
        import pyfed.algorithms as alg
    except ImportError:  # pragma: no cover
        return None
    if not all(hasattr(alg, n) for n in ("scaffold_run", "scaffold", "fedavg")):
        return None
    return alg


def _mc_agrees(xbar, P, exact_gaps, exact_gs):
    """True iff every round's Monte Carlo mean of f - f* and ||grad f||^2 is within 4 SE of the exact value.

    xbar: (R, T+1, d) server iterates of R independent replicates.
    """
    R = xbar.shape[0]
    gaps = P.value(xbar) - float(P.f_star)
    gs = (P.grad(xbar) ** 2).sum(axis=-1)
    for stat, ex in ((gaps, exact_gaps), (gs, exact_gs)):
        mean = stat.mean(axis=0)
        se = stat.std(axis=0, ddof=1) / np.sqrt(R)
        exf = np.array([float(v) for v in ex])
        if (np.abs(mean - exf) > 4 * se + 1e-12).any():
            return False
    return True


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_monte_carlo_agrees_within_4_standard_errors(seed):
    """Start near x* so the noise dominates; each simulator's sample must match its exact law
    within 4 standard errors, and must *reject* a nearby wrong law (sigma = 9/10 instead of 1,
    deterministic instead of warm-started controls), so the comparison has power."""
    alg = _algorithms()
    if alg is None:
        pytest.skip("pyfed.algorithms (scaffold_run/scaffold/fedavg) not available yet")
    from pyfed.oracles import GaussianOracle
    P = random_quadratic(4, 2, np.random.default_rng(100 + seed), rational=True, heterogeneity=1)
    x0 = [Fr(round(v * 8), 8) for v in P.x_star]
    x0f = np.array([float(v) for v in x0])
    sigma = Fr(1)
    kw = dict(S=2, K=3, T=4, eta_l=Fr(1, 4), eta_g=Fr(1))
    fl = dict(S=2, K=3, T=4, eta_l=0.25, eta_g=1.0)
    R = 20000
    oracle = GaussianOracle(P, 1.0)
    # seed-000 Run model with the K-sample warm start
    tr = alg.scaffold_run(P, oracle, x0=x0f, R=R, rng=seed, **fl)
    ex = scaffold_run_moments(P, sigma, x0=x0, **kw)
    assert _mc_agrees(tr.x, P, ex.gaps, ex.grad_sq)
    wrong = scaffold_run_moments(P, Fr(9, 10), x0=x0, **kw)
    assert not _mc_agrees(tr.x, P, wrong.gaps, wrong.grad_sq)
    wrong = scaffold_run_moments(P, sigma, x0=x0, c0=P.grads_exact(x0), **kw)
    assert not _mc_agrees(tr.x, P, wrong.gaps, wrong.grad_sq)
    # seed-002 SCAFFOLD options I and II (zero initial controls)
    for option in ("I", "II"):
        tr = alg.scaffold(P, oracle, option=option, x0=x0f, R=R, rng=seed + 10, **fl)
        ex = scaffold_moments(P, sigma, x0=x0, option=option, **kw)
        assert _mc_agrees(tr.x, P, ex.gaps, ex.grad_sq), option
    # FedAvg, uniform-client mode
    tr = alg.fedavg(P, oracle, mode="uniform", x0=x0f, R=R, rng=seed + 20, **fl)
    ex = fedavg_moments(P, sigma, x0=x0, **kw)
    assert _mc_agrees(tr.x, P, ex.gaps, ex.grad_sq)
    # Local SGD: 2 workers, b = 2, sync at 2 and 5; compare the worker average
    if hasattr(alg, "local_sgd"):
        ls = alg.local_sgd(P, workers=2, b=2, eta=0.25, sync_times=[2, 5], x0=x0f, R=R, rng=seed + 30)
        ex = local_sgd_moments(P, workers=2, b=2, eta=Fr(1, 4), sync_times=[2, 5], x0=x0)
        assert _mc_agrees(ls.x.mean(axis=2), P, ex.gaps, ex.grad_sq)


# ---------------------------------------------------------------------------------------
# tightness sweep
# ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_tightness_sweep_exact_ratios_and_crossing():
    from pyfed.engines.tightness import default_instance, tightness_sweep
    P = default_instance(0)
    res = tightness_sweep(P, Fr(1, 2), S=2, K=2, T=10, mu=0, multiples=[Fr(1, 2), 1, 256, 512], bisect=3)
    by_m = {p.multiple: p for p in res.points}
    # each point's ratio is the exact lhs/rhs of decide_convex at h = m/(81 beta)
    h = Fr(1) / (81 * P.beta)
    v = decide_convex(P, Fr(1, 2), S=2, K=2, T=10, eta_l=h / 2, eta_g=1, mu=0)
    assert by_m[Fr(1)].ratio == v.lhs / v.rhs and isinstance(by_m[Fr(1)].ratio, Fr)
    assert by_m[Fr(1)].hypotheses_hold and not by_m[Fr(512)].hypotheses_hold
    assert by_m[Fr(1)].ratio < 1 <= by_m[Fr(512)].ratio
    # bisection: 3 exact halvings of (256, 512]; the bracket straddles ratio = 1
    lo, hi = res.bracket
    assert hi - lo == Fr(256, 8)
    assert by_m[lo].ratio < 1 <= by_m[hi].ratio
    assert res.first_crossing.multiple == hi
    assert len(res.points) == 4 + 3


@pytest.mark.slow
def test_tightness_cli_writes_png(tmp_path):
    import argparse
    import json
    from pyfed.commands import tightness
    parser = argparse.ArgumentParser()
    tightness.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["tightness", "--out", str(tmp_path), "--seed", "3", "--T", "4",
                              "--max-multiple", "4"])
    assert args.func(args) == 0
    png = (tmp_path / "tightness.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((tmp_path / "tightness.json").read_text())
    assert [p["multiple"]["exact"] for p in data["points"]] == ["1/8", "1/4", "1/2", "1", "2", "4"]
    assert all(p["ratio"]["float"] < 1 for p in data["points"]) and data["first_crossing"] is None


def test_rhs_terms_give_the_noise_constant_this_instance_needs():
    from pyfed import theory
    from pyfed.engines.tightness import default_instance
    P = default_instance(0)
    h = 1 / (81 * P.beta)
    xs = list(P.x_star_exact)
    c0 = [list(r) for r in P.grads_exact(P.x_star_exact)]
    # started at the solution with exact controls, only the noise term is left: V0 = 0
    v = decide_convex(P, Fr(1, 2), S=2, K=2, T=6, eta_l=h / 2, eta_g=1, x0=xs, c0=c0)
    t = v.details["rhs_terms"]
    assert Fr(t["first"]["exact"]) == 0 and t["first"]["float"] == 0 and t["noise_constant"] == 12
    unit = theory.noise_term(1, Fr(1, 2), 2, 2, 1, theory.effective_step(2, h / 2, 1))
    need = v.lhs / unit                    # exactly the constant that makes lhs = rhs
    j = t["noise_constant_needed"]
    assert j["float"] == float(need) and ("exact" not in j or Fr(j["exact"]) == need)
    assert 0 < need < 12
