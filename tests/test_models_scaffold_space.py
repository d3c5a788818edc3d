"""The search space of SCAFFOLD run statements (pyfed.models.scaffold.space) on the statements of
tests/data/search/scaffold.lean: every false one's witness checked by hand (the
catches themselves: tests/test_engines_search_run.py)."""

from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from pyfed.models.registry import read_file
from pyfed.models.scaffold.exact import decide_exact
from pyfed.models.scaffold.instance import RunInstance, instance_from_json, instance_to_json
from pyfed.models.scaffold.space import scaffold_space
from pyfed.problems.clients import ClientSet
from pyfed.problems.quadratic import QuadraticProblem
from pyfed.problems.ridge import RidgeFunction

DATA = Path(__file__).parent / "data" / "search" / "scaffold.lean"


def _st(name):
    return next(s for s in read_file(DATA) if s.name == name)


def _one_client(problem, *, eta_l, eta_g, K, T, x0=1, mu=None):
    inst = RunInstance("hand", problem, F(0), 1, K, T, F(eta_l), F(eta_g), np.array([F(x0)], dtype=object),
                       np.array([[F(0)]], dtype=object))
    inst.mu = mu
    return inst


def _half_square():
    return QuadraticProblem(np.array([[[F(1)]]], dtype=object), np.array([[F(0)]], dtype=object))


@pytest.mark.parametrize("name,inst,lhs,rhs", [
    # gradient descent with h = 19/10 on x²/2 from 1: gaps 1/2 and (1 - 19/10)²/2 = 81/200
    ("GlobalStepUnbounded", lambda: _one_client(_half_square(), eta_l=F(1, 100), eta_g=190, K=1, T=2),
     F(181, 400), F(5, 19)),
    # one step with h = 1 on the Huber function H_{1/3}: x1 = 2/3, H(2/3) = 1/6 > 1/8
    ("OneStepEighth", lambda: _one_client(ClientSet([RidgeFunction.make([[0]], [0], [[1]], [0], [1], "huber",
                                                                         F(1, 3))], [0]), eta_l=1, eta_g=1, K=1, T=1),
     F(1, 6), F(1, 8)),
    # 24 local steps of 1/8 (h = 3) in one round: the weighted gap is f(x0) = 1/2, the bound 1/3
    ("ManyLocalSteps", lambda: _one_client(_half_square(), eta_l=F(1, 8), eta_g=1, K=24, T=1), F(1, 2), F(1, 3)),
    # h = 1, one round: f(x0) = 1/2 against ‖x0 - x*‖²/(h W_1)/4 = 1/4
    ("SeedQuarterBound", lambda: _one_client(_half_square(), eta_l=1, eta_g=1, K=1, T=1, mu=F(0)), F(1, 2), F(1, 4)),
])
def test_hand_checked_witnesses(name, inst, lhs, rhs):
    st = _st(name)
    v = decide_exact(st, inst(), arithmetic="exact")
    assert v.status == "violated" and (v.lhs, v.rhs) == (lhs, rhs)
    again = decide_exact(st, instance_from_json(instance_to_json(inst())), arithmetic="exact")
    assert again.status == "violated" and again.lhs == lhs


def test_space_reaches_a_global_step_of_a_thousand_only_where_nothing_bounds_it():
    unbounded = scaffold_space(_st("GlobalStepUnbounded"))
    eg = {a.hi for c in unbounded.configs for a in c.axes if a.name == "eta_g"}
    assert eg == {1000.0}
    bounded = scaffold_space(_st("GlobalStepBounded"))
    assert max(a.hi for c in bounded.configs for a in c.axes if a.name == "eta_g") <= 100.01
    assert {c.data["N"] for c in unbounded.configs} == {1}          # N = 1 is a hypothesis
    seed = scaffold_space(_st("SeedQuarterBound"))
    assert {c.data["N"] for c in seed.configs} == set(range(1, 9))
    assert {(c.data["N"], c.data["S"]) for c in seed.configs} >= {(8, 1), (8, 4), (8, 8), (2, 1)}
    assert {c.data["family"] for c in seed.configs} == {"quadratic", "huber", "relu2"}


def test_exact_client_sets_with_partial_participation_keep_their_sample_paths_few():
    """C(N, S)^T sample paths: the rounds drawn for S < N keep them within PATH_STATES (256)."""
    from math import comb

    from pyfed.models.scaffold.space import PATH_STATES, _path_rounds
    assert [_path_rounds(N, S) for N, S in ((2, 1), (3, 1), (4, 2), (5, 2), (6, 3), (8, 1))] == [6, 5, 3, 2, 1, 2]
    for N in range(2, 9):
        for S in range(1, N):
            T = _path_rounds(N, S)
            assert T == 1 or comb(N, S) ** T <= PATH_STATES
            assert T == 6 or comb(N, S) ** (T + 1) > PATH_STATES
