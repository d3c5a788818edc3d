"""The JSON report (:mod:`pyfed.report`): one schema for the default suite and for Lean files,
the user's statements under ``statements`` like ours, summary counts, no clock readings unless
``--timing`` (then under ``timing``), byte-identical for any number of workers."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from cli_helpers import run_cli
from pyfed.report import SCHEMA, _split_timing, statement_status, verdict_counts
from pyfed.verdicts import Evidence, Holds, Inconclusive, Violated

ROOT = Path(__file__).resolve().parents[1]
YOUNG = ROOT / "examples" / "statements" / "young_small_constant.lean"
KEYS = {"schema", "pyfed", "seed", "quick", "replicates", "budget", "files", "verdicts", "statements", "summary"}


def _v(kind, certified=True):
    one = Fraction(1)
    if kind == "holds":
        return Holds("S", one, 2 * one, certified, {}, evidence=Evidence.EXACT if certified else Evidence.MONTE_CARLO)
    if kind == "violated":
        return Violated("S", 2 * one, one, certified, {}, evidence=Evidence.SEARCH if certified else Evidence.MONTE_CARLO)
    return Inconclusive("S", None, None, True, {}, reason="r")


def test_counts_split_holds_and_violations_by_certification():
    vs = [_v("holds"), _v("holds", False), _v("violated"), _v("violated", False), _v("inconclusive")]
    assert verdict_counts(vs) == {"holds": 2, "certified": 1, "numerical": 1, "violated": 2, "violated_exact": 1,
                                  "inconclusive": 1}
    assert statement_status(vs) == "violated"
    # rows that hold never make a statement hold: only a complete proof does
    assert statement_status([_v("holds"), _v("holds", False)]) == "inconclusive"
    assert statement_status([_v("holds"), _v("inconclusive")]) == "inconclusive"
    assert statement_status([]) == "inconclusive"
    from pyfed.engines.proof.proof import Proof
    whole, part = Proof("S", "published"), Proof("S", "certificate", scope="N = 2", complete=False)
    assert statement_status([_v("inconclusive")], whole) == "holds"
    assert statement_status([], whole) == "holds"
    assert statement_status([_v("holds")], part) == "inconclusive"
    assert statement_status([_v("violated")], whole) == "violated"


def test_clock_readings_are_moved_out_wherever_they_sit():
    doc = {"a": 1, "pep": {"solve_time_s": 0.25, "status": "optimal", "rows": [{"verify_s": 1.5, "n": 2}]},
           "seconds": 3, "reason": "x_s"}
    clean, found = _split_timing(doc)
    assert clean == {"a": 1, "pep": {"status": "optimal", "rows": [{"n": 2}]}, "reason": "x_s"}
    assert found == {"pep.solve_time_s": 0.25, "pep.rows.0.verify_s": 1.5, "seconds": 3}


def test_a_file_report_has_the_default_schema_and_the_users_statements(tmp_path):
    rep = tmp_path / "r.json"
    code, out, err = run_cli(["check", str(YOUNG), "--quick", "--json", str(rep)])
    assert code == 1, err
    doc = json.loads(rep.read_text(encoding="utf-8"))
    assert set(doc) == KEYS and doc["schema"] == SCHEMA
    assert doc["files"] == [str(YOUNG)] and doc["budget"] == 8 and doc["quick"] is True
    (entry,) = doc["statements"]
    assert entry["lean_name"] == "YoungHalfConstant" and entry["status"] == "violated"
    assert entry["source"].endswith("young_small_constant.lean:" + entry["source"].rsplit(":", 1)[1])
    assert [doc["verdicts"][i]["status"] for i in entry["verdicts"]] == ["violated"]
    assert entry["read"]["shape"] == "lemma"
    assert doc["summary"]["statements"] == {"holds": 0, "violated": 1, "inconclusive": 0, "total": 1}
    assert doc["summary"]["verdicts"]["violated_exact"] == 1 and doc["summary"]["verdicts"]["total"] == 1


def test_timing_needs_json_and_goes_under_one_key(tmp_path):
    code, _, err = run_cli(["check", str(YOUNG), "--quick", "--timing"])
    assert code == 2 and "--timing" in err and "--json" in err
    code, _, err = run_cli(["check", "--quick", "--timing"])
    assert code == 2 and "--timing" in err


def test_timing_covers_run_free_statements(tmp_path):
    """A run-free statement records no solver time of its own: --timing still gives its engines'
    wall-clock seconds, under its name, and nothing else changes."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run_cli(["check", str(YOUNG), "--quick", "--json", str(a), "--timing"])[0] == 1
    timed = json.loads(a.read_text(encoding="utf-8"))
    clocks = timed.pop("timing")
    (key,) = clocks["YoungHalfConstant"]
    assert key == "engine.adversarial search.wall_s"
    assert run_cli(["check", str(YOUNG), "--quick", "--json", str(b)])[0] == 1
    assert timed == json.loads(b.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_a_run_statement_report_is_byte_identical_for_any_workers(tmp_path, seed_file_check):
    """The seed's convex statement (built-in rows, search, PEP row, constant profile): serial and
    two workers write the same bytes; --timing adds only the 'timing' key (the PEP solve)."""
    seed = ROOT / "examples" / "statements" / "seed_convex.lean"
    b, c = tmp_path / "b.json", tmp_path / "c.json"
    code, _, _, a = seed_file_check            # the same command serially: --quick --budget 2 --json a
    assert code == 0
    assert run_cli(["check", str(seed), "--quick", "--budget", "2", "--json", str(b), "--workers", "2"])[0] == 0
    assert a.read_bytes() == b.read_bytes()
    assert run_cli(["check", str(seed), "--quick", "--budget", "2", "--json", str(c), "--timing"])[0] == 0
    timed = json.loads(c.read_text(encoding="utf-8"))
    clocks = timed.pop("timing")
    assert clocks and all(isinstance(x, (int, float)) for t in clocks.values() for x in t.values())
    assert timed == json.loads(a.read_text(encoding="utf-8"))
