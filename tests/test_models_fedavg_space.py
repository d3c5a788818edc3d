"""The search space of FedAvg run statements (pyfed.models.fedavg.space) on the statements of
tests/data/search/fedavg.lean: every false one caught with the default settings and re-checked from
its witness, its witness also checked by hand; the true ones never violated."""

from fractions import Fraction as F
from pathlib import Path

import pytest

from pyfed.models.fedavg.exact import decide_instance
from pyfed.models.fedavg.families import instance_from_json
from pyfed.models.fedavg.space import fedavg_space
from pyfed.models.registry import read_file

DATA = Path(__file__).parent / "data" / "search" / "fedavg.lean"


def _st(name):
    return next(s for s in read_file(DATA) if s.name == name)


HUBER = {"family": "ridge", "profile": "huber", "Q": [["0"]], "b": [["0"]], "rows": [["1"]], "offsets": ["0"],
         "weights": ["1"], "delta": "1", "c": "0", "L": "1", "sigma": "0", "zeta_sq": "0", "tau": "40", "T": "1",
         "eta": "1/4", "x0": ["11"]}


@pytest.mark.parametrize("name,inst,lhs,rhs", [
    # gradient descent on H_1 from 11 with step 1/4: iterates 11 - k/4 in the linear region, losses
    # x_k - 1/2; their mean over k = 1..40 is 43/8, the bound 121/(3 (1/4) 40) = 121/30
    ("FedAvgThirdOfDistance", HUBER, F(43, 8), F(121, 30)),
    # one step of 1/4 on x²/2 from 8: F(6) = 18 against 8/(2 (1/4)) = 16
    ("FedAvgDistanceNotSquared", {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "0", "tau": "1", "T": "1",
                                  "eta": "1/4", "x0": ["8"]}, F(18), F(16)),
    # two clients x²/2 ∓ x from 0, step 1/100: after k steps client 0 is at 1 - (99/100)^k, the mean at 0
    ("DriftLinearInLocalSteps", {"A": [["1"]], "b": [["1"], ["-1"]], "L": "1", "sigma": "0", "tau": "40", "T": "1",
                                 "eta": "1/100", "x0": ["0"]}, (1 - F(99, 100) ** 40) ** 2, F(18 * 40, 100 ** 2)),
    # three identical clients x²/2, σ = 1, one step of 1/4: the drift from the mean is (1/4)² (ξᵢ - ξ̄)², of
    # expectation (1/16)(1 - 1/3) = 1/24, the bound (1/2)(1/4)² = 1/32
    ("DriftHalfNoiseConstant", {"A": [["1"]], "b": [["0"], ["0"], ["0"]], "L": "1", "sigma": "1", "tau": "1",
                                "T": "1", "eta": "1/4", "x0": ["0"]}, F(1, 24), F(1, 32)),
])
def test_hand_checked_witnesses(name, inst, lhs, rhs):
    assert lhs > rhs
    out = decide_instance(_st(name), instance_from_json(inst))
    assert out.status == "violated" and out.rhs == rhs
    if name == "DriftLinearInLocalSteps":      # the first violating step k: the drift (1 - (99/100)^k)²
        assert out.lhs in {(1 - F(99, 100) ** k) ** 2 for k in range(41)} and out.lhs > rhs
    else:
        assert out.lhs == lhs


def test_space_spans_far_starts_long_epochs_and_non_quadratic_clients():
    sp = fedavg_space(_st("FedAvgThirdOfDistance"))
    assert {c.data["family"] for c in sp.configs} == {"quadratic", "huber", "relu2", "logcosh", "softplus"}
    axes = {a.name: a for c in sp.configs for a in c.axes}
    assert axes["|x0 - x*|"].hi == 1e3 and axes["tau"].hi == 64 and axes["T"].hi == 200
    assert axes["step fraction"].lo == 1e-3
    assert {c.data["M"] for c in sp.configs} == {1, 2, 3, 4, 6, 8}
