"""The one evaluator of Lean terms (pyfed.evaluation.evaluator): hand-derived values of the same
terms in each value domain (exact, ball, float, symbolic), Lean's ℕ semantics on elaborated
terms, call-by-value and memoised recursive definitions (linear time, no stack growth with the
index)."""

from __future__ import annotations

import sys
import time
from fractions import Fraction as Fr

import mpmath
import pytest
import sympy
from flint import arb

from pyfed import read_text
from pyfed.evaluation import Atoms, Evaluator, NOT_MINE, numbers
from pyfed.evaluation.numbers import EvaluationError
from pyfed.evaluation.values import Fun, Vec
from pyfed.lean.terms import parse_term
from pyfed.statements.interpret import Interpreter


def ev(text, env=None, mode="exact", atoms=None):
    return Evaluator(numbers(mode), atoms).eval(parse_term(text), env or {})


def test_exact_values_by_hand():
    assert ev("(1 / 3 + 1 / 6) * 4 - 2 ^ 3") == -6
    assert ev("x / 0 + 7", {"x": Fr(5)}) == 7                      # Lean: x / 0 = 0
    assert ev("(0 : ℝ)⁻¹ + 1") == 1                                  # 0⁻¹ = 0
    assert ev("Real.sqrt 8 * Real.sqrt 2") == 4                      # sqrt 8 sqrt 2 = 4, exactly
    assert ev("Real.sqrt 2") == sympy.sqrt(2)
    assert ev("Real.sqrt (-4)") == 0                                 # Real.sqrt of x < 0 is 0
    assert ev("min (1 / 2) (1 / 3) + max 2 3") == Fr(10, 3)
    assert ev("|1 - 3|") == 2
    assert ev("Real.rpow 8 (1 / 3)") == 2
    assert ev("let h := 1 / 4\n  h * h + h") == Fr(5, 16)
    assert ev("∑ r ∈ Finset.range 4, (r + 1)") == 10
    assert ev("Real.log 0 + 1") == 1                                 # Mathlib: log 0 = 0


def test_ball_values_contain_the_exact_ones():
    v = ev("1 / 3 + Real.sqrt 2", mode="ball")
    assert isinstance(v, arb) and v.contains(arb(1) / 3 + arb(2).sqrt()) and v.rad() < 1e-15
    assert ev("x / 0", {"x": arb(5)}, mode="ball") == 0
    assert isinstance(ev("Real.sqrt (9 / 4)", mode="ball"), arb)      # a ball, also for a square
    assert ev("Real.sqrt (9 / 4)", mode="ball").contains(arb(3) / 2)


def test_float_values():
    v = ev("Real.sqrt 2", mode="float")
    assert isinstance(v, mpmath.mpf) and abs(v - mpmath.sqrt(2)) < mpmath.mpf(10) ** -15
    assert ev("Real.sqrt (9 / 4)", mode="float") == Fr(3, 2)          # a perfect square stays exact
    assert ev("x + 1 / 2", {"x": mpmath.mpf("0.25")}, mode="float") == mpmath.mpf("0.75")


def test_symbolic_values():
    x, y, T = sympy.symbols("x y T")
    assert sympy.simplify(ev("x * (y + 1) - x * y", {"x": x, "y": y}, mode="symbolic") - x) == 0
    s = ev("∑ r ∈ Finset.range T, r", {"T": T}, mode="symbolic")     # a symbolic bound: sympy's Sum
    assert isinstance(s, sympy.Sum) and sympy.simplify(s.doit() - T * (T - 1) / 2) == 0
    assert ev("(1 - x)⁻¹ ^ (T + 1)", {"x": x, "T": T}, mode="symbolic") == (1 / (1 - x)) ** (T + 1)


def test_vectors_and_functions():
    u, v = Vec([Fr(1), Fr(2)]), Vec([Fr(3), Fr(-1)])
    assert ev("‖u - v‖ ^ 2", {"u": u, "v": v}) == 13                 # (−2)² + 3², no square root
    assert ev("‖u‖", {"u": Vec([Fr(3), Fr(4)])}) == 5
    assert ev("u + 0", {"u": u}) == u                                 # the numeral 0 among points
    f = Fun(lambda t: Fr(t) ** 2)
    assert ev("f 3 + 2 • f 1", {"f": f}) == 11


def test_atoms_answer_before_the_evaluator():
    class Stat(Atoms):
        def ident(self, e, node, env):
            return Fr(7) if node.value == "G" else NOT_MINE

        def apply(self, e, node, env):
            if node.head_name() == "stat":
                return 10 * e.eval(node.args[1], env)
            return NOT_MINE

    assert ev("G + stat (1 / 2) + y", {"y": Fr(1)}, atoms=Stat()) == 13
    with pytest.raises(EvaluationError, match="`z` has no value"):
        ev("z", atoms=Stat())


NAT = """import Pyfed

namespace SCAFFOLD

def geo (q : ℝ) : ℕ → ℝ
  | 0 => 1
  | n + 1 => q * geo q n + geo q n - q * geo q n

theorem NatArith (a b : ℕ) (q : ℝ) : ((a - b : ℕ) : ℝ) + ((a / b : ℕ) : ℝ) + ((a % b : ℕ) : ℝ) ≤ geo q a := by
  sorry

end SCAFFOLD
"""


def test_natural_numbers_truncate_and_floor_on_elaborated_terms():
    (st,) = read_text(NAT, "nat.lean")
    it = Interpreter(st.file_decls, st.context)
    # a = 2, b = 3: 2 - 3 = 0, 2 / 3 = 0, 2 % 3 = 2; a = 7, b = 0: 7, 0 (x / 0 = 0), 7 (x % 0 = x)
    assert it.eval(st.lhs, {"a": 2, "b": 3, "q": Fr(1, 2)}) == 2
    assert it.eval(st.lhs, {"a": 7, "b": 0, "q": Fr(1, 2)}) == 14


def test_a_recursive_definition_is_computed_once_per_index_bottom_up():
    # geo q (n + 1) reads geo q n three times: by name 3^n evaluations, by value n + 1; the steps
    # are computed from 0 upwards, so an index beyond Python's recursion limit is no deeper
    (st,) = read_text(NAT, "nat.lean")
    it = Interpreter(st.file_decls, st.context)
    n = 3 * sys.getrecursionlimit()
    t0 = time.process_time()
    assert it.eval(st.rhs, {"a": n, "b": 1, "q": Fr(1, 3)}) == 1
    assert time.process_time() - t0 < 5.0
