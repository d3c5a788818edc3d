"""JUnit XML and HTML reports, built from the JSON report document: one test case per statement
(violated: a failure with the witness; inconclusive: skipped with the reason; holds: passed), the
XML valid against the JUnit schema CI servers read (tests/data/junit.xsd), the HTML self-contained."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from pyfed.cli import main
from pyfed.report_formats import html_report, junit_xml, side_text, statement_groups

HERE = Path(__file__).resolve().parent
XSD = HERE / "data" / "junit.xsd"
EXAMPLES = HERE.parent / "examples" / "statements"


def _row(status, label, lhs, rhs, ratio, evidence, **details):
    return {"statement": details.pop("statement", "S"), "status": status, "label": label, "lhs": lhs, "rhs": rhs,
            "ratio": ratio, "margin": None, "evidence": evidence, "certified": status != "inconclusive",
            "details": details, **({"reason": details.pop("reason")} if "reason" in details else {})}


DOC = {
    "schema": "pyfed-report/2", "pyfed": "0.1.0", "seed": 0, "quick": True, "replicates": 64, "budget": 8,
    "files": ["a.lean"],
    "verdicts": [
        _row("violated", "violated", {"exact": "2", "float": 2.0}, {"exact": "3/2", "float": 1.5},
             {"exact": "4/3", "float": 4 / 3}, "adversarial search, decided exactly",
             instance="adversarial search (1 exactly decided instance)", index=0,
             description="u = v = (1), a = 2", witness_text="left side 2 > right side 3/2"),
        _row("holds", "holds (numerical)", {"estimate": 0.5, "interval": [0.49, 0.51], "confidence": 0.999,
                                            "replicates": 64}, {"float": 1.0},
             {"estimate": 0.5, "interval": [0.49, 0.51], "confidence": 0.999}, "Monte Carlo", instance="logistic"),
        _row("holds", "holds", {"float": 0.25}, {"exact": "81/2", "float": 40.5}, {"float": 0.0061},
             "PEP certificate over the class", instance="PEP worst case N=2",
             pep_certificate={"verified": True, "tau": "81/2", "gram_size": 11}),
        _row("inconclusive", "inconclusive", None, None, None, None, instance="adversarial search (44 instances)",
             reason="no counterexample among 44 exactly decided instances"),
        _row("holds", "holds", {"exact": "1", "float": 1.0}, {"exact": "2", "float": 2.0},
             {"exact": "1/2", "float": 0.5}, "exact rationals", instance="built-in quadratic", statement="Builtin"),
    ],
    "statements": [
        {"lean_name": "Young", "statement": "Young", "source": "a.lean:3", "family": "vector lemma",
         "status": "violated", "verdicts": [0], "exports": ["ce/Young-s0-c0.json"]},
        {"lean_name": "Convex", "statement": "Convex", "source": "a.lean:9", "family": "SCAFFOLD run",
         "status": "holds", "verdicts": [1, 2]},
        {"lean_name": "Open", "statement": "Open", "source": "b.lean:4", "family": "sequence lemma",
         "status": "inconclusive", "verdicts": [3]},
        {"lean_name": "Never", "statement": "Never", "source": "b.lean:12", "family": "scalar lemma",
         "status": "inconclusive", "verdicts": [], "vacuous": True, "vacuous_reason": "0 < a and a < 0"},
    ],
    "summary": {"statements": {"holds": 1, "violated": 1, "inconclusive": 2, "total": 4},
                "verdicts": {"holds": 3, "certified": 2, "numerical": 1, "violated": 1, "inconclusive": 1, "total": 5}},
}


def test_groups_follow_the_files_and_loose_rows_get_their_own():
    groups = statement_groups(DOC)
    assert [g for g, _ in groups] == ["built-in theorem instances", "a.lean", "b.lean"]
    (entry, rows), = groups[0][1]
    assert rows == [DOC["verdicts"][4]] and entry["lean_name"] == "Builtin [built-in quadratic]"


def test_junit_one_case_per_statement_failure_skipped_pass():
    xml = junit_xml(DOC)
    root = ET.fromstring(xml)
    assert (root.get("tests"), root.get("failures"), root.get("skipped"), root.get("errors")) == ("5", "1", "2", "0")
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {"Builtin [built-in quadratic]", "Young", "Convex", "Open", "Never"}
    fail = cases["Young"].find("failure")
    assert fail.get("message") == "left side 2 > right side 3/2" and fail.get("type") == "violated"
    assert "u = v = (1), a = 2" in fail.text and "ce/Young-s0-c0.json" in fail.text
    assert (cases["Young"].get("file"), cases["Young"].get("line")) == ("a.lean", "3")
    assert cases["Convex"].find("failure") is None and cases["Convex"].find("skipped") is None
    assert "no counterexample among 44" in cases["Open"].find("skipped").get("message")
    assert cases["Never"].find("skipped").get("message") == "vacuous: 0 < a and a < 0"


def test_junit_validates_against_the_schema():
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (the test extra) validates JUnit XML")
    schema = xmlschema.XMLSchema(str(XSD))
    schema.validate(junit_xml(DOC))
    # the schema is no rubber stamp: a case without a name, a suite without tests are refused
    assert not schema.is_valid('<testsuites><testsuite name="x" tests="1"><testcase/></testsuite></testsuites>')
    assert not schema.is_valid('<testsuites><testsuite name="x"/></testsuites>')
    # characters XML cannot hold never reach the file
    doc = json.loads(json.dumps(DOC))
    doc["verdicts"][0]["details"]["witness_text"] = "bad \x01 byte"
    schema.validate(junit_xml(doc))


@pytest.mark.slow
def test_html_is_self_contained_with_tables_plots_witness_and_certificate():
    page = html_report(DOC, base_dir=None)
    assert page.startswith("<!DOCTYPE html>") and page.count("<table") >= 5
    assert "<svg" in page and "left side / right side" in page          # the plot, inline
    assert 'class="witness"' in page and "u = v = (1), a = 2" in page
    assert "PEP certificate" in page and "verified exactly" in page
    assert "vacuous" in page.lower() and "0 &lt; a and a &lt; 0" in page
    assert not re.search(r"""(src|href)=["']https?:""", page)           # nothing fetched from a network
    assert "<script" not in page


def test_side_text():
    assert side_text({"exact": "3/2", "float": 1.5}) == "3/2"
    assert side_text({"exact": "1" * 50, "float": 1.0}).endswith("(exact: 50 characters)")
    assert side_text({"estimate": 0.5, "interval": [0.4, 0.6], "confidence": 0.999}) == "0.5 (99.9% interval [0.4, 0.6])"
    assert side_text(None) == "-"


def test_check_writes_all_three_reports(tmp_path, capsys):
    xml, page, js = tmp_path / "r.xml", tmp_path / "r.html", tmp_path / "r.json"
    code = main(["check", str(EXAMPLES / "young_small_constant.lean"), "--quick", "--junit-xml", str(xml),
                 "--html", str(page), "--json", str(js)])
    assert code == 1
    out = capsys.readouterr().out
    assert f"JUnit XML report written to {xml}" in out and f"HTML report written to {page}" in out
    root = ET.parse(xml).getroot()
    case = next(root.iter("testcase"))
    assert case.get("name") == "YoungHalfConstant" and case.find("failure") is not None
    assert json.loads(js.read_text())["summary"]["statements"]["violated"] == 1
    assert "YoungHalfConstant" in page.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.lean")), ids=lambda p: p.name)
def test_every_example_gives_valid_junit_and_html(path, tmp_path):
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (the test extra) validates JUnit XML")
    xml, page = tmp_path / "r.xml", tmp_path / "r.html"
    code = main(["check", str(path), "--quick", "--no-profile", "--junit-xml", str(xml), "--html", str(page)])
    assert code in (0, 1)
    xmlschema.XMLSchema(str(XSD)).validate(str(xml))
    root = ET.parse(xml).getroot()
    assert int(root.get("failures")) == (code == 1)
    assert page.read_text().count("<section") == int(root.get("tests"))
