"""Commands Lean refuses are refused when a file is read (pyfed.statements.declarations): a
misspelt command keyword and a theorem without a proof, each at its file:line:col."""

from __future__ import annotations

import pytest

from pyfed.statements import read_text
from pyfed.statements.declarations import ReaderError

STMT = "(a : ℝ) (ha : 0 < a) :\n    0 < a * a"


def _error(text) -> str:
    with pytest.raises(ReaderError) as exc:
        read_text(text, "t.lean")
    return str(exc.value)


@pytest.mark.parametrize("typo, meant", [("theorm", "theorem"), ("namespce", "namespace"), ("lema", "lemma")])
def test_misspelt_command_is_named_at_its_position(typo, meant):
    text = f"import Pyfed\n\nnamespace SCAFFOLD.Trial\n\n{typo} T {STMT} := by sorry\n\nend SCAFFOLD.Trial\n"
    msg = _error(text)
    assert msg.startswith("t.lean:5:1: ")
    assert f"`{typo}`" in msg and f"did you mean `{meant}`?" in msg


def test_misspelt_command_after_a_theorem_is_not_swallowed_by_it():
    text = f"import Pyfed\n\ntheorem A {STMT} := by sorry\n\ntheorm B {STMT} := by sorry\n"
    assert _error(text).startswith("t.lean:6:1: ")


def test_a_continuation_line_at_column_one_is_not_a_command():
    text = "import Pyfed\n\ntheorem A (a : ℝ) (ha : 0 < a) :\n0 < a * a := by\n  sorry\n"
    assert [s.name for s in read_text(text, "t.lean")] == ["A"]


def test_theorem_without_a_proof_is_refused_where_the_proof_should_start():
    text = f"import Pyfed\n\ntheorem NoBody {STMT}\n\ntheorem Fine {STMT} := by sorry\n"
    msg = _error(text)
    # the statement ends at `a * a` on line 4: `:=` was expected right after it
    assert msg.startswith(f"t.lean:4:{len('    0 < a * a') + 1}: ")
    assert "NoBody" in msg and "without a proof" in msg and "Fine" not in msg


def test_an_unclosed_bracket_is_reported_as_such_not_as_a_missing_proof():
    text = "import Pyfed\n\ntheorem P (a : ℝ) (ha : 0 < a) :\n    0 < a * (a + 1 := by sorry\n"
    msg = _error(text)
    assert msg.startswith(f"t.lean:4:{'    0 < a * (a + 1 '.__len__() + 1}: ") and "expected ')'" in msg
    assert "without a proof" not in msg
