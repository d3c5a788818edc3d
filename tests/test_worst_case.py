"""Tests of the PEP worst-case engine (issue 6): known worst cases, the convex theorem over the
whole class at small sizes, PEP >= simulators on a quadratic, solver discipline."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import pyfed.engines.pep as wc
import pyfed.engines.pep.solver as wc_solver
from pyfed.engines.pep import (WorstCaseResult, pep_gradient_growth, pep_nonexpansive,
                                          pep_row_for_check, smallest_constant,
                                          worst_case_fedavg, worst_case_gradient_descent,
                                          worst_case_local_sgd, worst_case_scaffold)
from pyfed.errors import EXIT_INPUT, InputError
from pyfed.theory import effective_step, initial_potential, weight_sum, weights

from cli_helpers import forbid, one_error_line, run_main

REL = 1e-4  # solver tolerance 1e-6 on values of order 0.1-1


def test_default_solver_is_installed():
    assert wc.DEFAULT_SOLVER in wc.available_solvers()


# ---------------------------------------------------------------- known worst cases (anchors)
@pytest.mark.parametrize("L, gamma, n", [(3, Fraction(1, 3), 4), (1, 1, 10), (2, Fraction(1, 4), 3)])
def test_gradient_descent_known_worst_case(L, gamma, n):
    """PEPit's own example (Drori-Teboulle 2014, Thm 3.1): f(x_n) - f* <= L/(4 n gamma L + 2)."""
    r = worst_case_gradient_descent(L, gamma, n)
    expected = L / (4 * n * float(gamma) * L + 2)
    assert r.status == "optimal"
    assert r.worst == pytest.approx(expected, rel=REL)
    assert r.primal == pytest.approx(expected, rel=REL)
    assert r.known_value == pytest.approx(expected, rel=1e-15)


def test_local_sgd_deterministic_equals_gradient_descent():
    """With the full-gradient oracle all workers coincide: the worst case is GD's, 1/(4*3+2)."""
    r = worst_case_local_sgd(2, 1, [1, 3], beta=1)
    assert r.status == "optimal"
    assert r.worst == pytest.approx(1 / 14, rel=REL)
    g = worst_case_local_sgd(3, [Fraction(1, 2)] * 2, [2], beta=1)
    assert g.worst == pytest.approx(1 / (4 * 2 * 0.5 + 2), rel=REL)


def test_gradient_growth_inequality_9_is_tight():
    r = pep_gradient_growth(N=2, beta=1)
    assert r.status == "optimal" and abs(r.worst) < 1e-5
    assert r.verdict.status == "holds"
    # constant 2 is tight: factor 1 leaves (1 - 1/2) beta^2 = 1/2 (beta = 1), attained by beta/2 ||x||^2
    r1 = pep_gradient_growth(N=1, beta=1, factor=1)
    assert r1.worst == pytest.approx(0.5, rel=REL) and r1.known_value == 0.5
    assert r1.verdict.status != "holds"


@pytest.mark.parametrize("eta, mu, expected", [(2, 0, 1.0), (1, 0, 1.0), (0.5, 0.2, 0.81), (2.5, 0, 2.25)])
def test_nonexpansive_known_values(eta, mu, expected):
    r = pep_nonexpansive(beta=1, eta=eta, mu=mu)
    assert r.worst == pytest.approx(expected, rel=REL)
    assert r.known_value == pytest.approx(expected)
    assert (r.verdict.status == "holds") == (eta <= 2)


@pytest.mark.parametrize("workers, eta, mu", [(1, Fraction(1, 4), 0), (3, Fraction(1, 4), Fraction(1, 10)),
                                             (2, Fraction(1, 8), 0)])
def test_local_sgd_one_step_lemma_holds_over_the_class(workers, eta, mu):
    """Stich Lemma 3.1 with a deterministic oracle, eta <= 1/(4L): sup(LHS - RHS) = 0."""
    r = wc.pep_local_sgd_one_step(workers, eta, beta=1, mu=mu)
    assert r.status == "optimal" and abs(r.worst) < 1e-5
    assert r.verdict.status == "holds"


def test_local_sgd_one_step_fails_at_eta_2_over_L():
    """At eta = 2/L the quadratic L/2 ||x||^2 with one worker gives (1-2)^2 - 1 + 1/2 = 1/2 > 0."""
    r = wc.pep_local_sgd_one_step(1, 2, beta=1, mu=0)
    assert r.worst == pytest.approx(0.5, rel=REL)
    assert r.verdict.status == "inconclusive"


# ---------------------------------------------------------------- the convex theorem
def test_bound_is_V0_over_hW_exactly():
    r = worst_case_scaffold(2, 2, 3, Fraction(1, 162), 1, 1, Fraction(1, 10))
    h = effective_step(2, Fraction(1, 162), 1)
    W = weight_sum(3, Fraction(1, 10), h)
    assert isinstance(r.bound, Fraction)
    assert r.bound == initial_potential(1, 0, 2, 2, h) / (h * W) == 1 / (h * W)
    js = r.to_json()
    assert Fraction(js["bound"]) == r.bound and js["verdict"]["status"] == "holds"
    assert r.ratio == pytest.approx(r.worst / float(r.bound))


@pytest.mark.parametrize("N, K, T, eta_g, mu", [
    (1, 1, 1, 1, 0), (2, 1, 2, 1, 0), (2, 2, 2, 2, 0), (2, 3, 2, 1, Fraction(1, 2)),
    (3, 2, 2, 1, 0), (2, 2, 3, 1, Fraction(1, 10)), (1, 3, 4, 3, 0), (3, 1, 4, 1, Fraction(9, 10)),
    (2, 1, 6, 1, Fraction(1, 5)),
])
def test_ratio_at_most_one_inside_hypotheses(N, K, T, eta_g, mu):
    """N*K*T <= 12, h = 1/(81 beta) (the theorem's limit), mu h <= 1/15: sup over the class <= bound."""
    assert N * K * T <= 12
    eta_l = Fraction(1, 81 * K * eta_g)
    r = worst_case_scaffold(N, K, T, eta_l, eta_g, beta=1, mu=mu)
    assert all(h["holds"] for h in r.details["hypotheses"])
    assert r.status == "optimal"
    assert 0 < r.ratio <= 1
    assert r.verdict.status == "holds"
    assert r.verdict.certified and "PEP certificate over the class" in r.verdict.certificate   # exact certificate
    # f(x^0) - f* alone reaches beta/2 * ||x0 - x*||^2 (f_i = beta/2 ||x||^2 is in the class, and
    # every later term is >= 0) with weight w_0/W_T: a lower bound on the supremum
    w = weights(T, mu, Fraction(1, 81))
    assert r.worst >= 0.5 * float(w[0] / sum(w)) * (1 - 1e-4)


def test_fedavg_equals_scaffold_for_one_local_step():
    """K = 1: both reduce to gradient descent on f (controls cancel in the average), and both
    initial conditions allow any x0 with ||x0 - x*|| <= 1, so the worst cases coincide."""
    a = worst_case_scaffold(2, 1, 3, Fraction(1, 9), 1, 1, 0)
    b = worst_case_fedavg(2, 1, 3, Fraction(1, 9), 1, 1, 0)
    assert b.status == "optimal"
    assert b.worst == pytest.approx(a.worst, rel=REL)
    assert b.verdict is None


def _scaffold_instance(seed=3, N=2, d=3):
    from pyfed.problems.quadratic import random_quadratic

    rng = np.random.default_rng(seed)
    prob = random_quadratic(N, d, rng, mu=Fraction(1, 10), L=1, rational=True)
    x0 = np.array([Fraction(int(v), 4) for v in rng.integers(-8, 9, size=d)], dtype=object)
    c0 = np.array([[Fraction(int(v), 8) for v in row] for row in rng.integers(-8, 9, size=(N, d))], dtype=object)
    return prob, x0, c0


def simulate_scaffold_exact(A, b, x0, c0, K, T, eta_l, eta_g):
    """Exact iterates x^0..x^T of deterministic SCAFFOLD (Run model, S = N, sigma = 0): the
    exact-moment engine's E[x^r], which for a deterministic run is the run itself."""
    from pyfed.engines.exact import scaffold_run_moments
    from pyfed.problems.quadratic import QuadraticProblem

    prob = QuadraticProblem(np.array(A, dtype=object), np.array(b, dtype=object))
    res = scaffold_run_moments(prob, 0, S=prob.N, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=c0)
    assert res.exact
    return [[Fraction(v) for v in x] for x in res.mean_x]


def _weighted_gap_over_V0(prob, xs, x0, c0, K, T, eta_l, eta_g):
    h = effective_step(K, eta_l, eta_g)
    w = weights(T, prob.mu, h)
    W = weight_sum(T, prob.mu, h)
    gap = sum((wr * (prob.value_exact(xs[r]) - prob.f_star) for r, wr in enumerate(w)), Fraction(0)) / W
    dist = sum(((a - b) ** 2 for a, b in zip(x0, prob.x_star_exact)), Fraction(0))
    gstar = prob.grads_exact(prob.x_star_exact)
    C0 = sum((sum(((c0[i][j] - gstar[i][j]) ** 2 for j in range(prob.d)), Fraction(0))
              for i in range(prob.N)), Fraction(0)) / prob.N
    return gap / initial_potential(dist, C0, prob.N, prob.N, h)


@pytest.mark.parametrize("K, T, m", [(2, 3, 1), (3, 2, 27)])
def test_pep_dominates_exact_simulation_on_a_quadratic(K, T, m):
    """The exact weighted gap of a concrete quadratic run, divided by its V0, is <= the PEP worst case."""
    prob, x0, c0 = _scaffold_instance()
    eta_g = 1
    eta_l = Fraction(m, 81 * K)
    xs = simulate_scaffold_exact(prob.A_exact, prob.b_exact, x0, c0, K, T, eta_l, eta_g)
    val = _weighted_gap_over_V0(prob, xs, x0, c0, K, T, eta_l, eta_g)
    r = worst_case_scaffold(prob.N, K, T, eta_l, eta_g, beta=prob.beta, mu=prob.mu)
    assert r.status == "optimal"
    assert 0 < float(val) <= r.worst * (1 + 1e-6)


def test_pep_dominates_the_simulator_module():
    """Same comparison through pyfed.algorithms.scaffold_run with ExactOracle (S = N), which must
    also agree with this module's exact simulator."""
    algorithms = pytest.importorskip("pyfed.algorithms")
    from pyfed.oracles import ExactOracle

    prob, x0, c0 = _scaffold_instance(seed=5)
    K, T, eta_g, eta_l = 2, 3, 2, Fraction(1, 324)
    tr = algorithms.scaffold_run(prob, ExactOracle(prob), S=prob.N, K=K, T=T, eta_l=float(eta_l),
                                 eta_g=eta_g, x0=np.array(x0, dtype=float), c0=np.array(c0, dtype=float),
                                 R=1, rng=0)
    xs_exact = simulate_scaffold_exact(prob.A_exact, prob.b_exact, x0, c0, K, T, eta_l, eta_g)
    np.testing.assert_allclose(tr.x[0], np.array(xs_exact, dtype=float), rtol=1e-12, atol=1e-12)
    h = effective_step(K, eta_l, eta_g)
    w = [float(v) for v in weights(T, prob.mu, h)]
    gap = sum(wr * (prob.value(tr.x[0, r]) - float(prob.f_star)) for r, wr in enumerate(w)) / sum(w)
    gstar = prob.client_grads(np.broadcast_to(prob.x_star, (prob.N, prob.d)))  # (N, d)
    dist_sq = float(np.sum((np.array(x0, float) - prob.x_star) ** 2))
    C0 = float(np.mean(np.sum((np.array(c0, float) - gstar) ** 2, axis=1)))
    V0 = float(initial_potential(dist_sq, C0, prob.N, prob.N, float(h)))
    r = worst_case_scaffold(prob.N, K, T, eta_l, eta_g, beta=prob.beta, mu=prob.mu)
    assert r.status == "optimal"
    assert 0 < gap / V0 <= r.worst * (1 + 1e-6)


# ---------------------------------------------------------------- solver discipline
def test_non_optimal_status_is_inconclusive():
    r = worst_case_scaffold(2, 2, 2, Fraction(1, 162), 1, 1, 0, solver_options={"max_iter": 3})
    assert r.status != "optimal"
    assert r.verdict.status == "inconclusive"
    assert "not optimal" in r.verdict.reason


def test_forced_infeasible_status_is_inconclusive(monkeypatch):
    monkeypatch.setattr(wc_solver, "_solve_once", lambda *a, **k: (None, None, "infeasible", "CLARABEL", 0.0))
    r = worst_case_scaffold(2, 1, 2, Fraction(1, 81), 1, formulation="pepit")
    assert r.status == "infeasible" and r.worst is None and r.ratio is None
    assert r.verdict.status == "inconclusive"
    g = pep_gradient_growth()
    assert g.verdict.status == "inconclusive"


def test_error_after_an_optimal_solve_is_inconclusive(monkeypatch):
    """PEPit's post-processing failing (e.g. recovering the worst-case points from the Gram
    matrix) must not leave 'optimal'."""
    import PEPit

    def boom(self, *a, **k):
        raise AssertionError("post-processing failed")

    monkeypatch.setattr(PEPit.PEP, "_eval_points_and_function_values", boom)
    r = worst_case_scaffold(2, 1, 2, Fraction(1, 81), 1, formulation="pepit")
    assert r.status.startswith("optimal then error") and not r.optimal
    assert r.verdict.status == "inconclusive"


def test_claimed_violation_that_does_not_reproduce_is_inconclusive(monkeypatch):
    """A (fake) PEP value 100x the true worst case claims a violation inside the hypotheses;
    the exact quadratic re-verification cannot reproduce it -> inconclusive, never violated."""
    real = wc_solver._solve_once

    def inflated(*a, **k):
        dual, primal, status, name, secs = real(*a, **k)
        return dual * 100, primal, status, name, secs

    monkeypatch.setattr(wc_solver, "_solve_once", inflated)
    r = worst_case_scaffold(2, 1, 2, Fraction(1, 81), 1, formulation="pepit")
    assert r.ratio > 1
    assert r.verdict.status == "inconclusive"
    assert r.details["reverification"]["reproduced"] is False
    assert r.details["reverification"]["ratio"] < 0.05


def test_violation_beyond_the_hypothesis_is_reproduced_exactly():
    """h = 2/beta (162x the allowed step): the PEP claims worst/bound ~ 4 and the fitted quadratic
    instance reproduces a violation in exact arithmetic; the witness replays exactly."""
    from pyfed.problems.quadratic import QuadraticProblem

    K, T, eta_l = 1, 4, Fraction(2)
    r = worst_case_scaffold(2, K, T, eta_l, 1, 1, 0)
    assert not next(h for h in r.details["hypotheses"] if h["key"] == "step_size")["holds"]
    assert r.ratio > 3
    v = r.verdict
    # beyond the hypotheses the theorem claims nothing; the inequality itself is violated, exactly
    assert v.status == "inconclusive" and v.details["inequality"] == "violated" and v.exact
    wit = v.details["witness"]
    A = np.array([[[Fraction(s) for s in row] for row in Ai] for Ai in wit["A"]], dtype=object)
    b = np.array([[Fraction(s) for s in bi] for bi in wit["b"]], dtype=object)
    prob = QuadraticProblem(A, b, beta=1, mu=0)  # class membership re-certified exactly
    x0 = [Fraction(s) for s in wit["x0"]]
    c0 = [[Fraction(s) for s in ci] for ci in wit["c0"]]
    xs = simulate_scaffold_exact(A, b, x0, c0, K, T, eta_l, 1)
    ratio = _weighted_gap_over_V0(prob, xs, x0, c0, K, T, eta_l, 1) * effective_step(K, eta_l, 1) * T
    assert ratio > 1  # weightedGap > V0/(hT) exactly
    assert Fraction(wit["weighted_gap"]) > Fraction(wit["convex_rhs"])


# ---------------------------------------------------------------- inputs, check row, sweep logic
@pytest.mark.parametrize("kwargs, arg", [
    (dict(N=0), "N"), (dict(K=0), "K"), (dict(T=1.5), "T"), (dict(eta_l=0), "eta_l"),
    (dict(mu=2), "mu"), (dict(mu=1), "mu"), (dict(mu=-1), "mu"), (dict(beta=float("nan")), "beta"), (dict(solver="NOPE"), "solver"),
])
def test_bad_input_names_the_argument(kwargs, arg):
    base = dict(N=2, K=1, T=2, eta_l=Fraction(1, 81), eta_g=1, beta=1, mu=0)
    base.update(kwargs)
    with pytest.raises(InputError) as e:
        worst_case_scaffold(**base)
    assert e.value.argument == arg


def test_pep_row_for_check():
    v = pep_row_for_check()
    assert v.statement == "ConvexFiniteRoundConvergence"
    assert v.status == "holds"
    assert v.details["status"] == "optimal" and v.details["solver"] == "CLARABEL"
    assert 0.01 < v.ratio < 0.02  # ~1.2% of the bound at h = 1/(81 beta)
    import json

    assert json.loads(json.dumps(v.to_json(), default=str))["status"] == "holds"


def _fake(m, ratio, status="optimal"):
    r = WorstCaseResult("scaffold", ratio, ratio, 1, ratio, "X", status, 0.0)
    r.parameters["m"] = m
    return r


def test_smallest_constant_logic():
    res = [_fake(1, 0.1), _fake(81, 0.5), _fake(108, 0.9), _fake(108, 0.95), _fake(135, 1.2), _fake(162, 0.5)]
    out = smallest_constant(res)
    assert out["m_star"] == 108 and out["m_fail"] == 135 and out["c"] == Fraction(3, 4)
    out = smallest_constant([_fake(1, 0.1), _fake(81, 2.0, status="optimal_inaccurate")])
    assert out["m_star"] == 81 and out["c"] == 1 and out["all_optimal"] is False
    # a failure that also breaks mu h <= S/(15 N) does not count against the step-size constant
    f = _fake(27, 3.0)
    f.details["hypotheses"] = [{"key": "step_size", "holds": False}, {"key": "mu_h", "holds": False}]
    out = smallest_constant([_fake(1, 0.1), f, _fake(81, 0.5)])
    assert out["m_star"] == 81 and out["excluded"] == 1
    assert smallest_constant([_fake(1, 0.1), f, _fake(81, 0.5)], keep_other_hypotheses=False)["m_fail"] == 27


@pytest.mark.slow
def test_worst_case_subcommand_quick(tmp_path):
    """``pyfed worst-case --quick``: table, PNG, JSON, and the smallest constant on the grid.
    On the quick grid (N = 2, T = 2) worst/bound <= 1 up to h = 1/beta (m = 81) and the first
    failing step is h = 135/(81 beta) (K = 1: the exact quadratic witness reproduces it)."""
    import argparse
    import json

    from pyfed.commands import worst_case as worst_case_cli

    parser = argparse.ArgumentParser(prog="pyfed")
    worst_case_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["worst-case", "--quick", "--out", str(tmp_path)])
    assert args.func is worst_case_cli.run
    assert args.func(args) == 0
    assert (tmp_path / "worst_case.png").stat().st_size > 1000
    data = json.loads((tmp_path / "worst_case.json").read_text())
    sc = data["smallest_constant"]
    assert sc["m_star"] == 81 and sc["m_fail"] == 135 and sc["c"] == "1"
    statuses = {(r["parameters"]["m"], r["parameters"]["K"], r["parameters"]["mu"]): r["verdict"]["status"]
                for r in data["results"]}
    inequality = {(r["parameters"]["m"], r["parameters"]["K"], r["parameters"]["mu"]):
                  r["verdict"]["details"].get("inequality") for r in data["results"]}
    assert statuses[(1, 1, "0")] == "holds"
    # h = 135/(81 beta) is beyond the hypothesis: no claim there, the inequality itself fails
    assert statuses[(135, 1, "0")] == "inconclusive" and inequality[(135, 1, "0")] == "violated"
    labels = {(r["parameters"]["m"], r["parameters"]["K"], r["parameters"]["mu"]): r["label"]
              for r in data["results"]}
    assert labels[(1, 1, "0")] == "holds"
    assert labels[(135, 1, "0")] == "violated (beyond hyp.)"
    # h = 2/beta, K = 2: worst = bound = 1/4, so the SDP ratio sits within its tolerance of 1 and
    # no certificate decides the inequality: labelled as such, with the reason in the JSON
    point = next(r for r in data["results"]
                 if (r["parameters"]["m"], r["parameters"]["K"], r["parameters"]["mu"]) == (162, 2, "0"))
    assert point["label"] == "inconclusive (beyond hyp.)"
    assert point["verdict"]["details"]["inequality"] == "undecided"
    assert abs(point["ratio"] - 1) <= point["verdict"]["details"]["ratio_tol"]
    assert "hypotheses fail (h <= 1/(81 beta))" in point["verdict"]["reason"]
    assert "within the tolerance 0.0001 of 1" in point["verdict"]["reason"]
    # a certified point carries no reason
    assert "reason" not in next(r for r in data["results"] if r["label"] == "holds")["verdict"]


def test_worst_case_within_tolerance_beyond_the_hypothesis_keeps_its_reason():
    """h = 2/beta, K = T = N = 2: the worst case equals the bound (1/4); beyond the step-size
    hypothesis the wrapped verdict says both that the theorem claims nothing and why the
    inequality itself is undecided; the table label is "inconclusive (beyond hyp.)"."""
    from pyfed.commands.worst_case import verdict_label

    r = worst_case_scaffold(2, 2, 2, Fraction(1), 1, 1, 0)
    assert r.bound == Fraction(1, 4)
    assert abs(r.ratio - 1) <= 1e-4
    v = r.verdict
    assert v.status == "inconclusive" and v.details["inequality"] == "undecided"
    assert v.reason.startswith("hypotheses fail (h <= 1/(81 beta))")
    assert v.reason.endswith(f"(worst/bound = {r.ratio:.8g} is within the tolerance 0.0001 of 1)")
    assert verdict_label(v, False) == "inconclusive (beyond hyp.)"
    assert r.to_json()["verdict"]["reason"] == v.reason


def test_worst_case_subcommand_rejects_bad_eta_g(tmp_path):
    import argparse

    from pyfed.commands import worst_case as worst_case_cli

    parser = argparse.ArgumentParser(prog="pyfed")
    worst_case_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["worst-case", "--quick", "--eta-g", "1/2", "--out", str(tmp_path)])
    with pytest.raises(InputError) as e:
        args.func(args)
    assert e.value.argument == "--eta-g"


def test_sparse_block_assembly_matches_pepit_wrapper():
    """The one-sparse-block cvxpy assembly (pyfed.engines.pep.solver._solve_pep) gives PEPit's own
    cvxpy wrapper's dual and primal values, the same worst-case Gram matrix and constraint duals."""
    import numpy as np

    from pyfed.engines.pep.scaffold import _build_scaffold
    from pyfed.engines.pep.solver import _solve_pep, _solver_kwargs

    def build():
        return _build_scaffold(2, 2, 3, 1 / 162, 1.0, 1.0, 0.1, [0.2, 0.3, 0.5], controls=True, pot_coef=0.01)[0]

    kw = _solver_kwargs("CLARABEL", 1e-6, None)
    a = build()
    da = _solve_pep(a, "CLARABEL", kw)
    ga, pa = a.G_value, a.wrapper.prob.value
    duals_a = [c._dual_variable_value for c in a._list_of_constraints_sent_to_wrapper]
    b = build()
    db = b.solve(wrapper="cvxpy", solver="CLARABEL", verbose=0, return_primal_or_dual="dual", **kw)
    duals_b = [c._dual_variable_value for c in b._list_of_constraints_sent_to_wrapper]
    assert abs(da - db) < 1e-6 * max(1.0, abs(db)) and abs(pa - b.wrapper.prob.value) < 1e-6
    assert np.max(np.abs(ga - b.G_value)) < 1e-5
    assert len(duals_a) == len(duals_b) > 10
    assert np.max(np.abs(np.array(duals_a) - np.array(duals_b))) < 1e-5
    assert min(duals_a) > -1e-7  # inequality multipliers are nonnegative



def test_smallest_constant_tolerance_and_reproduction():
    # a ratio within the verdicts' tolerance of 1 is not a failure (the verdict is inconclusive)
    out = smallest_constant([_fake(1, 0.1), _fake(81, 1 + 1e-6), _fake(162, 1.5)], ratio_tol=1e-4)
    assert out["m_star"] == 81 and out["m_fail"] == 162 and out["m_fail_reproduced"] is None
    f = _fake(162, 1.5)
    f.details["reverification"] = {"reproduced": False, "reason": "fit failed"}
    out = smallest_constant([_fake(81, 0.5), f], ratio_tol=1e-4)
    assert out["m_fail"] == 162 and out["m_fail_reproduced"] is False
    g = _fake(162, 1.2)
    g.details["reverification"] = {"reproduced": True}
    assert smallest_constant([_fake(81, 0.5), f, g], ratio_tol=1e-4)["m_fail_reproduced"] is True
    from pyfed.commands.worst_case import summary_lines
    assert "not certified" in summary_lines(smallest_constant([_fake(81, 0.5), f], ratio_tol=1e-4))[0]
    assert "reproduced exactly" in summary_lines(smallest_constant([_fake(81, 0.5), f, g], ratio_tol=1e-4))[0]


def test_worst_case_full_grid_legend_is_unambiguous():
    import matplotlib.pyplot as plt

    from pyfed.commands.worst_case import FULL_GRID, _figure
    from pyfed.engines.pep import WorstCaseResult
    results = []
    for K in FULL_GRID["Ks"]:
        for mu in FULL_GRID["mus"]:
            for T in FULL_GRID["Ts"]:
                for m in (1, 81):
                    r = WorstCaseResult("scaffold", 0.5, 1, 1, 0.5, "X", "optimal", 0.0)
                    r.parameters.update(m=m, K=K, mu=str(mu), T=T)
                    results.append(r)
    fig = _figure(results, 2)
    try:
        ax = fig.axes[0]
        series = [ln for ln in ax.get_lines() if ln.get_label().startswith("K=")]
        assert len(series) == 18
        styles = {(ln.get_color(), ln.get_marker(), ln.get_linestyle()) for ln in series}
        assert len(styles) == 18                   # every series distinguishable without colour alone
        assert "marker: mu" in ax.get_legend().get_title().get_text()
    finally:
        plt.close(fig)


@pytest.mark.parametrize("argv, argument", [
    (["--quick", "--out", ""], "--out"),
    (["--quick", "--solver", "NO-SUCH-SOLVER"], "--solver"),
])
def test_bad_output_and_solver_are_refused_before_work(argv, argument, monkeypatch, capsys):
    forbid(monkeypatch, "pyfed.commands.tightness", "tightness_sweep")
    forbid(monkeypatch, "pyfed.engines.pep", "sweep_scaffold")
    forbid(monkeypatch, "pyfed.lean.render", "write_all")
    code, out, err = run_main(["worst-case"] + argv, capsys)
    assert code == EXIT_INPUT
    one_error_line(err, argument)


def test_worst_case_summary_is_plain():
    from pyfed.commands.worst_case import summary_lines
    sc = {"c": Fraction(3, 4), "m_star": 108, "m_fail": 135, "grid_max": 162, "used": 6, "excluded": 0,
          "all_optimal": True}
    (line,) = summary_lines(sc)
    assert line.startswith("smallest c on the swept grid such that h <= 1/(c beta) keeps worst/bound <= 1: "
                           "c = 0.75 (the theorem uses c = 81); first failure at h = 135/(81 beta)")
    assert "(0.6, 0.75]" in line and "81/" not in line
    lines = summary_lines(dict(sc, c=Fraction(81, 162), m_star=162, m_fail=None, excluded=2, used=4))
    assert "c = 0.5 (the theorem uses c = 81)" in lines[0] and "162/(81 beta)" in lines[0]
    assert "2 of 6 points" in lines[1]
    assert "no constant c" in summary_lines(dict(sc, c=None, m_star=None, m_fail=1))[0]


def test_worst_case_plot_shows_the_hypothesis_line():
    import matplotlib.pyplot as plt

    from pyfed.engines.pep import WorstCaseResult
    from pyfed.commands.worst_case import _figure
    results = []
    for m, ratio in ((1, 0.01), (27, 0.25), (81, 0.5), (162, 2.0)):
        r = WorstCaseResult("scaffold", ratio, ratio, 1, ratio, "X", "optimal", 0.0)
        r.parameters.update(m=m, K=1, mu="0", T=2)
        results.append(r)
    fig = _figure(results, 2)
    try:
        ax = fig.axes[0]
        lo, hi = ax.get_xlim()
        assert lo < 1 / 1.2 and hi > 162 * 1.2      # m = 1 and m = 162 are inside, not on the edge
        legend = ax.get_legend()
        assert min(t.get_fontsize() for t in legend.get_texts()) >= 8
        assert "h = 1/(81 beta) (hypothesis)" in [t.get_text() for t in legend.get_texts()]
        assert any(t.get_text() == "h = 1/(81 beta)" for t in ax.texts)
    finally:
        plt.close(fig)


def test_worst_case_verdict_label():
    from types import SimpleNamespace

    from pyfed.commands.worst_case import verdict_label
    assert verdict_label(SimpleNamespace(status="violated", details={}), False) == "violated (beyond hyp.)"
    assert verdict_label(SimpleNamespace(status="inconclusive", details={"inequality": "holds"}), False) \
        == "holds (beyond hyp.)"
    assert verdict_label(SimpleNamespace(status="holds", details={}), True) == "holds"


@pytest.mark.slow
def test_worst_case_quick_free_text_is_one_line_per_message_in_a_pipe(capsys, tmp_path):
    """Written to a pipe, the lines under the table are not hard-wrapped (README: "the lines of
    free text under them are not broken"): the inconclusive point beyond the hypothesis is one
    line with its reason, and so is the smallest-constant summary."""
    code, out, err = run_main(["worst-case", "--quick", "--out", str(tmp_path)], capsys)
    assert code == 0
    lines = out.splitlines()
    (point,) = [ln for ln in lines if ln.startswith("inconclusive at ")]
    assert point.startswith("inconclusive at K=2, mu=0, T=2, h=162/(81 beta): hypotheses fail (h <= 1/(81 beta))")
    assert point.endswith("is within the tolerance 0.0001 of 1)")
    (summary,) = [ln for ln in lines if ln.startswith("smallest c on the swept grid")]
    assert summary.endswith("the critical constant lies in (0.6, 1]. The failure was reproduced exactly on a "
                            "quadratic instance.")
    assert "inconclusive (beyond hyp.)" in out and "undecided (beyond hyp.)" not in out
