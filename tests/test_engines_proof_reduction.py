"""Reduction to the published statements with accepted proofs (pyfed.engines.proof.reduction):
each of the nine published statements, read as a user's file, holds (published, proved); an
edited copy with a weaker right side holds by reduction; one with a stronger right side does not.
The SCAFFOLD run statements take about a second each (marked slow)."""

from __future__ import annotations

import re

import pytest

from pyfed.engines.proof.engine import prove_statement
from pyfed.lean.paths import source_lean_dir
from pyfed.models.registry import published_proof_forms, published_statements, read_text

PUBLISHED = source_lean_dir() / "PyfedPublished"

#: published theorem -> (file, [(text, weaker text, stronger text)])
EDITS = {
    "ConvexFiniteRoundConvergence": ("Scaffold", [("≤ convexRHS P S K T ηl ηg μ c0 xstar",
                                                   "≤ 2 * convexRHS P S K T ηl ηg μ c0 xstar",
                                                   "≤ 1 / 2 * convexRHS P S K T ηl ηg μ c0 xstar")]),
    "NonconvexFiniteRoundConvergence": ("Scaffold", [("≤ nonconvexRHS P S K T ηl ηg fLower",
                                                      "≤ 2 * nonconvexRHS P S K T ηl ηg fLower",
                                                      "≤ 1 / 2 * nonconvexRHS P S K T ηl ηg fLower")]),
    "FiniteRoundConvergence": ("Scaffold", [("≤ convexRHS P S K T ηl ηg μ c0 xstar",
                                             "≤ 2 * convexRHS P S K T ηl ηg μ c0 xstar",
                                             "≤ 1 / 2 * convexRHS P S K T ηl ηg μ c0 xstar"),
                                            ("≤ nonconvexRHS P S K T ηl ηg fLower",
                                             "≤ 2 * nonconvexRHS P S K T ηl ηg fLower",
                                             "≤ 1 / 2 * nonconvexRHS P S K T ηl ηg fLower")]),
    "GradientGrowth": ("Scaffold", [("2 * P.β * (objective", "4 * P.β * (objective", "P.β * (objective")]),
    "PerturbedStrongConvexity": ("Scaffold", [("(z - y) := by sorry", "(z - y) + ‖y - z‖ ^ 2 := by sorry",
                                               "(z - y) - ‖y - z‖ ^ 2 := by sorry")]),
    "PerRoundProgress": ("FedAvg", [("progressRHS R t := by sorry", "fun ω => 2 * progressRHS R t ω := by sorry",
                                     "fun ω => progressRHS R t ω / 2 := by sorry")]),
    "BoundedClientDrift": ("FedAvg", [("fun _ ↦ driftRHS P τ η", "fun _ ↦ 2 * driftRHS P τ η",
                                       "fun _ ↦ driftRHS P τ η / 2")]),
    "ConvexFedAvgConvergence": ("FedAvg", [("≤ convergenceRHS P τ T η", "≤ 2 * convergenceRHS P τ T η",
                                            "≤ convergenceRHS P τ T η / 2")]),
    "TunedConvexFedAvgConvergence": ("FedAvg", [("≤ optimizedRHS P τ T", "≤ 2 * optimizedRHS P τ T",
                                                 "≤ optimizedRHS P τ T / 2")]),
}
#: every case but one is over a second (the published forms are read once per process): slow
SLOW = set(EDITS) - {"BoundedClientDrift"}


def _cases():
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in EDITS]


def _user_file(name, which=None):
    """The published theorem ``name`` as a user's file (``import Pyfed``), edited: ``which`` is
    1 (weaker right side), 2 (stronger) or None."""
    stem, edits = EDITS[name]
    text = (PUBLISHED / f"{stem}.lean").read_text(encoding="utf-8")
    head = "import Pyfed\n\nopen MeasureTheory\nuniverse u\n\nnamespace Mine\n\nopen " + \
        ("SCAFFOLD" if stem == "Scaffold" else "FedAvg") + "\n\n"
    block = re.search(r"theorem " + name + r" :.*?:= by sorry\n", text, re.S).group(0)
    for old, weaker, stronger in edits:
        assert old in block
        if which is not None:
            block = block.replace(old, (weaker, stronger)[which - 1])
    return head + block + "\nend Mine\n"


def _proofs(text):
    forms = published_proof_forms()
    return [prove_statement(st, forms=forms) for st in read_text(text)]


def test_nine_published_statements_each_with_its_accepted_proof():
    recs = {rec.lean_name for rec, _st in published_statements()}
    assert recs == {f"SCAFFOLD.{n}" for n in list(EDITS)[:5]} | {f"FedAvg.{n}" for n in list(EDITS)[5:]}
    for rec, _st in published_statements():
        short = rec.lean_name.split(".")[1]
        assert rec.proof == (f"prove2me/formalpedia, envs/c5ea003/Solutions/Sol_{rec.lean_name.split('.')[0]}_{short}"
                             ".lean (status: ACCEPTED)")


@pytest.mark.parametrize("name", _cases())
def test_a_published_statement_as_a_user_file_holds_published_proved(name):
    outs = _proofs(_user_file(name))
    assert outs and all(o.proof is not None and o.proof.kind == "published" for o in outs)
    assert all(o.proof.label == "holds (published, proved)" for o in outs)


@pytest.mark.parametrize("name", _cases())
def test_a_weaker_right_side_holds_by_reduction_and_a_stronger_one_does_not(name):
    weaker = _proofs(_user_file(name, 1))
    assert all(o.proof is not None and o.proof.kind == "reduction" for o in weaker)
    assert all("right side" in o.proof.summary for o in weaker)
    stronger = _proofs(_user_file(name, 2))
    assert all(o.proof is None for o in stronger)
    assert all(any("right-side domination undecided" in a.reason for a in o.attempts) for o in stronger)
