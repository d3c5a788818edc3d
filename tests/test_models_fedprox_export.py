"""The FedProx counterexample file (:mod:`pyfed.models.fedprox.export`): what the value-list file
only names -- quadratic clients' oracles, sampled sets, finite families -- written as exact lists."""

from __future__ import annotations

from fractions import Fraction as Fr

from pyfed.checkers import families as fam
from pyfed.models.fedprox.export import render, value_defs


def _defs(name, value):
    return {d["name"]: (d["type"], d["value"]) for d in value_defs(name, fam.to_spec(value))}


def test_oracles_by_round_client_and_call():
    o0 = fam.affine_oracle([[2]], [1], [])
    o1 = fam.affine_oracle([[1]], [0], [[Fr(1, 2)], [Fr(-1, 4)]])
    spec = fam.process([fam.client_oracles([o0, o1]), fam.client_oracles([o0, o0])])
    defs = _defs("oracle", spec)
    assert defs["oracle_A"] == ("List (List (List ℚ))", "[[[2]], [[1]]]")
    assert defs["oracle_b"] == ("List (List ℚ)", "[[1], [0]]")
    assert defs["oracle_noise"] == ("List (List (List (List ℚ)))", "[[[], [[1 / 2], [-1 / 4]]], [[], []]]")
    assert set(_defs("g", o0)) == {"g_A", "g_b"}                 # exact gradients: no noise listed


def test_samples_and_families():
    assert _defs("samples", fam.samples([[0, 2], [1]])) == {"samples": ("List (List ℕ)", "[[0, 2], [1]]")}
    assert _defs("a", fam.fin_family([Fr(1, 2), Fr(3)])) == {"a": ("List ℚ", "[1 / 2, 3]")}
    assert _defs("u", fam.fin_family([fam.vec([1, 2]), fam.vec([0, Fr(-1, 3)])])) == \
        {"u": ("List (List ℚ)", "[[1, 2], [0, -1 / 3]]")}
    assert value_defs("w", {"family": "huber"}) is None


def test_the_file_has_every_value():
    rec = {"statement": "T", "seed": 0, "index": 2, "lhs": {"exact": "1/4"}, "rhs": {"exact": "1/16"},
           "relation": "≤", "statement_text": "theorem T …", "family": "FedProx procedure lemma",
           "instance": {"K": 2, "ηl": "1/2", "x0": {"vec": ["1"]}, "a": {"family": "fin", "values": ["1"]},
                        "samples": {"family": "samples", "values": [[0]]}, "__nat_bound__": 3}}
    text = render(rec)
    for line in ("def K : ℕ := 2", "def ηl : ℚ := 1 / 2", "def x0 : List ℚ := [1]", "def a : List ℚ := [1]",
                 "def samples : List (List ℕ) := [[0]]", "def lhs : ℚ := 1 / 4", "#guard rhs < lhs"):
        assert line in text
    assert "recorded\nexactly in the JSON file" not in text           # nothing left to the JSON only
