"""The general statement builder (:mod:`pyfed.statements.lean_statement`): a type is peeled into
binders, hypotheses and conclusions (a conjunction gives ``.1`` / ``.2`` unless the caller keeps it
whole), and a model's statement class and family are those it passes."""

from __future__ import annotations

from dataclasses import dataclass

from pyfed.lean.terms import parse_term
from pyfed.statements.elaborate import read_declarations
from pyfed.statements.lean_statement import LeanStatement, peel, statements_from


def test_peel_binders_hypotheses_and_conjuncts():
    node = parse_term("∀ a : ℝ, 0 ≤ a → (b : ℝ) → (a ≤ b ∧ ∀ c : ℝ, c ≤ a → c ≤ b)")
    parts = peel(node, [], [])
    assert [(sorted(b.name for b in bs), [h.text for h, _ in hs], c.text, suf) for bs, hs, c, suf in parts] == [
        (["a", "b"], ["0 ≤ a"], "a ≤ b", ".1"),
        (["a", "b", "c"], ["0 ≤ a", "c ≤ a"], "c ≤ b", ".2")]
    (whole,) = peel(node, [], [], split=lambda n: False)
    assert whole[2].text == "(a ≤ b ∧ ∀ c : ℝ, c ≤ a → c ≤ b)" and whole[3] == ""


def test_the_model_s_class_and_family():
    @dataclass
    class Mine(LeanStatement):
        pass

    text = "import Pyfed\ntheorem T (a : ℝ) (h : 0 ≤ a) : 0 ≤ a * a ∧ a ≤ a := by sorry\n"
    decls = read_declarations(text, "t.lean")
    namespace, cmd, variables = decls.theorems["T"]
    out = statements_from("T", namespace, cmd, variables, decls, text, "t.lean", statement_class=Mine,
                          family=lambda params, hyps: f"{len(params)} parameter, {len(hyps)} hypothesis")
    assert [(type(st), st.name, st.family, st.relation) for st in out] == [
        (Mine, "T.1", "1 parameter, 1 hypothesis", "≤"), (Mine, "T.2", "1 parameter, 1 hypothesis", "≤")]
