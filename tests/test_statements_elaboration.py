"""The run-free statement builder (:mod:`pyfed.statements.elaboration`): type ascriptions elaborate as
Lean does, the expected type flowing into an arithmetic tree, so ``(1 / 2 : ℝ)`` is one half
while ``((n / 3 : ℕ) : ℝ)`` keeps ℕ division; decided through the run-free search and its exact
re-check. What Lean refuses is refused when the file is read: a syntax or type error inside a def
the statement uses, arithmetic mixing numbers and points of ``Space d``, a comparison of two
types, an ambiguous name (each at its file:line:col)."""

from __future__ import annotations

import pytest
from pyfed import read_text
from pyfed.statements.declarations import ReaderError

TEXT = """import Pyfed
namespace Trial
theorem Half (a : ℝ) (ha : a = 8) : a * (1 / 2 : ℝ) = 4 := by sorry
theorem HalfFalse (a : ℝ) (ha : a = 8) : a * (1 / 2 : ℝ) = 0 := by sorry
theorem NatHalf (a : ℝ) (ha : a = 8) : a * ((1 / 2 : ℕ) : ℝ) = 0 := by sorry
theorem NatThird (n : ℕ) (hn : n = 8) : ((n / 3 : ℕ) : ℝ) = 2 := by sorry
theorem RealThird (n : ℕ) (hn : n = 8) : (n / 3 : ℝ) = 8 / 3 := by sorry
theorem RealThirdFalse (n : ℕ) (hn : n = 8) : (n / 3 : ℝ) ≤ 2 := by sorry
theorem CubeRoot (a : ℝ) (ha : a = 8) : a ^ (1 / 3 : ℝ) = 2 := by sorry
end Trial
"""


def _verdict(name):
    (st,) = read_text(TEXT, "ascription.lean", theorem=f"Trial.{name}")
    return st.model.search(st, seed=0, budget=4).verdict, st


@pytest.mark.parametrize("name", ["Half", "NatHalf", "NatThird", "RealThird", "CubeRoot"])
def test_true_statements_with_ascriptions_are_never_violated(name):
    v, _ = _verdict(name)
    assert v.status == "inconclusive", (name, v.details.get("lhs_exact"), v.details.get("rhs_exact"))
    assert v.details["decided"] > 0


@pytest.mark.parametrize("name,lhs,rhs", [("HalfFalse", "4", "0"), ("RealThirdFalse", "8/3", "2")])
def test_false_statements_with_ascriptions_are_violated_with_the_real_quotient(name, lhs, rhs):
    v, st = _verdict(name)
    assert v.status == "violated" and v.certified
    assert (v.details["lhs_exact"], v.details["rhs_exact"]) == (lhs, rhs)
    assert st.model.recheck(st, v.witness).status == "violated"


HEAD = "import Pyfed\n\nnamespace SCAFFOLD.Trial\n\n"
TAIL = "\n\nend SCAFFOLD.Trial\n"
YOUNG = ("theorem YoungDef {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :\n"
         "    2 * |inner ℝ u v| ≤ myRHS a u v := by sorry")


def _error(text) -> str:
    with pytest.raises(ReaderError) as exc:
        read_text(text, "t.lean")
    msg = str(exc.value)
    assert "\n" not in msg          # one line
    return msg


def _def(body: str) -> str:
    return f"noncomputable def myRHS {{d : ℕ}} (a : ℝ) (u v : Space d) : ℝ := {body}\n\n"


def test_syntax_error_in_a_used_def_is_reported_where_it_is():
    body = "a * ‖u‖ ^ 2 + + a⁻¹ * ‖v‖ ^ 2"
    line = _def(body)
    col = line.index("+ +") + 3          # the second `+`, 1-based
    msg = _error(HEAD + line + YOUNG + TAIL)
    assert msg.startswith(f"t.lean:5:{col}: ")
    assert "'+'" in msg


def test_syntax_error_in_an_unused_def_does_not_block_other_theorems():
    text = HEAD + _def("a * ‖u‖ ^ 2 + + 1") + (
        "theorem Plain (a : ℝ) (ha : 0 < a) : 0 < a * a := by sorry") + TAIL
    assert [s.name for s in read_text(text, "t.lean")] == ["Plain"]


def test_type_error_in_a_used_def_is_reported_at_the_product():
    line = _def("a * u")
    msg = _error(HEAD + line + YOUNG + TAIL)
    assert msg.startswith(f"t.lean:5:{line.index('a * u') + 1}: ")
    assert "`*`" in msg and "•" in msg and "unsupported" not in msg


def test_a_def_whose_body_is_a_point_where_a_real_is_declared_is_a_type_error():
    line = _def("u - v")
    msg = _error(HEAD + line + YOUNG + TAIL)
    assert msg.startswith(f"t.lean:5:{line.index('u - v') + 1}: type mismatch")


def test_correct_def_reads_and_is_evaluated_from_its_body():
    from fractions import Fraction as Fr

    from pyfed.statements.interpret import Interpreter, vec
    [st] = read_text(HEAD + _def("a * ‖u‖ ^ 2 + a⁻¹ * ‖v‖ ^ 2") + YOUNG + TAIL, "t.lean")
    it = Interpreter(st.file_decls, st.context)
    env = {"d": 2, "u": vec([1, 2]), "v": vec([3, 0]), "a": Fr(1, 2)}
    # 1/2 * 5 + 2 * 9 = 41/2
    assert it.eval(st.rhs, env) == Fr(41, 2)


def test_scalar_times_point_in_the_statement_is_a_type_error():
    thm = ("theorem YoungWrongType {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :\n"
           "    2 * |inner ℝ u v| ≤ a * u + a⁻¹ * ‖v‖ ^ 2 := by sorry")
    msg = _error(HEAD + thm + TAIL)
    assert msg.startswith("t.lean:6:25: ")      # `a * u`
    assert "a • u" in msg


@pytest.mark.parametrize("rhs, bad", [("u + a", "a"), ("2 * u", "2 * u"), ("u ^ 2", "u ^ 2")])
def test_numbers_among_points_are_type_errors(rhs, bad):
    thm = f"theorem W {{d : ℕ}} (u : Space d) (a : ℝ) : u = {rhs} := by sorry"
    msg = _error(HEAD + thm + TAIL)
    col = thm.index(f"= {rhs}") + 2 + rhs.index(bad) + 1
    assert msg.startswith(f"t.lean:5:{col}: ")


def test_the_product_with_a_point_is_quoted_not_an_earlier_valid_product():
    # the valid `(1 + a) * ‖u‖ ^ 2` comes first on the line; the error is the later `a * u`
    line = "    ‖u + v‖ ^ 2 ≤ (1 + a) * ‖u‖ ^ 2 + (1 + a⁻¹) * ‖v‖ ^ 2 + (1 + a * u) := by sorry"
    thm = "theorem T3 {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :\n" + line
    msg = _error(HEAD + thm + TAIL)
    assert msg.startswith(f"t.lean:6:{line.index('a * u') + 1}: "), msg
    assert "`*` in `a * u` involves a point" in msg and "‖u‖" not in msg


def test_a_number_added_to_points_is_quoted_whole():
    thm = "theorem W {d : ℕ} (u v : Space d) (a : ℝ) : u = v + 2 * ‖u‖ := by sorry"
    msg = _error(HEAD + thm + TAIL)
    assert msg.startswith(f"t.lean:5:{thm.index('2 * ‖u‖') + 1}: ")
    assert "`2 * ‖u‖` is a number in a sum of points" in msg


def test_point_arithmetic_and_scaling_read():
    thm = ("theorem P {d : ℕ} (u v : Space d) (a : ℝ) :\n"
           "    ‖a • u - v‖ ≤ ‖a • u‖ + ‖-v + 0‖ := by sorry")
    [st] = read_text(HEAD + thm + TAIL, "t.lean")
    assert st.relation == "≤"


def test_comparing_a_number_with_a_point_is_a_type_error():
    thm = "theorem C {d : ℕ} (u : Space d) (a : ℝ) : ‖u‖ ≤ u := by sorry"
    msg = _error(HEAD + thm + TAIL)
    assert msg.startswith(f"t.lean:5:{thm.index('‖u‖ ≤') + 1}: type mismatch")


def test_ambiguous_name_is_reported_at_the_name():
    thm = ("theorem Amb (d N : ℕ) (f : Fin N → Space d → ℝ) (x : Space d) : "
           "objective f x ≤ objective f x + 1 := by sorry")
    msg = _error("import Pyfed\n\nopen SCAFFOLD FedAvg\n\n" + thm + "\n")
    assert msg.startswith(f"t.lean:5:{thm.index('objective') + 1}: ")
    assert "ambiguous" in msg
