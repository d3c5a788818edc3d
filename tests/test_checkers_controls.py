"""Control-variate checkers: exact identities, and a cross-check of the floating-point
simulator pyfed.algorithms.scaffold (seed-002 procedure) against the exact re-run."""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.checkers.controls import local_path
from pyfed.checkers.registry import get
from pyfed.verdicts import Holds, Violated


def _instance(option):
    cl = [{"A": [["2", "1"], ["1", "1"]], "b": ["1", "0"]}, {"A": [["1", "0"], ["0", "3"]], "b": ["0", "-1"]},
          {"A": [["1/2", "0"], ["0", "1/2"]], "b": ["2", "2"]}]
    z = ["0", "0"]
    return {"N": "3", "S": "3", "K": "3", "eta_l": "1/10", "eta_g": "1", "option": option, "clients": cl,
            "x0": ["1", "-1"], "c0": [["1", "0"], ["0", "1"], ["-1", "2"]], "c_server0": ["0", "1"],
            "subsets": [[0, 1, 2], [0, 1, 2]], "noise": [[[z] * 4] * 3] * 2}


def test_option_two_identity_by_hand():
    # K = 1, eta_l = 1, f(y) = y^2/2, x = 1, c_i = c = 0: y_1 = 0, c+ = 0 - 0 + (1 - 0)/1 = 1 = g(1)
    c = get("OptionTwoControlIsAverage")
    inst = c.structured()[0]
    assert c.lhs(inst) == 0
    # K_plus_1 mutation: c+ = 1/2 != 1 -> squared error 1/4
    assert c.lhs(inst, "K_plus_1") == Fr(1, 4)
    y, gs = local_path({"A": [["1"]], "b": ["0"]}, [Fr(1)], [Fr(0)], [Fr(0)], 2, Fr(1, 2), [[Fr(0)]] * 2)
    assert y == [Fr(1, 4)] and gs == [[Fr(1)], [Fr(1, 2)]]


@pytest.mark.parametrize("option", ["I", "II"])
def test_server_control_mean_exact(option):
    c = get("ServerControlIsMean")
    inst = _instance(option)
    assert isinstance(c.check(inst), Holds)
    assert isinstance(c.check(inst, mutate="drop_S_over_N"), Holds)  # S = N: the factor is 1
    sub = dict(inst, S="1", subsets=[[1], [2]])
    assert isinstance(c.check(sub), Holds)
    assert isinstance(c.check(sub, mutate="drop_S_over_N"), Violated)


@pytest.mark.parametrize("option", ["I", "II"])
def test_library_scaffold_matches_exact_rerun(option):
    scaffold_mod = pytest.importorskip("pyfed.algorithms")
    from pyfed.oracles import ExactOracle
    from pyfed.problems.quadratic import QuadraticProblem

    inst = _instance(option)
    A = np.array([[[Fr(v) for v in r] for r in cl["A"]] for cl in inst["clients"]], dtype=object)
    b = np.array([[Fr(v) for v in cl["b"]] for cl in inst["clients"]], dtype=object)
    P = QuadraticProblem(A, b)
    c0 = np.array([[float(Fr(v)) for v in r] for r in inst["c0"]])
    inst = dict(inst, c_server0=[str(Fr(sum(Fr(r[j]) for r in inst["c0"]), 3)) for j in range(2)])
    tr = scaffold_mod.scaffold(P, ExactOracle(P), S=3, K=3, T=2, eta_l=0.1, eta_g=1.0, option=option,
                               x0=np.array([1.0, -1.0]), c0=c0, R=1, rng=0, record_controls=True)
    hist = get("ServerControlIsMean").run(inst)
    for r, (c, ci) in enumerate(hist):
        np.testing.assert_allclose(tr.c_history[0, r], np.array([[float(v) for v in row] for row in ci]),
                                   rtol=1e-12, atol=1e-12)
        if tr.c_server_history is not None:
            np.testing.assert_allclose(tr.c_server_history[0, r], [float(v) for v in c], rtol=1e-12, atol=1e-12)
    if option == "II":  # option II control = average of the K local gradients (exact oracle)
        cl = inst["clients"][0]
        y, gs = local_path(cl, [Fr(1), Fr(-1)], [Fr(1), Fr(0)], hist[0][0], 3, Fr(1, 10), [[Fr(0)] * 2] * 3)
        avg = [float(sum(g[j] for g in gs) / 3) for j in range(2)]
        np.testing.assert_allclose(tr.c_history[0, 1, 0], avg, rtol=1e-12)
