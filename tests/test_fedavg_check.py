"""`pyfed check`, FedAvg part: the four Field Guide statements on the exact quadratic instance and
the real-data Monte Carlo instance, none violated; each row names its evidence."""

from fractions import Fraction

import pytest

from pyfed.check_fedavg import STATEMENTS, fedavg_suite, run_fedavg_check
from pyfed.commands.check import evidence
from pyfed.theory import fedavg_hypotheses


@pytest.fixture(scope="module")
def rows():
    return run_fedavg_check(quick=True, seed=0, replicates=32)


def test_every_statement_on_both_instances_none_violated(rows):
    assert [v.statement for v in rows] == [s for s in STATEMENTS for _ in range(2)]
    assert all(v.status == "holds" for v in rows), [(v.statement, v.status, getattr(v, "reason", "")) for v in rows]
    exact = [v for v in rows if v.details["method"] == "exact-moments"]
    mc = [v for v in rows if v.details["method"] == "montecarlo"]
    assert len(exact) == len(mc) == 4
    for v in exact:
        assert v.exact and v.details["instance"].startswith("quadratic-shared-hessian")
    # Lemmas 1-2 exactly at every round start; Theorem 1 with the exact rational left side
    assert all("every round start" in evidence(v) for v in exact[:2])
    assert isinstance(exact[2].lhs, Fraction) and isinstance(exact[2].rhs, Fraction)
    assert "ball" in evidence(exact[3]) or isinstance(exact[3].rhs, Fraction)
    for v in mc:
        assert "Monte Carlo" in evidence(v) and v.details["instance"].startswith("logistic")
    assert all("round starts" in evidence(v) for v in mc[:2])


def test_suite_hypotheses_hold_and_zeta_is_certified():
    quad, lg = fedavg_suite(quick=True)
    assert quad.heterogeneity.exact and isinstance(quad.heterogeneity.zeta_sq, Fraction)
    assert not lg.heterogeneity.exact and lg.heterogeneity.zeta > 0
    for inst in (quad, lg):
        hs = fedavg_hypotheses(M=inst.problem.N, tau=inst.tau, T=inst.T, eta=inst.eta, L=inst.L,
                               sigma_sq=Fraction(inst.sigma) ** 2, zeta_sq=inst.heterogeneity.zeta_sq)
        assert all(h.holds for h in hs)
    assert quad.eta == 1 / (4 * quad.L)          # the boundary of the step-size hypothesis


def test_check_json_names_the_fedavg_rows(rows):
    import json

    from pyfed.report import report_json

    js = json.loads(report_json(rows, seed=0, quick=True, replicates=32))
    assert {v["statement"] for v in js["verdicts"]} == set(STATEMENTS)
    assert all(v["status"] != "violated" for v in js["verdicts"])
