"""A FedAvg statement's terms on the one evaluator (pyfed.models.fedavg.evaluation): the random
variables' domain combines them linearly (hand-derived constants and coefficients), refuses what
is not linear, keeps Lean's conventions; a term of the reader lowered onto the evaluator's kinds
evaluates to the same number."""

from __future__ import annotations

from fractions import Fraction as Fr

import pytest

from pyfed.evaluation import Evaluator
from pyfed.lean.terms import Node
from pyfed.models.fedavg.access import Backend
from pyfed.models.fedavg.evaluation import NotLinear, Rand, RandomVariables, lower
from pyfed.models.fedavg.ir import Term
from pyfed.models.fedavg.scalars import Scalars


class Parts(Backend):
    """Parts as dicts statistic -> coefficient."""

    def add(self, p, q):
        return {k: p.get(k, 0) + q.get(k, 0) for k in set(p) | set(q)}

    def scale(self, p, s):
        return {k: v * s for k, v in p.items()}


def _node(op, text="t"):
    return Node("binop", op, [], text=text, ty="real")


def test_random_variables_combine_linearly():
    dom = RandomVariables(Scalars("exact"), Parts())
    X, Y = Rand(Fr(1), {"G0": Fr(1)}), Rand(Fr(0), {"G1": Fr(2)})
    z = dom.binop(_node("+"), "+", dom.binop(_node("*"), "*", Fr(3), X), Y)      # 3X + Y
    assert z.const == 3 and z.part == {"G0": 3, "G1": 2}
    w = dom.binop(_node("/"), "/", dom.binop(_node("-"), "-", X, Fr(1, 2)), Fr(2))   # (X - 1/2) / 2
    assert w.const == Fr(1, 4) and w.part == {"G0": Fr(1, 2)}
    assert dom.binop(_node("/"), "/", X, Fr(0)) == 0                       # Lean: x / 0 = 0
    assert dom.binop(_node("/"), "/", Fr(1), Fr(0)) == 0
    with pytest.raises(NotLinear, match="multiplies two random variables"):
        dom.binop(_node("*", "X * Y"), "*", X, Y)
    with pytest.raises(NotLinear, match="divides by a random variable"):
        dom.binop(_node("/", "1 / X"), "/", Fr(1), X)


def test_a_lowered_term_evaluates_with_lean_semantics():
    # (7 - 9 : ℕ) + 10 / 4 (ℕ) cast to ℝ, times 1/2, plus √(9/4): (0 + 2) / 2 + 3/2 = 5/2
    def num(v, sort):
        return Term("num", (), Fr(v), sort)
    nat = Term("+", (Term("-", (num(7, "nat"), num(9, "nat")), None, "nat"),
                     Term("/", (num(10, "nat"), num(4, "nat")), None, "nat")), None, "nat")
    real = Term("+", (Term("*", (Term("cast", (nat,), None, "real"), num(Fr(1, 2), "real")), None, "real"),
                      Term("sqrt", (num(Fr(9, 4), "real"),), None, "real")), None, "real")
    dom = RandomVariables(Scalars("exact"), None)
    assert Evaluator(dom).eval(lower(real), {}) == Fr(5, 2)
    assert lower(real) is lower(real)                          # lowered once per term
