"""The model's vocabulary read from its Lean files (:mod:`pyfed.statements.vocabulary`): the
namespaces come from the sources, so a new procedure's namespace needs no edit in Python."""

from __future__ import annotations

import pytest

from pyfed import read_text
from pyfed.statements.declarations import ReaderError
from pyfed.statements.vocabulary import model_declarations, model_namespaces


def test_the_namespaces_are_those_of_the_lean_sources_the_first_models_first():
    assert model_namespaces() == ("SCAFFOLD", "FedAvg", "FedAvgProcedure", "FedProxProcedure")
    decls = model_declarations()
    assert {"FedProxProcedure.fedProx", "FedProxProcedure.fedProxRound", "FedProxProcedure.proxPath",
            "FedProxProcedure.proxOracle"} <= set(decls)
    # FedProx's recursion is read by cases on the round, as FedAvg's
    assert [c.pattern[0] for c in decls["FedProxProcedure.fedProx"].cases[1]] == ["nat0", "succ"]


def test_a_bare_name_of_a_new_namespace_gets_the_hint_to_open_it():
    text = ("import Pyfed\nopen SCAFFOLD (Space LocalOracle)\n"
            "theorem T {d N : ℕ} (S K : ℕ) (ηl ηg μ : ℝ) (oracle : ℕ → Fin N → LocalOracle d) "
            "(samples : ℕ → Finset (Fin N)) (x0 : Space d) : fedProx S K ηl ηg μ oracle samples x0 0 = x0 := by sorry\n")
    with pytest.raises(ReaderError) as exc:
        read_text(text, "hint.lean")
    assert "add `open FedProxProcedure` or write FedProxProcedure.fedProx" in str(exc.value)
