"""Which theorems the FedProx model claims (:mod:`pyfed.models.fedprox.reader`): those whose
terms use ``FedProxProcedure``'s definitions as Lean resolves the names where the theorem stands
(opened, qualified, or through a def of the file), and no other (they stay the run-free model's)."""

from __future__ import annotations

import pytest

from pyfed import read_text
from pyfed.statements.declarations import ReaderError

HEAD = "import Pyfed\nopen SCAFFOLD (Space LocalOracle)\n"
ARGS = ("{d N : ℕ} (S K : ℕ) (ηl ηg μ : ℝ) (oracle : Fin N → LocalOracle d) (sample : Finset (Fin N)) "
        "(x : Space d)")


def _shapes(text):
    return {st.name: (st.shape, st.family) for st in read_text(HEAD + text, "claims.lean")}


def test_opened_and_qualified_uses_are_claimed():
    text = (f"open FedProxProcedure in\ntheorem A {ARGS} : fedProxRound S K ηl ηg μ oracle sample x = x := by sorry\n"
            f"theorem B {ARGS} (i : Fin N) : FedProxProcedure.proxPath ηl μ x (oracle i) K = x := by sorry\n")
    assert _shapes(text) == {"A": ("fedprox_procedure", "FedProx procedure lemma"),
                      "B": ("fedprox_procedure", "FedProx procedure lemma")}


def test_a_use_through_a_def_of_the_file_is_claimed():
    text = (f"open FedProxProcedure\nnoncomputable def step {{d N : ℕ}} (ηl μ : ℝ) (oracle : Fin N → LocalOracle d) "
            "(sample : Finset (Fin N)) (x : Space d) : Space d := fedProxRound 1 1 ηl 1 μ oracle sample x\n"
            "noncomputable def twice {d N : ℕ} (ηl μ : ℝ) (oracle : Fin N → LocalOracle d) (sample : Finset (Fin N)) "
            "(x : Space d) : Space d := step ηl μ oracle sample (step ηl μ oracle sample x)\n"
            "theorem C {d N : ℕ} (ηl μ : ℝ) (oracle : Fin N → LocalOracle d) (sample : Finset (Fin N)) (x : Space d) :\n"
            "    ‖twice ηl μ oracle sample x‖ ^ 2 = ‖twice ηl μ oracle sample x‖ ^ 2 := by sorry\n")
    assert _shapes(text) == {"C": ("fedprox_procedure", "FedProx procedure lemma")}


def test_theorems_without_fedprox_stay_run_free():
    text = ("namespace SCAFFOLD\n"
            "theorem D {d : ℕ} (ηl : ℝ) (x : Space d) (oracle : LocalOracle d) : localPath ηl x 0 oracle 0 = x := by sorry\n"
            "theorem E (fedProx : ℝ) (h : 0 ≤ fedProx) : 0 ≤ fedProx := by sorry\nend SCAFFOLD\n")
    assert _shapes(text) == {"D": ("lemma", "procedure lemma"), "E": ("lemma", "scalar lemma")}


def test_a_misused_fedprox_name_is_reported_where_it_stands():
    with pytest.raises(ReaderError, match=r"claims.lean:4:\d+: unsupported argument `oracle`"):
        read_text(HEAD + f"open FedProxProcedure\ntheorem F {ARGS} : fedProxRound S K ηl oracle sample x = x := by sorry\n",
                  "claims.lean")
