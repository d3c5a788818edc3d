"""What the reports of ``pyfed check`` print: verdict labels (certified vs numerical holds), the
digits of Monte Carlo estimates, user text kept verbatim through rich, several Lean files in one
run, table width off a terminal, parameter lines."""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from pyfed.cli import main
from pyfed.verdicts import Holds, Inconclusive, Violated

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "statements"


def _run(argv):
    """(exit status, stdout, stderr) of ``pyfed`` with ``argv``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def no_noise(tmp_path_factory):
    """One quick run on examples/statements/convex_no_noise.lean: exact, Monte Carlo, search and
    PEP rows (≈ 4 s)."""
    rep = tmp_path_factory.mktemp("nn") / "r.json"
    code, out, _ = _run(["check", str(EXAMPLES / "convex_no_noise.lean"), "--quick", "--no-profile",
                         "--budget", "1", "--json", str(rep)])
    return code, out, json.loads(rep.read_text())


# ---------------------------------------------------------------- 1. honest labels

def test_labels_of_hand_made_verdicts():
    est = {"mean": 1.0, "lower": 0.9, "upper": 1.1, "confidence": 0.999, "replicates": 64}
    exact = Holds("S", Fraction(1), Fraction(2), True)
    mc = Holds("S", 1.0, Fraction(2), False, {"estimate": est})
    assert (exact.certified, exact.label) == (True, "holds")
    assert (mc.certified, mc.label, mc.status) == (False, "holds (numerical)", "holds")
    assert Violated("S", Fraction(3), Fraction(2), True).label == "violated"
    assert Violated("S", 3.0, Fraction(2), False, {"estimate": est}).label == "violated (statistical)"
    assert Violated("S", 3.0, 2.0, False).label == "violated (numerical)"
    inc = Inconclusive("S", Fraction(1), Fraction(1), True, reason="x")
    assert (inc.certified, inc.label) == (False, "inconclusive")
    j = mc.to_json()
    assert (j["status"], j["certified"], j["label"]) == ("holds", False, "holds (numerical)")


def test_monte_carlo_and_pep_rows_are_numerical_exact_row_certified(no_noise):
    code, out, report = no_noise
    assert code == 1
    rows = {v["details"]["instance"].split(" ")[0]: v for v in report["verdicts"]}
    assert rows["quadratic-rational-N8-d4"]["certified"] is True
    assert rows["quadratic-rational-N8-d4"]["label"] == "holds"
    mc = rows["logistic-breast_cancer-dirichlet0.5"]
    assert (mc["status"], mc["certified"], mc["label"]) == ("holds", False, "holds (numerical)")
    pep = rows["PEP"]
    assert (pep["status"], pep["certified"], pep["label"]) == ("holds", False, "holds (numerical)")
    search = rows["adversarial"]
    assert (search["status"], search["certified"], search["label"]) == ("violated", True, "violated")
    assert out.count("holds (numerical)") == 2
    assert "3 holds (1 certified, 2 numerical: 1 Monte Carlo, 1 PEP SDP), 1 violated, 0 inconclusive" in " ".join(out.split())
