"""Checkers of the published SCAFFOLD statements added for issue 11 (PerturbedStrongConvexity,
FiniteRoundConvergence) and the nonconvex search reaching its hypothesis boundary.

Sources: Karimireddy et al., SCAFFOLD, arXiv:1910.06378v4, Appendix C Lemma 5 (PDF p. 17);
Appendix E.2, Lemma 19 (PDF p. 34) with equations (26)-(27) (PDF p. 31) for the nonconvex step
condition h <= (S/N)^(2/3)/(24 beta).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from pyfed.checkers.registry import get
from pyfed.errors import InputError
from pyfed.theory import effective_step, nonconvex_hypotheses
from pyfed.verdicts import Holds, Inconclusive, Violated

PSC = get("PerturbedStrongConvexity")
FRC = get("FiniteRoundConvergence")
NC = get("NonconvexFiniteRoundConvergence")


def _psc(**kw):
    inst = {"family": "quadratic", "clients": [{"A": [["2"]], "b": ["0"]}], "lam": "0", "mu": "2", "beta": "2",
            "i": 0, "x": ["1"], "y": ["0"], "z": ["2"]}
    inst.update(kw)
    return inst


# ------------------------------------------------------------------ PerturbedStrongConvexity

def test_psc_tight_quadratic_by_hand():
    # f = x^2 (A = 2): f(2) - f(0) - f'(1)(2 - 0) + (2/4)(0 - 2)^2 = 4 - 0 - 4 + 2 = 2 = beta (2 - 1)^2
    v = PSC.check(_psc())
    assert isinstance(v, Holds) and v.exact and v.lhs == 2 and v.rhs == 2


def test_psc_hand_value_with_offset_and_linear_term():
    # f = x^2/2 - 3x (A = 1, b = 3), mu = beta = 1, x = 0, y = 1, z = 3:
    # f(3) - f(1) = (9/2 - 9) - (1/2 - 3) = -2; f'(0) = -3, <f'(0), z - y> = -6
    # lhs = -2 + 6 + (1/4) 4 = 5; rhs = 1 * 9 = 9
    v = PSC.check(_psc(clients=[{"A": [["1"]], "b": ["3"]}], mu="1", beta="1", x=["0"], y=["1"], z=["3"]))
    assert isinstance(v, Holds) and (v.lhs, v.rhs) == (5, 9)


def test_psc_regulariser_is_the_same_function_as_curvature():
    a = _psc(clients=[{"A": [["3", "0"], ["0", "3"]], "b": ["1", "-1"]}], mu="3", beta="3",
             x=["1/2", "1"], y=["0", "1"], z=["1", "2"])
    b = dict(a, clients=[{"A": [["0", "0"], ["0", "0"]], "b": ["1", "-1"]}], lam="3")
    va, vb = PSC.check(a), PSC.check(b)
    assert isinstance(va, Holds) and (va.lhs, va.rhs) == (vb.lhs, vb.rhs)


def test_psc_logistic_matches_an_independent_mpmath_evaluation():
    inst = {"family": "logistic", "clients": [{"a": [["1", "-1"]]}, {"a": [["2", "0"], ["0", "1"]]}],
            "lam": "1", "mu": "1", "beta": "9/4", "i": 1, "x": ["1/4", "0"], "y": ["-1", "1"], "z": ["1", "1/2"]}
    v = PSC.check(inst)
    assert isinstance(v, Holds) and not v.exact
    with mpmath.workdps(60):
        rows = [(2, 0), (0, 1)]

        def f(p):
            return sum(mpmath.log1p(mpmath.exp(r[0] * p[0] + r[1] * p[1])) for r in rows) / 2 \
                + (p[0] ** 2 + p[1] ** 2) / 2

        def g(p):
            s = [1 / (1 + mpmath.exp(-(r[0] * p[0] + r[1] * p[1]))) for r in rows]
            return [sum(si * r[k] for si, r in zip(s, rows)) / 2 + p[k] for k in range(2)]
        x, y, z = [mpmath.mpf(1) / 4, 0], [-1, 1], [1, mpmath.mpf(1) / 2]
        gx = g(x)
        lhs = f(z) - f(y) - sum(gx[k] * (z[k] - y[k]) for k in range(2)) + mpmath.mpf(1) / 4 * 4.25
        assert abs(lhs - v.lhs) < mpmath.mpf(10) ** -40
    assert v.rhs == Fraction(9, 4) * (Fraction(3, 4) ** 2 + Fraction(1, 4))


def test_psc_mutations_fail_on_the_tight_instance_by_hand():
    v = PSC.check(_psc(), mutate="mu_quarter_to_mu")      # lhs 4 - 0 - 4 + 2 * 4 = 8 > 2
    assert isinstance(v, Violated) and (v.lhs, v.rhs) == (8, 2)
    v = PSC.check(_psc(), mutate="drop_beta_term")        # rhs 0 < lhs 2
    assert isinstance(v, Violated) and (v.lhs, v.rhs) == (2, 0)


@pytest.mark.parametrize("patch,key", [
    ({"mu": "3"}, "convexity"),                                   # A - 3 I not PSD
    ({"beta": "1"}, "smooth"),                                    # 1 - 2 < 0
    ({"i": 1}, "client"),
    ({"mu": "-1"}, "mu"),
    ({"lam": "-1/2", "mu": "0"}, "lam"),
    ({"family": "logistic", "clients": [{"a": [["1"]]}], "lam": "1/2", "mu": "1", "beta": "1"}, "convexity"),
    ({"family": "logistic", "clients": [{"a": [["2"]]}], "lam": "1/2", "mu": "1/2", "beta": "1"}, "smooth"),
])
def test_psc_failing_hypotheses_are_reported(patch, key):
    inst = _psc(**patch)
    failing = [h.key for h in PSC.hypotheses(inst) if not h.holds]
    assert key in failing
    v = PSC.check(inst)
    assert isinstance(v, Inconclusive) and "hypotheses fail" in v.reason


def test_psc_decision_margin_for_mpmath_families():
    # x = y = z: both sides are 0; in mpmath that is within the stated margin, hence inconclusive
    inst = {"family": "logsumexp", "clients": [{"a": [["1"], ["-1"]]}], "lam": "0", "mu": "0", "beta": "1",
            "i": 0, "x": ["1/3"], "y": ["1/3"], "z": ["1/3"]}
    v = PSC.check(inst)
    assert isinstance(v, Inconclusive) and v.lhs == 0 and v.rhs == 0
    assert "1.0e-30" in v.reason and "60 digits" in v.reason


def test_psc_rejects_malformed_instances():
    with pytest.raises(InputError):
        PSC.check(_psc(x=["1", "2"]))
    with pytest.raises(InputError):
        PSC.check(_psc(i="0"))
    with pytest.raises(InputError):
        PSC.check(_psc(mu=0.5))


def test_psc_search_reaches_the_attained_bound():
    rep = {}
    assert PSC.search(np.random.default_rng(3), PSC.default_budget, report=rep) == []
    t = rep["tightest_verdict"]
    assert t.exact and t.lhs == t.rhs          # lhs/rhs = 1: the constants cannot be improved


# ------------------------------------------------------------------ FiniteRoundConvergence

def test_frc_routes_each_instance_to_its_conjunct():
    conv = get("ConvexFiniteRoundConvergence")
    inner = conv.structured()[0]
    v = FRC.check({"conjunct": "ConvexFiniteRoundConvergence", "instance": inner})
    w = conv.check(inner)
    assert isinstance(v, Holds) and v.statement == "FiniteRoundConvergence"
    assert (v.lhs, v.rhs) == (w.lhs, w.rhs) and v.details["conjunct"] == "ConvexFiniteRoundConvergence"
    inner = NC.structured()[1]
    v = FRC.check({"conjunct": "NonconvexFiniteRoundConvergence", "instance": inner})
    assert isinstance(v, Holds) and v.rhs == NC.rhs(inner)
    assert FRC.lean_instance({"conjunct": "NonconvexFiniteRoundConvergence", "instance": inner}) == \
        dict(NC.lean_instance(inner), conjunct="NonconvexFiniteRoundConvergence")


def test_frc_counterexample_file_states_the_conjuncts_right_side(tmp_path):
    from pyfed.search import search_to_dir
    paths = search_to_dir("FiniteRoundConvergence", seed=1, budget=3, out=str(tmp_path), relax=("step_size",))
    assert paths
    texts = [p.read_text(encoding="utf-8") for p in sorted(tmp_path.glob("*.lean"))]
    assert texts and all("`SCAFFOLD.FiniteRoundConvergence`" in x for x in texts)
    assert any("nonconvexRHSQ" in x or "convexRHSQ" in x for x in texts)
    assert all("NOT a counterexample" in x for x in texts)


def test_frc_violation_of_a_mutated_conjunct_is_a_witness_of_the_conjunction():
    recs = FRC.search(np.random.default_rng(7), 2, mutate="drop_noise_term")
    assert recs
    rec = recs[0]
    assert rec["statement"] == "FiniteRoundConvergence" and rec["instance"]["conjunct"] in FRC.CONJUNCTS
    v = FRC.check(rec["instance"], mutate="drop_noise_term")
    assert isinstance(v, Violated) and v.witness["instance"] == rec["instance"]


def test_frc_verdict_reports_both_conjuncts():
    v = FRC.verdict(np.random.default_rng(0), budget=2)
    assert isinstance(v, Inconclusive) and v.details["search_result"] == "no counterexample"
    per = v.details["conjuncts"]
    assert set(per) == set(FRC.CONJUNCTS)
    assert all(per[c]["holds"] >= 1 and per[c]["violated"] == 0 for c in per)
    assert v.details["candidates"] == sum(per[c]["candidates"] for c in per)


def test_frc_rejects_an_unknown_conjunct():
    with pytest.raises(InputError) as e:
        FRC.check({"conjunct": "Theorem1", "instance": {}})
    assert e.value.argument == "instance"


# ------------------------------------------------------------------ nonconvex step boundary

@pytest.mark.parametrize("N,S", [(1, 1), (2, 1), (3, 1), (3, 2), (5, 3), (7, 2)])
def test_nonconvex_max_step_is_the_largest_grid_step_inside_the_hypothesis(N, S):
    beta = Fraction(5, 3)
    h = NC.max_h(beta, 0, N, S)
    t = 24 * beta * h
    Q = NC.BOUNDARY_DEN
    assert Q % t.denominator == 0
    assert t**3 <= Fraction(S, N) ** 2 < (t + Fraction(1, Q)) ** 3          # largest p/Q inside
    hs = {x.key: x for x in nonconvex_hypotheses(N=N, S=S, K=1, T=1, eta_l=h, eta_g=1, beta=beta, sigma=0)}
    assert hs["step_size"].holds
    assert t >= Fraction(S, N)                                              # never below the old cap
    assert float(t) >= 0.99 * float(Fraction(S, N)) ** (2 / 3)


def test_nonconvex_search_probes_the_boundary_region():
    """The tightest instance of at least one drawn (S, N) with S < N has h within 1% of the
    boundary (S/N)^(2/3)/(24 beta), beyond the old cap (S/N)/(24 beta), and every decided step
    meets the hypothesis exactly."""
    rng = np.random.default_rng(2024)
    tightest = {}
    beyond_old_cap = 0
    for inst in NC.candidates(rng, NC.default_budget):
        v = NC.check(inst)
        if not (isinstance(v, Holds) and v.exact):
            continue
        S, N = int(Fraction(inst["S"])), len(inst["A"])
        h = effective_step(Fraction(inst["K"]), Fraction(inst["eta_l"]), Fraction(inst["eta_g"]))
        beta = Fraction(inst["beta"])
        assert (24 * beta * h) ** 3 <= Fraction(S, N) ** 2
        beyond_old_cap += h > Fraction(S, N) / (24 * beta)
        ratio = v.lhs / v.rhs
        if (S, N) not in tightest or ratio > tightest[(S, N)][0]:
            tightest[(S, N)] = (ratio, NC.step_over_boundary(inst))
    near = [sn for sn, (_, s) in tightest.items() if sn[0] < sn[1] and 0.99 <= s <= 1]
    assert near, tightest
    assert beyond_old_cap >= 1


def test_nonconvex_verdict_reports_the_tightest_step_over_boundary():
    v = NC.verdict(np.random.default_rng(0), budget=4)
    assert isinstance(v, Inconclusive)
    s = float(v.details["tightest_step_over_boundary"])
    assert 0 < s <= 1
    S, N = v.details["tightest_S_N"]
    assert 1 <= S <= N


def test_nonconvex_edge_instance_is_beyond_the_old_cap_and_inside_the_hypothesis():
    edge = NC.structured()[3]
    assert len(edge["A"]) == 2 and edge["S"] == "1"
    h = effective_step(Fraction(edge["K"]), Fraction(edge["eta_l"]), Fraction(edge["eta_g"]))
    assert h > Fraction(1, 2) / (24 * 2)
    assert all(x.holds for x in NC.hypotheses(edge))
    assert isinstance(NC.check(edge), Holds)
