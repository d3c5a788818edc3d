"""Certificate files (pyfed.lean.certificates): the committed JSON certificates verify exactly
against freshly built problems, the Lean files are their renderings, and a Python re-evaluation of
the Lean file's ℚ checks gives the exact verifier's answer, also on corrupted numbers."""

import json
import re
from pathlib import Path

import pytest

from pyfed.engines.pep.certificate import form_json, verify_certificate
from pyfed.certificates import CERTIFIED, certificate_from_json
from pyfed.lean.certificates import check_certificate_text, parse_certificate_lean, python_check, render_certificate

GEN = Path(__file__).resolve().parents[1] / "lean" / "PyfedTest" / "Generated"


def _record(name):
    return json.loads((GEN / f"Certificate_{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(CERTIFIED))
def test_committed_certificate_verifies_and_describes_the_fresh_problem(name):
    rec = _record(name)
    build, tau = CERTIFIED[name]
    pep = build()
    assert rec["leaves"] == pep.leaves and rec["metric"] == form_json(pep.metric) and rec["init"] == form_json(pep.init)
    assert [c["form"] for c in rec["constraints"]] == [form_json(f) for _, f in pep.constraints]
    cert = certificate_from_json(rec)
    assert cert.tau == tau and verify_certificate(pep, cert).ok


@pytest.mark.parametrize("name", sorted(CERTIFIED))
def test_lean_file_is_the_rendering_and_its_checks_pass_in_python(name):
    text = (GEN / f"Certificate_{name}.lean").read_text(encoding="utf-8")
    assert text == render_certificate(_record(name))
    assert len(re.findall(r"(?m)^#guard ", text)) == 6
    assert check_certificate_text(text) == {"formsWellFormed": True, "multipliersNonneg": True, "qSymmetric": True, "identityHolds": True,
                                            "psdByLDL": True, "check": True}
    data = parse_certificate_lean(text)
    assert data["tau"] == CERTIFIED[name][1] and data["n"] == len(_record(name)["leaves"])


def _corrupt(rec, what):
    rec = json.loads(json.dumps(rec))
    if what == "multiplier":
        c = next(c for c in rec["constraints"] if c["multiplier"] != "0")
        c["multiplier"] = c["multiplier"] + "1" if "/" not in c["multiplier"] else "1/" + c["multiplier"].split("/")[1]
    elif what == "negative":
        c = next(c for c in rec["constraints"] if c["multiplier"] != "0")
        c["multiplier"] = "-" + c["multiplier"]
    else:
        n = len(rec["Q"])
        a = max(range(n), key=lambda i: rec["Q"][i][i] != "0")
        rec["Q"][a][a] = "-1" if what == "pivot" else rec["Q"][a][a] + "7"
    return rec


@pytest.mark.parametrize("what, failing", [("multiplier", "identityHolds"), ("negative", "multipliersNonneg"),
                                           ("entry", "identityHolds"), ("pivot", "psdByLDL")])
def test_python_lean_checks_agree_with_the_verifier_on_corrupted_certificates(what, failing):
    name = "ConvexFiniteRoundConvergence"
    bad = _corrupt(_record(name), what)
    res = check_certificate_text(render_certificate(bad))
    assert res["check"] is False and res[failing] is False
    pep = CERTIFIED[name][0]()
    assert not verify_certificate(pep, certificate_from_json(bad)).ok


def test_python_check_ldl_matches_the_verifier_on_small_matrices():
    from fractions import Fraction as F

    from pyfed.engines.pep.certificate import ldl_pivots
    for Q in ([[F(1), F(2)], [F(2), F(4)]], [[F(1), F(2)], [F(2), F(3)]], [[F(0), F(0)], [F(0), F(1)]],
              [[F(0), F(1)], [F(1), F(5)]], [[F(2), F(-1), F(0)], [F(-1), F(2), F(-1)], [F(0), F(-1), F(2)]]):
        c = {"n": len(Q), "nF": 0, "tau": F(0), "slack": F(0), "metric": {"gram": [], "fval": [], "const": F(0)},
             "init": {"gram": [], "fval": [], "const": F(0)}, "constraints": [], "Q": Q}
        assert python_check(c)["psdByLDL"] == (ldl_pivots(Q) is not None)


def test_a_form_entry_outside_the_basis_fails_the_check_though_the_identity_cannot_see_it():
    """metric = ⟪v 1, v 1⟫ over n = 1 vector (or ⟪v 1, v 0⟫ written with a > b over n = 2): the
    coefficient-by-coefficient identity never looks at that entry, so without the well-formedness
    check a certificate of `metric ≤ 0` would pass."""
    from fractions import Fraction as F

    zero = {"gram": [], "fval": [], "const": F(0)}
    for n, entry in ((1, (1, 1, F(1))), (2, (1, 0, F(1))), (1, None)):
        metric = {"gram": [entry] if entry else [], "fval": [], "const": F(0)}
        c = {"n": n, "nF": 0, "tau": F(0), "slack": F(0), "metric": metric, "init": zero, "constraints": [],
             "Q": [[F(0)] * n for _ in range(n)]}
        res = python_check(c)
        assert res["identityHolds"] is True
        assert res["formsWellFormed"] is (entry is None) and res["check"] is (entry is None)
