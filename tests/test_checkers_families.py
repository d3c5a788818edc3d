"""Instance families' exact JSON (:mod:`pyfed.checkers.families`): an instance written with
:func:`env_to_spec` and read back with :func:`env_from_spec` has the same values, exactly."""

from __future__ import annotations

from fractions import Fraction as Fr

import pytest

from pyfed.checkers import families as fam
from pyfed.errors import InputError
from pyfed.statements.interpret import vec


def test_an_instance_round_trips_exactly():
    orc = fam.affine_oracle([[2, 0], [0, 1]], [1, Fr(-1, 3)], [[Fr(1, 4), 0]])
    env = {"d": 2, "η": Fr(1, 3), "x": vec([1, Fr(-2, 7)]), "Ω": ("Ω", 3), "__nat_bound__": 5,
           "__note__": "dropped", "oracle": fam.client_oracles([orc]), "samples": fam.samples([[0], [0, 1]]),
           "sample": frozenset({1})}
    spec = fam.env_to_spec(env)
    assert spec["η"] == "1/3" and spec["x"] == {"vec": ["1", "-2/7"]} and spec["Ω"] == {"sample_space": 3}
    assert spec["__nat_bound__"] == 5 and "__note__" not in spec and spec["sample"] == {"finset": [1]}
    back = fam.env_from_spec(spec)
    assert back["η"] == Fr(1, 3) and back["x"] == vec([1, Fr(-2, 7)]) and back["Ω"] == ("Ω", 3)
    assert back["samples"](0) == frozenset({0}) and back["samples"](7) == frozenset({0, 1})
    # call 0 at y = (1, 3): A y - b + offset = (2 - 1 + 1/4, 3 + 1/3) ; call 1: no offset
    assert back["oracle"](0)(0)(vec([1, 3])) == vec([Fr(5, 4), Fr(10, 3)])
    assert back["oracle"](0)(1)(vec([1, 3])) == vec([1, Fr(10, 3)])


def test_a_value_without_an_exact_description_is_refused():
    with pytest.raises(InputError):
        fam.env_to_spec({"f": object()})
