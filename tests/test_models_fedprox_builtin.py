"""FedProx's built-in instances (:mod:`pyfed.models.fedprox.builtin`): a statement whose parameters
are all the procedure's arguments binds them and gets one exactly decided row each; a parameter
in no role, or a failing hypothesis, skips the instance with the reason."""

from __future__ import annotations

from fractions import Fraction as Fr

from pyfed import read_text
from pyfed.models.fedprox.builtin import BUILTIN, bind, rows
from pyfed.statements.interpret import vec

HEAD = "import Pyfed\nopen SCAFFOLD (Space LocalOracle)\nopen FedProxProcedure\n"
ARGS = ("{d N : ℕ} (S K : ℕ) (ηl ηg μ : ℝ) (oracle : ℕ → Fin N → LocalOracle d) (samples : ℕ → Finset (Fin N)) "
        "(x0 : Space d) (r : ℕ)")


def _st(conclusion, extra="", hyps=""):
    (st,) = read_text(HEAD + f"theorem T {ARGS}{extra}{hyps} :\n    {conclusion} := by sorry\n", "b.lean")
    return st


def test_the_procedure_s_arguments_bind_the_instance():
    st = _st("fedProx S K ηl ηg μ oracle samples x0 r = x0")
    env, why = bind(st, BUILTIN[1])
    assert why is None
    assert (env["N"], env["d"], env["S"], env["K"], env["ηl"], env["ηg"], env["μ"], env["r"]) == \
        (2, 1, 1, 2, Fr(1, 2), Fr(3, 2), Fr(1), 2)
    assert env["x0"] == vec([1]) and env["samples"](0) == frozenset({1}) and env["samples"](1) == frozenset({0})
    # round 0, client 1 (f = 3y²/2), call 0 at y = 1: 3 + the offset 1/2
    assert env["oracle"](0)(1)(0)(vec([1])) == vec([Fr(7, 2)])


def test_rows_hand_values_and_skips():
    # x2 of the noisy instance is 29/32 (tests/test_models_fedprox.py derives it by hand): the first
    # statement holds on it, the second (x_T = x0) is violated on both instances
    st = _st("‖fedProx S K ηl ηg μ oracle samples x0 r‖ ^ 2 ≤ (29 / 32) ^ 2")
    verdicts, skipped = rows(st)
    noisy = next(v for v in verdicts if v.details["instance"] == "fedprox-noisy-N2-d1")
    assert noisy.status == "holds" and noisy.certified and (noisy.lhs, noisy.rhs) == (Fr(841, 1024), Fr(841, 1024))
    assert skipped == []
    verdicts, _ = rows(_st("fedProx S K ηl ηg μ oracle samples x0 r = x0"))
    assert [v.status for v in verdicts] == ["violated", "violated"] and all(v.certified for v in verdicts)
    _, skipped = rows(_st("fedProx S K ηl ηg μ oracle samples x0 r = x0", hyps=" (hμ : μ = 0)"))
    assert skipped == [(i.name, "outside the statement's hypotheses (hμ fails)") for i in BUILTIN]
    _, skipped = rows(_st("fedProx S K ηl ηg μ oracle samples x0 r = x0 + c • x0", extra=" (c : ℝ)"))
    assert skipped[0][1] == "`c` is not an argument of the FedProx procedure, so the instance gives it no value"
