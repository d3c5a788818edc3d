"""pyfed search on the one pipeline: the statement read from pyfed's Lean files (mutated or relaxed
as a Lean-text variant), deterministic JSON export, exact read-back, CLI wiring, run_all."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from pyfed import __version__
from pyfed.checkers.registry import catalogue
from pyfed.commands.search import register, run
from pyfed.export import WITNESS_SCHEMA
from pyfed.errors import InputError
from pyfed.search import (file_stem, load_record, recheck, search_to_dir,
                          statement_options, statement_verdicts_json)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read_all(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


def test_lemma_export_contents_and_exact_readback(tmp_path):
    paths = search_to_dir("SumSquares", seed=5, budget=3, out=str(tmp_path), mutate="factor_m_minus_1")
    assert paths == [str(tmp_path / "SumSquares-s5-b3-mutate-factor_m_minus_1-000.json")]
    rec = load_record(paths[0])
    assert rec["schema"] == WITNESS_SCHEMA and rec["statement"] == "SumSquares" and rec["shape"] == "lemma"
    assert rec["seed"] == 5 and rec["budget"] == 3 and rec["pyfed_version"] == __version__
    assert rec["mutate"] == "factor_m_minus_1" and rec["family"] == "vector lemma"
    lhs, rhs, margin = (Fraction(rec[k]["exact"]) for k in ("lhs", "rhs", "margin"))
    assert margin == rhs - lhs < 0
    # the instance is exact JSON: every number a "p/q" string, read back and re-decided exactly
    assert "float" not in json.dumps(rec["instance"])
    again = recheck(paths[0])
    assert again.status == "violated" and (again.lhs, again.rhs) == (lhs, rhs)
    text = open(paths[0], encoding="utf-8").read()
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"
    summary = json.loads((tmp_path / "SumSquares-s5-b3-mutate-factor_m_minus_1-summary.json").read_text())
    assert summary["counterexamples"] == 1 and summary["statistics"]["violated"] >= 1


@pytest.mark.slow
def test_same_seed_same_bytes_across_processes(tmp_path):
    """Two fresh interpreters (different hash seeds) write byte-identical files."""
    code = ("import sys; from pyfed.search import search_to_dir; "
            "search_to_dir('MartingaleDifferenceBound', seed=3, budget=2, out=sys.argv[1], mutate='constants_2_to_1'); "
            "search_to_dir('YoungInner', seed=3, budget=2, out=sys.argv[1])")
    outs = []
    for i, hs in enumerate(("1", "777")):
        d = tmp_path / f"run{i}"
        env = dict(os.environ, PYTHONHASHSEED=hs)
        subprocess.run([sys.executable, "-c", code, str(d)], check=True, cwd=ROOT, env=env, timeout=300)
        outs.append(_read_all(d))
    assert outs[0] and outs[0] == outs[1]
    assert "MartingaleDifferenceBound-s3-b2-mutate-constants_2_to_1-000.json" in outs[0]
    assert file_stem("X", 4, 3) != file_stem("X", 3, 3)


@pytest.mark.slow
def test_run_statement_with_a_relaxed_hypothesis(tmp_path):
    paths = search_to_dir("ConvexFiniteRoundConvergence", seed=0, budget=1, out=str(tmp_path), relax=["step_size"])
    assert paths
    rec = load_record(paths[0])
    assert rec["relax"] == ["step_size"] and rec["schema"] == "pyfed.counterexample/1"
    v = recheck(paths[0])
    assert v.status == "violated" and v.exact
    # no Lean file: the relaxed statement is not the Lean statement
    assert not any(f.endswith(".lean") for f in os.listdir(tmp_path))


@pytest.mark.slow
def test_run_statement_counterexample_has_a_lean_file(tmp_path):
    paths = search_to_dir("ConvexFiniteRoundConvergence", seed=0, budget=1, out=str(tmp_path),
                          mutate="drop_noise_term")
    assert paths and not any(f.endswith(".lean") for f in os.listdir(tmp_path))   # a mutation: JSON only
    assert recheck(paths[0]).status == "violated"


def test_cli_register_and_run(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["search", "SCAFFOLD.YoungInner", "--seed", "1", "--budget", "2",
                              "--mutate", "u_constant_halved", "--out", str(tmp_path)])
    assert args.func is run
    assert run(args) == 0
    files = sorted(os.listdir(tmp_path))
    assert files == ["YoungInner-s1-b2-mutate-u_constant_halved-000.json",
                     "YoungInner-s1-b2-mutate-u_constant_halved-summary.json"]
    # the true statement: no counterexample file, only the summary of what was searched
    args = parser.parse_args(["search", "YoungInner", "--budget", "2", "--out", str(tmp_path / "none")])
    assert run(args) == 0
    assert os.listdir(tmp_path / "none") == ["YoungInner-s0-b2-summary.json"]
    # a relaxed hypothesis: exit 0 even when the inequality fails beyond it
    args = parser.parse_args(["search", "YoungInner", "--budget", "2", "--relax", "ha", "--out", str(tmp_path / "r")])
    assert run(args) == 0
    assert any(f.endswith("-000.json") for f in os.listdir(tmp_path / "r"))


def test_bad_input(tmp_path):
    with pytest.raises(InputError) as e:
        search_to_dir("Nope", seed=0, budget=1, out=str(tmp_path))
    assert e.value.argument == "lean_name"
    with pytest.raises(InputError) as e:
        search_to_dir("YoungInner", seed=0, budget=1, out=str(tmp_path), relax=["nope"])
    assert e.value.argument == "relax"
    with pytest.raises(InputError) as e:
        search_to_dir("YoungInner", seed=0, budget=1, out=str(tmp_path), mutate="nope")
    assert e.value.argument == "mutate"
    with pytest.raises(InputError) as e:
        search_to_dir("YoungInner", seed=0, budget=-1, out=str(tmp_path))
    assert e.value.argument == "budget"
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(InputError):
        load_record(str(bad))


def test_statement_options_list_every_statement_with_its_keys_and_mutations():
    rows = {name: (keys, muts) for name, keys, muts in statement_options()}
    assert list(rows) == [e.name for e in catalogue()]
    assert rows["SCAFFOLD.YoungInner"] == (["ha"], {"u_constant_halved": "a||u||^2 replaced by (a/2)||u||^2",
                                                    "factor_3": "left side 3|<u,v>| instead of 2|<u,v>|",
                                                    "drop_a_positive": "hypothesis a > 0 dropped"})
    assert "step_size" in rows["SCAFFOLD.ConvexFiniteRoundConvergence"][0]


@pytest.mark.slow
def test_run_all_one_verdict_per_statement(quick_statement_searches):
    res = quick_statement_searches                   # run_all(seed=0, quick=True), as pyfed check --quick computes it
    assert [n for n, _ in res] == [e.display for e in catalogue()]
    # no counterexample to a true statement; a finite search is inconclusive, never holds
    assert all(v.status == "inconclusive" for _, v in res), [(n, v.status) for n, v in res]
    js = statement_verdicts_json(res)
    assert [j["statement"] for j in json.loads(json.dumps(js))] == [e.display for e in catalogue()]


def test_search_library_rejects_a_negative_seed(tmp_path):
    from pyfed.search import search_to_dir
    with pytest.raises(InputError) as e:
        search_to_dir("YoungInner", seed=-1, budget=1, out=str(tmp_path))
    assert e.value.argument == "seed"


def test_search_budget_unit_is_reported(tmp_path):
    """One budget unit = one random draw; the structured cases come on top, and the summary says
    so (issue 9: --budget 1 gave 9 counterexamples without explanation)."""
    from pyfed.models.runfree.instances import STRUCTURED
    from pyfed.search import search_to_dir, summary_path
    assert search_to_dir("YoungInner", seed=1, budget=1, out=str(tmp_path)) == []
    s = json.loads(Path(summary_path(str(tmp_path), "YoungInner", 1, 1)).read_text())
    st = s["statistics"]
    assert s["budget"] == 1 and "random draws" in s["budget_unit"] and "structured" in s["budget_unit"]
    assert st["drawn"] == st["candidates"] >= STRUCTURED + 1 and st["violated"] == 0
    paths = search_to_dir("YoungInner", seed=1, budget=1, out=str(tmp_path / "m"), mutate="u_constant_halved")
    s = json.loads(Path(summary_path(str(tmp_path / "m"), "YoungInner", 1, 1, (), "u_constant_halved")).read_text())
    assert s["statistics"]["violated"] == len(paths) == s["counterexamples"] == 1     # one witness per conjunct


def test_quick_check_does_less_work_than_the_full_check(monkeypatch):
    """--quick: T = 8 rounds (40 in full) and smaller search budgets (2 random draws per statement
    of the default report instead of 8; 8 per statement of a file instead of 24), passed to every
    statement's search in catalogue order; the timing ratio itself is measured in
    benchmarks/bench_check.py, not in a timed test."""
    from types import SimpleNamespace

    from pyfed.check import default_budget
    from pyfed.checkers.registry import catalogue
    from pyfed.models.registry import MODELS
    from pyfed.search import default_statement_budget, run_all
    from pyfed.suites.scaffold import default_suite
    from pyfed.verdicts import Inconclusive

    assert {i.T for i in default_suite(quick=True)} == {8} and {i.T for i in default_suite()} == {40}
    assert default_statement_budget(True) == 2 < default_statement_budget() == 8
    assert default_budget(True) == 8 < default_budget(False) == 24
    calls = []

    def fake(self, st, *, seed, budget, **kw):
        calls.append((st.name, budget))
        return SimpleNamespace(verdict=Inconclusive(st.name, reason="not searched in this test"))
    for m in MODELS:
        monkeypatch.setattr(type(m), "search", fake)
    # the proofs of the statements are not what this test counts (tests/test_engines_proof_*.py)
    from pyfed.engines.proof.engine import ProofOutcome
    monkeypatch.setattr("pyfed.engines.proof.engine.prove_statement", lambda st, **kw: ProofOutcome())
    monkeypatch.setattr("pyfed.models.registry.published_proof_forms", lambda: [])
    seen = []
    out = run_all(seed=0, quick=True, progress=seen.append)
    assert seen == [e.display for e in catalogue()] == [name for name, _ in out]
    assert calls and {b for _, b in calls} == {2}


# ------------------------------------------------------------------- FedAvg search records

@pytest.mark.slow
@pytest.mark.parametrize("name, edit", [
    ("FedAvg.BoundedClientDrift", {"mutate": "drift_constant_18_to_1"}),
    ("FedAvg.BoundedClientDrift", {"relax": ("step_size",)}),
    ("FedAvg.ConvexFedAvgConvergence", {"mutate": "step_4_over_L"}),
])
def test_fedavg_search_records_are_counterexample_records_that_replay(tmp_path, capsys, name, edit):
    """A FedAvg record of `pyfed search --mutate/--relax` has the counterexample schema and
    `pyfed check --replay` re-decides it: the violation re-checks with both sides equal to the
    recorded ones, exit 0 (an edited statement, as `pyfed search` itself exits)."""
    from pyfed.cli import main
    from pyfed.search import SEARCH_RECORD_SCHEMA
    assert SEARCH_RECORD_SCHEMA == WITNESS_SCHEMA
    (path,) = search_to_dir(name, seed=0, budget=1, out=str(tmp_path), **edit)
    rec = load_record(path)
    assert rec["schema"] == WITNESS_SCHEMA and rec["shape"] == "fedavg_run" and rec["lean_declaration"] == name
    assert rec["mutate"] == edit.get("mutate") and rec["relax"] == list(edit.get("relax", ()))
    lhs, rhs, margin = (Fraction(rec[k]["exact"]) for k in ("lhs", "rhs", "margin"))
    assert margin == rhs - lhs < 0 and rec["exact"] is True
    assert recheck(path).status == "violated"
    capsys.readouterr()
    assert main(["check", "--replay", path]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "verdict: violated" in text and "both sides equal the recorded ones exactly" in text
    assert "the record is of an edited statement: exit 0" in text


@pytest.mark.slow
def test_a_fedavg_record_decided_in_balls_replays_and_is_counted_as_such(tmp_path, capsys):
    """Eq. (15) without its zeta term (mutation drop_heterogeneity_term) is violated by the sqrt
    family: the record holds certified rational bounds (no exact value, no float), the command
    counts it "in certified balls" (not statistical), and the replay finds the same bounds."""
    from pyfed.cli import main
    out = tmp_path / "o"
    assert main(["search", "FedAvg.ConvexFedAvgConvergence", "--mutate", "drop_heterogeneity_term", "--budget", "1",
                 "--out", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(1 in certified balls)" in text and "statistical" not in text
    (path,) = [p for p in out.glob("*.json") if not p.name.endswith("summary.json")]
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["exact"] is False and rec["lhs"]["exact"] is None and rec["rhs"] == {"exact": "0"}
    lo, hi = Fraction(rec["lhs"]["lower"]), Fraction(rec["lhs"]["upper"])
    assert 0 < lo < hi and hi - lo < Fraction(1, 10 ** 30)
    assert (Fraction(rec["margin"]["lower"]), Fraction(rec["margin"]["upper"])) == (-hi, -lo)
    assert "float" not in path.read_text(encoding="utf-8")
    assert main(["check", "--replay", str(path)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "verdict: violated" in text and "both sides' certified bounds equal the recorded ones exactly" in text


@pytest.mark.slow
def test_the_violated_count_says_one_record_is_kept_per_statement(tmp_path, capsys):
    """Two candidates violate Lemma 2 beyond its step-size hypothesis; one record (the first in
    candidate order) is written, and the summary line says so."""
    from pyfed.cli import main
    assert main(["search", "FedAvg.BoundedClientDrift", "--relax", "step_size", "--out", str(tmp_path)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert len([p for p in tmp_path.glob("*.json") if not p.name.endswith("summary.json")]) == 1
    assert "2 violated (one record per statement: its first violation in candidate order)" in text
