"""Hand-derived exact values of each checker's sides (so a wrong formula cannot pass)."""

from __future__ import annotations

import itertools
from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.checkers.registry import get
from pyfed.checkers.sampling import subset_moments
from pyfed.verdicts import Holds, Violated


def sides(name, inst, mutate=None):
    c = get(name)
    return c.lhs(inst, mutate), c.rhs(inst, mutate)


def test_relaxed_triangle_and_young_values():
    # a = 1, u = v = 1: ||2||^2 = 4 = 2*1 + 2*1 (equality at v = a u)
    assert sides("RelaxedTriangle", {"a": "1", "u": ["1"], "v": ["1"]}) == (4, 4)
    # a = 2, u = e1, v = e2: lhs 2, rhs 3 + 3/2
    assert sides("RelaxedTriangle", {"a": "2", "u": ["1", "0"], "v": ["0", "1"]}) == (2, Fr(9, 2))
    # Young: a = 2, u = v = 1: 2 <= 2 + 1/2; v = a u: equality 2*2 = 2 + 2
    assert sides("YoungInner", {"a": "2", "u": ["1"], "v": ["1"]}) == (2, Fr(5, 2))
    assert sides("YoungInner", {"a": "2", "u": ["1"], "v": ["-2"]}) == (4, 4)
    # mutation factor_3 at v = a u: 3*2 > 4
    assert sides("YoungInner", {"a": "2", "u": ["1"], "v": ["2"]}, "factor_3") == (6, 4)


def test_sum_squares_values():
    assert sides("SumSquares", {"u": [["1"], ["2"], ["3"]]}) == (36, 42)
    assert sides("SumSquares", {"u": [["1"], ["2"], ["3"]]}, "factor_m_minus_1") == (36, 28)
    assert sides("SumSquares", {"u": [["1"], ["0"]]}, "index_shift") == (1, 0)


def test_martingale_values():
    c = get("MartingaleDifferenceBound")
    coin = c.structured()[0]  # Z_1 = +-1 fair coin, Z_2 = Z_1 (predictable): 4 <= 2*1 + 2*1
    assert sides("MartingaleDifferenceBound", coin) == (4, 4)
    assert sides("MartingaleDifferenceBound", coin, "constants_2_to_1") == (4, 2)
    # one atom: Z deterministic, M = Z, xi = 0: ||(3,-1)||^2 = 10 <= 2*10
    assert sides("MartingaleDifferenceBound", c.structured()[1]) == (10, 20)
    # p = (1/3, 2/3), Z = (2, -1): mean 0, variance 4/3 + 2/3 = 2; v = 2: 2 <= 0 + 4
    assert sides("MartingaleDifferenceBound", c.structured()[2]) == (2, 4)
    # variance hypothesis margin: v = 1 < conditional variance 2 -> margin -1
    bad = dict(c.structured()[2], v=[["1", "1"]])
    h = {h.key: h for h in c.hypotheses(bad)}["variance"]
    assert not h.holds and h.margin == -1
    # v not F_0-measurable (F_0 trivial, v varies) is rejected
    bad = dict(c.structured()[2], v=[["2", "3"]])
    assert not {h.key: h for h in c.hypotheses(bad)}["v_measurable"].holds


def test_stich_values():
    # S_T for a = 4, T = 2: 16 + 25 = 41 >= 8/3
    assert sides("StichWeightSumLowerBound", {"a": "4", "T": "2"}) == (Fr(8, 3), 41)
    # closed form equals the sum
    for a, T in [(Fr(9, 2), 7), (Fr(4), 1), (Fr(17, 3), 13)]:
        lhs, rhs = sides("StichWeightSumLowerBound", {"a": str(a), "T": str(T)})
        assert rhs == sum((a + t) ** 2 for t in range(T))
    # T = 1, a = 8, mu = 2: eta_0 = 1/4, 1 - mu eta_0 = 1/2, e_0 <= (1/2) u_0/(A/4) = 2 (u_0 = A = 3)
    # lhs = A w_0 e_0/S_1 = 3*2 = 6, rhs = mu a^3 u_0/(4 S_1) = 2*512*3/(4*64) = 12
    inst = {"mu": "2", "a": "8", "T": "1", "A": "3", "B": "0", "C": "0", "u": ["3", "0"], "e": ["2"]}
    c = get("StichWeightedAveraging")
    assert all(h.holds for h in c.hypotheses(inst))
    assert sides("StichWeightedAveraging", inst) == (6, 12)
    over = dict(inst, e=["3"])  # e_0 above the cap: the recursion hypothesis fails by A eta_0 = 3/4
    h = {h.key: h for h in c.hypotheses(over)}["recursion"]
    assert not h.holds and h.margin == Fr(-3, 4)
    # B term: u = 0, e_t = B eta_t / A: lhs = 2B T(2a + T - 1)/(mu S_T) < 2B T(T + 2a)/(mu S_T)
    mu, a, T, B = Fr(1), Fr(4), 3, Fr(1)
    eta = [4 / (mu * (a + t)) for t in range(T)]
    inst = {"mu": "1", "a": "4", "T": "3", "A": "1", "B": "1", "C": "0", "u": ["0"] * 4,
            "e": [str(B * e) for e in eta]}
    S = sum((a + t) ** 2 for t in range(T))
    assert c.check(inst).status == "holds"
    assert sides("StichWeightedAveraging", inst) == (2 * B * T * (2 * a + T - 1) / (mu * S),
                                                      2 * T * (T + 2 * a) * B / (mu * S))


def test_averaging_values():
    # uniform: R = 1, d = (1, 0), q_0 = 1/(a eta): equality d_0/(a eta)
    inst = {"R": "1", "a": "2", "eta": "1/4", "b": "0", "c": "0", "d": ["1", "0"], "q": ["2"]}
    assert sides("UniformAveraging", inst) == (2, 2)
    # geometric: rho eta = 1/2, a = eta = 1, d_0 = 1: q_0 <= 1/2, w_1 = 2, rhs = 1/(1*1*2)
    inst = {"R": "1", "a": "1", "eta": "1", "b": "0", "c": "0", "rho": "1/2", "d": ["1", "0"], "q": ["1/2"]}
    assert sides("GeometricAveraging", inst) == (Fr(1, 2), Fr(1, 2))
    # index-shifted weight sum W = w_0 = 1 doubles both sides' d_0 term; with b > 0 it breaks
    inst = {"R": "2", "a": "1", "eta": "1", "b": "1", "c": "0", "rho": "1/2", "d": ["0", "0", "0"], "q": ["1", "1"]}
    c = get("GeometricAveraging")
    assert c.check(inst).status == "holds"
    assert isinstance(c.check(inst, mutate="weight_sum_index_shift"), Violated)


@pytest.mark.parametrize("name", ["StichWeightedAveraging", "UniformAveraging", "GeometricAveraging"])
def test_lp_adversary_is_exactly_feasible_and_tight(name):
    """The LP's rationalised, repaired answer satisfies the recursion exactly and reaches
    (almost) equality: the search really explores the worst case, not just random points."""
    c = get(name)
    for p in c.structured_params():
        u0, e, best = c.lp_worst(p)
        inst = c._instance(p, *c.repair(p, u0, e))
        assert all(h.holds for h in c.hypotheses(inst))
        v = c.check(inst)
        assert isinstance(v, Holds)
        # the exact re-check reproduces the LP optimum max(lhs - rhs) (a float) closely
        assert abs(float(v.lhs - v.rhs) - best) <= 1e-5 * max(1.0, float(v.rhs))
        if name != "StichWeightedAveraging" and v.rhs > 0:  # these two lemmas are tight
            assert v.lhs / v.rhs > Fr(999, 1000), (p, float(v.lhs / v.rhs))


def test_sampling_identity_values():
    # N = 3, S = 2, v = (0, 0, 3): vbar = 1, E||vbar_S - 1||^2 = (1 + 1/4 + 1/4)/3 = 1/2
    inst = {"N": "3", "S": "2", "v": [["0"], ["0"], ["3"]]}
    assert sides("SamplingVarianceIdentity", inst) == (Fr(1, 2), Fr(1, 2))
    assert sides("SamplingVarianceIdentity", inst, "N_instead_of_N_minus_1") == (Fr(1, 2), Fr(1, 3))
    # bound, tight at N = 2, S = 1, v = +-1
    assert sides("SamplingVarianceBound", {"N": "2", "S": "1", "v": [["1"], ["-1"]]}) == (1, 1)


def test_sampling_identity_exact_on_enumerated_instances_including_N1():
    rng = np.random.default_rng(11)
    c = get("SamplingVarianceIdentity")
    for N in range(1, 7):
        for S in range(1, N + 1):
            v = [[Fr(int(rng.integers(-9, 10)), int(rng.integers(1, 5))) for _ in range(2)] for _ in range(N)]
            mean, second, vbar = subset_moments(v, S)
            assert mean == vbar  # E[vbar_S] = vbar, exact
            if N == 1:
                assert second == 0  # N = 1: vbar_S = vbar
                inst = {"N": "1", "S": "1", "v": [[str(x) for x in r] for r in v]}
                assert isinstance(get("SamplingSingleClient").check(inst), Holds)
                continue
            spread = sum(sum((r[k] - vbar[k]) ** 2 for k in range(2)) for r in v)
            assert second == (1 - Fr(S, N)) * spread / (S * (N - 1))
            inst = {"N": str(N), "S": str(S), "v": [[str(x) for x in r] for r in v]}
            assert isinstance(c.check(inst), Holds)
    # an independent brute force of one case: N = 4, S = 2 by explicit pairs
    v = [Fr(1), Fr(2), Fr(4), Fr(8)]
    pairs = list(itertools.combinations(v, 2))
    brute = sum(((a + b) / 2 - Fr(15, 4)) ** 2 for a, b in pairs) / len(pairs)
    assert subset_moments([[x] for x in v], 2)[1] == brute


def test_single_client_mutation_value():
    inst = {"N": "1", "S": "1", "v": [["2"]]}
    assert sides("SamplingSingleClient", inst) == (0, 0)
    assert sides("SamplingSingleClient", inst, "mean_over_S_plus_1") == (1, 0)


def test_gradient_growth_and_nonexpansive_values():
    inst = {"family": "quadratic", "clients": [{"A": [["2"]], "b": ["0"]}], "beta": "2", "x": ["1"], "x_star": ["0"]}
    assert sides("GradientGrowth", inst) == (4, 4)
    assert sides("GradientGrowth", inst, "beta_halved") == (4, 2)
    # Huber (exact): |z| <= delta region equals the quadratic z^2/2, beta = 1
    inst = {"family": "huber", "clients": [{"a": [["1"]], "b": ["0"], "delta": "1"}], "beta": "1",
            "x": ["3"], "x_star": ["0"]}
    # grad: clip(3) = 1 vs 0 -> lhs 1; f(3) - f(0) = 1*(3 - 1/2) = 5/2 -> rhs 5
    assert sides("GradientGrowth", inst) == (1, 5)
    inst = {"family": "quadratic", "client": {"A": [["2"]], "b": ["0"]}, "beta": "2", "eta": "1", "x": ["1"], "y": ["0"]}
    assert sides("GradientStepNonexpansive", inst) == (1, 1)
    c = get("GradientStepNonexpansive")
    over = dict(inst, eta="3/2")
    assert not {h.key: h for h in c.hypotheses(over)}["eta_range"].holds
    assert isinstance(c.check(over, relax=("eta_range",)), Violated)  # |1 - 3| > 1
    # logistic in mpmath: curvature 1/4 at 0, equality to first order, decided with margin
    logi = {"family": "logistic", "clients": [{"a": [["1"]]}], "beta": "1/4", "x": ["1"], "x_star": ["0"]}
    v = get("GradientGrowth").check(logi)
    assert isinstance(v, Holds) and not v.exact and "mpmath" in v.certificate
    assert 0 < float(v.lhs) < float(v.rhs)
    # near x* the logistic curvature is beta: halving beta breaks (9) (decided in mpmath)
    near = dict(logi, x=["1/1000"])
    w = get("GradientGrowth").check(near, mutate="beta_halved")
    assert isinstance(w, Violated) and not w.exact
    assert float(w.lhs) == pytest.approx(1e-6 / 16, rel=1e-2) and float(w.rhs) == pytest.approx(1e-6 / 32, rel=1e-2)
    lse = {"family": "logsumexp", "clients": [{"a": [["1"], ["-1"]]}], "beta": "1", "x": ["1/1000"], "x_star": ["0"]}
    assert isinstance(get("GradientGrowth").check(lse), Holds)
    assert isinstance(get("GradientGrowth").check(lse, mutate="beta_halved"), Violated)
    step = {"family": "logistic", "client": {"a": [["2"]]}, "beta": "1", "eta": "3", "x": ["1/100"], "y": ["0"]}
    assert isinstance(c.check(step, relax=("eta_range",)), Violated)


def test_local_sgd_values():
    c = get("LocalSGDOneStep")
    det, noise = c.structured()[0], c.structured()[1]
    # f = x^2/2, x0 = 1, eta = 1/4: (3/4)^2 <= (3/4) - (1/8)(1/2)
    assert sides("LocalSGDOneStep", det) == (Fr(9, 16), Fr(11, 16))
    assert sides("LocalSGDOneStep", det, "contraction_doubled") == (Fr(9, 16), Fr(7, 16))
    # start at x* = 0 with component gradients -+1: E||xbar_1||^2 = 1/16 = eta^2 * 1
    assert sides("LocalSGDOneStep", noise) == (Fr(1, 16), Fr(1, 16))
    assert sides("LocalSGDOneStep", noise, "drop_noise_term") == (Fr(1, 16), 0)


def test_theorem_values_and_montecarlo_agreement():
    cv, nc = get("ConvexFiniteRoundConvergence"), get("NonconvexFiniteRoundConvergence")
    # T = 1, f = x^2/2, x0 = 1, h = 1/81: lhs = f(x0) - f* = 1/2, rhs = V_0/h = 81
    assert sides("ConvexFiniteRoundConvergence", cv.structured()[0]) == (Fr(1, 2), 81)
    # nonconvex: ||grad f(x0)||^2 = 1 <= 14 (1/2)/(1/24) = 168
    assert sides("NonconvexFiniteRoundConvergence", nc.structured()[0]) == (1, 168)
    # Monte Carlo (simulator + Student-t interval) agrees with the exact engine
    for chk in (cv, nc):
        inst = dict(chk.structured()[1], method="montecarlo", replicates=300, seed=5)
        v = chk.check(inst)
        exact = chk.lhs(chk.structured()[1])
        est = v.details["estimate"]
        assert isinstance(v, Holds)
        assert est["lower"] <= float(exact) <= est["upper"]
