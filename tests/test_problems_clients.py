"""Exact client sets beyond quadratics (pyfed.problems.clients)."""

from fractions import Fraction as F

import pytest

from pyfed.errors import InputError
from pyfed.problems.clients import ClientSet, client_from_json
from pyfed.problems.ridge import RidgeFunction, centred


def test_client_set_constants_and_minimiser():
    fs = centred([RidgeFunction.make([[1]], [0], [[1]], [F(1, 2)], [2], "huber", 1),
                  RidgeFunction.make([[F(1, 4)]], [1], [[1]], [0], [1], "relu2")])
    cs = ClientSet(fs, [0])
    assert (cs.N, cs.d) == (2, 1)
    assert cs.beta == 3 and cs.mu == F(1, 4)            # max of 1 + 2, 1/4 + 1; min of 1, 1/4
    assert sum(cs.grads_exact([0])[:, 0]) == 0
    assert cs.f_star == cs.value_exact([0]) and cs.convexity(F(1, 4)) == (True, 0)
    assert cs.convexity(F(1, 2))[0] is False
    again = ClientSet([client_from_json(c) for c in cs.to_json()], [0])
    assert again.value_exact([F(3)]) == cs.value_exact([F(3)])


def test_refusals():
    f = RidgeFunction.make([[1]], [1], [[1]], [0], [1], "huber", 1)
    with pytest.raises(InputError):
        ClientSet([f], [0])                                          # not a minimiser
    with pytest.raises(InputError):
        ClientSet([RidgeFunction.make([[1]], [0], [[1]], [0], [1], "logcosh")], [0])     # no exact gradients
    with pytest.raises(InputError):
        client_from_json({"family": "sqrt"})
